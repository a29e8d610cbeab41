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
from pathlib import Path

import pytest
from cli_support import REPO_ROOT
from tests.doc_blocks import (
    EXIT_CODE_COMMAND,
    Step,
    assert_exit_code,
    assert_lines_in_order,
    checks_exit_code,
    console_steps,
    fences,
    relative,
)
from typer.testing import CliRunner

from slotgraph.cli.main import create_app

DOCUMENTS = [REPO_ROOT / "docs" / "cli.md", REPO_ROOT / "examples" / "bella_notte" / "README.md"]
_BLOCK = re.compile(r"^```console\n(?P<body>.*?)^```", re.MULTILINE | re.DOTALL)


def _blocks() -> list[tuple[str, list[Step]]]:
    found = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for index, fence in enumerate(fences(text, _BLOCK)):
            found.append((f"{relative(document, REPO_ROOT)}#{index}", console_steps(fence.body)))
    return found


BLOCKS = _blocks()


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
        if step.command == EXIT_CODE_COMMAND:
            assert_exit_code(step, last_exit, where)
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
        assert_lines_in_order(step.expected, result.output, f"{where}: $ {step.command}")
        if not checks_exit_code(steps):
            assert result.exit_code == 0, f"{where}: $ {step.command} exited {result.exit_code}"
