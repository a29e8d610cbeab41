"""An agent's DAG as JSON for the playground: nodes (slots and tasks, with their kind) and edges, laid out.

The shape follows :mod:`slotgraph.config.graph` (the Mermaid/DOT renderer): input slot → task and task →
output slot edges are solid, ``requires`` edges dashed; a slot sourced from a task gets the task's edge. Each
node has a simple layered place for clients that draw the graph themselves: ``rank`` is the longest path from
a node without inputs, ``row`` the node's place within its rank (declaration order). The playground lays the
graph out with ELK instead (ports, orthogonal edges, boxes sized to their labels) and only orders its input by
them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slotgraph.config import CompiledDag
from slotgraph.config.graph import slot_kind

__all__ = ["dag_graph"]


@dataclass(frozen=True, slots=True)
class _Edge:
    source: str
    target: str
    label: str = ""
    dashed: bool = False


def _edges(dag: CompiledDag) -> list[_Edge]:
    slots = {f"slot:{s.name}" for s in dag.slots}
    tasks = {f"task:{t.name}" for t in dag.tasks}
    edges: list[_Edge] = []
    produced: set[tuple[str, str]] = set()
    for task in dag.tasks:
        tid = f"task:{task.name}"
        edges.extend(_Edge(f"slot:{name}", tid) for name in task.inputs)
        edges.extend(_Edge(f"slot:{name}", tid, "requires", True) for name in task.requires)
        for key, slot_name in task.outputs.items():
            produced.add((task.name, slot_name))
            edges.append(_Edge(tid, f"slot:{slot_name}", key if key != slot_name else ""))
    for slot in dag.slots:
        for source in slot.sources:
            task_name = source.removeprefix("task:")
            if source.startswith("task:") and (task_name, slot.name) not in produced:
                edges.append(_Edge(f"task:{task_name}", f"slot:{slot.name}"))
        edges.extend(_Edge(f"slot:{name}", f"slot:{slot.name}", "requires", True) for name in slot.requires)
    known = slots | tasks
    return [e for e in edges if e.source in known and e.target in known]


def _ranks(ids: list[str], edges: list[_Edge]) -> dict[str, int]:
    incoming: dict[str, list[str]] = {i: [] for i in ids}
    for edge in edges:
        incoming[edge.target].append(edge.source)
    rank: dict[str, int] = {}
    for _ in range(len(ids) + 1):  # longest-path relaxation; a cycle (invalid config) stops at the cap
        changed = False
        for node in ids:
            best = max((rank.get(src, 0) + 1 for src in incoming[node]), default=0)
            if rank.get(node) != best:
                rank[node], changed = best, True
        if not changed:
            break
    return rank


def dag_graph(dag: CompiledDag) -> dict[str, Any]:
    """``{"nodes": [...], "edges": [...]}``; node ids are ``slot:NAME`` / ``task:NAME``."""
    nodes: list[dict[str, Any]] = []
    for slot in dag.slots:
        nodes.append(
            {
                "id": f"slot:{slot.name}",
                "name": slot.name,
                "type": "slot",
                "kind": slot_kind(slot.sources),
                "label": slot.label or slot.name,
                "setter": slot.setter,
                "readback": slot.requires_readback,
                "condition": slot.condition.source if slot.condition else None,
            }
        )
    for task in dag.tasks:
        nodes.append(
            {
                "id": f"task:{task.name}",
                "name": task.name,
                "type": "task",
                "kind": "terminal" if task.terminal else "task",
                "label": task.name,
                "tool": task.tool,
                "readback": task.readback_inputs,
                "condition": task.condition.source if task.condition else None,
                "parallel": task.parallel,
            }
        )
    edges = _edges(dag)
    ranks = _ranks([n["id"] for n in nodes], edges)
    rows: dict[int, int] = {}
    for node in nodes:
        node["rank"] = ranks[node["id"]]
        node["row"] = rows.get(node["rank"], 0)
        rows[node["rank"]] = node["row"] + 1
    return {
        "nodes": nodes,
        "edges": [
            {"source": e.source, "target": e.target, "label": e.label, "dashed": e.dashed} for e in edges
        ],
    }
