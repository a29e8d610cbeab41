"""Every fenced ``console``/``bash`` block marked ``runnable`` in the docs runs, in a real shell, as written.

The marker is the fence's info string: ```` ```console runnable ```` or ```` ```bash runnable ````
(renderers use the first word for highlighting and ignore the rest). In a ``console`` block a line
starting with ``$ `` is a command and the lines after it (until the next command) must appear in its
output, in order, as whole lines (``...`` stands for lines left out; ``$ echo $?`` shows the exit code of
the command before it, which must otherwise be 0). In a ``bash`` block every line is a command that must
exit 0. Commands run with ``bash -c`` in a scratch copy of the repository's ``examples`` (so files they
write stay there), with this virtualenv's ``bin`` first on ``PATH`` (``slotgraph`` is the installed
command) and no standard input.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = sorted(
    [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "examples").glob("*/README.md")]
)
_FENCE = re.compile(r"^```(console|bash)[ \t]+runnable[ \t]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
TIMEOUT_SECONDS = 180


@dataclass(frozen=True)
class Step:
    command: str
    expected: tuple[str, ...]


@dataclass(frozen=True)
class Block:
    where: str
    language: str
    steps: tuple[Step, ...]


def _console_steps(text: str) -> list[Step]:
    steps: list[Step] = []
    command: str | None = None
    expected: list[str] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            if command is not None:
                steps.append(Step(command, tuple(expected)))
            command, expected = line[2:].strip(), []
        elif command is not None:
            expected.append(line.rstrip())
    if command is not None:
        steps.append(Step(command, tuple(expected)))
    return steps


def _bash_steps(text: str) -> list[Step]:
    lines = [line for line in text.splitlines() if line.strip()]
    return [Step(line, ()) for line in lines if not line.lstrip().startswith("#")]


def runnable_blocks() -> list[Block]:
    """Every runnable block of the documents, in document order."""
    blocks: list[Block] = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for index, match in enumerate(_FENCE.finditer(text)):
            language, body = match.group(1), match.group(2)
            steps = _console_steps(body) if language == "console" else _bash_steps(body)
            line = text.count("\n", 0, match.start()) + 1
            blocks.append(Block(f"{document.relative_to(ROOT)}:{line}#{index}", language, tuple(steps)))
    return blocks


BLOCKS = runnable_blocks()


def test_the_docs_mark_runnable_blocks() -> None:
    assert len(BLOCKS) >= 5
    assert all(block.steps for block in BLOCKS)
    assert {"README.md", "docs/cli.md", "docs/tools.md"} <= {b.where.split(":")[0] for b in BLOCKS}


def _in_order(expected: tuple[str, ...], output: str, where: str) -> None:
    actual = [line.rstrip() for line in output.splitlines()]
    position = 0
    for line in expected:
        if line in ("...", ""):
            continue
        try:
            position = actual.index(line, position) + 1
        except ValueError:
            pytest.fail(f"{where}: expected line not found (in order): {line!r}\n--- output ---\n{output}")


@pytest.mark.parametrize("block", BLOCKS, ids=[b.where for b in BLOCKS])
def test_runnable_block(block: Block, tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "COLUMNS": "200",
        "NO_COLOR": "1",
        "HOME": str(tmp_path),
    }
    last_exit: int | None = None
    checks_exit = any(step.command == "echo $?" for step in block.steps)
    for step in block.steps:
        where = f"{block.where}: $ {step.command}"
        if step.command == "echo $?":
            assert last_exit is not None, f"{block.where}: 'echo $?' before any command"
            assert [str(last_exit)] == [line for line in step.expected if line], where
            continue
        done = subprocess.run(
            ["bash", "-c", step.command],
            cwd=tmp_path,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
        last_exit = done.returncode
        _in_order(step.expected, done.stdout + done.stderr, where)
        if not checks_exit:
            assert done.returncode == 0, f"{where} exited {done.returncode}:\n{done.stdout}{done.stderr}"
