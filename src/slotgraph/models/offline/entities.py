"""Names of businesses and places people pick: "a table at Sushi Boat", "the salon is Bombshell Beauty".

A name parameter about a business (``restaurant_name``: "Name of the restaurant", ``stylist_name``: "Name of
the hair stylist/salon", a hotel, a venue...) is not a person's name: "under Chen" does not answer it,
"reservations at Stella Alpina Osteria" does. :func:`find_entity_name` reads it from

1. a cue and a capitalised name: "at / called / named / is / book / reserve / try / go with / like <Name>",
   "the <Name> restaurant";
2. an option the agent just offered (the capitalised names of the ``<system_directive>``, "I found Sushi
   Boat."): said again, even in part or in lower case ("sushi boat", "Kampai Bar" for "Kampai Bar And
   Grill"), it is taken in the offered spelling; agreed to ("that sounds good", "yes, book it", "I like
   it") when exactly one was offered, it is taken as offered.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rapidfuzz import fuzz

from slotgraph.models.offline.confirmation import is_affirmative, is_negative
from slotgraph.models.offline.freetext import asking_blanked
from slotgraph.models.offline.places import cut_name
from slotgraph.models.offline.spans import Found

__all__ = ["ENTITY_WORDS", "find_entity_name", "offered_names"]

ENTITY_WORDS = frozenset(
    {"restaurant", "hotel", "house", "salon", "stylist", "shop", "store", "venue", "business", "company",
     "clinic", "dentist", "doctor", "practice", "theatre", "theater", "movie", "event", "property", "bar",
     "cafe", "gym", "museum", "attraction", "airline", "provider", "place", "bistro", "eatery", "pub",
     "diner", "cinema", "spa", "studio", "barber", "barbershop", "agency", "gallery", "club", "dealer",
     "lodge", "inn", "motel", "resort", "hostel"}
)  # fmt: skip

_WORD = r"(?:[A-Z0-9][\w'’.&!-]*(?:/\d+\w*)?)"  # "18/8 Salon"
_JOIN = r"(?:of|the|de|del|la|le|et|and|&|n'|-|to)"
_PROPER = rf"{_WORD}(?:\s+(?:{_JOIN}\s+)*{_WORD})*"
_ENTITY_WORD = rf"(?:{'|'.join(sorted(ENTITY_WORDS, key=len, reverse=True))})s?"
_CUE_RE = re.compile(
    rf"\b(?i:at|called|named|name is|name's|(?:{_ENTITY_WORD}) is|book|reserve|try|choose|pick|prefer|like"
    rf"|(?:reservations?|booking|table|appointment) for|interested in|make it|go for(?: some)?"
    rf"|want|go with|with|to|visit|visiting|do|should be|rather|tickets? for|seats? for|{_ENTITY_WORD}"
    rf"|look(?:ing)? for|search(?:ing)? for|(?:reservations?|booking|table|appointment) in)\s+"
    rf"(?:(?i:actually|really|just|now|simply|definitely|probably)\s+)?(?:the\s+)?"
    rf"(?P<name>{_PROPER})"
)
# A name in lower case is taken only after a strong cue ("it's called marnee", "the restaurant is thanh
# long") or right before the kind of business ("I prefer jannah restaurant").
_STRONG_CUE_RE = re.compile(
    rf"\b(?i:called|named|name is|name's|(?:{_ENTITY_WORD}) (?:is|should be))\s+"
    r"(?:(?:actually|really|just|now|simply|definitely|probably)\s+)?(?:the\s+)?"
    r"(?P<name>[a-z][\w'’-]*(?:\s+[a-z][\w'’-]*){0,2}?)(?=\s*(?:[,.;!?]|$|\s(?:in|at|on|for|and|please|with|"
    r"restaurant|salon|tomorrow|today|tonight)\b))",
    re.I,
)
_BEFORE_KIND_RE = re.compile(
    rf"\b(?i:prefer|like|try|visit|book|reserve)\s+(?i:the\s+)?(?P<name>[a-z][\w'’-]+)"
    rf"\s+(?i:{_ENTITY_WORD})\b(?!\s+(?:that|which|with|where|who)\b)"
)
_A_NAME_KIND_RE = re.compile(rf"\b(?i:a|an)\s+(?P<name>{_PROPER})\s+(?i:{_ENTITY_WORD})\b")
# "a Palermo restaurant": one of that name (a category said so — "a Mexican restaurant" — is told apart by the
# planner, which knows the category parameters)
_OPENING_KIND_RE = re.compile(
    rf"^\s*(?i:the\s+)?(?P<name>[A-Za-z][\w'’-]+)\s+(?:{_ENTITY_WORD})\b(?!\s+(?i:is|that|which|with)\b)"
)  # a reply to "which restaurant?" opening with the name and its kind: "Kufu-ya restaurant in San Fran."
# The business named as the subject of a statement about it ("the restaurant I want is Pampalasa", "Brixx
# Pizzeria in Petaluma is the place"): no city reading, whatever the name.
_CLAUSE_CUE_RE = re.compile(
    rf"\b(?i:the)\s+(?:{_ENTITY_WORD})\s+(?:(?i:that|which)\s+)?(?i:i|we)\b[^.,;!?]{{0,60}}?\s"
    rf"(?i:is|should be|will be)\s+(?:(?i:the)\s+)?(?P<name>{_PROPER})"
)
_NAME_FIRST_RE = re.compile(
    rf"^\s*(?:(?i:yes|yeah|ok|okay|sure)\b[,.!]*\s*)?(?:(?i:the)\s+)?(?P<name>{_PROPER})"
    rf"(?:\s+(?i:in|at)\s+{_PROPER})?\s+(?i:is|would be|will be|sounds like)\s+(?i:the|a|my|our)\s+"
    rf"(?:(?i:\w+\s+)?(?i:place|spot|one|choice|pick)|(?i:{_ENTITY_WORD}))\b"
)
_STRONG_PREFIX_RE = re.compile(
    rf"(?i:called|named|name is|name's|(?:{_ENTITY_WORD})\s+(?:is|should be))\s+"
    r"(?:(?i:actually|really|just|now|simply|definitely|probably)\s+)?(?:(?i:the)\s+)?$"
)
# A reply that is a name, maybe after a yes and before the city it is in, maybe followed by another sentence:
# "Yes, the Golden Lotus in Fremont", "Sheba Lounge. It's for five people."
_BARE_RE = re.compile(
    rf"^\s*(?P<lead>(?:(?i:yes|yeah|yep|ok|okay|sure)\b[,.!]*\s*)?(?:(?i:the)\s+)?)(?P<name>{_PROPER})"
    rf"(?P<where>\s+(?i:in|at)\s+{_PROPER})?[\s,]*(?i:please|thanks|thank you)?\s*"
    r"(?:[.!]+(?:\s+(?P<rest>\S.*))?)?$",
    re.S,
)
_NOT_A_NAME_START = frozenset(
    {"a", "an", "some", "any", "one", "another", "other", "different", "good", "nice", "great", "new",
     "local", "cheap", "cheaper", "fancy", "upscale", "expensive", "popular", "small", "big", "little",
     "fine", "perfect", "correct", "right", "wrong", "ok", "okay", "same", "first", "second", "last",
     "decent", "in", "at", "on", "to", "for", "from", "near", "by", "with", "this", "that", "your", "my",
     "our", "their"}
)  # fmt: skip
_PROPER_RE = re.compile(_PROPER)
_COMMON = frozenset(
    {"i", "i'm", "i'd", "i'll", "it", "it's", "the", "a", "an", "yes", "no", "ok", "okay", "please", "what",
     "which", "how", "when", "where", "who", "would", "could", "can", "do", "does", "is", "are", "to", "that",
     "this", "there", "sure", "great", "perfect", "thanks", "thank", "hi", "hello", "hey", "we", "you",
     "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february",
     "march", "april", "may", "june", "july", "august", "september", "october", "november", "december",
     "am", "pm", "today", "tomorrow", "tonight", "let", "found", "shall", "should", "will", "also",
     "sounds", "looks", "seems", "nice", "cool", "awesome", "excellent", "wonderful", "alright", "good",
     "fine", "super", "fantastic", "lovely", "next", "last", "wow"}
)  # fmt: skip
_AGREE_RE = re.compile(
    r"\b(?:(?:sounds|looks|seems) (?:like )?(?:an? )?(?:good|great|nice|perfect|fine|better|wonderful|awesome"
    r"|excellent|ok|okay|alright|all right)"
    r"|(?:table|appointment|booking|reservation|spot|seat)s? (?:there|with (?:them|it))"
    r"|(?:i|we)(?:'d| would) like (?:a|to make a|to book a) (?:reservation|booking|table|appointment)"
    r"|(?:i|we) (?:like|love|want|would like|'d like) (?:it|that|this|them|the sound)"
    r"|(?:this|that) (?:one|place|salon|restaurant|house|hotel|spot)"
    r"|(?:that|this|it)(?:'s| is)? (?:works|good|great|fine|perfect|okay|ok|alright|all right)"
    r"|thats (?:really )?(?:good|great|fine|perfect)|(?:that|it)(?:'ll| will| would| should| could)"
    r" (?:work|do)|works for me|is perfect|make it a go|(?:that|this)'s the one"
    r"|book (?:it|that|this|them|a table|an appointment|the appointment|me an appointment)"
    r"|(?:make|get) (?:me |us )?(?:a|the|my|our) (?:reservation|booking|appointment)"
    r"|reserve (?:it|that|this|a table)|go with (?:it|that|this|them)|i'll take it|let's do (?:it|that))\b",
    re.I,
)
_TRAILING_COMMON = frozenset({"of", "the", "de", "la", "and", "&", "on", "at", "in", "by"})


_OPENERS = frozenset(
    {"i", "i'm", "i'd", "i'll", "it", "it's", "the", "a", "an", "yes", "no", "ok", "okay", "what", "which",
     "how", "when", "where", "who", "would", "could", "can", "do", "does", "is", "are", "to", "that", "this",
     "there", "we", "you", "let", "shall", "should", "will", "also", "please"}
)  # fmt: skip


_ARTICLES = frozenset({"a", "an", "the"})


def _trim(name: str) -> str:
    parts = cut_name(name).rstrip(",!?'’").split()
    if parts and not re.fullmatch(r"(?:[A-Za-z]\.)+", parts[-1]):  # "Alexander G." keeps its initial's dot
        parts[-1] = parts[-1].rstrip(".")
    while len(parts) > 1 and parts[-1].lower() in _TRAILING_COMMON:
        parts.pop()
    while parts and parts[0].lower().rstrip(".,!") in _OPENERS:
        # an article before a capitalised word is part of a name ("A Bellagio Italian Restaurant")
        if (
            parts[0].lower() in _ARTICLES
            and parts[0][:1].isupper()
            and len(parts) > 1
            and parts[1][:1].isupper()
        ):
            break
        parts.pop(0)
    return " ".join(parts)


def offered_names(directive: str | None) -> list[str]:
    """The capitalised names in the agent's message ("I found Sushi Boat in Palo Alto." → Sushi Boat, Palo
    Alto), minus sentence-opening words and month or weekday names."""
    if not directive:
        return []
    out = []
    for match in _PROPER_RE.finditer(directive):
        name = _trim(match.group(0))
        number_found = name.isdigit() and _FOUND_BEFORE_RE.search(directive, 0, match.start()) is not None
        if name and name.lower() not in _COMMON and (number_found or not re.fullmatch(r"[\d:/]+", name)):
            out.append(name)
    return out


_FOUND_BEFORE_RE = re.compile(r"\b(?:found|recommend|suggest|try)\s+$", re.I)
"""A number right after "I found" is the name of what was found ("I found 1760.")."""


def find_entity_name(
    text: str,
    directive: str | None,
    *,
    asked: bool,
    offers: str | None = None,
    elsewhere: Callable[[str], bool] | None = None,
    offered_only: bool = False,
    earlier: Sequence[str] = (),
) -> Found | None:
    """The business or place name the user picks, or None (see the module docstring). ``offers``: the
    agent's latest message that offered names, when not the directive itself; ``elsewhere``: names that
    belong to another parameter ("at Pleasanton" is a city when a city is also wanted); ``offered_only``:
    only an offered name said again or agreed to (a person the agent found, not a business)."""
    offered = offered_names(directive) or offered_names(offers)
    lowered = text.lower()
    for name in offered:
        if len(name) >= 4 and (name.lower() in lowered or fuzz.partial_ratio(name.lower(), lowered) >= 90):
            return Found(name, 0, 0)
    picked = _by_distinctive_word(text, [*offered, *earlier], elsewhere)
    if picked is not None:
        return picked
    for pattern, cased in (
        ()
        if offered_only
        else (
            (_CLAUSE_CUE_RE, False),
            (_NAME_FIRST_RE, False),
            (_CUE_RE, False),
            (_BEFORE_KIND_RE, True),
            (_STRONG_CUE_RE, True),
            (_A_NAME_KIND_RE, False),
            *(((_OPENING_KIND_RE, True),) if asked else ()),
        )
    ):
        for match in pattern.finditer(text):
            name = _trim(match.group("name"))
            if cased:
                name = " ".join(w[:1].upper() + w[1:] if w.islower() else w for w in name.split())
            if elsewhere is not None and name and elsewhere(name) and not _strong(pattern, match):
                continue
            if name and name.split()[0].lower() in _NOT_A_NAME_START and (cased or len(name.split()) < 2):
                continue  # "a little place", but "at Little Nepal", "at Great Clips"
            if name and name.lower() not in _COMMON and not name.isdigit() and _not_all_common(name):
                start = match.start("name")
                for offer in offered:
                    if (
                        offer.lower().startswith(name.lower())
                        or fuzz.ratio(offer.lower(), name.lower()) >= 85
                    ):
                        return Found(offer, start, start + len(name))
                return Found(name, start, start + len(name))
    if asked and not offered_only:
        bare = _bare_name(text)
        if bare is not None and (elsewhere is None or not elsewhere(bare.value)):
            return bare
    statement = asking_blanked(text)
    if (
        len(offered) == 1
        and not is_negative(statement)
        and not _DISLIKE_RE.search(statement)
        and not (_INFO_REQUEST_RE.search(text) and not _BOOKING_RE.search(text))
        and (_AGREE_RE.search(statement) or (asked and is_affirmative(statement)))
    ):
        return Found(offered[0], 0, 0)
    return None


def _strong(pattern: re.Pattern[str], match: re.Match[str]) -> bool:
    """A name said after words that make it the business ("the restaurant is Bikaner", "called Goa"): no
    other reading (a city of the same name) is weighed against it."""
    if pattern in (_CLAUSE_CUE_RE, _NAME_FIRST_RE, _STRONG_CUE_RE):
        return True
    return _STRONG_PREFIX_RE.search(match.string, match.start(), match.start("name")) is not None


def _bare_name(text: str) -> Found | None:
    """A reply that is only a name ("Sushi Hashiri, please.", "Yes, the Golden Lotus in Fremont"); when
    another sentence follows, a name of two words or more ("Sheba Lounge. It's for five.")."""
    bare = _BARE_RE.fullmatch(text.strip())
    if bare is None:
        return None
    said = bare.group("name")
    first = said.split()[0].lower()
    if not _not_all_common(said) or len(said.split()) > 6 or first in _NOT_A_NAME_START:
        return None
    if (bare.group("rest") or bare.group("where")) and len(said.split()) < 2 and not bare.group("lead"):
        return (
            None  # "Look in Mountain View.": one word before more words is a name only after a yes or "the"
        )
    name = _trim(said)
    if not name:
        return None
    start = text.find(name)
    return Found(name, max(start, 0), max(start, 0) + len(name))


_DISLIKE_RE = re.compile(r"\b(?:don't|do not|doesn't|not)\s+(?:like|want|love|fancy)\b", re.I)
_INFO_REQUEST_RE = re.compile(
    r"\b(?:address|phone|number|contact|located|location|rating|reviews?|how (?:much|expensive|pricey)"
    r"|what(?:'s| is) the)\b",
    re.I,
)  # "can you give me the address of this restaurant": a question about it, not a choice of it
_BOOKING_RE = re.compile(r"\b(?:book|reserve|reservation|appointment|go with|take it|i'll take)\b", re.I)


_NOT_DISTINCTIVE = ENTITY_WORDS | {
    "grill", "kitchen", "downtown", "dr", "dr.", "and", "the", "suites", "hotels"
}  # fmt: skip


def _by_distinctive_word(
    text: str, names: Sequence[str], elsewhere: Callable[[str], bool] | None
) -> Found | None:
    """An offered name picked by a word only it has ("the Hilton one" for Hilton Garden Inn Downtown, even
    when another option was offered since): the first offered name (newest first) one of whose distinctive
    words — capitalised, four letters or more, not a common word nor a kind of business — the text says as
    a capitalised word; None when the word belongs to several offered names."""
    seen: list[str] = []
    for name in names:
        if name in seen or (elsewhere is not None and elsewhere(name)) or len(name.split()) < 2:
            continue
        seen.append(name)
    for name in seen:
        distinct = [
            w.strip(".,'’") for w in name.split()
            if len(w) >= 4 and w[:1].isupper() and w.lower().strip(".,'’") not in _NOT_DISTINCTIVE | _COMMON
        ]  # fmt: skip
        for word in distinct:
            match = re.search(rf"\b{re.escape(word)}\b", text)
            if match is None:
                continue
            if sum(word in other.split() for other in seen) == 1:
                return Found(name, match.start(), match.end())
    return None


def _not_all_common(name: str) -> bool:
    """A name has a word that is not an everyday word ("That Works" is no name)."""
    return any(w.lower().strip(".,!?'’") not in _COMMON | _OPENERS for w in name.split())
