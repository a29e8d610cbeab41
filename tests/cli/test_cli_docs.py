"""Every console example in docs/cli.md and the example READMEs really runs and prints what it shows.

Convention of the documents: in a ```console block, a line starting with ``$ `` is a command; the lines
after it (until the next command) must appear in its output, in order, as whole lines; ``...`` stands for
lines left out; ``$ echo $?`` shows the exit code of the command before it. Commands run from a scratch copy
of the repository's ``examples`` and ``tests/cli/fixtures`` so files they write land in a temporary directory.
"""

from __future__ import annotations

import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_support import REPO_ROOT
from typer.testing import CliRunner

from slotgraph.cli.main import create_app

DOCUMENTS = [REPO_ROOT / "docs" / "cli.md", REPO_ROOT / "examples" / "bella_notte" / "README.md"]
_BLOCK = re.compile(r"^```console\n(.*?)^```", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Step:
    command: str
    expected: tuple[str, ...]


def _steps(block: str) -> list[Step]:
    steps: list[Step] = []
    command: str | None = None
    expected: list[str] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            if command is not None:
                steps.append(Step(command, tuple(expected)))
            command, expected = line[2:].strip(), []
        elif command is not None:
            expected.append(line.rstrip())
    if command is not None:
        steps.append(Step(command, tuple(expected)))
    return steps


def _blocks() -> list[tuple[str, list[Step]]]:
    found = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for index, match in enumerate(_BLOCK.finditer(text)):
            found.append((f"{document.relative_to(REPO_ROOT)}#{index}", _steps(match.group(1))))
    return found


BLOCKS = _blocks()


def _assert_lines_in_order(expected: tuple[str, ...], output: str, where: str) -> None:
    actual = [line.rstrip() for line in output.splitlines()]
    position = 0
    for line in expected:
        if line in ("...", ""):
            continue
        try:
            position = actual.index(line, position) + 1
        except ValueError:
            pytest.fail(f"{where}: expected line not found (in order): {line!r}\n--- output ---\n{output}")


def test_the_documents_have_examples() -> None:
    assert len(BLOCKS) >= 8
    assert all(steps for _, steps in BLOCKS)


@pytest.mark.parametrize(("where", "steps"), BLOCKS, ids=[where for where, _ in BLOCKS])
def test_console_example_runs(
    where: str, steps: list[Step], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(REPO_ROOT / "examples", tmp_path / "examples")
    shutil.copytree(REPO_ROOT / "tests" / "cli" / "fixtures", tmp_path / "tests" / "cli" / "fixtures")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    last_exit: int | None = None
    for step in steps:
        if step.command == "echo $?":
            assert last_exit is not None, f"{where}: 'echo $?' before any command"
            assert [str(last_exit)] == [line for line in step.expected if line], where
            continue
        argv = shlex.split(step.command)
        if argv[:3] == ["python", "-m", "slotgraph"]:
            argv = argv[3:]
        elif argv[:1] == ["slotgraph"]:
            argv = argv[1:]
        else:
            pytest.fail(f"{where}: not a slotgraph command: {step.command!r}")
        result = runner.invoke(create_app(), argv, catch_exceptions=False)
        last_exit = result.exit_code
        _assert_lines_in_order(step.expected, result.output, f"{where}: $ {step.command}")
        if "echo $?" not in [s.command for s in steps]:
            assert result.exit_code == 0, f"{where}: $ {step.command} exited {result.exit_code}"
