"""The session variable store: one source of truth for every rule, ``#when`` section and prompt program.

* **Seeding** — :meth:`VariableStore.seed` gives every declared mutable variable its default with
  *setdefault*: a value passed in when the session starts (or already persisted) beats the default.
* **Reads** — :meth:`VariableStore.get` looks at the session's variables first; a name that is not a
  variable *falls through* to the session metadata (session id, channel, caller facts passed at session
  start). Presence decides, not truthiness: a variable explicitly set to ``None`` still wins over a metadata
  fact of that name.
  A *linked* variable reads its runtime fact (a metadata key, ``filled.<slot>``, ``status`` or
  ``current_phase``) and is never stored.
* **Writes** — :meth:`VariableStore.set` writes only variables (metadata is read-only session context),
  refuses linked variables, published variables written by anything but their tools' results, and values
  of the wrong declared type (:class:`VariableWriteError`), and notifies every subscriber of a real change
  (:class:`VariableChange`).
* **Expressions** — :meth:`VariableStore.context` is the mapping expressions evaluate against: metadata, then
  the slot-filling facts under stable names (``filled``, ``status``, ``current_phase``), then the variables.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from slotgraph.config.logic import VariableDeclaration, type_problem
from slotgraph.logic.errors import VariableWriteError

__all__ = ["PUBLISH_SOURCE", "SlotFillingFacts", "VariableChange", "VariableStore"]

PUBLISH_SOURCE: Final = "publish:"
"""The write source of a capability's publication: ``publish:<tool>``."""


@dataclass(frozen=True, slots=True)
class SlotFillingFacts:
    """The slot-filling state as expressions see it: ``filled.<slot>``, ``status``, ``current_phase``."""

    filled: Mapping[str, Any] = field(default_factory=dict)
    status: str = "in_progress"
    current_phase: str = "collection"

    @classmethod
    def from_state(cls, sm: Mapping[str, Any]) -> SlotFillingFacts:
        """The facts of an engine state: ``readback`` while values wait for confirmation, ``done`` once the
        session is no longer in progress, else ``collection``."""
        status = str(sm.get("status") or "in_progress")
        phase = "collection"
        if status != "in_progress":
            phase = "done"
        elif sm.get("pending"):
            phase = "readback"
        filled = sm.get("filled")
        return cls(dict(filled) if isinstance(filled, Mapping) else {}, status, phase)

    def as_mapping(self) -> dict[str, Any]:
        return {"filled": dict(self.filled), "status": self.status, "current_phase": self.current_phase}


@dataclass(frozen=True, slots=True)
class VariableChange:
    """A variable changed: its name, the old and the new value, and what wrote it (``rule:<name>``...)."""

    name: str
    old: Any
    new: Any
    source: str


Subscriber = Callable[[VariableChange], None]


class _Context(Mapping[str, Any]):
    """Metadata < slot-filling facts < linked variables < variables, resolved lazily by presence."""

    def __init__(self, store: VariableStore, extra: Mapping[str, Any]) -> None:
        self._store = store
        self._extra = extra

    def __getitem__(self, key: str) -> Any:
        if key in self._extra:
            return self._extra[key]
        if self._store.has(key):
            return self._store.get(key)
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*self._extra, *self._store.names()]))

    def __len__(self) -> int:
        return len(dict.fromkeys([*self._extra, *self._store.names()]))


_SHARED: Final = frozenset({str, int, float, bool, type(None)})
"""Values that are immutable and shared as they are (by exact type: a subclass may carry mutable state)."""


def _copied(value: Any) -> Any:
    """A deep copy of ``value``, which only containers need: most variables hold text, numbers or flags, and
    ``copy.deepcopy`` costs ~1 µs even for those (the memo it sets up), several per call of the store."""
    return value if type(value) in _SHARED else copy.deepcopy(value)


