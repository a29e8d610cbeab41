"""``plan_turn``: the offline model's whole decision for one model call, as a pure function of plain data.

Inputs are what any model gets: the visible tools (name, description, JSON Schema), the system instruction
(with its ``<system_directive>``) and the last user message. The output is a :class:`Plan`: setter calls
and/or a reply text.

Order of extraction, and why: the most recognisable values go first and their characters are masked, so a
later, looser reader cannot reuse them — emails and phones (they contain digits and dots), reference codes,
dates ("June 25th" must not become 25 guests), times, money, counts, choices, yes/no, names, and last the
free text, which takes whatever is left. Ambiguous replies go to the parameter the directive asks about.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

from slotgraph.models.offline.actions import is_lookup, match_action, names_any
from slotgraph.models.offline.choices import (
    is_price_choice,
    match_choice,
    match_described_choice,
    match_named_choice,
    match_number_choice,
    match_price_choice,
    mentions_flag,
    numeric_values,
    value_words,
)
from slotgraph.models.offline.confirmation import (
    confirms_part,
    is_affirmative,
    is_agreeing,
    is_declining,
    is_negative,
)
from slotgraph.models.offline.contacts import find_emails, find_identifiers, find_phones
from slotgraph.models.offline.dates import find_date_range, find_dates, parse_date_fallback
from slotgraph.models.offline.directive import (
    asked_params,
    directive_text,
    is_readback_instruction,
    readback_question,
)
from slotgraph.models.offline.entities import ENTITY_WORDS, find_entity_name, offered_names
from slotgraph.models.offline.formats import format_date, format_time, wants_digits_only
from slotgraph.models.offline.freetext import asking_blanked, clean_text, is_nothing, is_question_or_greeting
from slotgraph.models.offline.lexicon import find_learned
from slotgraph.models.offline.names import find_name
from slotgraph.models.offline.numbers import (
    PeopleGroup,
    find_amounts,
    find_counts,
    find_people_groups,
    names_own_unit,
    unit_class,
    word_after,
)
from slotgraph.models.offline.places import find_place_names, find_route, strip_place_request
from slotgraph.models.offline.schema import (
    CONFIRM_TOOL,
    RATING_WORDS,
    REJECT_TOOL,
    Param,
    Setter,
    read_setters,
)
from slotgraph.models.offline.shortvalues import is_short_valued, modified_head, short_value
from slotgraph.models.offline.spans import Found, mask, parses_kept_for_one_plan, words
from slotgraph.models.offline.times import find_times, offered_times
from slotgraph.names import SET_VARIABLES, STEER_BACK, STEER_BACK_ARMED, STEER_BACK_SOFT, close_tag, open_tag

__all__ = ["NEUTRAL_REPLY", "OFF_TOPIC_REPLY", "Plan", "plan_turn", "relay_text"]

NEUTRAL_REPLY = "How can I help you?"
OFF_TOPIC_REPLY = "I'm sorry, I can't help with that here."
"""The reply to an armed steer-back's "reply in one short sentence and do not ask anything"."""


@dataclass(frozen=True, slots=True)
class Plan:
    """What the offline model does on one call: tool calls ``(name, args)`` and/or a reply."""

    tool_calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    text: str | None = None
    no_call_reason: str | None = field(default=None, compare=False)
    """When the user's message was read and nothing called: why, for the author (never said to the user).
    Not part of a plan's identity: two plans doing the same are equal whatever they explain."""


@dataclass(slots=True)
class _Work:
    """Mutable scratch state of one extraction (local to one call, never shared)."""

    text: str
    values: dict[tuple[str, str], Any] = field(default_factory=dict)
    named: frozenset[str] = frozenset()
    """The distinctive words of the visible parameters' names ("live", "music", "price")."""
    given: frozenset[str] = frozenset()
    """The setters called on earlier messages of the conversation (what the person already said)."""
    ends: dict[tuple[str, str], int] = field(default_factory=dict)

    def take(self, param: Param, value: Any, found: Found | None = None) -> None:
        self.values[param.key] = value
        if found is not None:
            self.text = mask(self.text, [(found.start, found.end)])
            self.ends[param.key] = found.end

    def has(self, param: Param) -> bool:
        return param.key in self.values


def relay_text(system_instruction: str) -> str:
    """The reply when nothing is called: the directive's text, else what a steer-back asks to say (never
    the steer-back's own words, which are addressed to the model), else the readback asked again while
    values wait for a confirmation, else a neutral question."""
    directive = directive_text(system_instruction) or readback_question(system_instruction)
    if directive:
        return directive
    start, end = system_instruction.find(open_tag(STEER_BACK)), system_instruction.find(close_tag(STEER_BACK))
    if 0 <= start < end:
        steer = " ".join(system_instruction[start + len(open_tag(STEER_BACK)) : end].split())
        if steer.startswith(STEER_BACK_ARMED):
            return OFF_TOPIC_REPLY  # one short sentence without a question: the engine asks next
        question = steer.removeprefix(STEER_BACK_SOFT).strip()
        if question:
            return question
    return NEUTRAL_REPLY


def _ordered(params: Sequence[Param], asked: Sequence[Param]) -> list[Param]:
    """``params``, the asked ones first, the one the question is most about first."""
    return [p for p in asked if p in params] + [p for p in params if p not in asked]


def _of_kind(params: Sequence[Param], kind: str) -> list[Param]:
    return [p for p in params if p.kind == kind]


def _fill_contacts(work: _Work, params: Sequence[Param], asked: Sequence[Param], region: str) -> None:
    for param in _ordered(_of_kind(params, "email"), asked):
        found = find_emails(work.text)
        if found:
            work.take(param, found[0].value, found[0])
    for param in _ordered(_of_kind(params, "phone"), asked):
        phones = find_phones(work.text, region=region, digits_only=wants_digits_only(param))
        if phones:
            work.take(param, phones[0].value, phones[0])
    for param in _ordered(_of_kind(params, "identifier"), asked):
        codes = find_identifiers(work.text, pattern=param.pattern)
        if codes and (param.pattern or param in asked or _named_code(work.text, codes[0], param)):
            work.take(param, codes[0].value, codes[0])


_GENERIC_ID_WORDS = frozenset({"number", "id", "code", "reference", "ref", "identifier", "no", "num"})


def _named_code(text: str, found: Found, param: Param) -> bool:
    """An unasked code the person names as the parameter ("my invoice HD-48213" for ``invoice_number``):
    written in capitals and digits, right after a distinctive word of the parameter's name."""
    if any(c.islower() for c in text[found.start : found.end]):
        return False
    before = re.findall(r"[a-z]+", text[: found.start].lower())[-3:]
    names = {w for w in param.name_words if w not in _GENERIC_ID_WORDS and len(w) > 2}
    return any(w in names or w.rstrip("s") in names for w in before)


_WEEKDAY_ONLY_RE = re.compile(r"(?:(?:on|the|this|next|that)\s+)*(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*", re.I)
_DAY_ONLY_RE = re.compile(r"(?:(?:on|the)\s+)*(?:\d{1,2}(?:st|nd|rd|th)|[a-z]+(?:[\s-][a-z]+)?)", re.I)


def _offered_date(found: Found, said: str, offered: Sequence[dt.date]) -> dt.date:
    """A weekday or day of the month that picks one of the dates the directive offered ("the Friday")."""
    value: dt.date = found.value
    if not offered or value in offered:
        return value
    if _WEEKDAY_ONLY_RE.fullmatch(said.strip()):
        same = [d for d in offered if d.weekday() == value.weekday()]
    elif _DAY_ONLY_RE.fullmatch(said.strip()):
        same = [d for d in offered if d.day == value.day]
    else:
        return value
    return same[0] if len(same) == 1 else value


