"""``slotgraph chat`` options and commands through piped stdin: the pinned clock, /help, the end line."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest
from cli_support import REPO_ROOT, Invoke
from typer.testing import CliRunner

from slotgraph.cli.chat import parse_clock
from slotgraph.cli.main import create_app

BELLA = str(REPO_ROOT / "examples" / "bella_notte")


def _chat(*options: str, stdin: str) -> tuple[int, str]:
    result = CliRunner().invoke(create_app(), ["chat", BELLA, *options], input=stdin)
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("options", "day"),
    [(["--today", "2026-07-10"], "July 11th"), (["--now", "2026-12-31T20:00"], "January 1st")],
)
def test_the_clock_can_be_pinned(options: list[str], day: str) -> None:
    code, output = _chat(*options, stdin="Hi\nA table for 4 tomorrow\n")
    assert code == 0, output
    assert f"agent> Just to confirm — 4 guests, on {day}. Is that correct?" in output


def test_parse_clock() -> None:
    assert parse_clock(None, None) is None
    today = parse_clock("2026-07-10", None)
    assert today is not None and today() == datetime.datetime(2026, 7, 10, 12, 0)
    now = parse_clock(None, "2026-07-10T18:30")
    assert now is not None and now() == datetime.datetime(2026, 7, 10, 18, 30)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--today", "10/07/2026"], "--today '10/07/2026' is not a date: write YYYY-MM-DD"),
        (["--now", "tomorrow"], "--now 'tomorrow' is not a date and time: write YYYY-MM-DDTHH:MM"),
        (["--today", "2026-07-10", "--now", "2026-07-10T18:00"], "pass --today or --now, not both"),
    ],
)
def test_a_bad_clock_is_a_usage_error(invoke: Invoke, options: list[str], message: str) -> None:
    result = invoke(["chat", BELLA, *options])
    assert result.exit_code == 2
    assert message in result.output


def test_commands_are_not_sent_to_the_agent_and_the_chat_says_how_it_ended() -> None:
    code, output = _chat("--today", "2026-07-10", stdin="Hi\n/help\n/state\n/bogus\n")
    assert code == 0, output
    assert output.count("you> ") == 1  # only "Hi" was a turn
    assert "/quit, /exit   leave" in output
    assert "asking next   party_size" in output  # /state printed the panel
    assert "unknown command /bogus — /help lists them" in output
    assert output.rstrip().endswith("── end of input after 1 turn (status in_progress) ──")


def test_a_completed_booking_ends_the_chat() -> None:
    turns = ["Hi", "A table for 4 on July 17th", "yes", "7:30 pm", "yes", "under Chen", "no", "yes", "more?"]
    code, output = _chat("--today", "2026-07-10", stdin="\n".join(turns) + "\n")
    assert code == 0, output
    assert "Your reservation is confirmed!" in output
    assert "you> more?" not in output  # nothing is sent after the session is over
    assert output.rstrip().endswith("── session over: completed after 8 turns ──")


def test_a_multi_agent_app_chats_and_prints_each_hand_over() -> None:
    team = str(REPO_ROOT / "examples" / "bella_notte_team")
    stdin = "Hi, I'd like to book a table\n4 guests\nyes\nCould I order takeout?\n"
    result = CliRunner().invoke(create_app(), ["chat", team, "--today", "2026-07-10"], input=stdin)
    assert result.exit_code == 0, result.output
    assert "— host hands over to reservations" in result.output
    assert "— reservations hands over to takeout" in result.output
    assert "— guard no_guarantees (pattern): replace" in result.output
    assert "guaranteed" not in result.output


def test_tools_that_read_the_date_themselves_see_the_pinned_day(tmp_path: Path) -> None:
    (tmp_path / "agent.yaml").write_text(
        "name: clock\ninstruction: Say the day.\ntools: tools.py\ndag: dag.yaml\n"
    )
    (tmp_path / "dag.yaml").write_text(
        "slots:\n  - {name: topic, source: user, setter: set_topic, ask: 'Topic?'}\ntasks: []\n"
    )
    (tmp_path / "tools.py").write_text(
        "import datetime\n\n\n"
        "def set_topic(topic: str = '') -> dict:\n"
        '    """Record the topic.\n\n    Args:\n        topic: The topic.\n    """\n'
        "    return {'stored': True, 'value': f'{topic} on {datetime.date.today().isoformat()}'}\n"
    )
    result = CliRunner().invoke(
        create_app(),
        ["chat", str(tmp_path), "--today", "2025-03-14", "--show-state"],
        input="cats\n",
    )
    assert result.exit_code == 0, result.output
    assert "on 2025-03-14" in result.output


@pytest.mark.parametrize(
    ("args", "line"),
    [
        ({}, "— handed over to a human"),
        ({"reason": "wants a manager"}, "— handed over to a human: wants a manager"),
    ],
)
def test_a_hand_over_says_why_only_when_a_reason_was_given(
    tmp_path: Path, args: dict[str, str], line: str
) -> None:
    script = tmp_path / "escalate.json"
    script.write_text(json.dumps([{"tool_calls": [{"name": "escalate", "args": args}]}]), encoding="utf-8")
    code, output = _chat("--today", "2026-07-10", "--model", f"scripted:{script}", stdin="get me a human\n")
    assert code == 0, output
    assert line in output.splitlines()


def test_restart_starts_a_new_session_with_the_same_options(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    stdin = "A table for 4 tomorrow\n/restart\n/state\nA table for 2 tomorrow\n"
    code, output = _chat("--today", "2026-07-10", "--transcript", str(transcript), stdin=stdin)
    assert code == 0, output
    lines = output.splitlines()
    restarted = lines.index("── restarted after 1 turn (status in_progress): a new session ──")
    assert "agent> Just to confirm — 4 guests, on July 11th. Is that correct?" in lines[:restarted]
    after = "\n".join(lines[restarted:])
    assert "│ pending       —" in after and "│ filled        —" in after  # /state: a new session, empty
    assert "agent> Just to confirm — 2 guests, on July 11th. Is that correct?" in after  # --today kept
    assert lines[-1] == "── end of input after 1 turn (status in_progress) ──"
    rows = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    kinds = [row["kind"] for row in rows if row["kind"] in ("user", "final_state", "restart")]
    assert kinds == ["user", "final_state", "restart", "user", "final_state"]
    assert rows[-1]["state"]["pending"]["party_size"] == 2


def test_restart_is_listed_in_the_help() -> None:
    code, output = _chat(stdin="/help\n")
    assert code == 0, output
    assert "/restart       start over: a new session with the same agent and options" in output
