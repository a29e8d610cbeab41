"""The Bella Notte example DAG (``examples/bella_notte/dag.yaml``) as raw data and compiled."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from slotgraph.config import CompiledDag, compile_config

BELLA_DAG = Path(__file__).resolve().parents[2] / "examples" / "bella_notte" / "dag.yaml"
TIMES = "17:30, 19:00, 20:30"


def bella_raw() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(BELLA_DAG.read_text(encoding="utf-8"))
    return copy.deepcopy(data)


def bella_dag() -> CompiledDag:
    return compile_config(bella_raw())


def after_times() -> dict[str, Any]:
    """The state of §7a.7 "Turn 1-4": party size, date and time confirmed, FindAvailableTimes done."""
    filled = {
        "welcome": True,
        "party_size": 4,
        "preferred_date": "2026-06-17",
        "available_times": TIMES,
        "selected_time": "20:30",
    }
    return {
        "filled": dict(filled),
        "task_results": {"FindAvailableTimes": {"success": True, "available_times": TIMES}},
        "_last_state": {"filled": dict(filled), "pending": {}, "deferred": {}},
    }