_STREET_AFTER_RE = re.compile(
    r"\s+(?:street|st|avenue|ave|road|rd|drive|dr|boulevard|blvd|lane|ln|way|place|pl|court|ct|floor)\b", re.I
)


def _dates(text: str, now: dt.datetime, *, past: bool = False, region: str = "US") -> list[Found]:
    """The dates of the text, minus street numbers ("291 30th Street" has no date)."""
    return [
        f for f in find_dates(text, now, past=past, region=region) if not _STREET_AFTER_RE.match(text, f.end)
    ]


def _fill_dates(
    work: _Work,
    params: Sequence[Param],
    asked: Sequence[Param],
    now: dt.datetime,
    region: str,
    directive: str | None,
) -> None:
    date_params = _ordered(_of_kind(params, "date"), asked)
    _fill_date_range(work, params, date_params, now, region)
    _fill_dates_by_role(work, date_params, asked, now, region)
    for index, param in enumerate(date_params):
        if work.has(param):
            continue
        found = _dates(work.text, now, past=param.past, region=region)
        if (
            found
            and param not in asked
            and _NUMERIC_DATE_RE.fullmatch(work.text[found[0].start : found[0].end])
        ):
            found = []  # "7/10" is a date only when a date is asked: it reads as a score or a ratio too
        if found and param not in asked:
            # "the second one" picks an option: an ordinal alone is a date only when a date is asked
            found = [f for f in found if _has_date_anchor(work.text[f.start : f.end])]
        if found and _past_in_aside(work.text, found[0], now, param):
            continue  # "who won the game last night?" talks about something else: not the booking's date
        if found:
            offered = [f.value for f in find_dates(directive or "", now, past=param.past, region=region)]
            value = _offered_date(found[0], work.text[found[0].start : found[0].end], offered)
            work.take(param, format_date(value, param), found[0])
        elif param in asked and index == 0:
            fallback = parse_date_fallback(clean_text(work.text), now, past=param.past)
            if fallback is not None:
                work.take(param, format_date(fallback, param))
                work.text = mask(work.text, [(0, len(work.text))])
    # Date-looking words never count as numbers or times, even when no date parameter is visible
    # ("June 25th" is not 25 guests) — except ordinal words, which also pick options ("the first one").
    leftovers = [
        f for f in _dates(work.text, now, region=region) if _has_date_anchor(work.text[f.start : f.end])
    ]
    work.text = mask(work.text, [(f.start, f.end) for f in leftovers])


_BOOKING_WORDS = frozenset(
    {"book", "booking", "booked", "reserve", "reserved", "reservation", "table", "appointment", "come",
     "visit", "schedule", "scheduled", "available", "availability", "open", "free", "date"}
)  # fmt: skip


_ASIDE_STOP = frozenset({"that", "this", "with", "what", "when", "which", "your", "from", "have", "will"})


def _past_in_aside(text: str, found: Found, now: dt.datetime, param: Param) -> bool:
    """A day already gone ("last night", "yesterday") in a question that names no booking word nor a word
    of the parameter: a question about something else, not an answer for a date still to come. A statement
    ("last Friday") or a question about the booking ("can I book for yesterday?") is still read, so the
    engine can say the date has passed."""
    if param.past or found.value >= now.date() or not text.rstrip().endswith("?"):
        return False
    about = {w for w in param.words | param.name_words if len(w) > 3 and w not in _ASIDE_STOP}
    return not (set(words(text)) & (_BOOKING_WORDS | about))


_END_WORDS = frozenset({"out", "checkout", "end", "return", "leaving", "dropoff", "until", "departure"})
_START_WORDS = frozenset({"in", "checkin", "start", "arrival", "begin", "from", "pickup"})
_END_CUE_RE = re.compile(
    r"(?:check(?:ing)?[\s-]?out|leav\w*|until|till|through|thru|depart\w*|return\w*|end\w*|drop\w*"
    r"|stay\w* (?:up )?to)\W+(?:[\w']+\W+){0,3}$",
    re.I,
)
_START_CUE_RE = re.compile(
    r"(?:check(?:ing)?[\s-]?in|arriv\w*|from|start\w*|begin\w*|pick\w*)\W+(?:[\w']+\W+){0,3}$", re.I
)


def _date_role(param: Param) -> str | None:
    if _END_WORDS & param.name_words:
        return "end"
    if _START_WORDS & param.name_words:
        return "start"
    return None


def _fill_dates_by_role(
    work: _Work, date_params: Sequence[Param], asked: Sequence[Param], now: dt.datetime, region: str
) -> None:
    """Two dates of one stay or trip (check-in and check-out): each date said goes by the words before it
    ("checking out on the 13th", "arriving Friday"); a date without such words goes to the asked one, else
    to the start."""
    roles = {p.key: _date_role(p) for p in date_params}
    if len(date_params) < 2 or not {"start", "end"} <= set(roles.values()):
        return
    for found in _dates(work.text, now, region=region):
        before = work.text[max(0, found.start - 40) : found.start]
        role = "end" if _END_CUE_RE.search(before) else "start" if _START_CUE_RE.search(before) else None
        open_params = [p for p in date_params if not work.has(p)]
        if role is not None:
            targets = [p for p in open_params if roles[p.key] == role]
        else:
            targets = [p for p in asked if p in open_params] or _unsaid_role(open_params, roles, work.given)
        if targets:
            param = targets[0]
            value = find_dates(work.text[found.start : found.end], now, past=param.past, region=region)
            work.take(param, format_date(value[0].value if value else found.value, param), found)


def _unsaid_role(
    open_params: Sequence[Param], roles: Mapping[tuple[str, str], str | None], given: Set[str]
) -> list[Param]:
    """Where a date said with no word for its end of the stay goes when no date is asked: the start, unless
    the start was given earlier in the conversation and the end was not — then the end."""
    starts = [p for p in open_params if roles[p.key] == "start"]
    ends = [p for p in open_params if roles[p.key] == "end" and p.tool not in given]
    if starts and ends and all(p.tool in given for p in starts):
        return ends
    return starts


_SCORE_RE = re.compile(r"\b(\d{1,3}(?:\.\d)?)\s*(?:/|out of)\s*(\d{1,3})\b(?!\s*/)", re.I)


def _fill_scores(work: _Work, params: Sequence[Param], asked: Sequence[Param]) -> None:
    """ "7/10" or "8 out of 10" for a number on a scale of 10 is a score, not July 10th: a value is
    never written to a slot whose type it does not fit when another reading fits better."""
    scales = [p for p in params if p.scale_max is not None and not work.has(p)]
    if any(p.kind == "date" for p in asked):
        scales = [p for p in scales if p in asked]  # "When?" — "7/10": a date asked for wins
    for match in _SCORE_RE.finditer(work.text):
        value, top = float(match.group(1)), int(match.group(2))
        targets = [p for p in _ordered(scales, asked) if p.scale_max == top and value <= top]
        if targets:
            param = targets[0]
            work.take(param, int(value) if param.kind == "integer" or value.is_integer() else value, Found(
                value, match.start(), match.end()))  # fmt: skip
            scales.remove(param)


_NUMERIC_DATE_RE = re.compile(r"\d{1,2}\s*[/.-]\s*\d{1,2}")


def _fill_date_range(
    work: _Work, params: Sequence[Param], date_params: Sequence[Param], now: dt.datetime, region: str
) -> None:
    """ "from the 10th to the 13th": the start to a date parameter, the length to a nights/days count."""
    lengths = [p for p in _of_kind(params, "integer") if {"night", "day"} & p.unit_classes]
    if not date_params or not lengths or work.has(lengths[0]):
        return
    span = find_date_range(work.text, now, past=date_params[0].past, region=region)
    if span is None:
        return
    start, end = span
    work.take(date_params[0], format_date(start.value, date_params[0]), start)
    work.take(lengths[0], (end.value - start.value).days, end)


