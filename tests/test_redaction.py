"""Secrets never reach what Slotgraph prints or logs: one redaction (``slotgraph.redaction``) used everywhere.

The server's start-up banner, with a real ``slotgraph serve``: tests/server/test_serve_cli.py; a provider's
error body quoting the key: tests/models/test_openai_server.py.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from slotgraph.redaction import redact, redact_logs, redact_url


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://app:s3cret-pw@db:5432/app", "postgresql://app:***@db:5432/app"),
        ("redis://:s3cret-pw@127.0.0.1:6379/0?prefix=x:", "redis://:***@127.0.0.1:6379/0?prefix=x:"),
        ("redis://user@host/0", "redis://user@host/0"),
        (
            "postgresql://db/app?sslmode=require&password=hunter22",
            "postgresql://db/app?sslmode=require&password=***",
        ),
        ("redis://h:6379?password=abc", "redis://h:6379?password=***"),
        ("sqlite:///var/lib/sessions.db?lock_ttl=5", "sqlite:///var/lib/sessions.db?lock_ttl=5"),
        ("memory://", "memory://"),
        ("not a url", "not a url"),
    ],
)
def test_a_url_is_shown_without_its_password(url: str, shown: str) -> None:
    assert redact_url(url) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "HTTP 401: Incorrect API key provided: sk-proj-Abcdefghijklmnop0123",
            "HTTP 401: Incorrect API key provided: ***",
        ),
        ('{"error": {"api_key": "AIzaSyA1234567890123456789012"}}', '{"error": {"api_key": "***"}}'),
        ("cannot reach redis://:pw-123456@cache:6379/0", "cannot reach redis://:***@cache:6379/0"),
        ("Authorization: Bearer abcdefghijklmnop", "Authorization: *** ***"),
        ("token=abc&x=1, secret: 'xyz', password=\"p\"", "token=***&x=1, secret: '***', password=\"***\""),
        ("key ghp_abcdefghijklmnopqrstuvwxyz0123 leaked", "key *** leaked"),
    ],
)
def test_secrets_in_text_are_masked(text: str, shown: str) -> None:
    assert redact(text, environ={}) == shown


def test_ordinary_text_is_left_alone() -> None:
    text = "usage: max_tokens=12 prompt_tokens: 5 author=me; the tool book raised KeyError: 'guests'"
    assert redact(text, environ={}) == text


def test_the_values_of_secret_environment_variables_are_masked_wherever_they_appear() -> None:
    environ = {"MY_SERVICE_TOKEN": "plain-looking-value", "SHORT_KEY": "abc", "HOME": "/root/long/path"}
    assert redact("got plain-looking-value back", environ=environ) == "got *** back"
    assert redact("abc and /root/long/path stay", environ=environ) == "abc and /root/long/path stay"


@pytest.fixture
def redacted_logs(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(logging, "_logRecordFactory", logging.getLogRecordFactory())
    import slotgraph.redaction as redaction

    monkeypatch.setattr(redaction, "_factory_in_place", [])
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-Abcdefghijklmnop0123456789")
    redact_logs()
    yield


def test_every_log_record_is_redacted_message_and_traceback(
    redacted_logs: None, caplog: pytest.LogCaptureFixture
) -> None:
    log = logging.getLogger("anything.at.all")
    log.warning("connecting to %s", "postgresql://app:s3cret-pw@db/app")
    try:
        raise RuntimeError("the provider said: sk-proj-Abcdefghijklmnop0123456789 is wrong")
    except RuntimeError:
        log.exception("the call failed")
    assert "s3cret-pw" not in caplog.text and "postgresql://app:***@db/app" in caplog.text
    assert "Abcdefghijklmnop" not in caplog.text and "the provider said: *** is wrong" in caplog.text


def test_a_formatter_that_reads_the_arguments_still_gets_them(redacted_logs: None) -> None:
    """uvicorn's access log unpacks ``record.args``: a redacted record keeps its arguments, each redacted."""
    record = logging.getLogger("uvicorn.access").makeRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/v1/x?token=abc", "1.1", 200), None,
    )  # fmt: skip
    assert record.args == ("127.0.0.1:5000", "GET", "/v1/x?token=***", "1.1", 200)
    assert record.getMessage() == '127.0.0.1:5000 - "GET /v1/x?token=*** HTTP/1.1" 200'
