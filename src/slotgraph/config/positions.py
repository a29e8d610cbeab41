"""Where in a config file each value is: ``{location: (line, column)}`` maps for validation issues.

Locations are the strings :func:`slotgraph.config.validation.structure.format_location` writes
(``tasks[1].inputs[2]``, ``slots[0].validation.errors.not_available``). Lines and columns are 1-based.

- A mapping entry is at its key (``requires_readbak:``), a list item at the item itself.
- YAML: positions come from the composed node tree (:func:`yaml.compose` builds nodes, it constructs no
  Python object). Merge keys (``<<: *base``) are followed; explicit keys win over merged ones, as they do
  when loading. Aliases and recursive anchors are walked once per path.
- JSON: a small scanner over text that :func:`json.loads` has already accepted; like :mod:`json`, the last
  of duplicate keys wins.

:meth:`SourceMap.position` falls back to the nearest ancestor that exists (a missing key points at the
mapping that lacks it); a location with no known ancestor has no position.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import yaml

from slotgraph.config.errors import ConfigIssue

__all__ = ["Position", "SourceMap", "json_positions", "yaml_positions"]

Position = tuple[int, int]
"""(line, column), both 1-based."""

_LAST_SEGMENT = re.compile(r"(\[\d+\]|\.[^.\[\]]*|[^.\[\]]+)$")
_MERGE_TAG = "tag:yaml.org,2002:merge"


@dataclass(frozen=True, slots=True)
class SourceMap:
    """The positions of one file's values, by location; locates :class:`ConfigIssue` objects."""

    file: str
    positions: Mapping[str, Position] = field(default_factory=dict)

    def position(self, location: str) -> Position | None:
        """The position of ``location``, or of its nearest existing ancestor; ``None`` if none is known."""
        current = location
        while True:
            found = self.positions.get(current)
            if found is not None:
                return found
            if not current:
                return None
            shorter = _LAST_SEGMENT.sub("", current)
            current = "" if shorter == current else shorter

    def within(self, prefix: str) -> SourceMap:
        """The positions under ``prefix`` (a location), relative to it: the map of a mapping nested in this
        file (an inline agent of an app file, ``agents[0].agent``)."""
        inner: dict[str, Position] = {}
        for location, position in self.positions.items():
            if location == prefix:
                inner[""] = position
            elif location.startswith(prefix + "."):
                inner[location[len(prefix) + 1 :]] = position
            elif location.startswith(prefix + "["):
                inner[location[len(prefix) :]] = position
        return SourceMap(self.file, inner)

    def locate(self, issue: ConfigIssue) -> ConfigIssue:
        """``issue`` with this file and the position of its location.

        An issue that already names a file (located in another file) is returned unchanged.
        """
        if issue.file is not None:
            return issue
        where = self.position(issue.location)
        if where is None:
            return replace(issue, file=self.file)
        return replace(issue, file=self.file, line=where[0], column=where[1])


def _join(parent: str, part: str | int) -> str:
    if isinstance(part, int):
        return f"{parent}[{part}]"
    return f"{parent}.{part}" if parent else part


def _mark(node: yaml.Node) -> Position:
    return node.start_mark.line + 1, node.start_mark.column + 1


def yaml_positions(root: yaml.Node | None) -> dict[str, Position]:
    """``{location: (line, column)}`` for every node of a composed YAML document."""
    positions: dict[str, Position] = {}
    if root is None:
        return positions
    positions[""] = _mark(root)
    # iterative walk: (node, location, ids of the nodes above it, for recursive anchors)
    stack: list[tuple[yaml.Node, str, frozenset[int]]] = [(root, "", frozenset())]
    while stack:
        node, where, above = stack.pop()
        if id(node) in above:
            continue
        inside = above | {id(node)}
        if isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                here = _join(where, index)
                positions.setdefault(here, _mark(item))
                stack.append((item, here, inside))
        elif isinstance(node, yaml.MappingNode):
            merged: list[yaml.Node] = []
            own: list[tuple[str, yaml.Node, yaml.Node]] = []
            for key_node, value_node in node.value:
                if key_node.tag == _MERGE_TAG:
                    merged.extend(
                        value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
                    )
                elif isinstance(key_node, yaml.ScalarNode):
                    own.append((key_node.value, key_node, value_node))
            for key, key_node, value_node in own:
                here = _join(where, key)
                positions[here] = _mark(key_node)  # explicit keys win over merged ones
                stack.append((value_node, here, inside))
            for source in merged:  # earlier merge sources win, as in PyYAML's flatten_mapping
                if not isinstance(source, yaml.MappingNode) or id(source) in inside:
                    continue
                for key_node, value_node in source.value:
                    if isinstance(key_node, yaml.ScalarNode) and key_node.tag != _MERGE_TAG:
                        here = _join(where, key_node.value)
                        if here not in positions:
                            positions[here] = _mark(key_node)
                            stack.append((value_node, here, inside))
    return positions


class _JsonScanner:
    """Positions of the keys and items of a JSON text that :func:`json.loads` accepted."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.index = 0
        self.line = 1
        self.line_start = 0
        self.positions: dict[str, Position] = {}

    def here(self) -> Position:
        return self.line, self.index - self.line_start + 1

    def skip_space(self) -> None:
        text = self.text
        while self.index < len(text) and text[self.index] in " \t\r\n":
            if text[self.index] == "\n":
                self.line += 1
                self.line_start = self.index + 1
            self.index += 1

    def forget_below(self, where: str) -> None:
        """Drop the positions inside ``where`` (a duplicate key replaces the earlier value)."""
        stale = [k for k in self.positions if k.startswith((f"{where}.", f"{where}["))]
        for key in stale:
            del self.positions[key]

    def string(self) -> str:
        start = self.index
        self.index += 1  # opening quote
        text = self.text
        while text[self.index] != '"':
            self.index += 2 if text[self.index] == "\\" else 1
        self.index += 1
        return str(json.loads(text[start : self.index]))

    def value(self, where: str) -> None:
        self.skip_space()
        char = self.text[self.index]
        if char == "{":
            self.index += 1
            self.skip_space()
            if self.text[self.index] == "}":
                self.index += 1
                return
            while True:
                self.skip_space()
                at = self.here()
                here = _join(where, self.string())
                if here in self.positions:  # the last duplicate wins, as in json.loads
                    self.forget_below(here)
                self.positions[here] = at
                self.skip_space()
                self.index += 1  # ':'
                self.value(here)
                self.skip_space()
                self.index += 1  # ',' or '}'
                if self.text[self.index - 1] == "}":
                    return
        elif char == "[":
            self.index += 1
            self.skip_space()
            if self.text[self.index] == "]":
                self.index += 1
                return
            count = 0
            while True:
                self.skip_space()
                here = _join(where, count)
                self.positions[here] = self.here()
                self.value(here)
                count += 1
                self.skip_space()
                self.index += 1  # ',' or ']'
                if self.text[self.index - 1] == "]":
                    return
        elif char == '"':
            self.string()
        else:  # number, true, false, null (strings never hold a raw newline in JSON)
            while self.index < len(self.text) and self.text[self.index] not in ",]} \t\r\n":
                self.index += 1


def json_positions(text: str) -> dict[str, Position]:
    """``{location: (line, column)}`` of a valid JSON text; empty if it cannot be scanned."""
    scanner = _JsonScanner(text)
    try:
        scanner.skip_space()
        scanner.positions[""] = scanner.here()
        scanner.value("")
    except (IndexError, ValueError, RecursionError):
        return {}
    return scanner.positions
