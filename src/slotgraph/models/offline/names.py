"""Person names: "under Chen", "it's Maria Lopez", "it's for Maria Rossi", "my name is ...", or a bare "Chen"
when a name is asked.

With a cue ("my name is", "the name is", "under", "this is", "I'm", "it's for", "call me") the words after
it are the name, up to a comma or a word that cannot be part of a name ("and", "please", ...). Without a
cue, the whole reply is taken as the name only when a name is what the directive asks for and the reply
looks like one (one to four words, letters only, no everyday words: "Go back" or "Let's start over" is a
request, not a name). Lower-case names are capitalised ("sarah chen" → "Sarah Chen"); names written with
capitals are kept as written.
"""

from __future__ import annotations

import re

from slotgraph.models.offline.spans import Found

__all__ = ["find_name"]

_NAME_TOKEN = r"[A-Za-zÀ-ÖØ-öø-ÿ][A-Za-zÀ-ÖØ-öø-ÿ'’\-]*"
_STRONG_CUE_RE = re.compile(
    r"\b(?:my name(?:'s| is)|(?:the )?name(?:'s| is| will be| should be)|(?:put|book|have) it under"
    r"(?: the name(?: of)?)?|under the name(?: of)?|reservation (?:is )?under|booking (?:is )?under"
    r"|(?:it's|it is|that's|that is)? ?under|call me|you can call me)\s+",
    re.I,
)
_WEAK_CUE_RE = re.compile(
    r"\b(?:i'm|i am|this is|(?:it's|it is|that's|that is)(?: for)?|(?:it|the \w+) (?:is|will be) for)\s+",
    re.I,
)
_RELATION_RE = re.compile(
    r"^(?:it's |it is |this is )?(?:for |booking for )?my (?:son|daughter|wife|husband|mother|mom|father|dad|"
    r"child|kid|partner|friend|brother|sister)(?:'s)?,?\s+(?:(?:named|called|his name is|her name is)\s+)?",
    re.I,
)
_RELATIONS = (
    r"(?:son|daughter|wife|husband|mother|mom|mum|father|dad|child|kid|partner|friend|brother|sister|"
    r"grandmother|grandfather|grandma|grandpa|grandson|granddaughter|aunt|uncle|niece|nephew|boss|colleague|"
    r"fianc[ée]e?|boyfriend|girlfriend|spouse|little (?:one|boy|girl)|baby)"
)
# "the patient is my daughter, Chloe Park", "for my father, named Tomás Reyes": a relation, then the name.
_RELATION_ANY_RE = re.compile(
    rf"\bmy {_RELATIONS}(?:'s)?(?:\s*,\s*|\s+(?:named|called)\s+|,?\s+(?:his|her|their) name is\s+)"
    r"(?:(?:named|called)\s+)?",
    re.I,
)
# "put Sam O'Neill on it", "write Lee": a capitalised name right after the verb.
_PUT_RE = re.compile(r"\b(?i:put(?: down)?|write(?: down)?|print)\s+(?=[A-ZÀ-ÖØ-Þ])")
_NOT_NAME = frozenset(
    {
        "a", "an", "the", "and", "or", "but", "so", "to", "of", "in", "on", "at", "for", "with", "from",
        "by", "as", "is", "are", "was", "were", "be", "been", "it", "its", "it's", "this", "that", "these",
        "those", "i", "i'm", "me", "my", "we", "us", "our", "you", "your", "he", "she", "they", "them",
        "his", "her", "their", "yes", "yeah", "yep", "no", "nope", "not", "ok", "okay", "sure", "please",
        "thanks", "thank", "hi", "hello", "hey", "just", "only", "also", "too", "very", "really", "well",
        "um", "uh", "oh", "actually", "maybe", "about", "around", "some", "any", "none", "nothing", "all",
        "here", "there", "what", "which", "who", "when", "where", "why", "how", "can", "could", "would",
        "should", "will", "shall", "may", "might", "do", "does", "did", "have", "has", "had", "get", "got",
        "make", "made", "want", "need", "like", "love", "sorry", "fine", "good", "great", "perfect",
        "correct", "right", "wrong", "table", "reservation", "booking", "name", "number", "phone", "email",
        "time", "date", "day", "today", "tomorrow", "tonight", "people", "person", "guests", "party", "one",
        "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "sick", "allergies",
        "allergy", "vegan", "vegetarian", "birthday", "anniversary", "window", "seat", "outside", "inside",
        "afraid", "glad", "happy", "looking", "calling", "hoping", "trying", "going", "coming", "go", "back",
        "let's", "let", "wait", "hold", "stop", "cancel", "never", "mind", "start", "over"
    }
)  # fmt: skip
_STOP_AFTER = frozenset(
    {
        "and",
        "please",
        "thanks",
        "thank",
        "with",
        "for",
        "but",
        "at",
        "on",
        "in",
        "from",
        "who",
        "i",
        "we",
        "no",
    }
)


