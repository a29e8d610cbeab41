"""Reading the runnable examples of the documents: fenced blocks, their commands and expected output.

A plain module shared by ``tests/test_runnable_docs.py`` (runs blocks in a real shell) and
``tests/cli/test_cli_docs.py`` (runs ``slotgraph`` commands in-process). The convention: in a ``console``
block a line starting with ``$ `` is a command and the lines after it (until the next command) must appear in
its output, in order, as whole lines; ``...`` stands for lines left out; ``$ echo $?`` shows the exit code of
the command before it. In a ``bash`` block every non-comment line is a command.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

EXIT_CODE_COMMAND = "echo $?"


@dataclass(frozen=True)
class Step:
    command: str
    expected: tuple[str, ...]


@dataclass(frozen=True)
class Fence:
    """One fenced block: its info string's language, its body and the line the fence opens on."""

    language: str
    body: str
    line: int


def fences(text: str, pattern: re.Pattern[str]) -> Iterator[Fence]:
    """The blocks ``pattern`` finds in ``text`` (named groups: ``body``, optionally ``lang``)."""
    for match in pattern.finditer(text):
        groups = match.groupdict()
        yield Fence(groups.get("lang") or "console", groups["body"], text.count("\n", 0, match.start()) + 1)


def console_steps(body: str) -> list[Step]:
    steps: list[Step] = []
    command: str | None = None
    expected: list[str] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            if command is not None:
                steps.append(Step(command, tuple(expected)))
            command, expected = line[2:].strip(), []
        elif command is not None:
            expected.append(line.rstrip())
    if command is not None:
        steps.append(Step(command, tuple(expected)))
    return steps


def bash_steps(body: str) -> list[Step]:
    lines = [line for line in body.splitlines() if line.strip()]
    return [Step(line, ()) for line in lines if not line.lstrip().startswith("#")]


def checks_exit_code(steps: tuple[Step, ...] | list[Step]) -> bool:
    """Whether the block shows an exit code itself (then a non-zero exit is not a failure by itself)."""
    return any(step.command == EXIT_CODE_COMMAND for step in steps)


def assert_exit_code(step: Step, last_exit: int | None, where: str) -> None:
    assert last_exit is not None, f"{where}: '{EXIT_CODE_COMMAND}' before any command"
    assert [str(last_exit)] == [line for line in step.expected if line], where


def assert_lines_in_order(expected: tuple[str, ...], output: str, where: str) -> None:
    actual = [line.rstrip() for line in output.splitlines()]
    position = 0
    for line in expected:
        if line in ("...", ""):
            continue
        try:
            position = actual.index(line, position) + 1
        except ValueError:
            pytest.fail(f"{where}: expected line not found (in order): {line!r}\n--- output ---\n{output}")


def relative(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()
