"""``validate``'s fast path (:mod:`slotgraph.cli.validate_fast`): the plain forms of its arguments are
validated before typer loads, with exactly the output and exit code of the typer command; everything else
goes to typer. ``tests/cli/test_lazy_commands.py`` checks that such a run imports no typer."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_support import FIXTURES, REPO_ROOT, Invoke

from slotgraph.cli import validate as validate_module
from slotgraph.cli.validate_cache import DISABLE_ENV
from slotgraph.cli.validate_fast import validate_fast

BELLA = str(REPO_ROOT / "examples" / "bella_notte")
BROKEN = str(FIXTURES / "broken_dag.yaml")


@pytest.fixture(autouse=True)
def no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DISABLE_ENV, "1")  # every run validates: the cache has tests of its own


@pytest.mark.parametrize(
    "args",
    [
        [BELLA],
        [BELLA, "--json"],
        ["--json", BROKEN],
        [BROKEN],
        ["no/such/agent"],
        ["--json", "no/such/agent", BELLA, BROKEN],
        [BELLA, str(REPO_ROOT / "examples" / "clinic"), "--no-cache"],
    ],
    ids=["valid", "valid json", "invalid json", "invalid", "missing", "three json", "two no-cache"],
)
def test_the_fast_path_prints_what_the_command_prints(
    args: list[str], invoke: Invoke, capsys: pytest.CaptureFixture[str]
) -> None:
    command = invoke(["validate", *args])
    capsys.readouterr()
    code = validate_fast(args)
    assert (code, capsys.readouterr().out) == (command.exit_code, command.stdout)


@pytest.mark.parametrize(
    "args",
    [[], ["--help"], ["--json"], ["--", BELLA], [BELLA, "--strict"], [BELLA, "-h"], [""], ["--json=1", "a"]],
    ids=repr,
)
def test_other_arguments_go_to_typer(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert validate_fast(args) is None
    assert capsys.readouterr().out == ""


def test_an_interrupt_exits_130_as_under_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(validate_module, "run_validate", interrupted)
    assert validate_fast([BELLA]) == 130


def test_a_closed_stdout_exits_1_quietly(monkeypatch: pytest.MonkeyPatch) -> None:
    def closed(*args: object, **kwargs: object) -> None:
        raise BrokenPipeError

    monkeypatch.setattr(validate_module, "run_validate", closed)
    assert validate_fast([BELLA]) == 1


def test_the_cache_still_answers_first(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(DISABLE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert validate_fast([BELLA]) == 0  # validated and stored
    first = capsys.readouterr().out

    def not_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("validated again although nothing changed")

    monkeypatch.setattr(validate_module, "run_validate", not_again)
    assert validate_fast([BELLA]) == 0
    assert capsys.readouterr().out == first


def test_pydantic_plugins_are_not_looked_for_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The validator's models are its own config nodes: no plugin look-up (it reads the metadata of every
    installed distribution) unless the user set ``PYDANTIC_DISABLE_PLUGINS`` themselves."""
    monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", "placeholder")  # restored after the test
    monkeypatch.delenv("PYDANTIC_DISABLE_PLUGINS")
    assert validate_fast([BELLA]) == 0
    assert os.environ["PYDANTIC_DISABLE_PLUGINS"] == "__all__"
    monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", "logfire")
    assert validate_fast([BELLA]) == 0
    assert os.environ["PYDANTIC_DISABLE_PLUGINS"] == "logfire"
