"""Free-text answers (notes, requests, reasons, descriptions) and "nothing to add" replies.

A reply meaning "nothing" ("none", "no allergies", "nothing, thanks", "no, nothing special") becomes the
parameter's empty value — the word its description quotes ("'none' if there are none") or ``"none"``.
Anything else is the text itself, minus leading filler ("um", "well", "so") and trailing politeness
("please", "thanks"). Greetings and questions are not answers.
"""

from __future__ import annotations

import re

__all__ = ["asking_blanked", "clean_text", "is_nothing", "is_question_or_greeting"]

_LEADING_FILLER_RE = re.compile(
    r"^(?:(?:um+|uh+|er+|hmm+|well|so|oh|ok|okay|and|also|yes|yeah|sure|actually|like|basically)\b[\s,.-]*)+",
    re.I,
)
_TRAILING_RE = re.compile(r"[\s,.!-]*(?:please|thanks|thank you|thx|cheers|i guess|i think)?[\s,.!]*$", re.I)
_NOTHING_RE = re.compile(
    r"^(?:no|none|nothing|nope|nah|not really|n/?a|no thanks|no thank you|we're good|we are good|all good|"
    r"i'm good|that's all)"
    r"(?:[\s,.!]+(?:no|none|nothing|special|at all|thanks|thank you|really|allergies|allergy|requests?|"
    r"special requests?|needs|dietary (?:needs|restrictions)|restrictions|in particular|else|we're good|"
    r"for (?:me|us)|from (?:me|us)|to add|that i know of|i'm good))*[\s.!]*$",
    re.I,
)
_GREETING_RE = re.compile(
    r"^(?:hi|hello|hey|good (?:morning|afternoon|evening)|hiya|yo)\b[\s,!.?]*(?:there)?[\s!.?]*$", re.I
)


def is_nothing(text: str) -> bool:
    """True for replies that mean "nothing to add"."""
    return bool(_NOTHING_RE.match(text.strip()))


def is_question_or_greeting(text: str) -> bool:
    """True for a bare greeting or a question (which is not an answer to record)."""
    stripped = text.strip()
    return bool(_GREETING_RE.match(stripped)) or stripped.endswith("?")


def clean_text(text: str) -> str:
    """``text`` without leading filler, trailing politeness, or surrounding punctuation and spaces."""
    cleaned = " ".join(text.split()).strip(" ,.;:-")
    previous = None
    while previous != cleaned:
        previous = cleaned
        cleaned = _LEADING_FILLER_RE.sub("", cleaned).strip(" ,.;:-")
        cleaned = _TRAILING_RE.sub("", cleaned).strip(" ,.;:-")
    return cleaned


_ABOUT_IT_RE = re.compile(
    r"^\W*(?:is|are|was|were|does|do|did|has|have|how|which|who|when|why)\b"
    r"(?!\s+(?:there|any)\b)",
    re.I,
)


def asking_blanked(text: str) -> str:
    """``text`` with its questions about something blanked ("Is it an inexpensive restaurant?", "Does this
    restaurant serve alcohol?" ask, they do not say what the person wants); a request put as a question
    stays ("Are there any cheap places?", "Can you find something affordable?"). Same length as ``text``,
    so spans found in it are spans of ``text``."""
    chars = list(text)
    for match in re.finditer(r"[^.!?]+[.!?]*", text):
        sentence = match.group(0)
        asks = sentence.rstrip().endswith("?") or _DO_THEY_RE.match(sentence) is not None
        about_offer = _FACT_QUESTION_RE.match(sentence) and _ABOUT_THE_OFFER_RE.search(sentence)
        if asks and (_ABOUT_IT_RE.match(sentence) or about_offer):
            chars[match.start() : match.end()] = " " * (match.end() - match.start())
            continue
        whether = _WHETHER_RE.search(sentence)
        if whether is not None:  # "I'd like to know if they have live music"
            start = match.start() + whether.start()
            chars[start : match.end()] = " " * (match.end() - start)
    return "".join(chars)


_FACT_QUESTION_RE = re.compile(r"^\W*(?:is|are|was|were|do|does|did|has|have|what|what's|whats|how)\b", re.I)
_DO_THEY_RE = re.compile(r"^\W*(?:do|does|did|is|are)\s+(?:they|it|the|this|that|their|its)\b", re.I)
_ABOUT_THE_OFFER_RE = re.compile(
    r"\b(?:they|them|their|it|its)\b|\bthere\W*$|\b(?:this|that)\s+(?:one|place)\b", re.I
)  # a question about what was offered: "Is there live music there?", "do they serve alcohol?"
_WHETHER_RE = re.compile(r"\b(?:know|wonder\w*|tell me|find out|check|ask)\s+(?:if|whether)\b", re.I)
