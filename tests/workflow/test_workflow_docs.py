"""The Python example of docs/workflows.md runs as written: a refund with the example's backend, and the
failed stage's reason without it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from .conftest import RunningApi

ROOT = Path(__file__).resolve().parents[2]


def _run_example(tmp_path: Path, base_url: str) -> subprocess.CompletedProcess[str]:
    text = (ROOT / "docs" / "workflows.md").read_text(encoding="utf-8").split("## Python", 1)[1]
    match = re.search(r"```python\n(.*?)```", text, re.DOTALL)
    assert match is not None
    code = match.group(1)
    assert '"http://127.0.0.1:8765"' in code and '"sqlite://runs.db"' in code
    code = code.replace("http://127.0.0.1:8765", base_url).replace(
        "sqlite://runs.db", f"sqlite://{tmp_path}/r.db"
    )
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )


def test_the_example_prints_the_refund(tmp_path: Path, purchases_api: RunningApi) -> None:
    done = _run_example(tmp_path, purchases_api.url)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "{'refund_id': 'R-1', 'status': 'refunded'}\n"


def test_the_example_prints_why_a_run_failed(tmp_path: Path) -> None:
    closed = "http://127.0.0.1:9"  # the discard port: nothing listens there
    done = _run_example(tmp_path, closed)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        "failed {'code': 'http_stage_failed', 'message': \"stage 'match_purchase': POST"
    )
    assert "stage_id': 'match_purchase'" in done.stdout
