"""Values of a word or two said inside a sentence: a cuisine, a genre, a category, a type.

A *short-valued* parameter is a text parameter whose values are a word or two ("Cuisine of food served in the
restaurant", "Genre of the movie"), not a sentence (notes, reasons) nor a place. People name such a value
inside whatever they say: "I'm craving some Sushi in San Francisco if possible", "Are there any Mexican
places?", "Food kind of California will be perfect". :func:`short_value` reads it

1. as the whole reply when the reply is that short ("Mediterranean", "some pasta");
2. as what modifies a noun of the parameter's description or a place word ("some *Mediterranean* food",
   "a *Greek* place") — for a value the question did not ask, only a capitalised one: a proper adjective
   such as a nationality is how a category is named in passing;
3. for an asked parameter, as the one or two words left when the words that carry no value are set aside:
   function words, requests ("I'm looking for", "can you find"), judgements ("would be great", "sounds
   good"), politeness and the parameter's own description words ("food", "cuisine").

A value is never a request, a yes or a no, nor a word of another value already read (those are masked).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from slotgraph.models.offline.confirmation import is_affirmative, is_negative
from slotgraph.models.offline.entities import ENTITY_WORDS
from slotgraph.models.offline.freetext import clean_text
from slotgraph.models.offline.schema import Param
from slotgraph.models.offline.spans import words

__all__ = ["LONG_TEXT_WORDS", "is_short_valued", "short_value"]

LONG_TEXT_WORDS = frozenset(
    {"notes", "note", "details", "detail", "description", "describe", "reason", "requests", "request",
     "message", "comments", "comment", "instructions", "allergies", "allergy", "symptoms", "symptom", "issue",
     "problem", "question", "feedback", "preferences", "needs", "summary", "explanation", "what", "happened",
     "title", "company", "occupation", "job", "address", "street"}
)  # fmt: skip
"""Words of a parameter whose value is a sentence or an address, never a word or two."""
_FILLER_MODIFIERS = frozenset(
    {"some", "good", "nice", "great", "a", "an", "the", "any", "kind", "type", "sort", "of", "really", "very",
     "tasty", "delicious", "decent", "local", "best", "fine", "little", "bit", "more", "to", "eat", "for",
     "me", "us", "have", "like", "love", "want", "need", "get", "find", "i", "we", "would", "craving", "and",
     "style", "in", "at", "with", "no", "not", "another", "other", "different", "cheap", "expensive", "fancy",
     "affordable", "popular", "famous", "new", "open", "available", "this", "that", "these", "those", "same",
     "one", "two", "three", "four", "five", "six", "my", "our", "your", "their", "his", "her", "top", "high",
     "low", "rated", "highly", "well", "many", "few", "several", "all", "every", "each", "which", "what",
     "where", "is", "are", "there", "here", "on", "from", "near", "around", "by"}
)  # fmt: skip
_HEAD_STOP = frozenset(
    {"the", "of", "in", "for", "and", "or", "to", "a", "an", "by", "with", "which", "where"}
)
_VENUE_HEADS = frozenset({"place", "places", "spot", "spots", "joint", "joints", "option", "options"})
"""Nouns that stand for the thing itself when the parameter describes a venue ("a Greek *place*")."""
_CARRIES_NO_VALUE = frozenset(
    {"i", "i'm", "i'd", "i'll", "i've", "im", "id", "we", "we're", "we'd", "we'll", "me", "my", "us", "our",
     "you", "your", "it", "it's", "its", "that", "that's", "this", "these", "those", "there", "there's",
     "here", "is", "are", "was", "were", "be", "been", "being", "will", "would", "could", "can", "should",
     "shall", "may", "might", "must", "do", "does", "did", "don't", "have", "has", "had", "want", "wanna",
     "wants", "need", "needs", "like", "likes", "love", "loves", "prefer", "preferably", "prefers",
     "looking", "look", "find", "finding", "search", "searching", "get", "give", "show", "tell", "please",
     "thanks", "thank", "some", "any", "a", "an", "the", "of", "for", "to", "in", "at", "on", "with", "and",
     "or", "but", "so", "just", "really", "very", "also", "kind", "type", "sort", "something", "somewhere",
     "anything", "anywhere", "someplace", "place", "places", "spot", "one", "ones", "good", "great", "nice",
     "perfect", "fine", "best", "better", "wonderful", "awesome", "excellent", "sounds", "sound", "think",
     "guess", "maybe", "probably", "right", "now", "today", "tonight", "mood", "craving", "crave", "feel",
     "feeling", "eat", "eating", "having", "go", "going", "try", "trying", "interested", "thinking",
     "dreaming", "always", "enjoy", "fan", "ok", "okay", "yes", "yeah", "sure", "well", "um", "uh",
     "actually", "instead", "again", "too", "as", "if", "possible", "around", "near", "nearby", "area",
     "let's", "lets", "out", "up", "about", "what", "which", "how", "where", "when", "who", "lot",
     "much", "more", "pretty", "quite", "hungry", "starving", "cool", "fantastic", "amazing", "prefect",
     "other", "another", "else", "then", "make", "that'd", "it'd", "would've", "idea", "option",
     "options", "style", "cuisine", "food", "foods", "restaurant", "restaurants", "meal", "dish", "dishes",
     "cooking", "serves", "serving", "serve", "from", "by", "all", "no", "not", "thing", "things", "stuff",
     "wanted", "loved", "dinner", "lunch", "dine", "dining", "cheers", "review", "reviews", "rating",
     "ratings", "reputation", "price", "prices", "priced", "pricing", "cost", "costs", "costing", "quality",
     "am", "visiting", "staying"}
)  # fmt: skip
"""Words that carry no value of a category in what people say around it (generic English)."""
_REQUEST_RE = re.compile(
    r"\b(?:(?:i|we)\s+(?:need|want|would like|wanna|am looking|are looking)"
    r"|(?:i|we)'(?:d like|m looking|re looking)|can you|could you|would you|will you|help me|find me"
    r"|get me|book me|call me|looking for)\b",
    re.I,
)


def is_short_valued(param: Param) -> bool:
    """A text parameter whose values are a word or two ("cuisine", "genre", "category"), not a sentence
    (notes, reasons, addresses, job titles) nor a place."""
    return param.kind == "text" and param.role is None and not (LONG_TEXT_WORDS & param.words)


def _heads(param: Param) -> list[str]:
    heads = {w for w in param.words if len(w) >= 4 and w not in _HEAD_STOP}
    if ENTITY_WORDS & param.words:
        heads |= _VENUE_HEADS
    return sorted(heads, key=len, reverse=True)


def modified_head(
    param: Param, text: str, *, capitalised: bool, others: frozenset[str] = frozenset()
) -> str | None:
    """What modifies a noun of the parameter's description (or a place word, for a venue) in ``text``:
    "some Mediterranean food" → Mediterranean. ``capitalised``: only a capitalised modifier counts;
    ``others``: words that name other parameters ("live music"), never this one's value."""
    heads = _heads(param)
    if not heads:
        return None
    head = "|".join(re.escape(h) for h in heads)
    kind_of = r"(?:(?:kind|type|sort|style)\s+of\s+(?:the\s+)?)?"  # "Peruvian type of food"
    for match in re.finditer(rf"((?:[A-Za-z][\w'-]*\s+){{1,2}}){kind_of}(?:{head})s?\b", text, re.I):
        skip = _FILLER_MODIFIERS | _CARRIES_NO_VALUE | others
        kept = [w for w in match.group(1).split() if w.lower() not in skip]
        if capitalised:
            kept = [w for w in kept if w[:1].isupper()]
        if kept:
            return " ".join(kept[-2:])
    kind = re.search(r"\b(?:kind|type|sort|style)\s+of\s+([A-Za-z][\w'-]*)", text, re.I)
    named = kind.group(1) if kind else ""
    if named and named.lower() not in _CARRIES_NO_VALUE | _FILLER_MODIFIERS:
        return named if not capitalised or named[:1].isupper() else None
    return None