def _has_date_anchor(span: str) -> bool:
    return bool(re.search(r"\d", span)) or not re.fullmatch(r"(?:on\s+)?the\s+[a-z\s-]+", span, re.I)


def _fill_times(work: _Work, params: Sequence[Param], asked: Sequence[Param], directive: str | None) -> None:
    options = offered_times(directive)
    time_params = _ordered(_of_kind(params, "time"), asked)
    for param in time_params:
        bare = param in asked or bool(options) or len(time_params) == len(params)
        context = f"{directive or ''} {param.text}"
        found = find_times(work.text, options=options, context=context, evening=param.evening, bare=bare)
        if found:
            work.take(param, format_time(found[0].value, param), found[0])
    explicit = [f for f in find_times(work.text) if f.value.explicit]
    work.text = mask(work.text, [(f.start, f.end) for f in explicit])


def _fill_amounts(work: _Work, params: Sequence[Param], asked: Sequence[Param]) -> None:
    for param in _ordered(_of_kind(params, "number"), asked):
        found = find_amounts(work.text)
        if found:
            work.take(param, found[0].value, found[0])


_RATING_NUMBER_RE = re.compile(
    r"\b(?:rat(?:ing|ed)|score|review)s?\s+(?:of\s+|is\s+|should be\s+)?(?:at least\s+|above\s+|over\s+"
    r"|(?:higher|better|greater|more) than\s+)?(?P<a>\d(?:\.\d{1,2})?)\b"
    r"|\b(?P<d>\d(?:\.\d{1,2})?)\s*(?:stars?\s+)?(?:rat(?:ing|ed)|reviews?)\b"
    r"|\b(?P<b>\d(?:\.\d{1,2})?)\s*(?:stars?|\+|or (?:higher|above|more|better|greater|up))\b"
    r"|\bat least (?:a\s+)?(?P<c>\d(?:\.\d{1,2})?)\b",
    re.I,
)


def _is_rating(param: Param) -> bool:
    return param.kind == "text" and bool(RATING_WORDS & param.words)


def _fill_ratings(work: _Work, params: Sequence[Param], asked: Sequence[Param]) -> None:
    """A rating for a text parameter about one ("Review rating of the house"): "4.2 stars or higher", "a
    rating of 3.8", "at least 3.4" — written with the decimals learned for such parameters ("4.20")."""
    for param in params:
        if param.kind != "text" or work.has(param) or not RATING_WORDS & param.words:
            continue
        match = _RATING_NUMBER_RE.search(work.text)
        if match is None:
            continue
        number = match.group("a") or match.group("b") or match.group("c") or match.group("d")
        value = f"{float(number):.{param.decimals}f}" if param.decimals is not None else number
        work.take(param, value)


def _count_target(count: Found, params: Sequence[Param], work: _Work, asked: Sequence[Param]) -> Param | None:
    open_params = [p for p in params if not work.has(p)]
    if not open_params:
        return None
    unit = unit_class(count.unit)
    if unit is not None:
        wanted = {
            "person": ["person", "adult"],
            "adult": ["adult", "person"],
            "week": ["night", "day"],
            "night": ["night", "day"],
            "day": ["day", "night"],  # a stay's nights are its days
        }.get(unit, [unit])
        for cls in wanted:
            matching = [p for p in open_params if cls in p.unit_classes]
            if matching:
                return _ordered(matching, asked)[0]
        if unit in {"night", "day", "week", "child"}:
            return None
        # "one room" is no number of days: a count with a unit goes only where no other unit is counted
        open_params = [p for p in open_params if not p.unit_classes - {"person"} or unit == "person"]
        if not open_params:
            return None
    asked_open = [p for p in open_params if p in asked]
    if asked_open:
        return asked_open[0]
    if len(params) == 1:
        return open_params[0]
    return None


def _fill_people_groups(work: _Work, int_params: Sequence[Param], asked: Sequence[Param]) -> None:
    """People listed one by one: adults and children to their own parameters, else the total."""
    for found in find_people_groups(work.text):
        group: PeopleGroup = found.value
        open_params = _ordered([p for p in int_params if not work.has(p)], asked)
        by_class = {
            cls: [p for p in open_params if cls in p.unit_classes] for cls in ("adult", "child", "person")
        }
        adult_target = next(iter(by_class["adult"] or by_class["person"]), None)
        if by_class["child"] and adult_target is not None:
            work.take(adult_target, group.adults, found)
            work.take(by_class["child"][0], group.children, found)
        elif by_class["person"]:
            work.take(by_class["person"][0], group.total, found)
        elif by_class["adult"] and not group.children:
            work.take(by_class["adult"][0], group.adults, found)
        else:
            asked_open = [p for p in open_params if p in asked]
            if len(asked_open) == 1 and not asked_open[0].unit_classes - {"person"}:
                work.take(asked_open[0], group.total, found)


_DENIED_RE = re.compile(r"\bnot\s+(?:the\s+)?$", re.I)
_DENIED_LOOKBEHIND = 24  # characters before a count searched for "not": bounded, so planning stays linear


def _denied(text: str, start: int) -> bool:
    return _DENIED_RE.search(text, max(0, start - _DENIED_LOOKBEHIND), start) is not None


_STREET_NAME_AFTER_RE = re.compile(
    r"\s+(?:[A-Z][\w'.-]*\s+){1,3}(?i:street|st|avenue|ave|road|rd|drive|dr|boulevard|blvd|lane|ln|way|place|pl"
    r"|court|ct|plaza|parkway|pkwy|highway|hwy|circle|terrace)\b"
)


def _house_number(text: str, count: Found) -> bool:
    """ "77 Birch Road": a number before a street's name is part of an address, not a count."""
    return count.unit is None and _STREET_NAME_AFTER_RE.match(text, count.end) is not None


def _counts_another(text: str, count: Found, target: Param, params: Sequence[Param]) -> bool:
    """A bare number said before a word that names what another parameter counts ("a 4 star hotel" while
    a number of days is asked: the star rating's), not before the target's own word."""
    if count.unit is not None:
        return False
    after = word_after(text, count.end)
    if after is None or names_own_unit(after, target.name_words):
        return False
    return any(names_own_unit(after, p.name_words) for p in params if p is not target)


def _fill_counts(work: _Work, params: Sequence[Param], asked: Sequence[Param], readback: bool) -> None:
    int_params = _of_kind(params, "integer")
    if not int_params:
        return
    _fill_people_groups(work, int_params, asked)
    # "5 people, not 6": a number said only to be denied is no value.
    text = work.text
    counts = [c for c in find_counts(text) if not _denied(text, c.start) and not _house_number(text, c)]
    # Counts with a unit claim their parameter before bare numbers do.
    for count in sorted(counts, key=lambda c: c.unit is None):
        target = _count_target(count, int_params, work, asked)
        if target is None or _counts_another(text, count, target, params):
            continue
        value = count.value * 7 if unit_class(count.unit) == "week" else count.value
        work.take(target, value, count)
    # "none" is a zero only when the question is about a count: "no" to "what's the best number to reach you
    # for your party?" declines the phone number, it does not set the party size to 0.
    if not readback and is_nothing(work.text) and all(p.kind == "integer" for p in asked):
        for param in int_params:
            if param in asked and not work.has(param):
                work.take(param, 0)
                break


