"""``slotgraph chat``: scripted through stdin with a ``scripted:FILE.json`` model."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

from slotgraph.cli.chat import chat, chat_command

AGENT_DIR = Path(__file__).parents[2] / "examples" / "bella_notte"
SCRIPT: list[dict[str, object]] = [
    {"text": "Welcome to Bella Notte! How many guests will be joining us?"},
    {
        "tool_calls": [
            {"name": "set_reservation_basics", "args": {"party_size": 4, "preferred_date": "2030-07-17"}}
        ]
    },
    {"text": "Just to confirm: 4 guests on July 17th?", "expect_hidden": ["find_available_times"]},
]


def _script(tmp_path: Path, steps: list[dict[str, object]] = SCRIPT) -> Path:
    file = tmp_path / "script.json"
    file.write_text(json.dumps(steps))
    return file


def _app() -> typer.Typer:
    app = typer.Typer()
    app.command()(chat_command)
    return app


def test_piped_stdin_plays_one_turn_per_line_and_writes_a_transcript(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    result = CliRunner().invoke(
        _app(),
        [
            str(AGENT_DIR),
            "--model",
            f"scripted:{_script(tmp_path)}",
            "--show-state",
            "--transcript",
            str(transcript),
        ],
        input="Hi\n\nA table for 4 on July 17th 2030\nyes\n",
    )
    assert result.exit_code == 0, result.output
    assert "agent> Welcome to Bella Notte! How many guests will be joining us?" in result.output
    assert "agent> We have" in result.output  # the engine's preempted reply after auto-confirm
    assert "pending" in result.output and "hidden tools" in result.output
    rows = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert [r["text"] for r in rows if r["kind"] == "user"] == [
        "Hi",
        "A table for 4 on July 17th 2030",
        "yes",
    ]
    assert rows[-1]["kind"] == "final_state"
    assert rows[-1]["state"]["filled"]["party_size"] == 4
    assert {"tool_call", "tool_result", "state_snapshot", "text"} <= {r["kind"] for r in rows}


def test_a_model_spec_that_cannot_be_built_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    console = Console(file=io.StringIO(), width=200)
    code = chat(AGENT_DIR, "openai:gpt-4o", False, None, None, False, console=console, lines=[])
    assert code == 2
    assert "needs an API key: set OPENAI_API_KEY" in console.file.getvalue()  # type: ignore[attr-defined]


def test_bad_event_data_and_missing_paths_are_usage_errors(tmp_path: Path) -> None:
    console = Console(file=io.StringIO(), width=200)
    model = f"scripted:{_script(tmp_path)}"
    assert chat(AGENT_DIR, model, False, "[1]", None, False, console=console, lines=[]) == 2
    assert chat(tmp_path / "nope", model, False, None, None, False, console=console, lines=[]) == 2
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert "--event-data must be a JSON object" in output and "no such file or directory" in output


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_event_data_with_a_non_json_number_is_a_usage_error(tmp_path: Path, constant: str) -> None:
    console = Console(file=io.StringIO(), width=200)
    model = f"scripted:{_script(tmp_path)}"
    event_data = f'{{"party_size": {constant}}}'
    assert chat(AGENT_DIR, model, False, event_data, None, False, console=console, lines=[]) == 2
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert f"--event-data: {constant} is not a JSON number" in output and "use finite numbers" in output


def test_a_script_mismatch_fails_the_turn_with_exit_1(tmp_path: Path) -> None:
    console = Console(file=io.StringIO(), width=200)
    code = chat(AGENT_DIR, f"scripted:{_script(tmp_path, [])}", False, None, None, False, console=console,
                lines=["Hi"])  # fmt: skip
    assert code == 1
    assert "unexpected model call #1" in console.file.getvalue()  # type: ignore[attr-defined]


def test_debug_prints_the_engines_log_and_adds_it_to_the_transcript(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    args = [str(AGENT_DIR), "--model", f"scripted:{_script(tmp_path, SCRIPT[:1])}"]
    result = CliRunner().invoke(_app(), [*args, "--debug", "--transcript", str(transcript)], input="Hi\n")
    assert result.exit_code == 0, result.output
    assert "[slot-filling:invoke] n=1 phase='collection'" in result.output
    rows = [json.loads(line) for line in transcript.read_text().splitlines()]
    debug = [r for r in rows if r["kind"] == "debug"]
    assert debug and debug[-1]["tag"] == "invoke" and debug[-1]["turn"] == 1
    quiet = CliRunner().invoke(_app(), args, input="Hi\n")
    assert quiet.exit_code == 0 and "[slot-filling:" not in quiet.output
