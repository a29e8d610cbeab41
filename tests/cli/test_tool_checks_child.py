"""``validate --check-tools`` imports the tools module in a child process: it reports the module's tools, its
import errors, a crash, a hang and stray output, and nothing the module does reaches the validator."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from slotgraph.cli import tool_checks

TOOLS = '''
"""Tools."""

__all__ = ["lookup", "set_city"]


def set_city(city: str) -> dict:
    """Store the city."""
    return {"stored": True, "value": city}


def lookup(city: str, when: object) -> dict:
    """Look it up."""
    return {"ok": True}
'''


def _tools(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "tools.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def _probe(path: Path) -> dict[str, Any] | str:
    return tool_checks._run_probe(path)


def test_the_child_builds_every_tool(tmp_path: Path) -> None:
    found = _probe(_tools(tmp_path, TOOLS))
    assert isinstance(found, dict)
    assert found["import_error"] is None
    tools = {tool["name"]: tool for tool in found["tools"]}
    assert set(tools) == {"lookup", "set_city"}
    assert tools["set_city"]["error"] is None
    assert "unsupported annotation" in tools["lookup"]["error"]  # `when: object`, at its parameter
    definition = TOOLS.splitlines().index("def lookup(city: str, when: object) -> dict:") + 1
    assert tools["lookup"]["line"] == definition


def test_an_import_error_is_reported_with_no_tools(tmp_path: Path) -> None:
    found = _probe(_tools(tmp_path, TOOLS + "\nimport not_a_module_anywhere  # noqa\n"))
    assert isinstance(found, dict) and found["tools"] == []
    assert "not_a_module_anywhere" in found["import_error"]["message"]


def test_the_child_runs_in_the_module_s_folder_and_sees_its_siblings(tmp_path: Path) -> None:
    (tmp_path / "helpers_for_probe_test.py").write_text("PREFIX = 'x'\n", encoding="utf-8")
    marker = tmp_path / "seen.json"
    source = TOOLS + textwrap.dedent(
        f"""
        import json, os, sys
        import helpers_for_probe_test
        json.dump({{"cwd": os.getcwd(), "argv": sys.argv[1:], "bytecode": sys.dont_write_bytecode}},
                  open({str(marker)!r}, "w"))
        """
    )
    found = _probe(_tools(tmp_path, source))
    assert isinstance(found, dict) and found["import_error"] is None
    seen = json.loads(marker.read_text(encoding="utf-8"))
    assert seen == {"cwd": str(tmp_path), "argv": [str(tmp_path / "tools.py")], "bytecode": True}
    assert not (tmp_path / "__pycache__").exists()  # no bytecode left beside the user's files


def test_output_on_stdout_is_reported_not_parsed(tmp_path: Path) -> None:
    found = _probe(_tools(tmp_path, TOOLS + "\nprint('hello from tools.py')\n"))
    assert found == "the tools module printed to stdout while being imported, so it could not be checked"


def test_a_module_that_exits_is_a_failed_check_with_its_last_words(tmp_path: Path) -> None:
    found = _probe(_tools(tmp_path, TOOLS + "\nimport sys\nsys.exit('no tools for you')\n"))
    assert found == "the tools check process failed (no tools for you)"
    found = _probe(_tools(tmp_path, TOOLS + "\nimport sys\nsys.exit(3)\n"))
    assert found == "the tools check process failed (exit status 3, nothing on stderr)"


def test_a_crashing_module_never_reaches_the_validator(tmp_path: Path) -> None:
    found = _probe(_tools(tmp_path, TOOLS + "\nimport os\nos.abort()\n"))
    assert found == "the tools check process failed (killed by SIGABRT)"


def test_a_module_that_never_finishes_importing_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tool_checks, "PROBE_TIMEOUT_SECONDS", 0.5)
    found = _probe(_tools(tmp_path, TOOLS + "\nimport threading\nthreading.Event().wait()\n"))
    assert found == "importing the tools module took longer than 0.5 s"


def test_the_validator_s_own_streams_are_left_alone(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    print("before", end="")  # buffered in this process: the child must not print it
    found = _probe(_tools(tmp_path, TOOLS + "\nimport sys\nprint('to stderr', file=sys.stderr)\n"))
    assert isinstance(found, dict)
    captured = capfd.readouterr()
    assert captured.out == "before"
    assert "to stderr" not in captured.err