def _fill_choices(work: _Work, params: Sequence[Param], asked: Sequence[Param], readback: bool) -> None:
    for param in _of_kind(params, "choice"):
        numeric = numeric_values(param.enum)
        if numeric and param not in asked and not readback:
            # Not asked: only a count of the parameter's own unit ("a cab for two people" → seats).
            found = match_number_choice(work.text, param.enum, param.words, with_unit=True)
            if found is not None:
                work.take(param, found.value, found)
            continue
        truth = {str(v).lower(): v for v in param.enum if str(v).lower() in {"true", "false"}}
        if len(truth) == 2 and param not in asked and not readback:
            # A yes/no filter spelled as an enum ("True"/"False"/"dontcare"): the feature said in passing.
            flag = mentions_flag(work.text, sorted(param.name_words), common=_shared_words(param, params))
            if flag is not None:
                work.take(param, truth[str(flag).lower()])
            continue
        if not numeric and param not in asked and not readback:
            # Not asked: only a value named in full ("I'd like a Luxury ride"), or a price level said in
            # everyday words outside a question ("something pricey").
            said = asking_blanked(work.text)
            price = is_price_choice(param.enum, param.words)
            found = match_price_choice(said, param.enum) if price else None  # "not too pricey": moderate
            if found is None:
                found = match_named_choice(said, param.enum)
            if found is None and not _is_action_choice(param):
                found = _distinctive_value_word(said, param, params)
            if found is not None:
                work.take(param, found.value, found)
            continue
        if param in asked or readback:
            if numeric:
                found = match_number_choice(work.text, param.enum, param.words)
            elif _is_action_choice(param) and not readback:
                # what the user wants to do: by the words that tell the options apart, else by meaning
                found = match_action(work.text, param.value_notes, asked=True)
                if found is None:
                    found = match_described_choice(work.text, param.value_notes)
            else:
                found = match_choice(work.text, param.enum)
                if found is None and is_price_choice(param.enum, param.words):
                    found = match_price_choice(work.text, param.enum)
                if found is None and param.value_notes and param in asked:
                    found = match_described_choice(work.text, param.value_notes)
            if found is not None:
                work.take(param, found.value, found)


def _act_on_named_entity(work: _Work, params: Sequence[Param], user_text: str) -> None:
    """A request that names no option's words but names one business ("I'd like to eat at Rivoli") asks to
    act on that business, not to look one up: the look-up read by default becomes the one act, when the
    options have exactly one."""
    named = [p for p in params if p.entity and work.has(p)]
    for param in params:
        value = work.values.get(param.key)
        if not named or value is None or not _is_action_choice(param):
            continue
        if not is_lookup(value) or names_any(user_text, param.value_notes):
            continue
        acts = [v for v, note in param.value_notes if not is_lookup(v, note)]
        if len(acts) == 1:
            work.values[param.key] = acts[0]


def _distinctive_value_word(text: str, param: Param, params: Sequence[Param]) -> Found | None:
    """A value said in passing by a long word only it has ("help with our marriage" → Marriage Counselor):
    six letters or more, in no other value and no other parameter's words."""
    others = _shared_words(param, params)
    owners: dict[str, list[Any]] = {}
    for value in param.enum:
        for word in set(value_words(value)):
            owners.setdefault(word, []).append(value)
    for match in re.finditer(r"[a-z]+", text.lower()):
        word = match.group(0)
        values = owners.get(word, [])
        if len(word) >= 6 and len(values) == 1 and word not in others and word not in param.words:
            return Found(values[0], match.start(), match.end())
    return None


def _is_action_choice(param: Param) -> bool:
    """An enum of things to do, each described (``FindRestaurants = find a restaurant ...``)."""
    return len(param.value_notes) >= 2 and len(param.value_notes) == len(param.enum)


def _shared_words(param: Param, params: Sequence[Param]) -> frozenset[str]:
    """The words of the other visible parameters' names and descriptions (the same parameter of another
    setter, a search filter and its booking slot, aside)."""
    shared: set[str] = set()
    for other in params:
        if other.name != param.name:
            shared |= other.name_words | other.words
    return frozenset(shared)


def _fill_booleans(work: _Work, params: Sequence[Param], asked: Sequence[Param]) -> None:
    for param in _of_kind(params, "boolean"):
        if param not in asked:
            # Not asked: the feature named in passing ("a unisex salon", "no pets").
            flag = mentions_flag(work.text, sorted(param.name_words), common=_shared_words(param, params))
            if flag is not None:
                work.take(param, flag)
            continue
        if is_negative(work.text) or is_declining(work.text):
            work.take(param, False)
        elif is_agreeing(work.text):
            work.take(param, True)
        else:
            flag = mentions_flag(work.text, sorted(param.name_words), common=_shared_words(param, params))
            if flag is not None:  # asked "shared ride?": "a shared one would be fine"
                work.take(param, flag)


def _fill_names(
    work: _Work,
    params: Sequence[Param],
    asked: Sequence[Param],
    readback: bool,
    directive: str | None,
    agent_said: Sequence[str] = (),
) -> None:
    for param in _ordered(_of_kind(params, "name"), asked):
        if param.entity and readback:
            # a correction during the readback names the business after a cue ("No, I want to go to
            # Supercuts"): nothing offered is picked, nothing is agreed to
            found = find_entity_name(asking_blanked(work.text), None, asked=False)  # "is it a unisex salon?"
            if found is not None and found.end > found.start and found.value.lower() not in work.named:
                work.take(param, found.value, found)
            continue
        if param.entity:
            if not readback:
                offers = next((text for text in agent_said if offered_names(text)), None)
                earlier = [names[0] for text in agent_said if (names := offered_names(text))]
                found = find_entity_name(
                    work.text, directive, asked=param in asked, offers=offers,
                    elsewhere=_city_reading(work, params, param), earlier=earlier,
                )  # fmt: skip
                taken = {str(v).lower() for v in work.values.values()}
                said = str(found.value).lower() if found is not None else ""
                if (
                    found is not None and said not in taken and said not in work.named
                ):  # "Music" answered a type
                    ahead = asked[: asked.index(param)] if param in asked else asked  # asked before it
                    if not _names_a_category(str(found.value), work, params, ahead):
                        work.take(param, found.value, found)
            continue
        found = find_name(work.text, asked=param in asked and not readback)
        if found is None and param in asked and not readback:
            # a person the agent offered ("I found Dr. Ana Ruiz." — "that one works"): said again or agreed to
            offers = next((text for text in agent_said if offered_names(text)), None)
            earlier = [names[0] for text in agent_said if (names := offered_names(text))]
            found = find_entity_name(
                work.text, None, asked=True, offers=offers, offered_only=True, earlier=earlier
            )
        if found is not None:
            work.take(param, found.value, found)


def _city_reading(work: _Work, params: Sequence[Param], entity: Param) -> Callable[[str], bool] | None:
    """Which names said for a business are rather the city a city parameter wants ("a table at Pleasanton"):
    a known city, unless the city is already known (given before: "at Shiki" is then the restaurant) or the
    message names another city after "in" while no business was named before ("at Stella in Burlingame")."""
    cities = [p for p in params if _is_city_param(p)]
    if not cities:
        return None
    from slotgraph.models.offline.gazetteer import normalise_city

    located = {normalise_city(name) for cue, name, _, _ in find_place_names(work.text) if cue == "in"} - {
        None
    }
    fresh = entity.tool not in work.given
    city_known = any(p.tool in work.given for p in cities)
    text = work.text

    def is_city(name: str) -> bool:
        city = normalise_city(name)
        if city is None or (fresh and located - {city}):
            return False
        at = text.find(name)
        return not city_known or (at >= 0 and _LOCATION_CUE_RE.search(text, 0, at) is not None)

    return is_city


_LOCATION_CUE_RE = re.compile(r"\b(?:in|near|around|to|from|outside|of)\s+(?:the\s+)?$", re.I)


