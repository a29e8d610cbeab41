"""``slotgraph init``: every template scaffolds an agent that passes ``validate`` and ``test`` at once;
``--version``, shell completion and the examples/exit codes under every command's ``--help``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import shellingham
import typer
from cli_support import REPO_ROOT, Invoke
from typer.testing import CliRunner

from slotgraph import __version__
from slotgraph.cli.help_texts import EPILOGS
from slotgraph.cli.init_command import agent_name_for, template_names
from slotgraph.cli.main import COMMANDS, create_app
from slotgraph.runtime import Agent


def test_the_templates_are_listed(invoke: Invoke) -> None:
    assert {"basic", "minimal"} <= set(template_names())
    result = invoke(["init", "--list"])
    assert result.exit_code == 0
    assert "basic (default)" in result.stdout.splitlines()


@pytest.mark.parametrize("template", template_names())
def test_a_scaffolded_agent_passes_validate_and_test(invoke: Invoke, tmp_path: Path, template: str) -> None:
    target = tmp_path / "My Agent"
    created = invoke(["init", template, str(target)])
    assert created.exit_code == 0, created.output
    assert {"agent.yaml", "dag.yaml", "tools.py"} <= {p.name for p in target.iterdir()}
    assert list((target / "scenarios").glob("*.yaml"))
    assert f"slotgraph validate {target}" in created.stdout

    validated = invoke(["validate", str(target), "--json"])
    assert validated.exit_code == 0, validated.output
    assert '"warnings": []' in validated.stdout  # clean: not even a warning

    tested = invoke(["test", str(target)])
    assert tested.exit_code == 0, tested.output
    assert tested.output.rstrip().splitlines()[-1].startswith("1 passed, 0 failed")

    agent = Agent.load(target)  # the agent's own model (offline) answers a first turn
    assert agent.name == "my_agent"
    assert agent.session().send("Hi").text


def test_the_basic_template_reads_a_date_back_in_words(invoke: Invoke, tmp_path: Path) -> None:
    """As the examples do ("on December 7th"), not as the ISO date the setter stores."""
    assert invoke(["init", str(tmp_path / "desk")]).exit_code == 0
    args = ["chat", str(tmp_path / "desk"), "--today", "2026-12-01"]
    chat = CliRunner().invoke(create_app(), args, input="Ada\nDecember 7th\nyes\n")
    assert chat.exit_code == 0, chat.output
    assert "agent> Just to confirm — on December 7th. Is that correct?" in chat.output
    assert "2026-12-07" not in chat.output


def test_init_without_a_template_uses_basic(invoke: Invoke, tmp_path: Path) -> None:
    result = invoke(["init", str(tmp_path / "shop")])
    assert result.exit_code == 0, result.output
    assert "(template basic)" in result.stdout
    assert "name: shop\n" in (tmp_path / "shop" / "agent.yaml").read_text(encoding="utf-8")


def test_init_never_overwrites(invoke: Invoke, tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine", encoding="utf-8")
    result = invoke(["init", str(tmp_path / "taken")])
    assert result.exit_code == 2
    assert "already exists and is not an empty directory" in result.stderr
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["notes.txt"]


def test_an_unknown_template_suggests_the_closest(invoke: Invoke, tmp_path: Path) -> None:
    result = invoke(["init", "basik", str(tmp_path / "x")])
    assert result.exit_code == 2
    assert "unknown template 'basik' (did you mean 'basic'?)" in result.stderr
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("args", [[], ["a", "b", "c"]])
def test_init_needs_one_or_two_arguments(invoke: Invoke, args: list[str]) -> None:
    result = invoke(["init", *args])
    assert result.exit_code == 2
    assert "expected [TEMPLATE] DIR" in result.stderr


@pytest.mark.parametrize(
    ("folder", "name"), [("my-agent", "my_agent"), ("Bookings 2", "bookings_2"), ("42", "agent_42")]
)
def test_agent_names_come_from_the_folder(tmp_path: Path, folder: str, name: str) -> None:
    assert agent_name_for(tmp_path / folder) == name


def test_version_flag() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "slotgraph", "--version"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert result.stdout == f"slotgraph {__version__}\n"


@pytest.mark.parametrize(
    ("shell", "marker"),
    [
        ("bash", "complete -o default -F _slotgraph_completion slotgraph"),
        ("zsh", "compdef _slotgraph_completion slotgraph"),
        ("fish", "complete --command slotgraph"),
    ],
)
def test_shell_completion_is_offered(
    invoke: Invoke, monkeypatch: pytest.MonkeyPatch, shell: str, marker: str
) -> None:
    # ``--show-completion`` is a flag: the script is for the shell that runs the program, which typer finds by
    # walking up the process tree (shellingham). The test names that shell instead of inheriting it: under
    # ``make test`` the nearest shell may be make's /bin/sh, which has no completion (the test failed there).
    monkeypatch.setattr(shellingham, "detect_shell", lambda *_args, **_kwargs: (shell, f"/bin/{shell}"))
    result = invoke(["--show-completion"])
    assert result.exit_code == 0, result.output
    assert marker in result.stdout and "_SLOTGRAPH_COMPLETE" in result.stdout


def test_every_command_help_has_examples_and_exit_codes(app: typer.Typer, invoke: Invoke) -> None:
    names = {command.name for command in COMMANDS}  # commands are registered lazily (slotgraph.cli.main)
    assert names == set(EPILOGS)
    for name in sorted(names):
        result = invoke([name, "--help"])
        assert result.exit_code == 0, name
        assert "Examples" in result.stdout and "Exit codes" in result.stdout, name
        assert f"slotgraph {name}" in result.stdout, name
    top = invoke(["--help"])
    assert "Examples" in top.stdout and "Exit codes" in top.stdout and "init" in top.stdout


def test_no_help_prints_a_type_beside_a_flag(invoke: Invoke) -> None:
    """Typer printed ``<bool>`` beside every flag (``--json <bool>``), as if it took a value."""
    for name in sorted({command.name for command in COMMANDS} | {"models list"}):
        result = invoke([*name.split(), "--help"])
        assert result.exit_code == 0, name
        assert "<bool>" not in result.stdout, name
    assert "<str>" in invoke(["run", "--help"]).stdout  # options that take a value still show its type
    flagged = invoke(["validate", str(REPO_ROOT / "examples" / "bella_notte"), "--json"])
    assert flagged.exit_code == 0 and '"ok": true' in flagged.stdout  # and flags still parse
