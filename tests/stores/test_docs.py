"""The Python example of docs/stores.md runs as written and prints what the doc says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_the_stores_doc_example_runs(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "stores.md").read_text(encoding="utf-8")
    example = re.findall(r"^```python\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)[0]
    printed = re.search(r"^prints\n\n```\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
    assert printed is not None, "docs/stores.md shows what its example prints"
    script = tmp_path / "example.py"
    script.write_text(example, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == printed.group(1)
