"""Choosing among *actions*: enum values that name what the user wants to do, such as an agent's intents.

``FindRestaurants = find a restaurant of a particular cuisine in a city; ReserveRestaurant = reserve a table
at a restaurant`` is a choice between a **look-up** (its verb finds, searches, gets or checks something) and
**act** (it reserves, books, buys, schedules, transfers, plays...). People rarely say the value's words: "I'm
looking for a place to eat" means the look-up, "can you book me a table" the act. :func:`match_action` reads
the choice the way an LLM reading the descriptions would:

1. the words that tell the options apart — each option's verb and the object its description names ("reserve
   a *table*", "buy movie *tickets*"), less the words every option shares ("restaurant") — are looked for in
   the message, a verb also by its everyday synonyms ("book", "reservation" for *reserve*; "purchase" for
   *buy*). An act named so wins over a look-up (a person who asks to "find a house to book" books);
2. nothing named, when every act reserves, books, buys, schedules or rents — something one picks first —:
   a request about the service ("I'd like to go out to eat") is the look-up when the options have exactly
   one; several look-ups are told apart by meaning
   (:func:`~slotgraph.models.offline.choices.match_described_choice`). Other acts (ordering a pizza,
   cancelling an order) need nothing looked up first: the caller matches those by meaning.

Everything comes from the enum values and their descriptions: nothing here names a particular agent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from slotgraph.models.offline.choices import value_words
from slotgraph.models.offline.spans import Found, stem, words

__all__ = ["LOOKUP_VERBS", "is_lookup", "match_action", "names_any", "option_cues"]

LOOKUP_VERBS = frozenset(
    {"find", "search", "get", "look", "lookup", "check", "show", "list", "browse", "discover", "explore",
     "view", "see", "fetch", "locate", "query", "track"}
)  # fmt: skip
"""Verbs of options that look something up rather than change something."""

# Everyday words for a verb: a word of one group said is that verb said. Generic English, keyed by verbs.
_VERB_GROUPS: tuple[frozenset[str], ...] = (
    frozenset(
        {
            "reserve",
            "reserving",
            "reservation",
            "book",
            "booking",
            "booked",
            "reserved",
            "schedule",
            "scheduling",
            "scheduled",
        }
    ),  # "schedule an appointment" books one
    frozenset({"buy", "buying", "purchase", "purchasing", "bought"}),
    frozenset({"arrange", "set"}),
    frozenset({"rent", "renting", "rental", "hire"}),
    frozenset({"transfer", "send", "sending", "wire", "pay"}),
    frozenset({"play", "playing", "listen", "hear", "stream", "watch", "put"}),
    frozenset({"cancel", "cancelling", "canceling", "call"}),
    frozenset({"order", "ordering"}),
    frozenset({"add", "create", "adding"}),
    frozenset({"find", "search", "searching", "look", "looking", "lookup", "locate", "recommend", "suggest"}),
    frozenset({"check", "checking", "balance"}),
    frozenset({"get", "getting", "show", "see", "tell"}),
)
_GROUP_OF: dict[str, int] = {w: i for i, group in enumerate(_VERB_GROUPS) for w in group}
_PICK_FIRST = frozenset(f"#{i}" for i in range(4))
"""The verb groups of acts on something one picks first (reserve/book, buy, schedule, rent)."""
_NOT_A_REQUEST = frozenset(
    {"hi", "hello", "hey", "thanks", "thank", "you", "bye", "goodbye", "yes", "no", "ok", "okay", "sure",
     "please", "good", "morning", "afternoon", "evening", "there", "great", "cool", "nope", "yeah"}
)  # fmt: skip
_STOP = frozenset(
    {"a", "an", "the", "of", "for", "to", "at", "in", "on", "by", "with", "and", "or", "given", "particular",
     "specific", "other", "some", "any", "your", "my", "selected", "certain", "based", "optionally", "from",
     "this", "that", "it", "is", "be", "using", "via", "up", "out", "more", "attributes"}
)  # fmt: skip
_PREPOSITIONS = frozenset({"for", "at", "in", "on", "by", "with", "to", "from", "of", "based", "between"})


def _key(word: str) -> str:
    """A word as compared: its verb group when it (or its singular) has one, else its stem."""
    group = _GROUP_OF.get(word, _GROUP_OF.get(stem(word)))
    return f"#{group}" if group is not None else stem(word)


def _verb(value: Any, note: str) -> str:
    parts = value_words(value)
    return parts[0] if parts else (words(note)[:1] or [""])[0]


def is_lookup(value: Any, note: str = "") -> bool:
    """Whether the option looks something up (``FindRestaurants``, ``GetTimesForMovie``, ``CheckBalance``)."""
    return _verb(value, note) in LOOKUP_VERBS


def option_cues(value: Any, note: str) -> tuple[str, frozenset[str]]:
    """An option's verb key and the keys of its value words and of the object its description names (up to
    the first preposition: "reserve a table at a restaurant" → reserve, table)."""
    said = [*value_words(value)]
    for word in words(note):
        if word in _PREPOSITIONS and len(said) > len(value_words(value)):
            break
        said.append(word)
    keys = frozenset(_key(w) for w in said if w not in _STOP and len(w) > 1)
    return _key(_verb(value, note)), keys


def names_any(text: str, options: Sequence[tuple[Any, str]]) -> bool:
    """Whether ``text`` says a word that tells one of the options from the others (a verb or an object)."""
    if len(options) < 2:
        return False
    said = {_key(w) for w in words(text) if w not in _STOP}
    cues = [option_cues(value, note)[1] for value, note in options]
    shared = frozenset.intersection(*cues)
    return any((keys - shared) & said for keys in cues)


def match_action(
    text: str, options: Sequence[tuple[Any, str]], *, asked: bool, semantic: bool = True
) -> Found | None:
    """The option ``text`` asks for, or None (see the module docstring). ``options``: (value, description)
    pairs. Not ``asked``: only an act named by its distinctive words counts (the person changes their mind:
    "actually, I want to book it"), never a default."""
    if len(options) < 2:
        return None
    said = {_key(w) for w in words(text) if w not in _STOP}
    cues = [option_cues(value, note) for value, note in options]
    shared = frozenset.intersection(*(keys for _, keys in cues))
    scored: list[tuple[float, bool, int]] = []
    for index, ((value, note), (verb, keys)) in enumerate(zip(options, cues, strict=True)):
        distinctive = keys - shared
        score = sum(2.0 if key == verb else 1.0 for key in distinctive & said)
        if score:
            scored.append((score, is_lookup(value, note), index))
    acts = sorted((s for s in scored if not s[1]), reverse=True)
    if acts and (len(acts) == 1 or acts[0][0] > acts[1][0]):
        return Found(options[acts[0][2]][0], 0, 0)
    if acts or not asked:
        return None
    looks = sorted((s for s in scored if s[1]), reverse=True)
    if looks and (len(looks) == 1 or looks[0][0] > looks[1][0]):
        return Found(options[looks[0][2]][0], 0, 0)
    lookups = [i for i, (value, note) in enumerate(options) if is_lookup(value, note)]
    acts_pick = all(cue[0] in _PICK_FIRST for (value, note), cue in zip(options, cues, strict=True)
                    if not is_lookup(value, note))  # fmt: skip
    if not lookups or not acts_pick or not set(words(text)) - _NOT_A_REQUEST:
        return None
    if len(lookups) == 1:
        return Found(options[lookups[0]][0], 0, 0)
    if semantic:
        from slotgraph.models.offline.choices import match_described_choice

        return match_described_choice(text, [options[i] for i in lookups])
    return None
