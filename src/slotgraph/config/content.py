r"""What identifies a DAG config's content: the compile cache's key, and the public fingerprint.

Two digests, for two jobs:

* the **fingerprint** (:func:`config_fingerprint`, :attr:`CompiledDag.fingerprint
  <slotgraph.config.compiled.CompiledDag.fingerprint>`): the sha256 of the config's canonical JSON (sorted
  keys, compact separators). Equal content gives an equal fingerprint whatever the key order; it is the
  stable, documented identity of a config. A value JSON has no type for (a date, as YAML reads
  ``2026-06-17``; an object a host put in) is written tagged with its type — ``{"\u0000": ["date",
  "datetime.date(2026, 6, 17)"]}`` — and so is a mapping key that is not a string, so no two different
  configs share a fingerprint: a date and the string of that date, or ``{1: x}`` and ``{"1": x}``, used
  to (a key of the config's own that starts with ``\u0000`` gets another ``\u0000`` in front). Canonical
  JSON is written by the C encoder but sorting every mapping makes it the dearest step of compiling a
  config that passed validation before.
* the **content key** (:class:`ConfigContent`): what :func:`~slotgraph.config.compile_config` caches by.
  It is the sha256 of the config's ``marshal`` serialisation (format version 2), which C writes several
  times faster, tagged so the two kinds of input never meet; a config holding an object ``marshal`` does
  not know (a host's own class, a date) is keyed by its canonical JSON instead, under another tag.

Content that is compiled or validated for the first time is checked to be a tree of at most
:data:`MAX_CONFIG_DEPTH` levels (:func:`check_tree`, without recursion; a cache hit was checked when it was
first compiled): a config nested thousands of levels deep, or holding itself, is a
:class:`~slotgraph.config.errors.ConfigValidationError` naming where, never a ``RecursionError`` or a
``ValueError`` from deep inside the encoder.

Why ``marshal`` is safe as a key: it writes each value with its exact type (``1``, ``1.0`` and ``True``
differ, as do a list and a tuple) and reads back the value it wrote, so two configs with one key are equal
values of the same types, with one exception: objects exposing the buffer protocol (``bytes``,
``bytearray``, ``memoryview``) are all written as bytes (and for the fallback, the canonical JSON keeps the
type of every value). Version 2 writes no back-references, so the key does not
depend on which parts of the config happen to be shared objects. What is *not* ignored is insertion order
and whether a string is interned: two equal configs built differently may get two keys, which costs one
more compilation (or validation), never a wrong result.
"""

from __future__ import annotations

import hashlib
import json
import marshal
from collections.abc import Mapping
from typing import Any, Final

from slotgraph.config.errors import ConfigIssue, ConfigValidationError

__all__ = ["MAX_CONFIG_DEPTH", "ConfigContent", "canonical_json", "check_tree", "fingerprint_of"]

MAX_CONFIG_DEPTH: Final = 100
"""How deeply a config may nest (a Bella Notte-sized config nests about 8 levels)."""
_MARSHAL_VERSION: Final = 2
_MARSHAL_TAG: Final = b"slotgraph config, marshal 2\0"
_JSON_TAG: Final = b"slotgraph config, canonical json\0"
_TAG: Final = "\0"


def check_tree(data: Any, *, limit: int = MAX_CONFIG_DEPTH) -> None:
    """Raise :class:`ConfigValidationError` (one issue, located) when ``data`` nests more than ``limit``
    levels or holds itself; a part shared by several places is fine. Walks without recursion; a shared part
    is walked again only when it is met deeper than before."""
    deepest: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Any, int, tuple[Any, ...], bool]] = [(data, 1, (), False)]
    while stack:
        node, depth, path, done = stack.pop()
        ident = id(node)
        if done:
            on_path.discard(ident)
            continue
        if ident in on_path:
            raise _shape_error(
                "config_not_a_tree",
                _location(path),
                "this value contains itself (a mapping or list that holds itself, directly or deeper down)",
                "give the config as plain data — a tree of mappings, lists and values — with copies where a "
                "part repeats",
            )
        if depth > limit:
            raise _shape_error(
                "config_too_deep",
                _location(path[:3]) + (".…" if len(path) > 3 else ""),
                f"the config nests more than {limit} levels deep here",
                "flatten it: no config needs more than a few levels",
            )
        if deepest.get(ident, 0) >= depth:
            continue
        deepest[ident] = depth
        on_path.add(ident)
        stack.append((node, depth, path, True))
        for key, child in _children(node):
            if isinstance(child, Mapping | list | tuple):
                stack.append((child, depth + 1, (*path, key), False))