def _content(text: str, extra: Iterable[str]) -> list[list[str]]:
    """Runs of consecutive words that may carry a value (everything else set aside)."""
    skip = _CARRIES_NO_VALUE | set(extra)
    runs: list[list[str]] = [[]]
    for token in re.findall(r"[A-Za-z][\w'’-]*|[^\sA-Za-z]+", text):
        word = token.lower().replace("’", "'")
        if not word[:1].isalpha() or word in skip:
            if runs[-1]:
                runs.append([])
            continue
        runs[-1].append(token)
    return [run for run in runs if run]


def short_value(param: Param, text: str, others: frozenset[str] = frozenset()) -> str | None:
    """The word or two of ``text`` that answer the asked short-valued ``param``, or None (see the module
    docstring). ``others``: words that name the agent's other parameters ("live music", "price"): a
    feature or a price said beside the value is not part of it."""
    others = others - param.words - param.name_words
    value = clean_text(text)
    said = words(value)
    if not said or is_affirmative(value) or is_negative(value):
        return modified_head(param, text, capitalised=False, others=others)
    if len(said) <= 3 and not _REQUEST_RE.search(value):
        runs = _content(value, others)
        if not runs:
            return None
        return " ".join(runs[0]) if len(runs) == 1 else value
    runs = _content(value, param.words | others)
    proper = [run for run in runs[1:] if len(run) == 1 and run[0][:1].isupper() and run[0][1:].islower()]
    if len(proper) == 1 and not any(run[0][:1].isupper() for run in runs if run is not proper[0]):
        return proper[0][0]  # the one proper adjective said inside the sentence: "... and eat Thai"
    found = modified_head(param, text, capitalised=False, others=others)
    if found is not None:
        return found
    if len(runs) == 1 and len(runs[0]) <= 2:
        return " ".join(runs[0])
    return None
