"""``validate``'s tools probe runs in a fork of the validator where that is safe, else in a fresh interpreter;
both children report a module's tools, its import errors, a crash, a hang and stray output the same way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_support import REPO_ROOT

from slotgraph.cli import tool_checks
from slotgraph.names import TOOLS_MODULE_PREFIX

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


@pytest.fixture(params=["fork", "spawn"])
def child(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test runs once with the probe forked and once with it spawned."""
    if request.param == "fork" and sys.platform != "linux":
        pytest.skip("the probe forks only on Linux")
    monkeypatch.setattr(tool_checks, "_fork_is_safe", lambda: request.param == "fork")
    return str(request.param)


def _tools(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "tools.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def _probe(path: Path) -> dict[str, Any] | str:
    return tool_checks._start_probe(path)


def test_both_children_build_every_tool_and_report_what_the_module_read(child: str, tmp_path: Path) -> None:
    found = _probe(_tools(tmp_path, TOOLS))
    assert isinstance(found, dict)
    assert found["import_error"] is None
    tools = {tool["name"]: tool for tool in found["tools"]}
    assert set(tools) == {"lookup", "set_city"}
    assert tools["set_city"]["error"] is None
    assert "unsupported annotation" in tools["lookup"]["error"]  # `when: object`, at its parameter
    definition = TOOLS.splitlines().index("def lookup(city: str, when: object) -> dict:") + 1
    assert tools["lookup"]["line"] == definition
    assert str(tmp_path / "tools.py") in found["dependencies"]["files"]


def test_the_fork_and_the_fresh_interpreter_print_the_same_findings(tmp_path: Path) -> None:
    if sys.platform != "linux":
        pytest.skip("the probe forks only on Linux")
    path = _tools(tmp_path, TOOLS + "\nimport not_a_module_anywhere  # noqa\n")
    forked, spawned = tool_checks._forked_probe(path), tool_checks._spawned_probe(path)
    assert isinstance(forked, dict) and isinstance(spawned, dict)
    assert forked["import_error"] == spawned["import_error"]
    assert "not_a_module_anywhere" in forked["import_error"]["message"]
    assert forked["tools"] == spawned["tools"] == []
    path.write_text(textwrap.dedent(TOOLS), encoding="utf-8")
    forked, spawned = tool_checks._forked_probe(path), tool_checks._spawned_probe(path)
    assert isinstance(forked, dict) and isinstance(spawned, dict)
    assert forked["tools"] == spawned["tools"]


def test_the_child_runs_in_the_module_s_folder_and_sees_its_siblings(child: str, tmp_path: Path) -> None:
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


def test_output_on_stdout_is_reported_not_parsed(child: str, tmp_path: Path) -> None:
    found = _probe(_tools(tmp_path, TOOLS + "\nprint('hello from tools.py')\n"))
    assert found == "the tools module printed to stdout while being imported, so it could not be checked"


def test_a_module_that_exits_is_a_failed_check_with_its_last_words(child: str, tmp_path: Path) -> None:
    found = _probe(_tools(tmp_path, TOOLS + "\nimport sys\nsys.exit('no tools for you')\n"))
    assert found == "the tools check process failed (no tools for you)"
    found = _probe(_tools(tmp_path, TOOLS + "\nimport sys\nsys.exit(3)\n"))
    assert found == "the tools check process failed (exit status 3, nothing on stderr)"


def test_a_crashing_module_never_reaches_the_validator(child: str, tmp_path: Path) -> None:
    found = _probe(_tools(tmp_path, TOOLS + "\nimport os\nos.abort()\n"))
    assert found == "the tools check process failed (killed by SIGABRT)"


def test_a_module_that_never_finishes_importing_is_stopped(
    child: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tool_checks, "PROBE_TIMEOUT_SECONDS", 0.5)
    found = _probe(_tools(tmp_path, TOOLS + "\nimport threading\nthreading.Event().wait()\n"))
    assert found == "importing the tools module took longer than 0.5 s"


def test_the_validator_s_own_streams_are_left_alone(
    child: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    print("before", end="")  # buffered in this process: a fork must not print it twice
    found = _probe(_tools(tmp_path, TOOLS + "\nimport sys\nprint('to stderr', file=sys.stderr)\n"))
    assert isinstance(found, dict)
    captured = capfd.readouterr()
    assert captured.out == "before"
    assert "to stderr" not in captured.err


@pytest.fixture
def no_tools_modules(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in [name for name in sys.modules if name.startswith(TOOLS_MODULE_PREFIX)]:
        monkeypatch.delitem(sys.modules, name)
    yield


@pytest.mark.skipif(sys.platform != "linux", reason="the probe forks only on Linux")
def test_a_fork_only_from_a_process_with_one_thread_and_no_agent_code(
    no_tools_modules: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads = [1]
    monkeypatch.setattr(threading, "active_count", lambda: threads[0])  # the test runner may run others
    assert tool_checks._fork_is_safe()
    monkeypatch.setitem(sys.modules, f"{TOOLS_MODULE_PREFIX}tools_0123456789ab", types.ModuleType("x"))
    assert not tool_checks._fork_is_safe()  # a fork would find the module loaded and not import it again
    monkeypatch.delitem(sys.modules, f"{TOOLS_MODULE_PREFIX}tools_0123456789ab")
    threads[0] = 2
    assert not tool_checks._fork_is_safe()  # a fork copies another thread's locks mid-work


def test_slotgraph_validate_forks_its_probe_on_linux(tmp_path: Path) -> None:
    """The real command: the probe's process has the validator's modules loaded (a fork), not a fresh
    interpreter's; elsewhere it is a fresh one."""
    folder = tmp_path / "agent"
    folder.mkdir()
    marker = tmp_path / "modules.json"
    (folder / "agent.yaml").write_text(
        "name: probe\ninstruction: You help.\nmodel: offline\ntools: tools.py\n"
        "dag:\n  slots:\n    - {name: city, source: user, setter: set_city, ask: 'Which city?'}\n",
        encoding="utf-8",
    )
    (folder / "tools.py").write_text(
        '"""Tools."""\n\nimport json, sys\n\n__all__ = ["set_city"]\n'
        "forked = 'slotgraph.cli.validate' in sys.modules\n"
        f"json.dump({{'validator': forked}}, open({str(marker)!r}, 'w'))\n\n\n"
        'def set_city(city: str) -> dict:\n    """Store the city."""\n'
        '    return {"stored": True, "value": city}\n',
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src"), "SLOTGRAPH_NO_CACHE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "slotgraph", "validate", str(folder)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    seen = json.loads(marker.read_text(encoding="utf-8"))
    assert seen["validator"] is (sys.platform == "linux")


@pytest.mark.skipif(sys.platform != "linux", reason="the probe forks only on Linux")
def test_a_refused_fork_falls_back_to_a_fresh_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "forked.json"
    seen = "'slotgraph.cli.tool_checks' in sys.modules"
    source = TOOLS + f"\nimport json, sys\njson.dump({seen}, open({str(marker)!r}, 'w'))\n"

    def refused() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", refused)
    found = tool_checks._forked_probe(_tools(tmp_path, source))
    assert isinstance(found, dict) and {tool["name"] for tool in found["tools"]} == {"lookup", "set_city"}
    assert json.loads(marker.read_text(encoding="utf-8")) is False  # a fresh interpreter imported it


@pytest.mark.skipif(sys.platform != "linux", reason="the probe forks only on Linux")
def test_an_interrupted_validator_takes_its_forked_child_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forked: list[int] = []
    real_fork = os.fork

    def recording() -> int:
        pid = real_fork()
        if pid:
            forked.append(pid)
        return pid

    def interrupted(fd: int, deadline: float) -> tuple[bytes, bool]:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fork", recording)
    monkeypatch.setattr(tool_checks, "_read_until_closed", interrupted)
    with pytest.raises(KeyboardInterrupt):
        tool_checks._forked_probe(_tools(tmp_path, TOOLS + "\nimport threading\nthreading.Event().wait()\n"))
    (pid,) = forked
    with pytest.raises(ChildProcessError):  # killed and already reaped: no zombie left behind
        os.waitpid(pid, os.WNOHANG)
