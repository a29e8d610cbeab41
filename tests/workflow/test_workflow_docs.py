"""The travel_desk example of docs/workflows.md runs as written and prints what the document shows."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_parallel_and_prefetch_example_runs_as_documented(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "workflows.md").read_text(encoding="utf-8")
    [(code, shown)] = [
        (code, shown)
        for code, shown in re.findall(
            r"^```python\n(.*?)^```\n\n```\n(.*?)^```", text, re.MULTILINE | re.DOTALL
        )
        if "travel_desk" in code
    ]
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == shown.splitlines()
