"""The backend every implementation of the booking shares: ``examples/bella_notte/tools.py``.

Slotgraph's agent loads it as its tools module; the peers import it here under a name of its own (the
example directory is not a package), as a real application would import its restaurant backend.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bella_notte"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bella_notte_tools", EXAMPLE / "tools.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


backend = _load()
