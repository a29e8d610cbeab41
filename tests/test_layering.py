"""The layering of DESIGN.md, enforced: imports only point downwards, and the engine does no I/O.

Every module under ``src/slotgraph`` is parsed with :mod:`ast` (nothing is imported), and every import
statement — top-level or inside a function, so lazy imports count too — is checked against the table below.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "slotgraph"

# layer -> the slotgraph layers it may import (itself included). Edges may import everything.
ALLOWED: dict[str, set[str]] = {
    # The error root (SlotgraphError, with code and fix) sits below every layer; every layer may import it.
    "errors": {"errors"},
    # Names several layers spell the same way (state keys, built-in tools, prompt tags): below every layer.
    "names": {"names"},
    # Secrets out of what is printed or logged (URLs' passwords, keys, tokens): below every layer.
    "redaction": {"redaction"},
    "expr": {"expr"},
    # The fence that keeps untrusted values from forging the framework's instruction tags (regex only).
    "fencing": {"fencing"},
    "config": {"expr", "config"},
    "engine": {"expr", "config", "engine"},
    # The runtime resolves "provider:model" specs through slotgraph.models (lazily, inside a function);
    # backends import only the runtime's protocol types (slotgraph.models.protocol).
    "runtime": {
        "expr",
        "config",
        "engine",
        "fencing",
        "logic",
        "runtime",
        "models",
        "mcp_tools",
        "tracing",
        "stores",
    },
    # Agent logic: variables, #when sections, prompt programs, rules; the runtime drives it.
    "logic": {"expr", "config", "engine", "fencing", "logic"},
    # MCP servers as a tool source: the runtime loads them lazily when an agent names one.
    "mcp_tools": {"expr", "config", "models", "runtime", "mcp_tools"},
    # OpenTelemetry spans around the runtime's model, engine and tools (loaded lazily when tracing is on).
    "tracing": {"expr", "config", "models", "runtime", "tracing"},
    # The model protocol, ScriptedModel and the backends: never the runtime (the runtime depends on them).
    "models": {"expr", "config", "models"},
    # Multi-agent apps: app.yaml read and checked, its agents loaded and given their routing tools.
    "apps": {"expr", "config", "logic", "models", "runtime", "apps"},
    # Persistence of plain JSON records (sessions, the execution ledger, workflow runs): below the runtime
    # and the workflows, which both use it; it knows nothing of what a record holds.
    "stores": {"stores"},
    # Workflows: expr, config, models and the stores; the agent loop is reached through the AgentPort the
    # edges provide (slotgraph.workflow.ports), never imported.
    "workflow": {"expr", "config", "models", "stores", "workflow"},
}
EDGES = {"server", "cli", "evals", "adapters", "__main__", "__init__"}

# Modules the pure engine (and the layers below it) must never import: I/O, clocks, randomness, processes.
IO_MODULES = {
    "os",
    "io",
    "pathlib",
    "shutil",
    "tempfile",
    "socket",
    "ssl",
    "select",
    "subprocess",
    "multiprocessing",
    "threading",
    "asyncio",
    "urllib",
    "http",
    "sqlite3",
    "time",
    "random",
    "secrets",
    "httpx",
    "requests",
    "yaml",
    "builtins",
    "importlib",
    "pickle",
    "marshal",
}


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py"))


def _layer(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0].removesuffix(".py")


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import: stays inside the package it is written in
                base = ".".join(path.relative_to(SRC.parent).with_suffix("").parts[: -node.level])
                found.append((node.lineno, f"{base}.{node.module}" if node.module else base))
            elif node.module:
                found.append((node.lineno, node.module))
    return found


def test_there_are_modules_to_check() -> None:
    assert len(_modules()) >= 3


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_imports_point_downwards(path: Path) -> None:
    layer = _layer(path)
    if layer in EDGES:
        return
    allowed = ALLOWED.get(layer)
    assert allowed is not None, f"{path}: package {layer!r} has no row in the layering table of DESIGN.md"
    for lineno, name in _imports(path):
        parts = name.split(".")
        if parts[0] != "slotgraph" or len(parts) < 2:
            continue
        target = parts[1]
        assert target in allowed | {"errors", "names", "redaction"}, (
            f"{path.relative_to(SRC)}:{lineno} imports {name}: layer {layer!r} may only import "
            f"{sorted(allowed)} (see DESIGN.md)"
        )


@pytest.mark.parametrize(
    "path",
    [p for p in _modules() if _layer(p) in {"expr", "engine"}],
    ids=lambda p: str(p.relative_to(SRC)),
)
def test_pure_layers_do_no_io(path: Path) -> None:
    for lineno, name in _imports(path):
        top = name.split(".")[0]
        assert top not in IO_MODULES, (
            f"{path.relative_to(SRC)}:{lineno} imports {name}: the engine and the expression language are "
            "pure (no I/O, clock or randomness); take what you need as an argument instead"
        )


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    """The checker itself works: an upward import is found."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nfrom slotgraph.runtime import x\n\ndef f():\n    import slotgraph.cli\n")
    names = [name for _, name in _imports(bad)]
    assert names == ["os", "slotgraph.runtime", "slotgraph.cli"]


def test_models_never_import_the_runtime() -> None:
    """The model protocol, ScriptedModel and every backend live below the runtime (issue 13)."""
    assert "runtime" not in ALLOWED["models"]
    found = [
        f"{path.relative_to(SRC)}:{lineno} imports {name}"
        for path in _modules()
        if _layer(path) == "models"
        for lineno, name in _imports(path)
        if name == "slotgraph.runtime" or name.startswith("slotgraph.runtime.")
    ]
    assert found == []


@pytest.mark.parametrize("module", ["errors.py", "names.py"])
def test_the_bottom_modules_import_nothing_of_slotgraph(module: str) -> None:
    names = [name for _, name in _imports(SRC / module)]
    assert not [name for name in names if name.split(".")[0] == "slotgraph"]


def test_top_level_exports_resolve_lazily() -> None:
    import slotgraph

    assert slotgraph.Agent.__name__ == "Agent"
    assert set(slotgraph.__all__) >= {"Agent", "Session", "TurnResult", "ScriptedModel"}
    with pytest.raises(AttributeError):
        _ = slotgraph.NoSuchName  # type: ignore[attr-defined]
