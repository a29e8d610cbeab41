"""Commands load lazily: ``slotgraph --help`` imports no command module; each summary is the command's own.

Start-up time is measured by ``benchmarks/startup.py``; these tests keep the mechanism from eroding (a
command module imported by ``main`` again, a summary that drifted from the command's help).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from slotgraph.cli.main import COMMANDS, create_app

ROOT = Path(__file__).resolve().parents[2]
_PROBE = """
import json, sys
from slotgraph.cli.main import main
sys.argv = ["slotgraph", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print("\\n" + json.dumps(sorted(name for name in sys.modules if name.startswith(("slotgraph", "rich")))))
"""


def _modules_after(*args: str, env: dict[str, str] | None = None, prefixes: tuple[str, ...] = ()) -> set[str]:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _PROBE.replace('("slotgraph", "rich")', repr(("slotgraph", "rich", *prefixes))),
            *args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def _slotgraph_modules_after(*args: str) -> set[str]:
    return {name for name in _modules_after(*args) if name.startswith("slotgraph")}


def test_help_imports_no_command_module() -> None:
    loaded = _slotgraph_modules_after("--help")
    expected = {
        "slotgraph",
        "slotgraph.cli",
        "slotgraph.cli.main",
        "slotgraph.cli.app",
        "slotgraph.cli.help_texts",
    }
    assert loaded <= expected, sorted(loaded)


@pytest.mark.parametrize("args", [("--help",), ()], ids=["--help", "no arguments"])
def test_root_help_does_not_load_rich(args: tuple[str, ...]) -> None:
    # rich costs ~100 ms to import; the root help is drawn by click's plain formatter (subcommands keep rich)
    loaded = _modules_after(*args)
    assert not any(name == "rich" or name.startswith("rich.") for name in loaded), sorted(loaded)


def test_root_help_lists_every_command_with_examples_in_plain_text() -> None:
    result = CliRunner().invoke(create_app(), ["--help"], prog_name="slotgraph")
    assert result.exit_code == 0, result.output
    for command in COMMANDS:
        assert f"  {command.name} " in result.output
    assert "needs slotgraph[queue])" in result.output  # rich markup used to swallow "[queue]"
    assert "slotgraph validate my_agent" in result.output and "Exit codes: 0 ok" in result.output
    assert "[bold]" not in result.output and "[dim]" not in result.output


def test_validate_imports_neither_the_server_nor_the_runtime() -> None:
    loaded = _modules_after("validate", str(ROOT / "examples" / "bella_notte"), prefixes=("asyncio",))
    assert "slotgraph.cli.validate" in loaded
    assert not any(
        name.startswith(("slotgraph.server", "slotgraph.evals", "slotgraph.cli.chat")) for name in loaded
    )
    # the agent-logic layer loads lazily: its checks, not the renderer, rules, gates, guards, topics, session
    assert {name for name in loaded if name.startswith("slotgraph.logic.")} <= {
        "slotgraph.logic.templates",
        "slotgraph.logic.validation",
    }
    assert "asyncio" not in loaded


def test_validate_answered_from_its_cache_loads_no_framework_and_starts_no_probe(tmp_path: Path) -> None:
    """An unchanged passing app is answered by ``slotgraph.cli.validate_cache`` before typer is imported: no
    pydantic, typer, rich, config layer or tools probe (its ``tools.py`` would log the import)."""
    agent = tmp_path / "bella"
    shutil.copytree(ROOT / "examples" / "bella_notte", agent)
    imports = tmp_path / "imports.log"
    with (agent / "tools.py").open("a", encoding="utf-8") as tools:
        tools.write(f"\nwith open({str(imports)!r}, 'a') as _log:\n    _log.write('imported\\n')\n")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("SLOTGRAPH_NO_CACHE", None)
    missed = _modules_after("validate", str(agent), env=env)
    assert "slotgraph.cli.validate" in missed
    assert imports.read_text(encoding="utf-8") == "imported\n"
    heavy = ("pydantic", "typer", "click", "yaml")
    loaded = _modules_after("validate", str(agent), env=env, prefixes=heavy)
    assert imports.read_text(encoding="utf-8") == "imported\n"  # no probe process this time
    assert "slotgraph.cli.validate_cache" in loaded
    assert not {name for name in loaded if name.startswith(("rich", "slotgraph.config", *heavy))}, sorted(
        loaded
    )
    assert "slotgraph.cli.validate" not in loaded


def test_a_first_validation_loads_no_cli_framework(tmp_path: Path) -> None:
    """Plain ``validate`` arguments are validated by ``slotgraph.cli.validate_fast`` before typer loads (it
    builds a pydantic ``TypeAdapter`` per parameter); ``--help`` and mistakes still go to typer."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "SLOTGRAPH_NO_CACHE": "1"}
    bella = str(ROOT / "examples" / "bella_notte")
    for args in ((bella,), (bella, "--json"), ("--no-cache", bella)):
        loaded = _modules_after("validate", *args, env=env, prefixes=("typer", "click"))
        assert "slotgraph.cli.validate" in loaded
        assert not {name for name in loaded if name.startswith(("typer", "click"))}, args
        assert "slotgraph.cli.validate_command" not in loaded
    for args in (("--help",), (bella, "--strict"), ()):
        loaded = _modules_after("validate", *args, env=env, prefixes=("typer",))
        assert "typer" in loaded and "slotgraph.cli.validate_command" in loaded, args


@pytest.mark.parametrize("command", COMMANDS, ids=[command.name for command in COMMANDS])
def test_each_summary_is_the_commands_own_help(command: object) -> None:
    from slotgraph.cli.main import LazyCommand

    assert isinstance(command, LazyCommand)
    loaded = command.load()
    assert loaded.name == command.name
    assert loaded.get_short_help_str(limit=1000) == command.summary


def test_the_help_lists_every_command_and_each_runs() -> None:
    runner = CliRunner()
    shown = runner.invoke(create_app(), ["--help"])
    assert shown.exit_code == 0
    for command in COMMANDS:
        assert command.name in shown.output
    assert runner.invoke(create_app(), ["version"]).exit_code == 0
    listed = runner.invoke(create_app(), ["models", "list"])
    assert listed.exit_code == 0, listed.output
    unknown = runner.invoke(create_app(), ["nope"])
    assert unknown.exit_code == 2 and "nope" in unknown.output


def test_validates_tool_probe_loads_only_what_building_tools_needs() -> None:
    """The child ``slotgraph validate`` starts for the agent's ``tools.py`` (``slotgraph.cli.tool_probe``): no
    config layer, engine, session or event loop — only the runtime's tool schema code (and pydantic)."""
    from slotgraph.cli.tool_checks import probe_env

    script = (
        "import json, sys\n"
        "from slotgraph.cli.tool_probe import probe\n"
        "probe(sys.argv[1])\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    tools = ROOT / "examples" / "bella_notte" / "tools.py"
    done = subprocess.run(
        [sys.executable, "-c", script, str(tools)],
        cwd=tools.parent,
        env=probe_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "slotgraph.runtime.tools" in loaded
    heavy = {"asyncio", "slotgraph.config", "slotgraph.engine", "slotgraph.runtime.session", "rich", "typer"}
    assert not heavy & loaded, sorted(heavy & loaded)


def test_the_probe_runs_without_pydantic_plugin_discovery(monkeypatch: pytest.MonkeyPatch) -> None:
    from slotgraph.cli.tool_checks import probe_env

    monkeypatch.delenv("PYDANTIC_DISABLE_PLUGINS", raising=False)
    env = probe_env()
    assert env["PYDANTIC_DISABLE_PLUGINS"] == "__all__"
    assert env["PYTHONDONTWRITEBYTECODE"] == "1"  # no __pycache__ beside the user's tools.py
    monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", "logfire")  # the user's own choice is kept
    assert probe_env()["PYDANTIC_DISABLE_PLUGINS"] == "logfire"


def test_the_logic_layer_still_exports_every_name() -> None:
    """``slotgraph.logic`` loads its names on first use (so ``validate`` imports only its checks): every name
    of ``__all__`` resolves, to the object its submodule defines."""
    import importlib

    import slotgraph.logic as logic

    for name in logic.__all__:
        value = getattr(logic, name)
        if name != "load_definition":
            module = importlib.import_module(logic._EXPORTS[name])
            assert getattr(module, name) is value, name
    assert set(logic._EXPORTS) | {"load_definition"} == set(logic.__all__)
    with pytest.raises(AttributeError):
        _ = logic.no_such_name
