"""Render a DAG config as a diagram: Mermaid ``flowchart LR`` or Graphviz DOT.

The picture is the config's DAG made explicit:

- every slot is a node, shaped and styled by its source (user, event, event→user fallback lists, announce,
  task-sourced); readback slots and conditions are written into the node's label;
- every task is a distinct node showing its tool; terminal and ``parallel`` tasks are marked, and tasks that
  may fire in one decision (:func:`parallel_groups`) are drawn inside one "parallel" subgraph/cluster;
- input slot → task and task → output slot edges are solid (an output edge is labelled with the result key
  when it differs from the slot name); ``requires`` edges (slot → slot, slot → task) are dashed;
- a name referenced but not declared (a config that failed cross-reference validation) still gets a node,
  styled as missing, so every edge endpoint is declared.

Output is deterministic: nodes and edges follow declaration order. Identifiers are sanitised to
``[A-Za-z0-9_]`` with a ``slot_``/``task_`` prefix and made unique; labels are escaped for each format.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from slotgraph.config.nodes import DagConfig, SlotConfig, TaskConfig

__all__ = ["NodeKind", "parallel_groups", "render_dot", "render_mermaid", "slot_kind"]

NodeKind = Literal["user", "event", "event_user", "announce", "task_sourced", "task", "terminal", "missing"]

_LAMBDA_HEAD = re.compile(r"^\s*lambda\b[^:]*:\s*")
_UNSAFE_ID_CHARS = re.compile(r"[^A-Za-z0-9_]")


@dataclass(frozen=True, slots=True)
class _Node:
    id: str
    kind: NodeKind
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Edge:
    source: str
    target: str
    label: str = ""
    dashed: bool = False


@dataclass(frozen=True, slots=True)
class _Graph:
    nodes: tuple[_Node, ...]
    edges: tuple[_Edge, ...]
    groups: tuple[tuple[str, ...], ...] = ()
    """Node ids of the tasks that may fire together (``parallel`` groups of two or more)."""


class _Ids:
    """Sanitised, unique node identifiers, allocated in declaration order."""

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, str], str] = {}
        self._taken: set[str] = set()

    def get(self, prefix: str, name: str) -> str:
        key = (prefix, name)
        if key not in self._by_key:
            base = f"{prefix}_{_UNSAFE_ID_CHARS.sub('_', name) or 'unnamed'}"
            candidate, n = base, 2
            while candidate in self._taken:
                candidate, n = f"{base}_{n}", n + 1
            self._taken.add(candidate)
            self._by_key[key] = candidate
        return self._by_key[key]

    def known(self, prefix: str, name: str) -> bool:
        return (prefix, name) in self._by_key


def _condition_text(condition: str) -> str:
    return "if " + _LAMBDA_HEAD.sub("", condition, count=1).strip()


def slot_kind(sources: Sequence[str]) -> NodeKind:
    """How a slot is drawn, from its normalised sources (a config slot's or a compiled slot's ``sources``)."""
    if "announce" in sources:
        return "announce"
    if any(s.startswith("task:") for s in sources):
        return "task_sourced"
    if "event" in sources:
        return "event_user" if "user" in sources else "event"
    return "user"


def _slot_node(slot: SlotConfig, node_id: str) -> _Node:
    lines = [slot.name, "source: " + " → ".join(slot.sources)]
    if slot.setter:
        setter = slot.setter + (f".{slot.setter_field}" if slot.setter_field else "")
        lines.append(f"setter: {setter}")
    if slot.requires_readback:
        lines.append("readback")
    if slot.condition:
        lines.append(_condition_text(slot.condition))
    return _Node(node_id, slot_kind(slot.sources), tuple(lines))


def _task_node(task: TaskConfig, node_id: str) -> _Node:
    lines = [task.name, f"tool: {task.tool}"]
    if task.readback_inputs:
        lines.append("grouped readback of inputs")
    if task.terminal:
        lines.append("terminal")
    elif task.parallel:
        lines.append("parallel")
    if task.condition:
        lines.append(_condition_text(task.condition))
    return _Node(node_id, "terminal" if task.terminal else "task", tuple(lines))


def _independent(a: TaskConfig, b: TaskConfig) -> bool:
    reads_a, reads_b = {*a.inputs, *a.requires}, {*b.inputs, *b.requires}
    writes_a, writes_b = set(a.outputs.values()), set(b.outputs.values())
    return reads_a.isdisjoint(writes_b) and reads_b.isdisjoint(writes_a) and writes_a.isdisjoint(writes_b)


def parallel_groups(dag: DagConfig) -> list[list[str]]:
    """The task names that may fire in one decision: ``parallel``, non-terminal tasks, grouped in declaration
    order with every task of the group they are independent of (neither reads what the other writes) — the
    engine's own rule (``compute_dag_state``) for tasks that become ready at the same moment."""
    groups: list[list[TaskConfig]] = []
    for task in dag.tasks:
        if not task.parallel or task.terminal:
            continue
        for group in groups:
            if all(_independent(task, other) for other in group):
                group.append(task)
                break
        else:
            groups.append([task])
    return [[task.name for task in group] for group in groups if len(group) > 1]


