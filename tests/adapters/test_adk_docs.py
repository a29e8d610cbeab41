"""The example of docs/adk.md runs as written (offline), and does what the page says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("google.adk")

ROOT = Path(__file__).parents[2]


def test_the_docs_example_runs(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "adk.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"^```python\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=180, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[-1].startswith("{") and "'party_size': 4" in lines[-1]
