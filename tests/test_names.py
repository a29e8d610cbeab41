"""State keys, built-in tool names and prompt tags are spelled once, in slotgraph.names; readers import
them."""

from __future__ import annotations

import ast
from pathlib import Path

import slotgraph
from slotgraph import names

SRC = Path(slotgraph.__file__).parent

# Values that must appear as a string literal nowhere but in slotgraph/names.py. ("end_session",
# "escalate" and "steer_back" are also config keys and event kinds, so only their tags are checked.)
EXACT = {
    names.PENDING_PAYLOADS,
    names.PENDING_TRANSFER,
    names.GATE_USER_TEXT,
    names.CONFIRM_PENDING,
    names.REJECT_PENDING,
    names.SET_VARIABLES,
    names.SENTINEL,
    names.SYSTEM_DIRECTIVE,
    names.SLOT_FILLING_PROTOCOL,
    names.READBACK_PROTOCOL,
    names.USER_CONTEXT,
    names.READBACK_SCOPE,
    names.DEFERRED_COLLECTION,
    names.CANDIDATES,
    names.CHANGES,
    names.HELD,
}
TAGS = [
    names.SYSTEM_DIRECTIVE,
    names.SLOT_FILLING_PROTOCOL,
    names.READBACK_PROTOCOL,
    names.STEER_BACK,
    names.USER_CONTEXT,
    names.READBACK_SCOPE,
    names.DEFERRED_COLLECTION,
]


def _skipped(tree: ast.AST) -> set[int]:
    """Docstrings (of modules, classes, functions and attributes) and the entries of ``__all__``: they name
    things rather than repeat a name's value."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            found.add(id(node.value))
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            found.update(id(c) for c in ast.walk(node.value) if isinstance(c, ast.Constant))
    return found


def copies(path: Path, base: Path = SRC) -> list[str]:
    """The string literals of a module (docstrings aside) that repeat a shared name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _skipped(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            text = node.value
            tagged = any(f"<{tag}>" in text or f"</{tag}>" in text for tag in TAGS)
            if text in EXACT or tagged:
                found.append(f"{path.relative_to(base)}:{node.lineno}: {text[:50]!r}")
    return found


def test_no_module_repeats_a_shared_name() -> None:
    found = [hit for path in sorted(SRC.rglob("*.py")) if path.name != "names.py" for hit in copies(path)]
    assert found == [], "import these from slotgraph.names instead of repeating them"


def test_the_scan_sees_a_copy(tmp_path: Path) -> None:
    module = tmp_path / "probe.py"
    module.write_text(
        '"""A doc about <system_directive>."""\nKEY = "_pending_payloads"\nX = f"<steer_back>"\n'
    )
    hits = copies(module, tmp_path)
    assert [hit.split(":")[1] for hit in hits] == ["2", "3"]


def test_the_tag_helpers_agree_with_what_readers_parse() -> None:
    from slotgraph.models.offline.directive import directive_text, is_readback_instruction

    block = names.tagged(names.SYSTEM_DIRECTIVE, "How many guests?")
    assert directive_text(f"base\n{block}") == "How many guests?"
    assert is_readback_instruction(names.tagged(names.READBACK_PROTOCOL, "..."))
    assert {names.CONFIRM_PENDING, names.REJECT_PENDING} == names.READBACK_TOOLS
