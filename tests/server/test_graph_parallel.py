"""The playground's graph marks ``parallel`` tasks (drawn as "calls <tool> · parallel")."""

from __future__ import annotations

from pathlib import Path

import yaml

from slotgraph.config import compile_config
from slotgraph.server.graph_json import dag_graph

TRIP_QUOTE = Path(__file__).resolve().parents[2] / "examples" / "trip_quote" / "dag.yaml"


def test_parallel_tasks_are_marked_in_the_playground_graph() -> None:
    graph = dag_graph(compile_config(yaml.safe_load(TRIP_QUOTE.read_text(encoding="utf-8"))))
    by_id = {node["id"]: node for node in graph["nodes"]}
    assert by_id["task:FlightQuote"]["parallel"] and by_id["task:HotelQuote"]["parallel"]
    assert not by_id["task:BookTrip"]["parallel"]
