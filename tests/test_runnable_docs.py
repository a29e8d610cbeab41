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
from tests.doc_blocks import (
    EXIT_CODE_COMMAND,
    Step,
    assert_exit_code,
    assert_lines_in_order,
    bash_steps,
    checks_exit_code,
    console_steps,
    fences,
    relative,
)

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = sorted(
    [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "examples").glob("*/README.md")]
)
_FENCE = re.compile(
    r"^```(?P<lang>console|bash)[ \t]+runnable[ \t]*\n(?P<body>.*?)^```", re.MULTILINE | re.DOTALL
)
TIMEOUT_SECONDS = 180


@dataclass(frozen=True)
class Block:
    where: str
    language: str
    steps: tuple[Step, ...]


def runnable_blocks() -> list[Block]:
    """Every runnable block of the documents, in document order."""
    blocks: list[Block] = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for index, fence in enumerate(fences(text, _FENCE)):
            steps = console_steps(fence.body) if fence.language == "console" else bash_steps(fence.body)
            blocks.append(
                Block(f"{relative(document, ROOT)}:{fence.line}#{index}", fence.language, tuple(steps))
            )
    return blocks


BLOCKS = runnable_blocks()


def test_the_docs_mark_runnable_blocks() -> None:
    assert len(BLOCKS) >= 5
    assert all(block.steps for block in BLOCKS)
    assert {"README.md", "docs/cli.md", "docs/tools.md"} <= {b.where.split(":")[0] for b in BLOCKS}


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
    checks_exit = checks_exit_code(block.steps)
    for step in block.steps:
        where = f"{block.where}: $ {step.command}"
        if step.command == EXIT_CODE_COMMAND:
            assert_exit_code(step, last_exit, where)
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
        assert_lines_in_order(step.expected, done.stdout + done.stderr, where)
        if not checks_exit:
            assert done.returncode == 0, f"{where} exited {done.returncode}:\n{done.stdout}{done.stderr}"
