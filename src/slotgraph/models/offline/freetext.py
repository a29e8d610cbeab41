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


_LEAD = r"^\W*(?:(?:and|also|so|but|oh|ok|okay|well|then|great|thanks|thank you)\W+)*"
"""Words a question may open with before its question word ("And is it open late?")."""
_ABOUT_IT_RE = re.compile(
    _LEAD + r"(?:is|are|was|were|does|do|did|has|have|how|which|who|when|why)\b(?!\s+(?:there|any)\b)"
    r"|" + _LEAD + r"(?:what|how|where)(?:'s|\s+is|\s+are|\s+was)\s+(?:the|their|its|it|they|this|that)\b",
    re.I,
)  # "is it far?", "what's the price like?": a question about something, not what the person wants
_IS_THERE_RE = re.compile(_LEAD + r"(?:is|are)\s+there\b", re.I)
_OPTION_NOUN_RE = re.compile(
    r"\b(?:one|ones|option|options|something|anything|somewhere|anywhere|place|places|spot|spots|restaurant"
    r"|restaurants|salon|salons|hotel|hotels|house|houses|home|homes|stylist|stylists|shop|shops|bar|bars"
    r"|cafe|cafes|venue|venues|ride|rides|car|cars|cab|cabs|others?|more|else|bistros?|diners?|eatery|eateries"
    r"|pubs?|inns?|lodges?|motels?|resorts?|hostels?|clinics?|spas?|studios?|barbers?|barbershops?|gyms?"
    r"|theaters?|theatres?|cinemas?|events?|movies?|flights?|apartments?|propert(?:y|ies)|rooms?|tables?)\b",
    re.I,
)  # "is there a unisex salon?" asks for one; "is there live music?" asks about the one in hand
_QUESTION_CLAUSE_RE = re.compile(
    r"[^.!?]+?(?:[.!?]+|,\s*(?=(?:what|where|how|do|does|did|is|are|can|could)\b)"
    r"|\s+and\s+(?=(?:do|does|is|are)\s+(?:they|it|there)\b)|$)",
    re.I,
)


def asking_blanked(text: str) -> str:
    """``text`` with its questions about something blanked ("Is it an inexpensive restaurant?", "Does this
    restaurant serve alcohol?", "Is there live music?" ask, they do not say what the person wants); a request
    put as a question stays ("Are there any cheap places?", "Can you find something affordable?", "Is there a
    unisex salon?"). A question after a comma is a sentence of its own ("Sounds good, do they have parking?").
    Same length as ``text``, so spans found in it are spans of ``text``."""
    chars = list(text)
    for match in _QUESTION_CLAUSE_RE.finditer(text):
        sentence = match.group(0)
        if not sentence.strip():
            continue
        asks = _asks(sentence)
        about_offer = _FACT_QUESTION_RE.match(sentence) and _ABOUT_THE_OFFER_RE.search(sentence)
        about_feature = _IS_THERE_RE.match(sentence) and not _OPTION_NOUN_RE.search(sentence)
        if asks and (_ABOUT_IT_RE.match(sentence) or about_offer or about_feature):
            chars[match.start() : match.end()] = " " * (match.end() - match.start())
            continue
        whether = _WHETHER_RE.search(sentence)
        if whether is not None:  # "I'd like to know if they have live music"
            start = match.start() + whether.start()
            chars[start : match.end()] = " " * (match.end() - start)
    return "".join(chars)


def _asks(sentence: str) -> bool:
    """A question: it ends with "?" or opens with "do they", "is it" (a clause cut at a comma is no question
    unless it does: "Sounds good," is a statement)."""
    return sentence.rstrip().endswith("?") or _DO_THEY_RE.match(sentence) is not None


_FACT_QUESTION_RE = re.compile(
    _LEAD + r"(?:is|are|was|were|do|does|did|has|have|what|what's|whats|how|can i|can we|could i|could we)\b",
    re.I,
)
_DO_THEY_RE = re.compile(_LEAD + r"(?:do|does|did|is|are)\s+(?:they|it|the|this|that|their|its)\b", re.I)
_ABOUT_THE_OFFER_RE = re.compile(
    r"\b(?:they|them|their|it|its)\b|\bthere\W*$|\b(?:this|that)\s+(?:one|place)\b", re.I
)  # a question about what was offered: "Is there live music there?", "do they serve alcohol?"
_WHETHER_RE = re.compile(
    r"\b(?:know|wonder\w*|tell me|find out|check|ask)\s+(?:if|whether)\b|\bwhether\b", re.I
)
