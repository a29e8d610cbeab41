"""Every example in the README runs as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from slotgraph.cli.main import create_app

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYTHON_BLOCKS = re.findall(r"^```python\n(.*?)^```", README, flags=re.MULTILINE | re.DOTALL)
BASH_BLOCKS = re.findall(r"^```bash\n(.*?)^```", README, flags=re.MULTILINE | re.DOTALL)


def _run_python(code: str, tmp_path: Path) -> list[str]:
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_readme_has_the_two_commands() -> None:
    assert "make demo" in BASH_BLOCKS[0] and "make test" in BASH_BLOCKS[0]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.rstrip().endswith("make test"), ".ci/run must run exactly the README's test command"


def test_the_python_tour_books_a_table_with_the_offline_model(tmp_path: Path) -> None:
    lines = _run_python(PYTHON_BLOCKS[0], tmp_path)
    assert lines[-1].startswith("complete BN-")
    assert "agent> Just to confirm — under the name Chen, no special requests. Is that correct?" in lines


def test_the_spec_compatible_entry_example_prints_what_it_says(tmp_path: Path) -> None:
    lines = _run_python(PYTHON_BLOCKS[1], tmp_path)
    comments = re.findall(r"# (.+)$", PYTHON_BLOCKS[1], flags=re.MULTILINE)
    assert lines == comments[-2:]


@pytest.mark.parametrize(
    "command",
    sorted({m for block in BASH_BLOCKS for m in re.findall(r"^slotgraph (\w+)", block, flags=re.MULTILINE)}),
)
def test_every_slotgraph_command_in_the_readme_exists(command: str) -> None:
    args = [command, "list"] if command == "models" else [command, "--help"]
    result = CliRunner().invoke(create_app(), args)
    assert result.exit_code == 0, result.output


def test_the_validate_and_graph_examples_run() -> None:
    runner = CliRunner()
    bella = str(ROOT / "examples" / "bella_notte")
    assert runner.invoke(create_app(), ["validate", bella]).exit_code == 0
    assert runner.invoke(create_app(), ["graph", bella]).output.startswith("flowchart LR")
