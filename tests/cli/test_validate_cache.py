"""``slotgraph validate``'s cache (:mod:`slotgraph.cli.validate_cache`): a passing path validated again
unchanged is answered from the cache with the same output; any change to what it read is a miss.

Misses run the real command in-process (``invoke``); hits call the fast path :func:`answer_from_cache` that
``slotgraph.cli.main.main`` runs before typer. ``tests/cli/test_lazy_commands.py`` checks that a hit in a
real process imports none of pydantic, typer or rich and starts no probe.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import FIXTURES, REPO_ROOT, Invoke

from slotgraph.cli.validate_cache import (
    DISABLE_ENV,
    Dependencies,
    answer_from_cache,
    cache_dir,
    recording,
    store,
)

HELPER_TOOL = '''
__all__ += ["format_guest_name"]


def format_guest_name(name: str) -> str:
    """A public helper: it becomes a tool the DAG never names (an undeclared_tool warning)."""
    return name.title()
'''


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv(DISABLE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "slotgraph" / "validate"


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    """A copy of Bella Notte whose tools module has an undeclared helper: valid, with a warning."""
    folder = tmp_path / "bella"
    shutil.copytree(REPO_ROOT / "examples" / "bella_notte", folder)
    with (folder / "tools.py").open("a", encoding="utf-8") as tools:
        tools.write(HELPER_TOOL)
    return folder


def _hit(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int | None, str]:
    capsys.readouterr()
    code = answer_from_cache(args)
    return code, capsys.readouterr().out


@pytest.mark.parametrize("json_output", [False, True], ids=["text", "json"])
def test_a_hit_prints_exactly_what_the_passing_run_printed(
    cache: Path, agent: Path, invoke: Invoke, capsys: pytest.CaptureFixture[str], json_output: bool
) -> None:
    workflow = REPO_ROOT / "examples" / "purchase_refund" / "workflow.yaml"
    args = [*(["--json"] if json_output else []), str(agent), str(workflow)]
    assert answer_from_cache(args) is None  # nothing stored yet
    missed = invoke(["validate", *args])
    assert missed.exit_code == 0, missed.output
    assert "format_guest_name" in missed.stdout  # its warning is part of what the hit prints
    assert len(list(cache.glob("*.json"))) == 3  # one entry per path, and the tools probe's output
    code, output = _hit(args, capsys)
    assert code == 0
    assert output == missed.stdout


@pytest.mark.parametrize(
    "edit",
    ["tools", "instruction", "imported module", "new file beside agent.yaml"],
)
def test_any_change_to_what_validation_read_is_a_miss(
    cache: Path, agent: Path, invoke: Invoke, capsys: pytest.CaptureFixture[str], edit: str
) -> None:
    (agent / "helpers.py").write_text('GREETING = "Welcome"\n', encoding="utf-8")
    tools = agent / "tools.py"
    tools.write_text(tools.read_text(encoding="utf-8") + "\nimport helpers as _helpers\n", encoding="utf-8")
    assert invoke(["validate", str(agent)]).exit_code == 0
    assert _hit([str(agent)], capsys)[0] == 0
    if edit == "tools":
        tools.write_text(tools.read_text(encoding="utf-8") + "\ndef broken(:\n", encoding="utf-8")
    elif edit == "instruction":
        (agent / "instruction.md").write_text("You take reservations.\n", encoding="utf-8")
    elif edit == "imported module":
        (agent / "helpers.py").write_text('GREETING = "Hello"\n', encoding="utf-8")
    else:
        (agent / "app.yaml").write_text("agents: []\n", encoding="utf-8")
    assert _hit([str(agent)], capsys)[0] is None
    if edit == "tools":  # the new problem is reported in full, never hidden by the old pass
        again = invoke(["validate", str(agent)])
        assert again.exit_code == 1 and "syntax error in the tools module" in again.stdout


def test_a_config_edit_reuses_the_probe_of_an_unchanged_tools_module(
    cache: Path, agent: Path, invoke: Invoke, capsys: pytest.CaptureFixture[str]
) -> None:
    imports = agent.parent / "imports.log"
    with (agent / "tools.py").open("a", encoding="utf-8") as tools:
        tools.write(f"\nwith open({str(imports)!r}, 'a') as _log:\n    _log.write('imported\\n')\n")
    assert invoke(["validate", str(agent)]).exit_code == 0
    dag = agent / "dag.yaml"
    dag.write_text(dag.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert _hit([str(agent)], capsys)[0] is None
    edited = invoke(["validate", str(agent)])
    assert imports.read_text(encoding="utf-8").count("imported") == 1  # the probe's output was reused
    assert edited.exit_code == 0 and "format_guest_name" in edited.stdout  # warnings still computed
    fresh = invoke(["validate", "--no-cache", str(agent)])
    assert imports.read_text(encoding="utf-8").count("imported") == 2
    assert fresh.stdout == edited.stdout


def test_a_probe_that_found_a_problem_is_never_reused(cache: Path, tmp_path: Path) -> None:
    from slotgraph.cli.validate_cache import cached_probe, store_probe

    tools = str(tmp_path / "tools.py")
    clean = {"import_error": None, "tools": [{"name": "f", "error": None}], "dependencies": {}}
    store_probe(tools, clean)
    assert cached_probe(tools) == clean
    for failing in (
        {"import_error": {"message": "boom"}, "tools": []},
        {"import_error": None, "tools": [{"name": "f", "error": "unsupported annotation"}]},
    ):
        store_probe(tools, {**failing, "dependencies": {}})
        assert cached_probe(tools) == clean  # not overwritten, since never stored
    (next(cache.glob("*.json"))).write_text(json.dumps({"format": 2, "probe": failing}), encoding="utf-8")
    assert cached_probe(tools) is None


def test_a_tools_module_appearing_beside_a_bare_dag_is_a_miss(
    cache: Path, tmp_path: Path, invoke: Invoke, capsys: pytest.CaptureFixture[str]
) -> None:
    dag = tmp_path / "flow" / "dag.yaml"
    dag.parent.mkdir()
    shutil.copy(REPO_ROOT / "examples" / "bella_notte" / "dag.yaml", dag)
    assert invoke(["validate", str(dag)]).exit_code == 0
    assert _hit([str(dag)], capsys)[0] == 0
    (dag.parent / "tools.py").write_text('"""No tools."""\n', encoding="utf-8")
    assert _hit([str(dag)], capsys)[0] is None


def test_failing_results_are_never_stored(cache: Path, invoke: Invoke, tmp_path: Path) -> None:
    assert invoke(["validate", str(FIXTURES / "broken_dag.yaml")]).exit_code == 1
    assert invoke(["validate", str(tmp_path / "missing")]).exit_code == 2
    assert not cache.exists() or not list(cache.glob("*.json"))


def test_one_miss_among_the_paths_runs_them_all(
    cache: Path, agent: Path, invoke: Invoke, capsys: pytest.CaptureFixture[str]
) -> None:
    assert invoke(["validate", str(agent)]).exit_code == 0
    assert _hit([str(agent), str(FIXTURES / "broken_dag.yaml")], capsys)[0] is None


def test_a_corrupt_entry_is_a_miss_then_replaced(
    cache: Path, agent: Path, invoke: Invoke, capsys: pytest.CaptureFixture[str]
) -> None:
    assert invoke(["validate", str(agent)]).exit_code == 0
    entries = list(cache.glob("*.json"))  # the path's and the tools probe's
    assert len(entries) == 2
    for garbage in ["{not json", "[]", '{"format": 2}', json.dumps({"format": 2, "result": {}, "lines": 3})]:
        for entry in entries:
            entry.write_text(garbage, encoding="utf-8")
        assert _hit([str(agent)], capsys)[0] is None
    for entry in entries:
        entry.write_bytes(b"\xff\xfe")
    assert _hit([str(agent)], capsys)[0] is None
    again = invoke(["validate", str(agent)])
    assert again.exit_code == 0 and "format_guest_name" in again.stdout
    assert _hit([str(agent)], capsys)[0] == 0


def test_no_cache_flag_and_environment_variable_bypass_it(
    cache: Path,
    agent: Path,
    invoke: Invoke,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert invoke(["validate", "--no-cache", str(agent)]).exit_code == 0
    assert not cache.exists()  # nothing written
    # a forged entry whose dependencies trivially hold: the cache answers it, a bypass never reads it
    store(str(agent), Dependencies(), {"status": "valid", "path": "forged"}, ["forged"], "forged\n")
    assert _hit([str(agent)], capsys) == (0, "forged\n")
    assert _hit(["--no-cache", str(agent)], capsys)[0] is None
    assert "forged" not in invoke(["validate", "--no-cache", str(agent)]).stdout
    monkeypatch.setenv(DISABLE_ENV, "1")
    assert _hit([str(agent)], capsys)[0] is None


@pytest.mark.parametrize(
    "args", [[], ["--help"], ["--", "x"], ["--json"], ["-x", "a"], [""], ["--json=1", "a"]], ids=repr
)
def test_other_arguments_go_to_the_full_command(cache: Path, args: list[str]) -> None:
    assert answer_from_cache(args) is None


def test_the_cache_lives_under_xdg_cache_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "slotgraph" / "validate"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")  # invalid per the XDG spec: ignored
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "slotgraph" / "validate"


def test_recording_sees_files_read_directories_listed_and_modules(tmp_path: Path) -> None:
    read, written = tmp_path / "read.yaml", tmp_path / "written.txt"
    read.write_text("a: 1\n", encoding="utf-8")
    (tmp_path / "listed").mkdir()
    with recording() as deps:
        read.read_text(encoding="utf-8")
        written.write_text("not an input", encoding="utf-8")
        os.listdir(tmp_path / "listed")
        (tmp_path / "absent.yaml").exists()  # a stat: seen only through the listing of its directory
        with contextlib.suppress(FileNotFoundError):
            (tmp_path / "absent.txt").read_text(encoding="utf-8")
    assert deps.files[str(read)] == hashlib.sha256(b"a: 1\n").hexdigest()
    assert deps.files[str(tmp_path / "absent.txt")] == "-"
    assert str(written) not in deps.files
    assert {str(tmp_path / "listed"), str(tmp_path)} <= set(deps.listings)
    assert os.path.abspath(hashlib.__file__) in deps.modules
    assert deps.unchanged()
    (tmp_path / "absent.txt").write_text("now here", encoding="utf-8")
    assert not deps.unchanged()


def test_the_probe_reports_what_importing_the_tools_module_read(agent: Path) -> None:
    from slotgraph.cli.tool_checks import probe_env

    (agent / "helpers.py").write_text("VALUE = 1\n", encoding="utf-8")
    tools = agent / "tools.py"
    tools.write_text(tools.read_text(encoding="utf-8") + "\nimport helpers as _helpers\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "slotgraph.cli.tool_probe", str(tools)],
        cwd=agent,
        env=probe_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    found = json.loads(done.stdout)["dependencies"]
    assert {str(tools), str(agent / "helpers.py")} <= set(found["files"])
    assert str(agent) in found["listings"]
    assert str(agent / "helpers.py") in found["modules"]
    assert any("pydantic" in module for module in found["modules"])


def test_a_real_hit_prints_the_same_bytes(cache: Path, agent: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}

    def run(*args: str, **extra: str) -> bytes:
        command = [sys.executable, "-m", "slotgraph", "validate", *args]
        return subprocess.run(
            command, env={**env, **extra}, capture_output=True, timeout=120, check=True
        ).stdout

    run(str(agent))  # stores the entry
    for args in (["--json", str(agent)], [str(agent)]):
        for extra in ({}, {"FORCE_COLOR": "1"}):  # plain text, and rich's colours through the stored markup
            missed, hit = run("--no-cache", *args, **extra), run(*args, **extra)
            assert hit == missed, (args, extra)
            assert (b"\x1b[" in hit) == (bool(extra) and "--json" not in args)
