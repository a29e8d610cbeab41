"""Fixtures for the example agents: their tools modules, loaded from the example directory by path."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples"
BELLA_NOTTE_DIR = EXAMPLES_DIR / "bella_notte"


def load_module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def bella_notte_tools() -> ModuleType:
    return load_module(BELLA_NOTTE_DIR / "tools.py", "bella_notte_tools")


@pytest.fixture(scope="session")
def bella_notte_dir() -> Path:
    return BELLA_NOTTE_DIR
