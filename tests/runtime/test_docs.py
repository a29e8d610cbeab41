"""The Python examples of docs/runtime.md run as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
RUNTIME_DOC = (ROOT / "docs" / "runtime.md").read_text(encoding="utf-8")


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def _printed(block: str, tmp_path: Path) -> list[str]:
    """What ``block`` prints, run as a script from the repository's root (it must exit 0)."""
    script = tmp_path / "example.py"
    script.write_text(block, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_runtime_doc_example_runs(tmp_path: Path) -> None:
    blocks = _python_blocks(RUNTIME_DOC)
    assert blocks, "docs/runtime.md has no python example"
    lines = _printed(blocks[0], tmp_path)
    assert lines[0] == "Welcome to Bella Notte! How many guests will be joining us?"
    assert lines[2].startswith("True We have ")
    assert lines[3] == "[('confirm_pending', 'engine'), ('find_available_times', 'engine')]"


def test_the_typed_results_example_prints_what_the_doc_says(tmp_path: Path) -> None:
    section = RUNTIME_DOC.split("\n## Typed results\n", 1)[1].split("\n## ", 1)[0]
    (block,) = _python_blocks(section)
    first, second, third = _printed(block, tmp_path)
    said = re.search(r"prints `(.+?)`, `(.+?)` and `(.+?)`", section)
    assert said is not None, "the section says what the example prints"
    assert first.startswith(said.group(1).removesuffix("…")) and first.startswith("complete 4 BN-")
    assert [second, third] == [said.group(2), said.group(3)]
