"""The README's two commands install what they need: ``make demo`` only the runtime and the offline model,
``make test`` everything CI runs (dry runs of make in a scratch copy; nothing is installed here)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _make(*args: str, cwd: Path = ROOT) -> str:
    done = subprocess.run(["make", *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_make_demo_installs_the_package_without_extras(tmp_path: Path) -> None:
    plan = _make("-n", "demo", f"VENV={tmp_path / 'venv'}")
    assert "pip install --progress-bar off -e . &&" in plan, (
        plan
    )  # the package alone: runtime + offline model
    assert "[dev]" not in plan and "'.[" not in plan
    assert "slotgraph chat examples/bella_notte --model offline" in plan


def test_make_test_installs_everything(tmp_path: Path) -> None:
    plan = _make("-n", "test", f"VENV={tmp_path / 'venv'}")
    assert "-e '.[dev]'" in plan


def test_a_full_install_satisfies_the_demo_without_reinstalling(tmp_path: Path) -> None:
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    stamp = tmp_path / ".venv" / "bin" / ".installed"
    stamp.parent.mkdir(parents=True)
    stamp.touch()
    later = (tmp_path / "pyproject.toml").stat().st_mtime + 10
    os.utime(stamp, (later, later))
    output = _make(".venv/bin/.installed-demo", cwd=tmp_path)
    assert "pip" not in output
    assert (tmp_path / ".venv" / "bin" / ".installed-demo").exists()


def test_make_test_runs_the_slow_tests_a_plain_pytest_skips(tmp_path: Path) -> None:
    import tomllib

    plan = _make("-n", "pytest", f"VENV={tmp_path / 'venv'}")
    assert '-m pytest -m "not llm" -rs' in plan, plan  # overrides addopts' marker expression: slow ones run
    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    assert '-m "not llm and not slow"' in addopts
