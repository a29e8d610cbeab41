"""Reading the system instruction: the ``<system_directive>``, the options it lists, what it asks.

The runtime appends the engine's message to the instruction as ``<system_directive>...</system_directive>``
(docs/runtime.md#the-instruction-suffix). The offline model relays that text, reads the options it offers ("We
have 6:00 PM, 7:30 PM...") and works out which visible parameter the question is about, to route an ambiguous
reply ("the 3rd", a bare "Chen") to the parameter being asked for.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from slotgraph.models.offline.schema import STOP_WORDS, Kind, Param
from slotgraph.models.offline.spans import stem, words
from slotgraph.names import READBACK_PROTOCOL, READBACK_SCOPE, SYSTEM_DIRECTIVE, close_tag, open_tag

__all__ = [
    "asked_params",
    "directive_text",
    "is_readback_instruction",
    "readback_question",
    "without_directive",
]

_OPEN, _CLOSE = open_tag(SYSTEM_DIRECTIVE), close_tag(SYSTEM_DIRECTIVE)
_SCOPE_OPEN, _SCOPE_CLOSE = open_tag(READBACK_SCOPE), close_tag(READBACK_SCOPE)
_SCOPE_VALUE = re.compile(r"^\s*-\s*[^:\n]+:\s*(.+?)\s*$", re.M)
# Question words that point at a kind of value, whatever the parameter is called.
_KIND_CUES: dict[Kind, frozenset[str]] = {
    "date": frozenset({"date", "day", "when"}),
    "time": frozenset({"time", "o'clock"}),
    "integer": frozenset({"many", "number"}),
    "number": frozenset({"much", "cost", "amount"}),
    "phone": frozenset({"phone", "number", "reach", "call", "mobile"}),
    "email": frozenset({"email", "e-mail"}),
    "name": frozenset({"name", "who", "whom", "whose"}),
    "text": frozenset({"describe", "reason", "requests", "anything"}),
    "boolean": frozenset(),
    "choice": frozenset({"kind", "type", "which"}),
    "identifier": frozenset({"number"}),
}


_PERSON_QUESTION = frozenset({"who", "whom", "whose"})


def directive_text(system_instruction: str) -> str | None:
    """The text of the last ``<system_directive>`` block, stripped; None when there is none.

    The protocol blocks mention the tag in prose ("relay the <system_directive>"), so the block is found
    from its LAST closing tag backwards, never from the first opening one.
    """
    end = system_instruction.rfind(_CLOSE)
    if end < 0:
        return None
    start = system_instruction.rfind(_OPEN, 0, end)
    if start < 0:
        return None
    text = " ".join(system_instruction[start + len(_OPEN) : end].split())
    return text or None


def readback_question(system_instruction: str) -> str | None:
    """The readback asked again, from the values ``<readback_scope>`` lists as waiting for the person's yes
    ("Just to confirm — Siam Taste, Sunnyvale, 12:30. Is that correct?"); None without that block.

    Once the values were read back, the engine sends no directive on the next turns: a model that found no
    answer in the message (a question about something else, a "thanks") asks for the confirmation again.
    """
    end = system_instruction.rfind(_SCOPE_CLOSE)
    start = system_instruction.rfind(_SCOPE_OPEN, 0, end) if end >= 0 else -1
    if start < 0:
        return None
    body = system_instruction[start + len(_SCOPE_OPEN) : end].strip()
    values = _SCOPE_VALUE.findall(body)
    listed = ", ".join(values) if values else body.removeprefix("Pending confirmation:").strip().rstrip(".")
    return f"Just to confirm — {listed}. Is that correct?" if listed else None


def without_directive(system_instruction: str) -> str:
    """The instruction with its last ``<system_directive>`` block removed."""
    end = system_instruction.rfind(_CLOSE)
    start = system_instruction.rfind(_OPEN, 0, end) if end >= 0 else -1
    if start < 0:
        return system_instruction
    return system_instruction[:start] + system_instruction[end + len(_CLOSE) :]


def is_readback_instruction(system_instruction: str) -> bool:
    """True when the instruction carries the readback protocol block."""
    return open_tag(READBACK_PROTOCOL) in system_instruction


_ORIGIN_CUES = frozenset({"pick", "pickup", "collect", "from", "start", "leaving", "departing"})
_DESTINATION_CUES = frozenset({"heading", "going", "headed", "destination", "drop", "dropoff", "travelling"})


def _place_cue(said: set[str], role: str) -> int:
    """ "Where should we pick you up?" points at an origin, "Where are you heading?" at a destination."""
    if role == "origin":
        return 2 * bool(said & _ORIGIN_CUES)
    if role == "destination":
        return 2 * bool(said & _DESTINATION_CUES)
    return 0


def asked_params(directive: str | None, params: Sequence[Param]) -> tuple[Param, ...]:
    """The parameters the directive's question is about (several for "How many guests, on what date?").

    A directive word scores 3 when it is a word of the parameter's name, 2 when it names one of its enum
    values, 1 when it only appears in its description; a question word typical of the parameter's kind
    ("when" for a date, "how many" for an integer) adds 1.
    """
    if not directive or not params:
        return ()
    return _asked_params(directive, params)


def _asked_params(directive: str, params: Sequence[Param]) -> tuple[Param, ...]:
    raw = {stem(w) for w in words(directive)}
    said = {w for w in raw if w not in STOP_WORDS}
    scores: list[tuple[int, Param]] = []
    for param in params:
        name, values, described = param.name_stems, param.value_stems, param.described_stems
        score = 3 * len(said & name) + 2 * len(said & values) + len(said & described)
        score += len(raw & _KIND_CUES[param.kind])
        if param.kind == "name" and not param.entity and raw & _PERSON_QUESTION:
            score += 1  # "Who is the appointment for?" asks for a person's name whatever it calls it
        if param.kind == "date" and "when" in raw:
            score += 1  # "When would you like to come in?" asks for a date whatever it calls it
        if param.role is not None and "where" in raw:
            # "Where to?" asks for a place: the pickup when the question is about picking up, else the others.
            origin_asked = _place_cue(said, "origin") > 0
            score += 2 if (param.role == "origin") == origin_asked else 0
        if param.role is not None:
            score += _place_cue(said, param.role)
        if param.kind == "boolean" and re.match(
            r"\s*(was|were|is|are|did|do|does|has|have)\b", directive, re.I
        ):
            score += 1
        scores.append((score, param))
    best = max(score for score, _ in scores)
    if best <= 0:
        # A question that names none of them, while only one thing can be answered, asks for that one:
        # what a reply means must not hinge on the wording of the question.
        return tuple(params) if len(params) == 1 else ()
    # Keep every parameter that scores at least half the best: a question may ask for two things at once.
    ranked = sorted(scores, key=lambda item: -item[0])  # the closest first (stable: schema order on ties)
    kept = tuple(p for score, p in ranked if score >= 2 and score * 2 >= best)
    if not kept:  # one word of its description only ("Which salon?"), and no other parameter as close
        top = [p for score, p in scores if score == best]
        kept = tuple(top) if len(top) == 1 else ()
    return kept
