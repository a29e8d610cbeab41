"""Structural checks on rendered diagrams, shared by the graph tests (no golden strings)."""

from __future__ import annotations

import re

DOT_NODE = re.compile(r'^\s*"(?P<id>[A-Za-z0-9_]+)" \[label="(?P<label>(?:[^"\\]|\\.)*)", (?P<attrs>.*)\];$')
DOT_EDGE = re.compile(r'^\s*"(?P<src>[A-Za-z0-9_]+)" -> "(?P<dst>[A-Za-z0-9_]+)"(?P<attrs> \[.*\])?;$')
MERMAID_EDGE = re.compile(r"^\s*(?P<src>\w+) (?P<arrow>-->|-\.->)(?:\|(?P<label>[^|]*)\|)? (?P<dst>\w+)$")
MERMAID_NODE = re.compile(r'^\s*(?P<id>\w+)(?P<open>[\[\(>{/]+)"(?P<label>[^"]*)"(?P<close>[\]\)}/\\]+)$')


def dot_nodes(dot: str) -> dict[str, tuple[str, str]]:
    """id -> (label, attributes)."""
    found = {}
    for line in dot.splitlines():
        match = DOT_NODE.match(line)
        if match:
            found[match["id"]] = (match["label"], match["attrs"])
    return found


def dot_edges(dot: str) -> list[tuple[str, str, str]]:
    return [
        (m["src"], m["dst"], m["attrs"] or "") for line in dot.splitlines() if (m := DOT_EDGE.match(line))
    ]


def assert_braces_balanced(dot: str) -> None:
    """Braces outside double-quoted strings (which may hold escaped quotes) balance and never go negative."""
    unquoted = re.sub(r'"(?:[^"\\]|\\.)*"', '""', dot)
    depth = 0
    for char in unquoted:
        depth += {"{": 1, "}": -1}.get(char, 0)
        assert depth >= 0, "a closing brace before its opening brace"
    assert depth == 0, "unbalanced braces"


def assert_dot_is_sane(dot: str) -> None:
    """Balanced braces, every line a known statement, every edge endpoint declared as a node."""
    lines = dot.strip().splitlines()
    assert lines[0] == "digraph slotgraph {" and lines[-1] == "}"
    assert_braces_balanced(dot)
    body = lines[1:-1]
    for line in body:
        assert (
            DOT_NODE.match(line)
            or DOT_EDGE.match(line)
            or re.match(r"^\s*(rankdir=LR|node \[.*\]|edge \[.*\]);$", line)
            or re.match(r"^\s*subgraph cluster_\w+ \{$", line)  # a parallel group
            or re.match(r'^\s*label="[^"]*"; style=dashed; color="#[0-9a-f]{6}";$', line)
            or re.match(r'^\s*"\w+";$', line)
            or line.strip() == "}"
        ), f"unexpected DOT line: {line!r}"
    nodes = dot_nodes(dot)
    for src, dst, _ in dot_edges(dot):
        assert src in nodes and dst in nodes, (src, dst)


def mermaid_nodes(mermaid: str) -> dict[str, tuple[str, str]]:
    """id -> (label, opening bracket)."""
    found = {}
    for line in mermaid.splitlines():
        match = MERMAID_NODE.match(line)
        if match:
            found[match["id"]] = (match["label"], match["open"])
    return found


def mermaid_edges(mermaid: str) -> list[tuple[str, str, str, str]]:
    """(source, arrow, label, target)."""
    return [
        (m["src"], m["arrow"], m["label"] or "", m["dst"])
        for line in mermaid.splitlines()
        if (m := MERMAID_EDGE.match(line))
    ]


def mermaid_classes(mermaid: str) -> dict[str, str]:
    """node id -> class name, from ``class a,b name`` lines."""
    found = {}
    for line in mermaid.splitlines():
        match = re.match(r"^\s*class (?P<ids>[\w,]+) (?P<cls>\w+)$", line)
        if match:
            for node_id in match["ids"].split(","):
                found[node_id] = match["cls"]
    return found


def assert_mermaid_is_sane(mermaid: str) -> None:
    lines = mermaid.strip().splitlines()
    assert lines[0] == "flowchart LR"
    for line in lines[1:]:
        assert (
            MERMAID_NODE.match(line)
            or MERMAID_EDGE.match(line)
            or re.match(r"^\s*classDef \w+ \S.*$", line)
            or re.match(r"^\s*class [\w,]+ \w+$", line)
            or re.match(r'^\s*subgraph \w+\["[^"]*"\]$', line)  # a parallel group
            or re.match(r"^\s*\w+$", line)  # a member of the group (a declared node, checked below)
        ), f"unexpected Mermaid line: {line!r}"
    nodes = mermaid_nodes(mermaid)
    for line in lines[1:]:
        member = re.match(r"^\s*(\w+)$", line)
        if member and member[1] != "end":
            assert member[1] in nodes, f"subgraph member {member[1]!r} is not a node"
    for src, _, _, dst in mermaid_edges(mermaid):
        assert src in nodes and dst in nodes, (src, dst)
    for node_id in mermaid_classes(mermaid):
        assert node_id in nodes
