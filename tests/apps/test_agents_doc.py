"""The Python example of docs/agents.md runs as written: it loads the team app and builds one in Python."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_python_example_builds_an_app_that_hands_over() -> None:
    text = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8").split("## Python", 1)[1]
    match = re.search(r"```python\n(.*?)```", text, re.DOTALL)
    assert match is not None
    done = subprocess.run(
        [sys.executable, "-c", match.group(1)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "takeout\n"
