"""Fixed held-out parts of the SGD tuning data: accuracy on real language measured on dialogues not tuned on.

Two rules, each fixed before any tuning on the data it splits, and each materialised as an id list beside
this module, so the split is visible in review and a change of rule shows up as a diff:

* ``train/`` (``heldout_ids.txt``): a dialogue is held out when the first byte of the SHA-256 of
  ``slotgraph-heldout:<id>`` is below 77 (about 30%). The id is salted: that subset itself was picked by a
  hash of the bare ids, so their unsalted hashes are skewed.
* ``train_more/`` (``heldout_more_ids.txt``): the 30% of its dialogue ids (rounded) whose SHA-256 hex
  digest of the bare id sorts lowest, over all its services together.

Everything else is the **tuning** part. ``dev/`` has no tuning part: all of it is held out (run it with
``--split all``). The ids of ``train/`` and ``train_more/`` are disjoint, so one set of held-out ids serves
both.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal, TypeVar

__all__ = [
    "HELDOUT_IDS",
    "HELDOUT_MORE_IDS",
    "Part",
    "held_out_ids",
    "is_held_out",
    "rule_more",
    "rule_train",
    "select",
]

Part = Literal["all", "heldout", "tuning"]
HELDOUT_IDS = Path(__file__).with_name("heldout_ids.txt")
HELDOUT_MORE_IDS = Path(__file__).with_name("heldout_more_ids.txt")
_THRESHOLD = 77  # of 256: about 30% held out
_MORE_SHARE = 0.3


def rule_train(ids: Iterable[str]) -> list[str]:
    """The held-out ids of ``train/`` by its rule, sorted."""
    return sorted(
        i for i in ids if hashlib.sha256(f"slotgraph-heldout:{i}".encode()).digest()[0] < _THRESHOLD
    )


def rule_more(ids: Iterable[str]) -> list[str]:
    """The held-out ids of ``train_more/`` by its rule, sorted."""
    unique = sorted(set(ids))
    by_hash = sorted(unique, key=lambda i: hashlib.sha256(i.encode()).hexdigest())
    return sorted(by_hash[: round(_MORE_SHARE * len(unique))])


def held_out_ids() -> frozenset[str]:
    """Every recorded held-out id (``train/`` and ``train_more/``)."""
    return frozenset(
        HELDOUT_IDS.read_text(encoding="utf-8").split() + HELDOUT_MORE_IDS.read_text(encoding="utf-8").split()
    )


_HELD = held_out_ids()


def is_held_out(dialogue_id: str) -> bool:
    return dialogue_id in _HELD


class _HasId:
    dialogue_id: str


T = TypeVar("T", bound=_HasId)


def select(dialogues: Sequence[T], part: Part) -> list[T]:
    """The dialogues of ``part`` (``all``: every one), in the given order."""
    if part == "all":
        return list(dialogues)
    wanted = part == "heldout"
    return [d for d in dialogues if is_held_out(d.dialogue_id) == wanted]