def _names_a_category(name: str, work: _Work, params: Sequence[Param], asked: Sequence[Param]) -> bool:
    """ "I prefer Peruvian type of food", "I like French cuisine": the name modifies a noun of a category
    parameter's description — the category, not a business called "Peruvian"; and while a category is
    asked (``asked``: those asked before the business name), a name is no answer when it is what the
    category reads ("I would like Jamaican"); nor is a value learned for a category ("I would like Sushi")."""
    for p in params:
        if not is_short_valued(p) or work.has(p):
            continue
        if (modified_head(p, work.text, capitalised=False) or "").lower() == name.lower():
            return True
        if any(surface == name.lower() for surface, _ in p.learned):  # "Sushi": a cuisine learned
            return True
        if p in asked and _PROPER_ADJECTIVE_RE.fullmatch(name):  # "looking for Mediterranean"
            return True
        if p in asked and (short_value(p, work.text, work.named) or "").lower() == name.lower():
            return True
    return False


_PROPER_ADJECTIVE_RE = re.compile(r"[A-Z][a-z]+(?:an|ese|ish|ic)")
"""One word shaped like a proper adjective (Mediterranean, Japanese, Spanish, Hispanic): a category."""


_CLAUSE_RE = re.compile(r"\s*(?:,|;|\band\b|\balso\b|\bplus\b)\s*(.*[a-z]{3}.*)$", re.I | re.S)


def _sibling_clause(work: _Work, param: Param, params: Sequence[Param]) -> str | None:
    """The clause after a value just given to another parameter of the same setter ("Chen, no allergies")."""
    ends = [
        work.ends[p.key] for p in params if p.tool == param.tool and p is not param and p.key in work.ends
    ]
    if not ends:
        return None
    clause = _CLAUSE_RE.match(work.text, max(ends))
    return clause.group(1) if clause else None


_CLAUSE_SPLIT_RE = re.compile(
    r"\s*(?:[;.]\s+|,?\s+and\s+(?:please\s+|also\s+)?|,\s*(?:also|plus|please)\s+)", re.I
)
_CORRECTION_RE = re.compile(
    r"^\s*(?:no|nope|actually|sorry|not quite)\b[\s,.!-]*(?:(?:it's|it is|it should be|should be|make it"
    r"|change it to|i said)\s+)?(?P<rest>.*\d.*)$",
    re.I | re.S,
)


_NO_THING_RE = re.compile(r"(?:no|zero|without)\s+(?:[a-z]+\s+)?([a-z]+?)s?", re.I)


def _means_nothing(value: str, param: Param) -> bool:
    """ "none", "nothing, thanks" — or "no <a word of this parameter>" ("no notes" for ``packing_notes``)."""
    if is_nothing(value):
        return True
    match = _NO_THING_RE.fullmatch(value)
    return match is not None and any(w.rstrip("s") == match.group(1).lower() for w in param.words)


_PROPER_START_RE = re.compile(
    r"(?:the\s+)?(?:[A-Z][\w'’.&-]*|\d+[A-Za-z]*)(?:\s+(?:(?:of|the|de|la|and|&)\s+)*(?:[A-Z][\w'’.&-]*|\d+[A-Za-z]*|#\s*\d+))*"
)
_NOT_A_PLACE_START = frozenset(
    {"i", "i'm", "i'd", "i'll", "we", "we're", "it", "it's", "that", "that's", "this", "there", "on", "yes",
     "no", "thanks", "thank", "ok", "okay", "sure", "people", "just", "what", "how", "can", "could", "is",
     "try", "please", "book", "reserve", "make", "let's", "lets", "find", "search", "show", "give", "tell",
     "you", "you've", "wow", "great", "good", "sounds", "got", "nice", "perfect", "awesome"}
)  # fmt: skip


_TRAILING_EXTRA_RE = re.compile(
    r"\s+(?:for|with|in an?|and|so)\s+[a-z][a-z\s']*$|\s+(?:for\s+)?(?:which|where|because|since)\b.*$", re.S
)  # "... Suite 130 for which I need a cab": the place ends before the clause about it


_COUNT_FILLER = frozenset(
    {"only", "just", "so", "me", "us", "please", "of", "people", "person", "seats", "seat", "one", "two",
     "three", "four", "five", "six", "for", "and", "all"}
)  # fmt: skip


_NEXT_CLAUSE_RE = re.compile(
    r",\s*(?=(?:can|could|would|will|please|and|but|i|i'm|i'd|i'll|we|we're|it|it's|so|because|thanks|"
    r"thank|there|that|how|what|is|are)\b)",
    re.I,
)


def _place_text(raw: str, *, as_city: bool = True) -> str | None:
    """A place said as a whole reply or after a route cue, up to the next value or sentence ("961
    Bluebell Drive in a Regular ride" → 961 Bluebell Drive; "Chicago. There are two of us" → Chicago), a
    city before ", <region>" ("Atlanta, GA" → Atlanta), when it reads as a place (a capitalised word or a
    number in it, or "the ..."); None for a sentence that is not one ("I would prefer a pool ride")."""
    first = re.split(r"\s{2,}|(?<=[a-z0-9])[.!?](?:\s|$)|(?<=[a-z]{2})\.(?=[a-z]{2})", raw.strip())[0]
    first = _NEXT_CLAUSE_RE.split(first)[0]  # "the Moonlight Diner, can you get a cab for me?"
    first = re.sub(r"(?:\s+(?:in|on|at|for|with|a|an|the|and|to|of|by))+\s*$", "", first, flags=re.I)
    text = clean_text(strip_place_request(first))
    if not text:
        return None
    from slotgraph.models.offline.gazetteer import normalise_city

    city = normalise_city(text.partition(",")[0]) if as_city or "," in text else None  # "Atlanta, GA"
    if city is not None:
        return city
    said = words(text)
    if not said or said[0] in _NOT_A_PLACE_START:
        return None
    if all(w.isdigit() or w in _COUNT_FILLER for w in said):
        return None  # "only 1, please" is a count, not an address
    if not (re.search(r"\d", text) or said[0] == "the" or any(w[:1].isupper() for w in text.split()[1:])
            or text[:1].isupper()):  # fmt: skip
        return None
    proper = _PROPER_START_RE.match(text)
    if proper and _TRAILING_EXTRA_RE.fullmatch(text[proper.end() :]):
        return proper.group(0)
    return text


def _take_text(work: _Work, param: Param, raw: str) -> bool:
    if param.role is not None:
        place = _place_text(raw, as_city=_reads_as_city(param))
        if place is None:
            return False
        work.take(param, _place_value(param, place) or place)
        return True
    if is_short_valued(param) and not is_nothing(raw):
        short = short_value(param, raw, work.named)
        if short is None:
            return False
        work.take(param, short)
        return True
    value = clean_text(strip_place_request(raw) if param.role is not None else raw)
    if not value:
        return False
    work.take(param, param.empty_value if _means_nothing(value, param) else value)
    return True


def _fill_places(work: _Work, texts: Sequence[Param], asked: Sequence[Param]) -> None:
    """Origin and destination read from cues ("from X to Y", "pick me up at X", "to the airport")."""
    routed = [p for p in texts if p.role in {"origin", "destination"} and not work.has(p)]
    if not any(p in asked for p in routed):
        return
    route = find_route(work.text)
    took = False
    for role, raw in route.items():
        targets = [p for p in routed if p.role == role]
        if targets:
            took = _take_text(work, _ordered(targets, asked)[0], raw) or took
    if took:
        work.text = mask(work.text, [(0, len(work.text))])


_CITY_WORDS = frozenset({"city", "town"})
_REQUEST_RE = re.compile(
    r"\b(?:(?:i|we)\s+(?:need|want|would like|wanna|am looking|are looking)"
    r"|(?:i|we)'(?:d like|m looking|re looking)|can you|could you|would you|will you|help me|find me"
    r"|get me|book me|call me|looking for)\b",
    re.I,
)


