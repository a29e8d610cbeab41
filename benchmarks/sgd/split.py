"""A fixed held-out part of the SGD subset: accuracy on real language measured on dialogues not tuned on.

The rule is deterministic and independent of the data files' order: a dialogue is **held out** when the
first byte of the SHA-256 of ``slotgraph-heldout:<id>`` is below 77 (about 30%). Everything else is the
**tuning** part. The ids the rule selects for the shipped subset are listed in ``heldout_ids.txt`` beside
this module, so the split is visible in review and a change of rule shows up as a diff. (The id is
salted: the shipped subset itself was picked by a hash of the bare ids, so their unsalted hashes are
skewed.)
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, TypeVar

__all__ = ["HELDOUT_IDS", "Part", "is_held_out", "select"]

Part = Literal["all", "heldout", "tuning"]
HELDOUT_IDS = Path(__file__).with_name("heldout_ids.txt")
_THRESHOLD = 77  # of 256: about 30% held out


def is_held_out(dialogue_id: str) -> bool:
    return hashlib.sha256(f"slotgraph-heldout:{dialogue_id}".encode()).digest()[0] < _THRESHOLD


class _HasId:
    dialogue_id: str


T = TypeVar("T", bound=_HasId)


def select(dialogues: Sequence[T], part: Part) -> list[T]:
    """The dialogues of ``part`` (``all``: every one), in the given order."""
    if part == "all":
        return list(dialogues)
    wanted = part == "heldout"
    return [d for d in dialogues if is_held_out(d.dialogue_id) == wanted]
