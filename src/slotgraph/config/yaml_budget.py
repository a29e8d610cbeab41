"""Bounds on a composed YAML document, checked before any Python object is built from it.

YAML aliases let a tiny file describe a huge document: ``a: &a [x, x]``, ``b: &b [*a, *a]``, ... doubles at
every line (the "billion laughs"). PyYAML builds such a document cheaply (an alias is a shared reference),
but everything that walks it afterwards — positions, validation, compilation, JSON — pays the expanded
size, so an 800-byte file could exhaust memory. :func:`check_node_budget` counts the *expanded* size of the
node graph without expanding it (each distinct node is visited once, its expanded size memoised) and
refuses a document over :data:`MAX_EXPANDED_NODES` nodes, an alias that refers to itself, or more than
:data:`MAX_ALIASES` alias uses. It walks with an explicit stack: no recursion, whatever the depth. Before
any of that, a file over :data:`MAX_CONFIG_BYTES` is not parsed at all (:mod:`slotgraph.config.loader`).
"""

from __future__ import annotations

from typing import Any

import yaml

from slotgraph.config.errors import ConfigLoadError

__all__ = [
    "MAX_ALIASES",
    "MAX_CONFIG_BYTES",
    "MAX_EXPANDED_NODES",
    "YamlBudgetError",
    "YamlTooLargeError",
    "bounded_safe_load",
    "check_node_budget",
]

MAX_EXPANDED_NODES = 250_000
"""The largest document (scalars, sequences, mappings, counted as if every alias were copied) a config may
be; a 1,000-slot agent is about 15,000."""

MAX_ALIASES = 10_000
"""How many times aliases (``*name``) may be used in one document."""

MAX_CONFIG_BYTES = 2 * 1024 * 1024
"""The largest config file (YAML or JSON) read at all: a bigger one is refused before it is parsed (YAML
parses at well under a megabyte a second: a 33 MB file took minutes). A 1,000-slot agent is about 120 KB."""


class YamlBudgetError(ConfigLoadError):
    """The document is too large once its aliases are expanded, or refers to itself."""

    code = "yaml_too_large"


class YamlTooLargeError(YamlBudgetError, yaml.YAMLError):
    """:func:`bounded_safe_load`'s refusal: also a :class:`yaml.YAMLError`, so readers that already report
    invalid YAML with its file report this too."""

    code = "yaml_too_large_document"


def bounded_safe_load(text: str) -> Any:
    """``yaml.safe_load`` with the same bounds as config files: an alias bomb is refused before it is built.

    For every other YAML a user hands Slotgraph (scenarios, goldens' settings, tool tests, imported apps).
    Raises :class:`YamlTooLargeError` (a :class:`yaml.YAMLError`) when the document is over the limits.
    """
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        try:
            check_node_budget(node)
        except YamlBudgetError as err:
            raise YamlTooLargeError(str(err)) from None
        return loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()


def check_node_budget(root: yaml.Node | None) -> None:
    """Raise :class:`YamlBudgetError` when ``root`` expands beyond the limits (see the module docstring)."""
    if root is None:
        return
    size: dict[int, int] = {}
    on_stack: set[int] = set()
    uses: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        ident = id(node)
        if children_done:
            on_stack.discard(ident)
            total = 1 + sum(size[id(child)] for child in _children(node))
            if total > MAX_EXPANDED_NODES:
                raise YamlBudgetError(_too_large(node, total))
            size[ident] = total
            continue
        if ident in size:
            continue
        on_stack.add(ident)
        stack.append((node, True))
        for child in _children(node):
            cid = id(child)
            uses[cid] = uses.get(cid, 0) + 1
            if cid in on_stack:
                raise YamlBudgetError(
                    f"line {child.start_mark.line + 1}: an alias refers to a node that contains it (a "
                    "recursive document); configs must be trees — replace the alias by a copy"
                )
            if cid not in size:
                stack.append((child, False))
    aliases = sum(n - 1 for n in uses.values() if n > 1)
    if aliases > MAX_ALIASES:
        raise YamlBudgetError(
            f"the document uses aliases {aliases} times (at most {MAX_ALIASES}); write the values out"
        )


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _too_large(node: yaml.Node, total: int) -> str:
    return (
        f"line {node.start_mark.line + 1}: the document expands to more than {MAX_EXPANDED_NODES:,} values "
        f"once its aliases (*name) are copied in (this part alone is {total:,}); a config this large is "
        "almost certainly an alias bomb — write the values out, or split the config"
    )