class VariableStore:
    """The variables of one session (see the module docstring). Not thread-safe: one turn at a time."""

    def __init__(
        self,
        declarations: Sequence[VariableDeclaration] = (),
        values: Mapping[str, Any] | None = None,
        *,
        metadata: Mapping[str, Any] | None = None,
        facts: SlotFillingFacts | None = None,
    ) -> None:
        self.declarations: dict[str, VariableDeclaration] = {d.name: d for d in declarations}
        self._values: dict[str, Any] = {k: v for k, v in dict(values or {}).items() if self._is_mutable(k)}
        self.metadata: dict[str, Any] = dict(metadata or {})
        self.facts = facts or SlotFillingFacts()
        self._subscribers: list[Subscriber] = []
        self.maintained: set[str] = set()
        """What the logic layer's capabilities maintain (:meth:`maintain`); the model cannot set them."""

    def _is_mutable(self, name: str) -> bool:
        declaration = self.declarations.get(name)
        return declaration is None or declaration.mutable

    # --- seeding --------------------------------------------------------------------------------------

    def seed(self, initial: Mapping[str, Any] | None = None) -> list[str]:
        """Seed values passed at session start, then defaults, with setdefault (present values win).

        Returns what was refused (a linked or mistyped initial value), one line each; nothing raises.
        """
        refused: list[str] = []
        for name, value in dict(initial or {}).items():
            declaration = self.declarations.get(name)
            if declaration is not None and not declaration.mutable:
                refused.append(f"{name}: linked to {declaration.linked_to!r}, cannot be given a value")
                continue
            problem = type_problem(value, declaration.type) if declaration is not None else None
            if problem is not None:
                refused.append(f"{name}: {problem}")
                continue
            self._values.setdefault(name, _copied(value))
        for declaration in self.declarations.values():
            if declaration.mutable and declaration.name not in self._values:
                self._values[declaration.name] = _copied(declaration.default)
        return refused

    def maintain(self, name: str, initial: Any) -> None:
        """Seed a variable a capability maintains (``current_topic``): ``initial`` when the variable has no
        value yet (absent or ``None``), without notifying subscribers — it is where a session starts, not a
        change."""
        self.maintained.add(name)
        if self._values.get(name) is None:
            self._values[name] = _copied(initial)

    # --- reads ----------------------------------------------------------------------------------------

    def _fact(self, path: str) -> tuple[bool, Any]:
        facts = self.facts.as_mapping()
        head, _, rest = path.partition(".")
        if head in facts:
            value: Any = facts[head]
            for part in rest.split(".") if rest else ():
                if not isinstance(value, Mapping) or part not in value:
                    return True, None
                value = value[part]
            return True, value
        if path in self.metadata:
            return True, self.metadata[path]
        return False, None

    def has(self, name: str) -> bool:
        """Whether ``name`` resolves: a variable (declared or set), a linked variable, a fact, or metadata."""
        return (
            name in self._values
            or name in self.declarations
            or name in self.metadata
            or name in ("filled", "status", "current_phase")
        )

    def get(self, name: str) -> Any:
        """The value of ``name``: variable (presence wins), linked fact, slot-filling fact, metadata, None."""
        if name in self._values:
            return self._values[name]
        declaration = self.declarations.get(name)
        if declaration is not None and declaration.linked_to is not None:
            return self._fact(declaration.linked_to)[1]
        found, value = self._fact(name)
        return value if found else None

    def is_declared(self, name: str) -> bool:
        return name in self.declarations

    def names(self) -> list[str]:
        seen = dict.fromkeys(
            [*self.metadata, "filled", "status", "current_phase", *self.declarations, *self._values]
        )
        return list(seen)

    def snapshot(self) -> dict[str, Any]:
        """Every variable's value (declared, linked, and undeclared ones that were set), a deep copy."""
        out = {name: self.get(name) for name in self.declarations}
        out.update(self._values)
        return {name: _copied(value) for name, value in out.items()}

    def values(self) -> dict[str, Any]:
        """The stored (mutable) values only — what is persisted with the session (a deep copy)."""
        return {name: _copied(value) for name, value in self._values.items()}

    def context(self, extra: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
        """The live mapping expressions evaluate against (reads through this store); ``extra`` names (a
        tool_result rule's ``result``) come first."""
        return _Context(self, extra or {})

    # --- writes ---------------------------------------------------------------------------------------

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Call ``subscriber`` with every change; returns a function that unsubscribes."""
        self._subscribers.append(subscriber)
        return lambda: self._subscribers.remove(subscriber) if subscriber in self._subscribers else None

    def check_write(self, name: str, value: Any, *, source: str = "") -> str | None:
        """Why writing ``value`` to ``name`` (by ``source``) would be refused, or None."""
        declaration = self.declarations.get(name)
        if declaration is not None and not declaration.mutable:
            return f"variable {name!r} is linked to {declaration.linked_to!r} and cannot be written"
        published = declaration.published_by if declaration is not None else None
        by = source.removeprefix(PUBLISH_SOURCE) if source.startswith(PUBLISH_SOURCE) else None
        if published is not None and by not in published.tools:
            return (
                f"variable {name!r} is published by {' and '.join(published.tools)}: only their results "
                "write it"
            )
        if name in ("filled", "status", "current_phase", "result"):
            return f"{name!r} is provided by the logic layer and cannot be written"
        if declaration is not None:
            problem = type_problem(value, declaration.type)
            if problem is not None:
                return f"variable {name!r}: {problem}"
        return None

    def set(self, name: str, value: Any, *, source: str = "") -> VariableChange | None:
        """Write a variable; returns the change (None when the value did not change).

        Raises :class:`VariableWriteError` for a linked variable, a published one written by anything but
        its tools' results (``source`` ``publish:<tool>``) or a value of the wrong declared type.
        """
        problem = self.check_write(name, value, source=source)
        if problem is not None:
            raise VariableWriteError(problem)
        old = self._values.get(name)
        present = name in self._values
        if present and old == value and type(old) is type(value):
            return None
        self._values[name] = _copied(value)
        change = VariableChange(name, old, _copied(value), source)
        for subscriber in list(self._subscribers):
            subscriber(change)
        return change
