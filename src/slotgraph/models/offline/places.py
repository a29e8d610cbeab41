"""Places and addresses: which parameter is an origin or a destination, and reading "from X to Y".

A free-text parameter is a *place* when its name or description talks about an address, a place, a location,
a pickup or a destination. Its *role* comes from its own words: ``pickup_address`` / "origin" / "from" is
an origin, ``dropoff_address`` / "destination" a destination, ``delivery_address`` neither. A reply is read
for an origin cue ("from", "pick me up at", "I'm at") and a destination cue ("to", "take me to", "drop me
at"); request phrases around an address ("deliver it to ...") are dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["PLACE_WORDS", "cut_name", "find_place_names", "find_route", "place_role", "strip_place_request"]

PLACE_WORDS = frozenset(
    {"address", "place", "location", "destination", "street", "venue", "pickup", "dropoff", "origin", "city",
     "town", "located", "where"}
)  # fmt: skip
_ORIGIN_WORDS = frozenset({"pickup", "origin", "from", "start", "departure", "collection", "departing"})
_DESTINATION_WORDS = frozenset({"dropoff", "destination", "drop", "arrival", "going", "heading"})
_ORIGIN_CUE = (
    r"(?:from|pick (?:me|us) up (?:at|from)|pickup (?:at|from|is)|collect (?:me|us) (?:at|from)"
    r"|(?:i'm|i am|we're|we are) at|leaving from|starting (?:at|from))"
)
_DESTINATION_CUE = (
    r"(?:(?:take|drive|bring|get) (?:me|us) to|drop (?:me|us) (?:off )?at|drop(?:ping)? off at"
    r"|(?:going|heading|headed) to|to|reach)"
)
_ROUTE_RE = re.compile(
    rf"\b{_ORIGIN_CUE}\s+(?P<origin>.+?)\s*,?\s+(?:and\s+(?:then\s+)?)?{_DESTINATION_CUE}\s+(?P<destination>.+)$",
    re.I | re.S,
)
_ORIGIN_RE = re.compile(rf"\b{_ORIGIN_CUE}\s+(?P<origin>.+)$", re.I | re.S)
_DESTINATION_RE = re.compile(
    rf"^(?:please\s+|(?:i|we)\s+(?:want|need|would like)\s+to\s+go\s+)?{_DESTINATION_CUE}"
    r"\s+(?P<destination>.+)$",
    re.I | re.S,
)
_REQUEST_RE = re.compile(
    r"^(?:please\s+)?(?:(?:deliver|send|bring|ship|drop)\s+(?:it|them|that|everything)\s+(?:off\s+)?(?:to|at)"
    r"|(?:it's|it is|that's|that is|the address is|address is)(?:\s+at)?|to|at)\s+",
    re.I,
)


def place_role(name_words: Iterable[str], words: Iterable[str]) -> str | None:
    """ "origin", "destination", "" (a place with no role: a delivery address) or None (not a place)."""
    names, all_words = set(name_words), set(words)
    if not (PLACE_WORDS & all_words):
        return None
    for pool in (names, all_words):
        if _ORIGIN_WORDS & pool:
            return "origin"
        if _DESTINATION_WORDS & pool:
            return "destination"
    return ""


def find_route(text: str) -> dict[str, str]:
    """The parts of a reply naming an origin and/or a destination, keyed by role.

    "from 10 Elm Road to Union Station" → both; "to the airport" → destination only; no cue → empty.
    """
    stripped = text.strip()
    both = _ROUTE_RE.search(stripped)
    if both:
        return {"origin": both.group("origin"), "destination": both.group("destination")}
    origin = _ORIGIN_RE.search(stripped)
    if origin:
        return {"origin": origin.group("origin")}
    destination = _DESTINATION_RE.match(stripped)
    if destination:
        return {"destination": destination.group("destination")}
    return {}


def strip_place_request(text: str) -> str:
    """The address without the request around it: "deliver it to 17 Elm Road" → "17 Elm Road"."""
    return _REQUEST_RE.sub("", text.strip(), count=1)


# A proper name: capitalised words (or a street number), joined by the small words names contain
# ("Shaking the Tree Theatre", "Kabul Kabob & Grill", "Solomon R. Guggenheim Museum", "512 Mill Street").
_NAME_WORD = r"(?:[A-Z][\w'’.-]*|\d+[A-Za-z]*|#\s*\d+\w*)"
_JOINER = r"(?:of|the|de|del|la|le|and|&|n')"
_PROPER = rf"{_NAME_WORD}(?:\s+(?:{_JOINER}\s+)*{_NAME_WORD})*"
_CUES = r"(?i:in|to|at|near|around|from|for|visiting|into|towards?|of|make it|want|prefer|ride|is|reach)"
_PLACE_CUE_RE = re.compile(rf"\b(?P<cue>{_CUES})\s+(?:the\s+)?(?P<place>{_PROPER})")
_NOT_PLACES = frozenset(
    {"i", "i'm", "i'd", "i'll", "me", "my", "we", "us", "it", "a", "an", "the", "please", "thanks", "thank",
     "yes", "no", "ok", "okay", "sure", "hi", "hello", "hey", "can", "could", "would", "will", "what", "how",
     "is", "are", "that", "this", "there", "monday", "tuesday", "wednesday", "thursday", "friday",
     "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july", "august",
     "september", "october", "november", "december", "today", "tomorrow", "tonight", "am", "pm", "one",
     "two", "three", "four", "five", "six"}
)  # fmt: skip


_TRAILING_JOINERS = frozenset({"of", "the", "de", "del", "la", "le", "and", "&", "n'"})


_ABBREVIATIONS = frozenset({"st", "dr", "mt", "ft", "ave", "blvd", "rd", "jr", "sr", "d.c", "u.s"})


def cut_name(place: str) -> str:
    """The name up to a sentence end ("Chicago. There is…") or a word that is no name ("Paris and I")."""
    kept: list[str] = []
    for token in place.split():
        glued = re.fullmatch(r"([A-Za-z]{2,})\.[a-z]{2,}\W*", token)
        if glued:  # "Boise.and we arrive": a sentence glued to the name
            kept.append(glued.group(1))
            break
        bare = token.rstrip(".,!?").lower()
        if kept and bare in _NOT_PLACES and bare not in _TRAILING_JOINERS:
            break
        if not kept and bare in _NUMBER_WORDS and not place.split()[1:2]:
            break
        kept.append(token)
        initialism = re.fullmatch(r"(?:[a-z]\.)+[a-z]?\.?", token.lower()) is not None  # "P.F.", "G."
        if token.endswith(".") and len(bare) > 2 and bare not in _ABBREVIATIONS and not initialism:
            break
    return " ".join(kept)


def _plausible(place: str) -> bool:
    parts = place.split()
    first = parts[0].lower().strip(".,")
    numbered = first in _NUMBER_WORDS and len(parts) > 1 and parts[1][:1].isupper()  # "Two Temple Place"
    return (first not in _NOT_PLACES or numbered) and not place.isdigit() and len(place) > 1


_NUMBER_WORDS = frozenset({"one", "two", "three", "four", "five", "six"})


_INITIALISM_END_RE = re.compile(r"\b(?:[A-Za-z]\.){2,}$")


def find_place_names(text: str) -> list[tuple[str, str, int, int]]:
    """Proper names after a place cue: ``(cue, name, start, end)`` — "a cab to Pear Street Bistro" →
    ``("to", "Pear Street Bistro", …)``, "a place to eat in Santa Rosa" → ``("in", "Santa Rosa", …)``.

    Only capitalised names (or street numbers) count: "a place to eat" has no place name. Month and weekday
    names, pronouns and bare numbers are not places.
    """
    out: list[tuple[str, str, int, int]] = []
    for match in _PLACE_CUE_RE.finditer(text):
        place = cut_name(match.group("place"))
        if not _INITIALISM_END_RE.search(place):  # "Washington D.C." keeps its last dot
            place = place.rstrip(".,'’")
        while len(place.split()) > 1 and place.split()[-1].lower() in _TRAILING_JOINERS:
            place = " ".join(place.split()[:-1])
        if place and _plausible(place):
            start = match.start("place")
            out.append((match.group("cue").lower(), place, start, start + len(place)))
    return out
