"""setup.py's build of the compiled core: with ``SLOTGRAPH_COMPILE=auto`` (the default) a failing mypyc
falls back to pure Python with a message — also when it is mypyc's type check that fails, which exits
(``SystemExit``) rather than raising — and with ``SLOTGRAPH_COMPILE=1`` the failure is the build's."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path
from typing import Any

import pytest
from setuptools import Distribution

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def setup_module(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """setup.py's namespace (running it with ``--name``: setuptools prints the name and builds nothing)."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "argv", ["setup.py", "--name"])
    namespace = runpy.run_path(str(ROOT / "setup.py"), run_name="slotgraph_setup")
    capsys.readouterr()
    return namespace


def _mypyc_type_check_fails() -> list[Any]:
    raise SystemExit("slotgraph/x.py:1: error: Multiple assignment in class bodies not supported")


def _build_ext(namespace: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Any:
    build_ext = namespace["NativeBuildExt"]
    # what finalize_options calls, in the globals it runs with (run_path returns a copy of them)
    monkeypatch.setitem(build_ext.finalize_options.__globals__, "native_extensions", _mypyc_type_check_fails)
    command = build_ext(Distribution({"name": "slotgraph", "ext_modules": []}))
    command.ensure_finalized()
    return command


def test_a_failing_mypyc_type_check_falls_back_to_pure_python(
    setup_module: dict[str, Any], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SLOTGRAPH_COMPILE", raising=False)
    command = _build_ext(setup_module, monkeypatch)
    assert command.extensions == []
    err = capsys.readouterr().err
    assert "the core was not compiled" in err and "Multiple assignment" in err
    assert "installing it as pure Python" in err


def test_with_compile_required_the_failure_is_the_builds(
    setup_module: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLOTGRAPH_COMPILE", "1")
    with pytest.raises(SystemExit, match="Multiple assignment"):
        _build_ext(setup_module, monkeypatch)