def _is_city_param(param: Param) -> bool:
    return bool(_CITY_WORDS & param.name_words) or (
        bool(_CITY_WORDS & param.words) and "location" in param.words
    )


def _place_value(param: Param, said: str) -> str | None:
    """A place name as the parameter wants it: a city's usual name ("SF" → San Francisco) for a city or a
    location; None when a city parameter is given something that is not a city."""
    from slotgraph.models.offline.gazetteer import normalise_city

    if not _reads_as_city(param):
        return said  # an address or a place one rides to: "SFO" stays the airport, not San Francisco
    city = normalise_city(said) or normalise_city(said.partition(",")[0])
    if city is not None:
        return city
    return None if _is_city_param(param) else said


def _reads_as_city(param: Param) -> bool:
    """A city parameter, or a location that is no address: a city said short is written in full there."""
    return _is_city_param(param) or bool(_AREA_WORDS & param.words and not _ADDRESS_WORDS & param.words)


_AREA_WORDS = frozenset({"city", "town", "location", "located", "area", "region"})
_ADDRESS_WORDS = frozenset({"address", "street"})


def _fill_place_names(work: _Work, params: Sequence[Param], asked: Sequence[Param], readback: bool) -> None:
    """Place names after a cue ("a cab to Pear Street Bistro", "somewhere to eat in Santa Rosa", "in SF"),
    for every place parameter, asked or not: a city parameter takes only a known city."""
    places = [p for p in _of_kind(params, "text") if p.role is not None and not work.has(p)]
    if not places:
        return
    found = find_place_names(work.text)
    used: list[tuple[int, int]] = []
    for param in places:
        for cue, name, start, end in found:
            if (cue == "from") != (param.role == "origin"):
                continue
            if _is_city_param(param) and _located_in_another(work.text, end, found):
                continue  # "dine at Stella in Burlingame": the city is the one the place is in
            if _NEGATED_BEFORE_RE.search(work.text, max(0, start - 40), start):
                continue  # "I'm not going to Chicago"
            value = _place_value(param, name)
            if value is None:
                continue
            work.take(param, value)
            used.append((start, end))
            break
        else:
            if readback or not _is_city_param(param):
                continue
            # asked: a known city anywhere; not asked: one the message opens with ("Milpitas.", "San Bruno,
            # I am looking for...") or one after a place cue in lower case ("in mountain view")
            city = _find_city(work.text) if param in asked else _leading_or_cued_city(work.text)
            if city is not None:
                work.take(param, city[0])
                used.append(city[1])
    work.text = mask(work.text, used)


_NEGATED_BEFORE_RE = re.compile(r"(?:\bnot|n't|\bnever)\b[^.,;!?]*$", re.I)


def _located_in_another(text: str, end: int, found: Sequence[tuple[str, str, int, int]]) -> bool:
    """A place name followed by "in <another place name>" ("Stella in Burlingame"): a place in that city."""
    after = re.match(r"\s+in\s+(?:the\s+)?", text[end:], re.I)
    return after is not None and any(start == end + after.end() for _, _, start, _ in found)


_CITY_ANSWER_REST_RE = re.compile(
    r"\s*(?:$|[,.!;]|(?:would|will|is|sounds|please|works|should|then|it is|is fine)\b)", re.I
)
_CITY_CUE_RE = re.compile(
    r"\b(?:in|to|at|near|around|from|visiting|search|searching|try|check)\s+(?:the\s+)?(?:city\s+(?:of\s+)?)?",
    re.I,
)
_SENTENCE_START_RE = re.compile(r"[.!?]\s+")


def _leading_or_cued_city(text: str) -> tuple[str, tuple[int, int]] | None:
    """A known city the text opens with, or one right after a place cue whatever its case."""
    from slotgraph.models.offline.gazetteer import city_index

    index = city_index()
    openings = [len(text) - len(text.lstrip(" ,.-"))] + [m.end() for m in _SENTENCE_START_RE.finditer(text)]
    starts = openings + [m.end() for m in _CITY_CUE_RE.finditer(text)]
    for start in starts:
        tokens = [(m.group(0), start + m.start(), start + m.end()) for m in
                  re.finditer(r"[A-Za-z][\w'.-]*", text[start:])][:4]  # fmt: skip
        for size in range(len(tokens), 0, -1):
            said = " ".join(t[0] for t in tokens[:size])
            leading = start in openings
            if (
                (size == 1 and said.islower())
                or (leading and said.islower())
                or said.lower() in _NOT_CITY_WORDS
            ):
                continue
            city = index.lookup(said.rstrip("."))
            if city is None or tokens[:size][0][1] != start:
                continue
            rest = text[tokens[size - 1][2] :]
            if leading and size == 1 and not _CITY_ANSWER_REST_RE.match(rest):
                continue  # a capitalised first word ("Reserve for six") is a city only said as the answer
            return city, (tokens[0][1], tokens[size - 1][2])
    return None


def _find_city(text: str) -> tuple[str, tuple[int, int]] | None:
    """A known city named anywhere in the text, longest name first ("Fairfield would be suitable")."""
    from slotgraph.models.offline.gazetteer import city_index

    index = city_index()
    tokens = [(m.group(0), m.start(), m.end()) for m in re.finditer(r"[A-Za-z][\w'.-]*", text)]
    for size in range(min(index.longest, 4), 0, -1):
        for i in range(len(tokens) - size + 1):
            said = " ".join(t[0] for t in tokens[i : i + size])
            if size == 1 and (said.islower() or said.lower() in _NOT_CITY_WORDS):
                continue
            city = index.lookup(said)
            if city is not None:
                return city, (tokens[i][1], tokens[i + size - 1][2])
    return None


_NOT_CITY_WORDS = frozenset(
    {"i", "me", "please", "yes", "no", "ok", "okay", "thanks", "hi", "hello", "can", "may"}
)


def _split_two(text: str) -> tuple[str, str] | None:
    """A reply to two questions at once, cut at its first strong break (", and", ";"), else its last comma."""
    match = _CLAUSE_SPLIT_RE.search(text)
    if match is None:
        comma = text.rfind(",")
        if comma < 0:
            return None
        return text[:comma], text[comma + 1 :]
    return text[: match.start()], text[match.end() :]


_CLAUSE_BOUNDARY_RE = re.compile(r"[;,.!?]+\s*|\s+(?:and|but|plus)\s+", re.I)
_CHANGE_PHRASE_RE = re.compile(
    r"^(?:make (?:it|that|them|this)|change (?:it|that|this)|switch (?:it|that)?|we'll be|we will be|"
    r"there(?:'ll| will) be)\b",
    re.I,
)


_FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "for",
        "of",
        "to",
        "it",
        "its",
        "it's",
        "is",
        "are",
        "be",
        "we",
        "we'll",
        "us",
        "me",
        "my",
        "our",
        "i",
        "i'm",
        "i'd",
        "like",
        "want",
        "need",
        "just",
        "only",
        "about",
        "around",
        "maybe",
        "then",
        "now",
    ]
)


