"""The full example of docs/evals.md is a scenario that runs and passes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from slotgraph.evals import Case, CaseRunner, load_cases

from .conftest import REPO, TOY, WriteScenario

DOC = REPO / "docs" / "evals.md"


def _full_example() -> str:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## A full example", 1)[1]
    match = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert match is not None
    return match.group(1)


def test_the_documented_full_example_passes(write_scenario: WriteScenario) -> None:
    example = _full_example().replace("agent: ..", f"agent: {TOY}", 1)
    (case,) = load_cases([write_scenario(example)])
    assert isinstance(case, Case)
    result = CaseRunner().run(case)
    assert result.outcome == "passed", result.all_failures


def test_the_documented_full_example_is_the_repository_scenario() -> None:
    assert "inline correction during readback" in _full_example()
    assert (TOY / "scenarios" / "spec_15_inline_correction.yaml").is_file()


def test_the_documented_python_api_example_runs_quietly(tmp_path: Path) -> None:
    """The Python API block runs as written, prints the tally its comment shows, and nothing on stderr."""
    section = DOC.read_text(encoding="utf-8").split("## Python API", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match is not None
    script = tmp_path / "example.py"
    script.write_text(match.group(1), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], cwd=REPO, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    shown = re.search(r"print\(summary\.tally\(\)\)  # (.+)", match.group(1))
    assert shown is not None
    assert done.stdout.splitlines()[0] == shown.group(1)
