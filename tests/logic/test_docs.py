"""The Python example of docs/logic.md runs as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_the_logic_doc_example_runs(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "logic.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
    script = tmp_path / "example.py"
    script.write_text(blocks[0], encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["Ada Lovelace", "['count_messages']"]