def _build(dag: DagConfig) -> _Graph:
    ids = _Ids()
    nodes: list[_Node] = []
    edges: list[_Edge] = []
    for slot in dag.slots:
        if not ids.known("slot", slot.name):
            nodes.append(_slot_node(slot, ids.get("slot", slot.name)))
    for task in dag.tasks:
        if not ids.known("task", task.name):
            nodes.append(_task_node(task, ids.get("task", task.name)))

    def slot_ref(name: str) -> str:
        if not ids.known("slot", name):
            nodes.append(_Node(ids.get("slot", name), "missing", (name, "undeclared slot")))
        return ids.get("slot", name)

    def task_ref(name: str) -> str:
        if not ids.known("task", name):
            nodes.append(_Node(ids.get("task", name), "missing", (name, "undeclared task")))
        return ids.get("task", name)

    produced: set[tuple[str, str]] = set()
    for task in dag.tasks:
        for name in task.inputs:
            edges.append(_Edge(slot_ref(name), task_ref(task.name)))
        for name in task.requires:
            edges.append(_Edge(slot_ref(name), task_ref(task.name), label="requires", dashed=True))
        for result_key, slot_name in task.outputs.items():
            produced.add((task.name, slot_name))
            label = result_key if result_key != slot_name else ""
            edges.append(_Edge(task_ref(task.name), slot_ref(slot_name), label=label))
    for slot in dag.slots:
        for source in slot.sources:
            task_name = source.removeprefix("task:")
            if source.startswith("task:") and (task_name, slot.name) not in produced:
                edges.append(_Edge(task_ref(task_name), slot_ref(slot.name)))
        for name in slot.requires:
            edges.append(_Edge(slot_ref(name), slot_ref(slot.name), label="requires", dashed=True))
    groups = tuple(tuple(ids.get("task", name) for name in group) for group in parallel_groups(dag))
    return _Graph(tuple(nodes), tuple(edges), groups)


# --- Mermaid -------------------------------------------------------------------------------------------

_MERMAID_SHAPES: dict[NodeKind, tuple[str, str]] = {
    "user": ("(", ")"),
    "event": ("[/", "/]"),
    "event_user": ("[/", "\\]"),
    "announce": (">", "]"),
    "task_sourced": ("[(", ")]"),
    "task": ("[[", "]]"),
    "terminal": ("{{", "}}"),
    "missing": ("[", "]"),
}

_MERMAID_CLASSES: dict[NodeKind, str] = {
    "user": "fill:#e8f1ff,stroke:#3b6fb6",
    "event": "fill:#fff4e0,stroke:#c08a2b",
    "event_user": "fill:#fff4e0,stroke:#3b6fb6",
    "announce": "fill:#f3e8ff,stroke:#7b4bb7",
    "task_sourced": "fill:#e9f7ef,stroke:#2e8b57",
    "task": "fill:#f5f5f5,stroke:#333333,stroke-width:2px",
    "terminal": "fill:#ffe9e9,stroke:#b03030,stroke-width:3px",
    "missing": "fill:#ffffff,stroke:#b03030,stroke-dasharray:4 2",
}

