"""Reading the Schema-Guided Dialogue (SGD) files: service schemas and dialogues as frozen dataclasses.

The SGD dataset (Rastogi et al., AAAI 2020; https://github.com/google-research-datasets/dstc8-schema-guided-dialogue)
is licensed CC BY-SA 4.0. This module only reads it; nothing derived from it is written here.

A dialogue is ``{dialogue_id, services, turns: [{speaker, utterance, frames: [{service, actions, slots,
state?, service_call?, service_results?}]}]}``. :class:`UserTurn` keeps only what a user turn carries (its
utterance, gold acts and dialogue state): the oracle model is built from these and never sees a system turn.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "Act",
    "Dialogue",
    "GoldCall",
    "IntentSchema",
    "ServiceSchema",
    "SlotSchema",
    "UserTurn",
    "data_dir",
    "load_dialogues",
    "load_schemas",
]

DATA_ENV = "SLOTGRAPH_SGD_DATA"
"""Environment variable naming the SGD directory (with ``schema.json`` and ``dialogues_*.json``)."""

_REPO = Path(__file__).resolve().parents[2]


def data_dir() -> Path | None:
    """Where the SGD subset is: ``$SLOTGRAPH_SGD_DATA``, else ``shared/data/sgd/train`` beside the checkout.

    The checkout's parent directory is searched upwards (a worktree may sit deeper than the main checkout).
    None when no candidate holds a ``schema.json``.
    """
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env)
    for parent in _REPO.parents:
        candidate = parent / "shared" / "data" / "sgd" / "train"
        if (candidate / "schema.json").is_file():
            return candidate
    return None


@dataclass(frozen=True, slots=True)
class SlotSchema:
    """One slot of a service: categorical slots have a closed list of possible values."""

    name: str
    description: str
    is_categorical: bool
    possible_values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class IntentSchema:
    """One intent: transactional intents change the world (a booking), the others search."""

    name: str
    description: str
    is_transactional: bool
    required_slots: tuple[str, ...]
    optional_slots: Mapping[str, str]
    result_slots: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ServiceSchema:
    """A service of ``schema.json``."""

    name: str
    description: str
    slots: tuple[SlotSchema, ...]
    intents: tuple[IntentSchema, ...]

    def slot(self, name: str) -> SlotSchema:
        for slot in self.slots:
            if slot.name == name:
                return slot
        raise KeyError(f"service {self.name} has no slot {name!r}")

    @property
    def transactionals(self) -> tuple[IntentSchema, ...]:
        """The transactional intents of the service (usually one; none for a search-only service)."""
        return tuple(i for i in self.intents if i.is_transactional)

    @property
    def searches(self) -> tuple[IntentSchema, ...]:
        return tuple(i for i in self.intents if not i.is_transactional)


@dataclass(frozen=True, slots=True)
class Act:
    """One gold dialogue act: ``INFORM city=['Palo Alto']`` with its canonical values."""

    act: str
    slot: str
    values: tuple[str, ...]
    canonical_values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class UserTurn:
    """What one user turn carries: the utterance, its gold acts and the gold dialogue state after it."""

    index: int
    utterance: str
    acts: tuple[Act, ...]
    active_intent: str
    slot_values: Mapping[str, tuple[str, ...]]

    def has(self, act: str) -> bool:
        return any(a.act == act for a in self.acts)


@dataclass(frozen=True, slots=True)
class GoldCall:
    """A backend call of the gold system, with the acts of the system turn that reported it."""

    method: str
    parameters: Mapping[str, str]
    results: tuple[Mapping[str, str], ...]
    system_acts: tuple[Act, ...]
    after_user_turn: int

    @property
    def failed(self) -> bool:
        return any(a.act == "NOTIFY_FAILURE" for a in self.system_acts)


@dataclass(frozen=True, slots=True)
class Dialogue:
    """One SGD dialogue of a single service."""

    dialogue_id: str
    service: str
    user_turns: tuple[UserTurn, ...]
    gold_calls: tuple[GoldCall, ...] = field(default=())
    gold_readbacks: int = 0
    """System turns with a ``CONFIRM`` act (the gold system's readbacks)."""


def _acts(raw: Sequence[Mapping[str, Any]]) -> tuple[Act, ...]:
    return tuple(
        Act(
            str(a["act"]),
            str(a.get("slot", "")),
            tuple(str(v) for v in a.get("values", ())),
            tuple(str(v) for v in a.get("canonical_values", a.get("values", ()))),
        )
        for a in raw
    )


def _frame(turn: Mapping[str, Any], service: str) -> Mapping[str, Any]:
    for frame in turn.get("frames", ()):
        if frame.get("service") == service:
            return frame  # type: ignore[no-any-return]
    return {}


def parse_dialogue(raw: Mapping[str, Any]) -> Dialogue:
    """Build a :class:`Dialogue` from one SGD dialogue object (single-service dialogues only)."""
    services = list(raw["services"])
    if len(services) != 1:
        raise ValueError(f"dialogue {raw['dialogue_id']}: expected one service, got {services}")
    service = str(services[0])
    users: list[UserTurn] = []
    calls: list[GoldCall] = []
    confirms = 0
    for turn in raw["turns"]:
        frame = _frame(turn, service)
        if turn["speaker"] == "SYSTEM" and any(a["act"] == "CONFIRM" for a in frame.get("actions", ())):
            confirms += 1
        if turn["speaker"] == "USER":
            state = frame.get("state", {})
            users.append(
                UserTurn(
                    index=len(users),
                    utterance=str(turn["utterance"]),
                    acts=_acts(frame.get("actions", ())),
                    active_intent=str(state.get("active_intent", "NONE")),
                    slot_values={k: tuple(v) for k, v in state.get("slot_values", {}).items()},
                )
            )
        elif "service_call" in frame:
            call = frame["service_call"]
            calls.append(
                GoldCall(
                    method=str(call["method"]),
                    parameters={k: str(v) for k, v in call["parameters"].items()},
                    results=tuple(dict(r) for r in frame.get("service_results", ())),
                    system_acts=_acts(frame.get("actions", ())),
                    after_user_turn=len(users) - 1,
                )
            )
    return Dialogue(str(raw["dialogue_id"]), service, tuple(users), tuple(calls), confirms)


def load_schemas(path: str | Path) -> dict[str, ServiceSchema]:
    """Read ``schema.json``: service name → :class:`ServiceSchema`."""
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    out: dict[str, ServiceSchema] = {}
    for svc in raw:
        slots = tuple(
            SlotSchema(
                s["name"], s.get("description", ""), bool(s["is_categorical"]), tuple(s["possible_values"])
            )
            for s in svc["slots"]
        )
        intents = tuple(
            IntentSchema(
                i["name"],
                i.get("description", ""),
                bool(i["is_transactional"]),
                tuple(i["required_slots"]),
                dict(i.get("optional_slots", {})),
                tuple(i.get("result_slots", ())),
            )
            for i in svc["intents"]
        )
        out[svc["service_name"]] = ServiceSchema(
            svc["service_name"], svc.get("description", ""), slots, intents
        )
    return out


def load_dialogues(data_dir: str | Path, service: str | None = None) -> list[Dialogue]:
    """Every single-service dialogue of ``data_dir/dialogues_*.json`` (optionally of one service), by id."""
    out: list[Dialogue] = []
    for file in sorted(Path(data_dir).glob("dialogues_*.json")):
        for raw in json.loads(file.read_text(encoding="utf-8")):
            if len(raw.get("services", ())) != 1:
                continue
            if service is not None and raw["services"][0] != service:
                continue
            out.append(parse_dialogue(raw))
    return sorted(out, key=lambda d: d.dialogue_id)