def _without_spent_clauses(original: str, masked: str) -> str:
    """``masked`` minus the clauses a value was read from that are left with only a few words.

    The asked free-text parameter takes what is left of the message, but a clause that gave another
    parameter its value is that answer, not a note: "actually make it 6 people" while special requests are
    asked changes the party size and leaves "make it people", which is no request. Such a clause is dropped
    when what is left of it is a change phrase ("make it ... instead") or only function and unit words ("for
    people"); a clause with other words stays ("Lisbon for 3 nights" keeps "Lisbon"), and so do the other
    clauses ("6 people, and no nuts please" → "no nuts please"). Offsets are kept (the result is ``masked``
    with the dropped clauses blanked).
    """
    bounds: list[tuple[int, int]] = []
    start = 0
    for boundary in _CLAUSE_BOUNDARY_RE.finditer(original):
        bounds.append((start, boundary.start()))
        start = boundary.end()
    bounds.append((start, len(original)))
    dropped: list[tuple[int, int]] = []
    for begin, end in bounds:
        clause = masked[begin:end]
        if clause == original[begin:end]:
            continue  # nothing was read from this clause
        left = clean_text(clause)
        content = [w for w in words(left) if w not in _FUNCTION_WORDS and unit_class(w) is None]
        if not content or _CHANGE_PHRASE_RE.match(left):
            dropped.append((begin, end))
    return mask(masked, dropped) if dropped else masked


def _fill_text(
    work: _Work, params: Sequence[Param], asked: Sequence[Param], user_text: str, readback: bool
) -> None:
    if is_question_or_greeting(user_text):
        return
    texts = _of_kind(params, "text")
    if readback:
        # A correction that carries an address ("no, it's 54 Oak Avenue") replaces the place read back.
        correction = _CORRECTION_RE.match(work.text)
        places = [p for p in texts if p.role is not None and p in asked]
        if correction and len(places) == 1:
            _take_text(work, places[0], correction.group("rest"))
        return
    _fill_places(work, texts, asked)
    # A city is a known city (read above), never the rest of a sentence ("Thanks a lot").
    texts = [p for p in texts if not _is_city_param(p)]
    if _REQUEST_RE.search(work.text):
        # "I need a cab", "can you find me a salon": a request, not a place, a name or a note.
        texts = [p for p in texts if p.role is None]
    open_asked = [p for p in texts if p in asked and not work.has(p)]
    if len(open_asked) >= 2:
        # Two free-text questions at once: one clause each, in schema order; nothing when it cannot be cut.
        parts = _split_two(clean_text(work.text))
        if parts is not None and clean_text(parts[0]) and clean_text(parts[1]):
            _take_text(work, open_asked[0], parts[0])
            _take_text(work, open_asked[1], parts[1])
        work.text = mask(work.text, [(0, len(work.text))])
        return
    for param in texts:
        if work.has(param) or _is_rating(param):
            continue  # a rating is a number (read above), never the words of a sentence ("Wow")
        # The asked parameter takes the free text left over; a text parameter that was not asked takes only
        # a clause after a value just given to its sibling ("under Chen, no allergies" when a name was asked).
        if param in asked:
            remaining = _without_spent_clauses(user_text, work.text)
        else:
            clause = _sibling_clause(work, param, params)
            if clause is None:
                continue
            remaining = clause
        if _take_text(work, param, remaining):
            work.text = mask(work.text, [(0, len(work.text))])


_LEARNED_UNASKED_CHARS = 4
"""A learned surface said for a parameter that was not asked counts from this length ("sushi", not "sf")."""


def _fill_learned(work: _Work, params: Sequence[Param], asked: Sequence[Param]) -> None:
    """Values said the way people say them, learned from real dialogues ("sushi" → Japanese, "Chi-town" →
    Chicago): a short surface only when the parameter is asked, a value of an enum only when it is one."""
    used: list[tuple[int, int]] = []
    for param in params:  # every parameter reads the text as it was: a setter of the search and one of the
        if not param.learned or work.has(param):  # booking may both want "Seattle, WA"
            continue
        found = find_learned(
            work.text, param.learned, min_length=1 if param in asked else _LEARNED_UNASKED_CHARS
        )
        if found is None or (param.kind == "choice" and found.value not in param.enum):
            continue
        work.take(param, found.value)
        used.append((found.start, found.end))
    work.text = mask(work.text, used)


def _normalise_learned(work: _Work, params: Sequence[Param]) -> None:
    """A value read as said ("Sushi", "SD") becomes its learned canonical value (Japanese, San Diego)."""
    for param in params:
        value = work.values.get(param.key)
        if not param.learned or not isinstance(value, str):
            continue
        canonical = dict(param.learned).get(" ".join(value.lower().split()))
        if canonical is not None and (param.kind != "choice" or canonical in param.enum):
            work.values[param.key] = canonical


def _fill_named_categories(
    work: _Work, params: Sequence[Param], asked: Sequence[Param], user_text: str
) -> None:
    """A category named in passing ("any Mexican places?", "a Greek place to eat") for a short-valued
    parameter that was not asked, or asked in a question (a question is otherwise no answer)."""
    question = is_question_or_greeting(user_text)
    for param in params:
        if (
            not is_short_valued(param)
            or work.has(param)
            or (param in asked and not question)
            or _is_rating(param)
        ):
            continue  # a rating is a number: "Wow this house" names none
        found = modified_head(param, work.text, capitalised=param not in asked)
        if found is not None:
            work.take(param, found)


_GENERIC_NAME_WORDS = frozenset({"name", "number", "date", "time", "type", "kind", "intent", "value"})


def _named_words(params: Sequence[Param]) -> frozenset[str]:
    return frozenset(w for p in params for w in p.name_words if len(w) >= 4 and w not in _GENERIC_NAME_WORDS)


def _extract(
    user_text: str,
    params: Sequence[Param],
    asked: Sequence[Param],
    directive: str | None,
    now: dt.datetime,
    region: str,
    readback: bool,
    agent_said: Sequence[str] = (),
    given: frozenset[str] = frozenset(),
) -> dict[tuple[str, str], Any]:
    work = _Work(user_text, named=_named_words(params), given=given)
    _fill_contacts(work, params, asked, region)
    _fill_scores(work, params, asked)
    _fill_dates(work, params, asked, now, region, directive)
    _fill_times(work, params, asked, directive)
    _fill_amounts(work, params, asked)
    _fill_ratings(work, params, asked)
    _fill_counts(work, params, asked, readback)
    _fill_choices(work, params, asked, readback)
    if not readback:  # during readback a yes/no answers the readback question
        _fill_booleans(work, params, asked)
    _fill_names(work, params, asked, readback, directive, agent_said)
    if not readback:
        _act_on_named_entity(work, params, user_text)
        _fill_learned(work, params, asked)
    if not readback:
        _fill_places(work, _of_kind(params, "text"), asked)  # routes first: "pick me up at X" is an origin
    _fill_place_names(work, params, asked, readback)
    if not readback:
        _fill_named_categories(work, params, asked, user_text)
    _fill_text(work, params, asked, user_text, readback)
    _normalise_learned(work, params)
    return work.values


def _calls(
    setters: Sequence[Setter], values: Mapping[tuple[str, str], Any]
) -> tuple[tuple[str, dict[str, Any]], ...]:
    calls: list[tuple[str, dict[str, Any]]] = []
    for setter in setters:
        args = {
            p.name: str(values[p.key]) if p.as_string else values[p.key]
            for p in setter.params
            if p.key in values
        }
        if args:
            calls.append((setter.name, args))
    return tuple(calls)


UNGUESSED_TOOLS = frozenset({SET_VARIABLES})
"""Tools the offline model never fills from the user's words: ``set_variables`` takes any declared variable,
and a guess from free text (a greeting into a string variable) would write a wrong fact; scripted models and
real LLMs call it."""