def _location(path: tuple[Any, ...]) -> str:
    """``slots[0].ask``-style: a string key after a dot, anything else in brackets."""
    out = ""
    for key in path:
        if isinstance(key, int) and not isinstance(key, bool):
            out += f"[{key}]"
        elif isinstance(key, str):
            out += f".{key}" if out else key
        else:
            out += f"[{key!r}]"
    return out


def _children(node: Any) -> list[tuple[Any, Any]]:
    if isinstance(node, Mapping):
        return list(node.items())
    if isinstance(node, list | tuple):
        return list(enumerate(node))
    return []


def _shape_error(code: str, where: str, message: str, fix: str) -> ConfigValidationError:
    return ConfigValidationError([ConfigIssue(code, where, message, fix)])


def _typed(value: Any) -> Any:
    """``value`` as JSON data that keeps what JSON cannot say: a value of another type is tagged with it,
    and so is a mapping key that is not a string (see the module docstring). A list and a tuple are the
    same content. Recursive: called on a checked tree (:func:`check_tree`)."""
    if isinstance(value, Mapping):
        return {_typed_key(key): _typed(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_typed(item) for item in value]
    if value is None or isinstance(value, str | bool | int | float):
        return value
    return {_TAG: [type(value).__name__, repr(value)]}


def _typed_key(key: Any) -> str:
    if isinstance(key, str):
        return _TAG + key if key.startswith(_TAG) else key
    return f"{_TAG}{type(key).__name__}:{key!r}"


def canonical_json(raw: Any) -> str:
    """The config's canonical JSON: sorted keys, compact, values JSON has no type for tagged with theirs."""
    return json.dumps(_typed(raw), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def fingerprint_of(data: Any) -> str:
    """sha256 (hex) of ``data``'s canonical JSON (``data`` is checked first: :func:`check_tree`)."""
    check_tree(data)
    return _fingerprint(data)


def _fingerprint(data: Any) -> str:
    return hashlib.sha256(canonical_json(data).encode("utf-8", "surrogatepass")).hexdigest()


class ConfigContent:
    """A config's content, taken once: its :attr:`key`, a frozen copy of it (:attr:`blob`, the ``marshal``
    bytes) and its fingerprint, computed on first request from that copy. Thread-safe (the fingerprint may be
    computed twice by racing threads, with one result). :class:`ConfigValidationError` when the content is
    not a tree or nests too deeply beyond what ``marshal`` writes (a shallower excess is found by
    :func:`check_tree` where the content is first compiled or validated)."""

    __slots__ = ("_fingerprint", "blob", "key")

    def __init__(self, data: Any) -> None:
        try:
            blob: bytes | None = marshal.dumps(data, _MARSHAL_VERSION)
        except ValueError:  # an object marshal does not know (a config built in code may hold one), or a
            check_tree(data)  # config nested too deeply or holding itself: that is said clearly here
            blob = None
        self.blob = blob
        if blob is None:
            text = canonical_json(data).encode("utf-8", "surrogatepass")
            self._fingerprint: str | None = hashlib.sha256(text).hexdigest()
            self.key: str = hashlib.sha256(_JSON_TAG + text).hexdigest()
        else:
            self._fingerprint = None
            self.key = hashlib.sha256(_MARSHAL_TAG + blob).hexdigest()

    def copy(self) -> Any:
        """A deep copy of the content as it was when taken (``None`` when it is not ``marshal`` data: the
        caller copies the config itself)."""
        return None if self.blob is None else marshal.loads(self.blob)

    @property
    def fingerprint(self) -> str:
        """sha256 of the content's canonical JSON (:func:`~slotgraph.config.config_fingerprint`)."""
        if self._fingerprint is None:
            self._fingerprint = _fingerprint(marshal.loads(self.blob))  # type: ignore[arg-type]
        return self._fingerprint
