"""The evaluation harness: prove an agent works, and keep it working.

Scenario YAML files (:mod:`~slotgraph.evals.format`) and the original platform's golden JSON files
(:mod:`~slotgraph.evals.golden`) are loaded into one model (:mod:`~slotgraph.evals.loader`), played against an
agent by :mod:`~slotgraph.evals.runner` (the LLM played by a scripted, replay, offline or live model), and
checked by :mod:`~slotgraph.evals.expectations` with the matching rules of :mod:`~slotgraph.evals.matching`.
Simulated users and pass^k live in :mod:`~slotgraph.evals.simulation`; the JUnit and HTML writers in
:mod:`~slotgraph.evals.junit` and :mod:`~slotgraph.evals.html_report`. ``slotgraph test`` only wires these.
See ``docs/evals.md``.
"""

from slotgraph.evals.errors import EvalError, ScenarioFormatError
from slotgraph.evals.format import (
    ConversationExpect,
    Scenario,
    ScriptStep,
    TaskExpect,
    TextExpect,
    ToolCallExpect,
    Turn,
    TurnExpect,
    UserSimulation,
    scenario_json_schema,
)
from slotgraph.evals.golden import GoldenSettings, golden_scenario
from slotgraph.evals.harness import build_model
from slotgraph.evals.loader import Case, LoadFailure, discover, load_cases, load_scenario, parse_scenario
from slotgraph.evals.matching import find_mismatch, lookup_path, values_match
from slotgraph.evals.replay import ReplayCall, ReplayModel
from slotgraph.evals.results import RunSummary, ScenarioResult, TurnRecord, UnmetExpectation
from slotgraph.evals.runner import CaseRunner, RunOptions

__all__ = [
    "Case",
    "CaseRunner",
    "ConversationExpect",
    "EvalError",
    "GoldenSettings",
    "LoadFailure",
    "ReplayCall",
    "ReplayModel",
    "RunOptions",
    "RunSummary",
    "Scenario",
    "ScenarioFormatError",
    "ScenarioResult",
    "ScriptStep",
    "TaskExpect",
    "TextExpect",
    "ToolCallExpect",
    "Turn",
    "TurnExpect",
    "TurnRecord",
    "UnmetExpectation",
    "UserSimulation",
    "build_model",
    "discover",
    "find_mismatch",
    "golden_scenario",
    "load_cases",
    "load_scenario",
    "lookup_path",
    "parse_scenario",
    "scenario_json_schema",
    "values_match",
]
