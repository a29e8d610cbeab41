"""The Python examples of docs/workflows.md run as written: a refund with the example's backend (and the
failed stage's reason without it), and the travel_desk example's parallel stages and prefetch."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from .conftest import RunningApi

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
