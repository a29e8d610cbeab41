"""Reading config documents: YAML or JSON files, or plain mappings passed in by a host.

A file over :data:`~slotgraph.config.yaml_budget.MAX_CONFIG_BYTES` is refused before it is parsed. YAML is
read with a safe loader that refuses duplicate keys (PyYAML would silently keep the last one, hiding a
mistake), and a document that expands beyond bounds through aliases (an "alias bomb", see
:mod:`.yaml_budget`) or is nested too deeply is refused before it is built. Syntax errors carry the
file, line and column. :func:`read_located_mapping` also
returns where each value is in the file, so validation issues can be given a line and column. Nothing here
validates the content; see :mod:`slotgraph.config.validation`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from slotgraph.config.errors import ConfigLoadError
from slotgraph.config.positions import Position, SourceMap, json_positions, yaml_positions
from slotgraph.config.yaml_budget import MAX_CONFIG_BYTES, YamlBudgetError, check_node_budget

__all__ = ["read_document", "read_located_mapping", "read_mapping"]


class _StrictLoader(yaml.SafeLoader):
    """A SafeLoader that reports duplicate mapping keys instead of keeping the last one."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    seen: dict[Any, yaml.Node] = {}
    for key_node, _value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if isinstance(key, str | int | float | bool) and key in seen:
            first = seen[key].start_mark
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                f"found duplicate key {key!r} (first defined at line {first.line + 1})",
                key_node.start_mark,
            )
        if isinstance(key, str | int | float | bool):
            seen[key] = key_node
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _read_text(file: Path) -> str:
    """The file's text; a file over :data:`MAX_CONFIG_BYTES` is refused before it is parsed."""
    try:
        with file.open("rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
        if len(data) > MAX_CONFIG_BYTES:
            raise ConfigLoadError(
                f"{file}: the file is larger than {MAX_CONFIG_BYTES // (1024 * 1024)} MB, the most a config "
                "file may be (a 1,000-slot agent is about 120 KB) — fix: check that this is the config you "
                "meant, or split it (a DAG may live in its own file: `dag: dag.yaml`)"
            )
        return data.decode("utf-8")
    except FileNotFoundError:
        raise ConfigLoadError(
            f"{file}: file not found — fix: check the path (relative paths are resolved from {Path.cwd()})"
        ) from None
    except IsADirectoryError:
        raise ConfigLoadError(f"{file}: is a directory, expected a YAML or JSON file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigLoadError(f"{file}: cannot be read ({err})") from None


def _parse(file: Path, *, with_positions: bool) -> tuple[Any, dict[str, Position]]:
    """The document in ``file`` and, if asked, the positions of its values (see :mod:`.positions`)."""
    text = _read_text(file)
    if file.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise ConfigLoadError(
                f"{file}:{err.lineno}:{err.colno}: invalid JSON: {err.msg} "
                "— fix: correct the JSON syntax there"
            ) from None
        except RecursionError:
            raise ConfigLoadError(
                f"{file}: the JSON is nested too deeply to read (hundreds of levels) — fix: flatten it"
            ) from None
        return data, json_positions(text) if with_positions else {}
    loader = _StrictLoader(text)  # a SafeLoader
    try:
        node = loader.get_single_node()  # compose: nodes only, no Python object yet
        check_node_budget(node)  # an alias bomb is refused before anything walks its expansion
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark
        where = f"{file}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(file)
        problem = err.problem or "syntax error"
        context = f" {err.context}" if err.context else ""
        raise ConfigLoadError(
            f"{where}: invalid YAML: {problem}{context} — fix: correct the YAML syntax at that line"
        ) from None
    except yaml.YAMLError as err:
        raise ConfigLoadError(f"{file}: invalid YAML: {err}") from None
    except YamlBudgetError as err:
        raise ConfigLoadError(f"{file}: {err}") from None
    except RecursionError:
        raise ConfigLoadError(
            f"{file}: the YAML is nested too deeply to read (hundreds of levels) — fix: flatten the structure"
        ) from None
    finally:
        loader.dispose()
    return data, yaml_positions(node) if with_positions else {}


def read_document(path: str | os.PathLike[str]) -> Any:
    """Parse a YAML or JSON file (by extension; anything else is read as YAML, a superset of JSON)."""
    return _parse(Path(path), with_positions=False)[0]


def _as_mapping(data: Any, source: object, what: str) -> dict[str, Any]:
    if data is None:
        raise ConfigLoadError(f"{source}: the file is empty — fix: write the {what} as a YAML mapping")
    if not isinstance(data, dict):
        raise ConfigLoadError(
            f"{source}: the {what} must be a mapping (key: value pairs), got {type(data).__name__}"
        )
    return data


def read_mapping(
    source: str | os.PathLike[str] | Mapping[str, Any], *, what: str = "config"
) -> dict[str, Any]:
    """A config as a plain ``dict``: a mapping is copied shallowly, a path is read and must hold a mapping."""
    if isinstance(source, Mapping):
        return dict(source)
    return _as_mapping(read_document(source), source, what)


def read_located_mapping(
    path: str | os.PathLike[str], *, what: str = "config"
) -> tuple[dict[str, Any], SourceMap]:
    """Like :func:`read_mapping` for a file, with the :class:`SourceMap` of its values' positions."""
    data, positions = _parse(Path(path), with_positions=True)
    return _as_mapping(data, path, what), SourceMap(os.fspath(path), positions)
