"""What identifies a DAG config's content: the compile cache's key, and the public fingerprint.

Two digests, for two jobs:

* the **fingerprint** (:func:`config_fingerprint`, :attr:`CompiledDag.fingerprint
  <slotgraph.config.compiled.CompiledDag.fingerprint>`): the sha256 of the config's canonical JSON (sorted
  keys, compact separators). Equal content gives an equal fingerprint whatever the key order; it is the
  stable, documented identity of a config. Canonical JSON is written by the C encoder but sorting every
  mapping makes it the dearest step of compiling a config that passed validation before.
* the **content key** (:class:`ConfigContent`): what :func:`~slotgraph.config.compile_config` caches by.
  It is the sha256 of the config's ``marshal``
  serialisation (format version 2), which C writes several times faster, tagged so the two kinds of input
  never meet; a config holding an object ``marshal`` does not know (a host's own class) is keyed by its
  canonical JSON instead, under another tag.

Why ``marshal`` is safe as a key: it writes each value with its exact type (``1``, ``1.0`` and ``True``
differ, as do a list and a tuple) and reads back the value it wrote, so two configs with one key are equal
values of the same types, with one exception: objects exposing the buffer protocol (``bytes``,
``bytearray``, ``memoryview``) are all written as bytes. (The canonical JSON of a non-JSON value is its
``str``, which can collide far more widely.) Version 2 writes no back-references, so the key does not
depend on which parts of the config happen to be shared objects. What is *not* ignored is insertion order
and whether a string is interned: two equal configs built differently may get two keys, which costs one
more compilation (or validation), never a wrong result.
"""

from __future__ import annotations

import hashlib
import json
import marshal
from typing import Any, Final

__all__ = ["ConfigContent", "canonical_json", "fingerprint_of"]

_MARSHAL_VERSION: Final = 2
_MARSHAL_TAG: Final = b"slotgraph config, marshal 2\0"
_JSON_TAG: Final = b"slotgraph config, canonical json\0"


def canonical_json(raw: Any) -> str:
    return json.dumps(raw, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def fingerprint_of(data: Any) -> str:
    """sha256 (hex) of ``data``'s canonical JSON."""
    return hashlib.sha256(canonical_json(data).encode("utf-8")).hexdigest()


class ConfigContent:
    """A config's content, taken once: its :attr:`key`, a frozen copy of it (:attr:`blob`, the ``marshal``
    bytes) and its fingerprint, computed on first request from that copy. Thread-safe (the fingerprint may be
    computed twice by racing threads, with one result)."""

    __slots__ = ("_fingerprint", "blob", "key")

    def __init__(self, data: Any) -> None:
        try:
            blob: bytes | None = marshal.dumps(data, _MARSHAL_VERSION)
        except ValueError:  # an object marshal does not know (a config built in code may hold one)
            blob = None
        self.blob = blob
        if blob is None:
            text = canonical_json(data).encode("utf-8")
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
            self._fingerprint = fingerprint_of(marshal.loads(self.blob))  # type: ignore[arg-type]
        return self._fingerprint
