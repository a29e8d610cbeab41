"""The Python examples of docs/models.md run as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def _blocks() -> list[str]:
    text = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def _run(code: str, tmp_path: Path) -> str:
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_resolution_example_runs(tmp_path: Path) -> None:
    resolving, _ = _blocks()
    _run(resolving, tmp_path)


def test_the_registration_example_runs(tmp_path: Path) -> None:
    _, registering = _blocks()
    assert _run(registering, tmp_path).splitlines() == ["echo EchoModel"]