def plan_turn(
    tools: Sequence[Mapping[str, Any]],
    *,
    system_instruction: str,
    user_text: str | None,
    now: dt.datetime,
    region: str = "US",
    agent_said: Sequence[str] = (),
    setters: Sequence[Setter] | None = None,
    given: Set[str] = frozenset(),
) -> Plan:
    """Plan one model call.

    ``user_text`` is the last user message, or None when the model is called again after tools ran — then
    the plan is only a reply relaying the directive. ``now`` is the session clock (relative dates);
    ``region`` the default phone region (ISO 3166 code) and the day/month order of "03/04".
    ``agent_said``: the agent's recent messages, newest first — where an option the user picks may have been
    offered ("I found Sushi Boat." two questions ago).
    ``setters``: ``tools`` already read (:func:`~slotgraph.models.offline.schema.read_setters`, one per tool,
    same order), when the caller keeps them; read here otherwise.
    ``given``: the setters called on the conversation's earlier messages — what the person already said (a
    date with no word for which end of a stay it is goes to the end once the start was given).
    """
    if user_text is None or not user_text.strip():
        return Plan(text=relay_text(system_instruction))
    with parses_kept_for_one_plan():
        return _plan_reply(
            tools, system_instruction, user_text, now, region, agent_said, setters, frozenset(given)
        )


def _plan_reply(
    tools: Sequence[Mapping[str, Any]],
    system_instruction: str,
    user_text: str,
    now: dt.datetime,
    region: str,
    agent_said: Sequence[str],
    setters: Sequence[Setter] | None,
    given: frozenset[str] = frozenset(),
) -> Plan:
    """:func:`plan_turn` for a user's message (a long message's parses kept while it is planned)."""
    read = read_setters(tools) if setters is None else setters
    setters = tuple(s for s in read if s.name not in UNGUESSED_TOOLS)
    names = {s.name for s in setters}
    readback = CONFIRM_TOOL in names or REJECT_TOOL in names or is_readback_instruction(system_instruction)
    directive = directive_text(system_instruction)
    params = [p for s in setters for p in s.params if not p.structured]  # a list is never a reply's words
    asked = asked_params(directive, params)
    values = _extract(user_text, params, asked, directive, now, region, readback, agent_said, given)
    calls = _calls(setters, values)
    if readback and calls and CONFIRM_TOOL in names and confirms_part(user_text):
        # a correction plus "the rest is right": the engine commits only the values read back unchanged
        calls = (*calls, (CONFIRM_TOOL, {}))
    if readback and not calls:
        if is_negative(user_text) and REJECT_TOOL in names:
            calls = ((REJECT_TOOL, {}),)
        elif is_affirmative(user_text) and CONFIRM_TOOL in names:
            calls = ((CONFIRM_TOOL, {}),)
    if not readback:  # "another salon, one in San Mateo": the new criterion and the next option
        calls = (*calls, *_ask_for_alternatives(tools, user_text, agent_said, called={c[0] for c in calls}))
    if calls:
        return Plan(tool_calls=calls)
    reason = _no_call_reason(user_text, params, asked, readback)
    return Plan(text=relay_text(system_instruction), no_call_reason=reason)


_KIND_WORDS = {
    "integer": "a number", "number": "an amount", "date": "a date", "time": "a time",
    "phone": "a phone number", "email": "an email address", "name": "a name", "choice": "one of its options",
    "boolean": "a yes or no", "identifier": "a reference code", "text": "an answer",
}  # fmt: skip


def _describe(param: Param) -> str:
    if param.entity:
        return f"{param.name} (a name of a place or business)"
    if param.role is not None and _is_city_param(param):
        return f"{param.name} (a known city)"
    if param.kind == "choice":
        shown = ", ".join(str(v) for v in param.enum[:6]) + (", …" if len(param.enum) > 6 else "")
        return f"{param.name} (one of: {shown})"
    return f"{param.name} ({_KIND_WORDS[param.kind]})"


def _no_call_reason(user_text: str, params: Sequence[Param], asked: Sequence[Param], readback: bool) -> str:
    """Why nothing was called, in words an author can act on."""
    quoted = user_text.strip() if len(user_text.strip()) <= 80 else user_text.strip()[:77] + "…"
    if readback:
        return (
            f"during the readback, {quoted!r} is neither a yes, a no nor a new value for what was read back"
        )
    if is_question_or_greeting(user_text):
        return f"{quoted!r} is a question or a greeting, not an answer"
    if not params:
        return "no setter was visible"
    numeric = _NUMERIC_DATE_RE.search(user_text)
    dates = [p for p in params if p.kind == "date"]
    if numeric and dates and not any(p in asked for p in dates):
        return f"{numeric.group(0)!r} could be a date, but no date was asked, so it is not taken as one"
    if asked:
        wanted = "; ".join(_describe(p) for p in asked)
        return f"asked for {wanted}: found none in {quoted!r}"
    shown = "; ".join(_describe(p) for p in params[:6]) + ("; …" if len(params) > 6 else "")
    return f"the question names none of the visible parameters and {quoted!r} gives none of: {shown}"


_OTHER_OPTIONS_RE = re.compile(
    r"\b(?:another|other (?:\w+ )?(?:ones?|options?|places?|choices?|suggestions?|names?|\w+s)"
    r"|something else|anything else|anywhere else|somewhere else|what else|different|alternatives?"
    r"|more options|keep looking|next one|any others?|else (?:is )?(?:there|available)"
    r"|any ?more \w*\s*(?:suggestions?|options?|ideas?|recommendations?|choices?)"
    r"|better (?:choice|option|one|place|suggestion))\b",
    re.I,
)
_OTHER_OPTIONS_TOOL_WORDS = frozenset({"other", "another", "alternative", "alternatives", "next"})
_OPTION_NOUNS = "|".join(sorted(ENTITY_WORDS | {"option", "listing", "suggestion", "one", "home",
                                                "recommendation"}))  # fmt: skip
_SEARCH_AGAIN_RE = re.compile(
    r"\b(?:suggest|recommend|find me|search for|look(?:ing)? for|is there|are there|do you (?:have|know)"
    r"|any ?more)\b[^.?!]*?\b(?:(?:a|an|any|some|more|other)\s+(?:[\w-]+\s+){0,3}(?:"
    + _OPTION_NOUNS
    + r")s?|something|anything|someplace|somewhere)\b"
    r"|\b(?:cheaper|less expensive|more affordable|higher(?:[\s-]rat\w+)|better[\s-]rat\w+)\b",
    re.I,
)
"""After an option was offered, a request for one that differs ("can you suggest a cheaper place?", "is there
a unisex salon?", "anything with a higher rating?"): another search result, not the one offered."""


def _searches_again(user_text: str, agent_said: Sequence[str]) -> bool:
    """A request for an option like the one offered but different, once one was offered and not named."""
    if not _SEARCH_AGAIN_RE.search(user_text):
        return False
    offered = [name.lower() for text in agent_said for name in offered_names(text)]
    return bool(offered) and not any(len(n) >= 4 and n in user_text.lower() for n in offered)


def _ask_for_alternatives(
    tools: Sequence[Mapping[str, Any]],
    user_text: str,
    agent_said: Sequence[str],
    called: Set[str] = frozenset(),
) -> tuple[tuple[str, dict[str, Any]], ...]:
    """ "Is there another one?" calls a visible tool that shows other options (no required parameters, a
    description about other options); a list parameter about what was already offered gets the names
    offered so far."""
    if not _OTHER_OPTIONS_RE.search(user_text) and not _searches_again(user_text, agent_said):
        return ()
    for tool in tools:
        if tool.get("name") in called:
            continue
        schema = tool.get("parameters") or {}
        if schema.get("required") or not _OTHER_OPTIONS_TOOL_WORDS & set(words(str(tool.get("description")))):
            continue
        args: dict[str, Any] = {}
        for name, prop in (schema.get("properties") or {}).items():
            described = set(words(f"{name} {(prop or {}).get('description', '')}"))
            if {"offered", "shown", "already", "exclude"} & described:
                seen = [n for text in reversed(agent_said) for n in offered_names(text)]
                args[name] = list(dict.fromkeys(seen))
        return ((str(tool["name"]), args),)
    return ()
