"""Secrets out of everything Slotgraph prints or logs: one redaction, used everywhere.

* :func:`redact_url` — a URL as it may be shown: without the password of its user part
  (``postgresql://app:***@db/app``) and without the values of secret query parameters (``?password=***``);
* :func:`redact` — any text (a log message, an error, a provider's error body) with every secret it can
  recognise replaced by ``***``: the credentials of every URL in it, ``Authorization``/``Bearer`` tokens,
  ``key=value`` and ``"key": "value"`` pairs whose key names a secret (``api_key``, ``token``,
  ``password``, ``secret``, ...), API keys of the usual shapes (``sk-…``, ``sk-ant-…``, ``AIza…``,
  ``ghp_…``, ``xox…-…``), and — wherever they appear — the values of the process's secret environment
  variables (a name ending in ``KEY``, ``TOKEN``, ``SECRET`` or ``PASSWORD``, or holding ``API_KEY``:
  ``OPENAI_API_KEY``, ``SLOTGRAPH_API_KEY``, ...; values shorter than 8 characters are left alone);
* :func:`redact_logs` — make every log record of this process go through :func:`redact` (its message and
  its traceback), whatever logger or handler it goes to. The ``slotgraph`` command and the server's worker
  processes call it at start-up; a program that embeds Slotgraph may call it too.

It is a net under what we print, not a licence to print secrets: code that shows a URL still shows
:func:`redact_url` of it.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode

__all__ = ["MASK", "redact", "redact_logs", "redact_url"]

MASK = "***"
_WORD = (
    r"(?<![a-z])(?:pass(?:word|wd)?|pwd|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|"
    r"credentials?|auth(?:orization)?)(?![a-z])"
)
"""A word that makes a parameter, field or header name a secret's (``api_key``, ``auth_token``,
``Authorization``), but not a longer word (``max_tokens``, ``author``)."""
_SECRET_NAME = re.compile(rf"(?i){_WORD}")
_SECRET_ENV = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|API_KEY[A-Z_]*)$")
_MIN_SECRET = 8
"""Environment values shorter than this are not searched for (they would mask ordinary words)."""

_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>]*")
_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}")
_PAIR = re.compile(
    rf"""(?ix)
    (["']?)([\w.-]*{_WORD}[\w.-]*)\1
    (\s*[:=]\s*)
    (?:"([^"]*)"|'([^']*)'|([^\s,;&'"}}\]]+))
    """
)
_KEY_SHAPES = re.compile(
    r"\b(sk-ant-[A-Za-z0-9_-]{8,}|sk-(?:proj-)?[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{20,}|"
    r"gh[pousr]_[A-Za-z0-9]{20,}|xox[abprs]-[A-Za-z0-9-]{10,})"
)


def redact_url(url: str) -> str:
    """``url`` without the password of its user part and the values of its secret query parameters."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    authority, slash, tail = rest.partition("/")
    if "@" in authority:
        creds, _, host = authority.rpartition("@")
        user, colon, _ = creds.partition(":")
        authority = f"{user}:{MASK}@{host}" if colon else f"{user}@{host}"
    path, question, query = tail.partition("?")
    if question and _SECRET_NAME.search(query):
        query, hash_sign, fragment = query.partition("#")
        pairs = [
            (k, MASK if _SECRET_NAME.search(k) else v) for k, v in parse_qsl(query, keep_blank_values=True)
        ]
        tail = f"{path}?{urlencode(pairs, safe='*:/')}{hash_sign}{fragment}"
    if not slash and "?" in authority:  # redis://host:6379?password=x (no path)
        host, _, query = authority.partition("?")
        return redact_url(f"{scheme}://{host}/?{query}").replace("/?", "?", 1)
    return f"{scheme}{sep}{authority}{slash}{tail}"


def _secret_values(environ: Mapping[str, str]) -> list[str]:
    values = {value for name, value in environ.items() if _SECRET_ENV.search(name.upper())}
    return sorted((v for v in values if len(v) >= _MIN_SECRET), key=len, reverse=True)


_process_secrets: list[tuple[int, list[str]]] = []
"""The secret values of ``os.environ``, with the number of variables they were read from: read again when
a variable is added or removed (reading the environment costs ~2 µs a variable, too much for every log
record)."""


def _environment_secrets() -> list[str]:
    size = len(os.environ)
    if not _process_secrets or _process_secrets[0][0] != size:
        _process_secrets[:] = [(size, _secret_values(os.environ))]
    return _process_secrets[0][1]


def redact(text: str, *, environ: Mapping[str, str] | None = None) -> str:
    """``text`` with every secret :mod:`slotgraph.redaction` recognises replaced by ``***`` (see the module
    docstring); ``environ`` (default: ``os.environ``) holds the secret values to look for."""
    if not text:
        return text
    for value in _environment_secrets() if environ is None else _secret_values(environ):
        text = text.replace(value, MASK)
    if "://" in text:
        text = _URL.sub(lambda m: redact_url(m.group(0)), text)
    text = _BEARER.sub(lambda m: f"{m.group(1)} {MASK}", text)
    if _SECRET_NAME.search(text):  # the pairs' pattern is dear; most texts name no secret at all
        text = _PAIR.sub(_masked_pair, text)
    return _KEY_SHAPES.sub(MASK, text)


def _masked_pair(match: re.Match[str]) -> str:
    quote, name, sign = match.group(1), match.group(2), match.group(3)
    if match.group(4) is not None:
        value = f'"{MASK}"'
    elif match.group(5) is not None:
        value = f"'{MASK}'"
    else:
        value = MASK
    return f"{quote}{name}{quote}{sign}{value}"


_installed = threading.Lock()
_factory_in_place: list[Callable[..., logging.LogRecord]] = []


def redact_logs() -> None:
    """Make every log record of this process pass through :func:`redact` (idempotent): its message is
    formatted and redacted when the record is made, and so is the traceback it carries."""
    with _installed:
        if _factory_in_place:
            return
        previous = logging.getLogRecordFactory()

        def redacting(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            _redact_record(record)
            return record

        _factory_in_place.append(redacting)
        logging.setLogRecordFactory(redacting)


_FORMATTER = logging.Formatter()


def _redact_record(record: logging.LogRecord) -> None:
    """Redact a record in place. Its message keeps its format and arguments when redacting the arguments
    one by one gives the redacted message (a formatter may read the arguments: uvicorn's access log does);
    otherwise the message becomes the redacted text, without arguments."""
    try:
        message = record.getMessage()
    except Exception:  # a record whose arguments do not fit its format: leave it to the handler to report
        return
    redacted = redact(message)
    if redacted != message:
        args = record.args
        if isinstance(args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in args)
        elif isinstance(args, Mapping):
            record.args = {k: redact(v) if isinstance(v, str) else v for k, v in args.items()}
        try:
            kept = record.getMessage() == redacted
        except Exception:
            kept = False
        if not kept:
            record.msg, record.args = redacted, None
    if record.exc_info and not record.exc_text:
        record.exc_text = redact(_FORMATTER.formatException(record.exc_info))
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