def _name_words(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(0), m.start(), m.end()) for m in re.finditer(_NAME_TOKEN, text)]


def _format(tokens: list[str]) -> str:
    return " ".join(t[:1].upper() + t[1:] if t.islower() else t for t in tokens)


def _take_name(text: str, start: int, *, allow_common: bool, cue_start: int | None = None) -> Found | None:
    rest = text[start:]
    stop = re.search(r"[,.;!?\n]|\s-\s", rest)
    segment = rest[: stop.start()] if stop else rest
    tokens: list[tuple[str, int, int]] = []
    for word, s, e in _name_words(segment):
        lowered = word.lower()
        if lowered in _STOP_AFTER or (tokens and lowered in _NOT_NAME):
            break
        if not allow_common and lowered in _NOT_NAME:
            return None
        tokens.append((word, s, e))
        if len(tokens) == 4:
            break
    if not tokens:
        return None
    begin = cue_start if cue_start is not None else start + tokens[0][1]
    return Found(_format([t[0] for t in tokens]), begin, start + tokens[-1][2])


def find_name(text: str, *, asked: bool) -> Found | None:
    """The person name in ``text``; a bare reply counts only when ``asked`` (the directive asks a name)."""
    for match in _STRONG_CUE_RE.finditer(text):
        found = _take_name(text, match.end(), allow_common=False, cue_start=match.start())
        if found is not None:
            return found
    for match in _WEAK_CUE_RE.finditer(text):
        following = text[match.end() :]
        relation = _RELATION_RE.match(following)
        offset = match.end() + (relation.end() if relation else 0)
        first = re.match(_NAME_TOKEN, text[offset:])
        if first and (asked or first.group(0)[0].isupper()):
            found = _take_name(text, offset, allow_common=False, cue_start=match.start())
            if found is not None:
                return found
    for match in _RELATION_ANY_RE.finditer(text):
        first = re.match(_NAME_TOKEN, text[match.end() :])
        if first and (asked or first.group(0)[0].isupper()):
            found = _take_name(text, match.end(), allow_common=False, cue_start=match.start())
            if found is not None:
                return found
    for match in _PUT_RE.finditer(text):
        found = _take_name(text, match.end(), allow_common=False, cue_start=match.start())
        if found is not None:
            return found
    if not asked:
        return None
    relation = _RELATION_RE.search(text)
    start = relation.end() if relation else 0
    for segment in re.finditer(r"[^,;.!?]+", text[start:]):
        body = segment.group(0)
        tokens = _name_words(body)
        if not tokens:
            continue
        if len(tokens) > 4 or re.search(r"[0-9@]", body) or any(t[0].lower() in _NOT_NAME for t in tokens):
            return None
        offset = start + segment.start()
        return Found(_format([t[0] for t in tokens]), offset + tokens[0][1], offset + tokens[-1][2])
    return None