# Mermaid entity codes; '#' first so the entities themselves are not re-escaped.
_MERMAID_ESCAPES = (
    ("#", "#35;"),
    ('"', "#quot;"),
    ("&", "#amp;"),
    ("<", "#lt;"),
    (">", "#gt;"),
    ("|", "#124;"),
    ("\n", " "),
)


def _mermaid_escape(text: str) -> str:
    for raw, entity in _MERMAID_ESCAPES:
        text = text.replace(raw, entity)
    return text


def render_mermaid(dag: DagConfig) -> str:
    """The DAG as a Mermaid ``flowchart LR`` (deterministic, declaration order)."""
    graph = _build(dag)
    out = ["flowchart LR"]
    for node in graph.nodes:
        opening, closing = _MERMAID_SHAPES[node.kind]
        label = "<br/>".join(_mermaid_escape(line) for line in node.lines)
        out.append(f'    {node.id}{opening}"{label}"{closing}')
    for index, group in enumerate(graph.groups, start=1):
        out.append(f'    subgraph parallel_{index}["parallel: fire together"]')
        out.extend(f"        {node_id}" for node_id in group)
        out.append("    end")
    for edge in graph.edges:
        arrow = "-.->" if edge.dashed else "-->"
        label = f"|{_mermaid_escape(edge.label)}|" if edge.label else ""
        out.append(f"    {edge.source} {arrow}{label} {edge.target}")
    used = [kind for kind in _MERMAID_CLASSES if any(n.kind == kind for n in graph.nodes)]
    for kind in used:
        out.append(f"    classDef {kind} {_MERMAID_CLASSES[kind]}")
    for kind in used:
        members = ",".join(n.id for n in graph.nodes if n.kind == kind)
        out.append(f"    class {members} {kind}")
    return "\n".join(out) + "\n"


# --- DOT -----------------------------------------------------------------------------------------------

_DOT_STYLES: dict[NodeKind, str] = {
    "user": 'shape=box, style="rounded,filled", fillcolor="#e8f1ff", color="#3b6fb6"',
    "event": 'shape=parallelogram, style=filled, fillcolor="#fff4e0", color="#c08a2b"',
    "event_user": 'shape=parallelogram, style=filled, fillcolor="#fff4e0", color="#3b6fb6"',
    "announce": 'shape=note, style=filled, fillcolor="#f3e8ff", color="#7b4bb7"',
    "task_sourced": 'shape=cylinder, style=filled, fillcolor="#e9f7ef", color="#2e8b57"',
    "task": 'shape=component, style=filled, fillcolor="#f5f5f5", penwidth=2',
    "terminal": 'shape=doubleoctagon, style=filled, fillcolor="#ffe9e9", color="#b03030", penwidth=2',
    "missing": 'shape=box, style=dashed, color="#b03030"',
}


def _dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def render_dot(dag: DagConfig) -> str:
    """The DAG as a Graphviz ``digraph`` (deterministic, declaration order)."""
    graph = _build(dag)
    out = [
        "digraph slotgraph {",
        "    rankdir=LR;",
        '    node [fontname="Helvetica", fontsize=11];',
        '    edge [fontname="Helvetica", fontsize=10];',
    ]
    for node in graph.nodes:
        label = "\\n".join(_dot_escape(line) for line in node.lines)
        out.append(f'    "{node.id}" [label="{label}", {_DOT_STYLES[node.kind]}];')
    for index, group in enumerate(graph.groups, start=1):
        out.append(f"    subgraph cluster_parallel_{index} {{")
        out.append('        label="parallel: fire together"; style=dashed; color="#555555";')
        out.extend(f'        "{node_id}";' for node_id in group)
        out.append("    }")
    for edge in graph.edges:
        attrs = []
        if edge.label:
            attrs.append(f'label="{_dot_escape(edge.label)}"')
        if edge.dashed:
            attrs.append("style=dashed")
        suffix = f" [{', '.join(attrs)}]" if attrs else ""
        out.append(f'    "{edge.source}" -> "{edge.target}"{suffix};')
    out.append("}")
    return "\n".join(out) + "\n"
