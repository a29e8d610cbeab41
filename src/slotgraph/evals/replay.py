"""The replay model: plays the LLM from a turn's expected tool calls, so goldens run without an LLM.

Each time the runtime asks it, it returns the turn's expected tool calls that have not happened yet and are
visible in the request — all of them in one response — and otherwise plain text relaying the
``<system_directive>`` (what a faithful model would say), or a neutral question when there is none. A call
"has happened" when a call of that name whose arguments match the expected subset is in the conversation
since the turn's user message (the engine's own calls — a task fire, an auto-confirm — count). Each expected
call is issued at most once, so a refused or failing call cannot loop. A preempted turn never reaches the
model, so it calls nothing. It behaves as the platform's model would in two more ways:

**Routing.** In a multi-agent app (:class:`AppRoutes`), when the next expected calls belong to another agent
— no agent the request can come from has the tool, another agent has it — or the turn expects a transfer to
another agent, it calls the routing tool the current agent offers with the value that leads there
(``set_active_flow(flow="booking")``, ``transfer_to_agent(agent=...)``), alone, as a host agent's model
does; the agent it hands over to plays the rest of the turn. Each route is taken at most once a turn.

**Completing arguments.** Goldens list argument *subsets*, and a platform tool's parameters are all
optional: the platform's model filled the rest from what the user said. So every parameter the golden
leaves out is read from the same turn's user text by the offline model's parsers
(:func:`slotgraph.models.offline.plan_turn` over that one tool, on the session clock, with the request's
system instruction): dates, times, counts, names, phone numbers, choices, free text — typed by the tool's
schema; what the text does not give is left out, and a value the golden gives is never replaced (two values
in one sentence — a name the golden lists and a seating wish it does not — are both read, as the offline
model reads them). Then a *required* parameter
still missing is taken from the turn's own state expectations (an expected ``pending``/``filled``/``deferred``
value whose slot is named like the parameter or ends with ``_<parameter>``). Every completed argument is a
:class:`Completion` in :attr:`ReplayModel.completions` — with the user's words it was read from — and every
route taken a line in :attr:`ReplayModel.routes_taken`; the runner puts both in the turn's record, so the
reports say where the replay filled in for the golden.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from slotgraph.apps import is_app, read_app
from slotgraph.evals.matching import values_match
from slotgraph.models.offline import plan_turn
from slotgraph.models.offline.contacts import find_phones
from slotgraph.models.offline.dates import find_dates
from slotgraph.models.offline.numbers import find_counts
from slotgraph.models.offline.times import find_times
from slotgraph.names import SYSTEM_DIRECTIVE, close_tag, open_tag
from slotgraph.runtime import (
    Agent,
    AssistantToolCalls,
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolSchema,
    UserMessage,
)
from slotgraph.runtime.agent_team import TRANSFER_TOOL

__all__ = [
    "NEUTRAL_TEXT",
    "AppRoutes",
    "Completion",
    "ReplayCall",
    "ReplayModel",
    "Route",
    "app_routes",
    "directive_text",
    "said_words",
]

NEUTRAL_TEXT = "How can I help you?"
_OPEN, _CLOSE = open_tag(SYSTEM_DIRECTIVE), close_tag(SYSTEM_DIRECTIVE)


@dataclass(frozen=True, slots=True)
class ReplayCall:
    """An expected model tool call: its name and the arguments the golden gives."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Route:
    """A routing tool call that hands the conversation to ``target``: ``tool(param=value)``."""

    tool: str
    param: str
    value: str
    target: str


@dataclass(frozen=True, slots=True)
class AppRoutes:
    """What the replay knows of a multi-agent app: every agent's tools, and the routes between them."""

    tools: Mapping[str, frozenset[str]]
    """Each agent's tools by agent name (its whole registry: what it may ever show its model)."""
    routes: tuple[Route, ...] = ()


def app_routes(agent: Agent, path: Path) -> AppRoutes | None:
    """The routes of the app ``agent`` belongs to (``path``: its app directory), or None for a lone agent:
    each ``routing`` entry of ``app.yaml`` (a tool's value → the agent it leads to) and each agent's
    ``transfer_to_agent`` hand-offs."""
    team = agent.team
    if team is None:
        return None
    tools = {member.name: frozenset(member.tools.names) for member in team}
    routes: list[Route] = []
    if is_app(path):
        config, _ = read_app(path)
        routes.extend(
            Route(entry.tool, entry.param, value, target)
            for entry in config.routing
            for value, target in entry.values.items()
        )
    for member in team:
        transfer = member.tools.get(TRANSFER_TOOL)
        choices = (transfer.schema.parameters.get("properties") or {}).get("agent", {}) if transfer else {}
        routes.extend(Route(TRANSFER_TOOL, "agent", name, name) for name in choices.get("enum") or ())
    return AppRoutes(tools, tuple(dict.fromkeys(routes)))


@dataclass(frozen=True, slots=True)
class Completion:
    """An argument the golden left out and the replay filled in."""

    tool: str
    param: str
    value: Any
    words: str = ""
    """The user's words it was read from (``""`` when it came from an expectation)."""
    source: str = "the user's text"
    """Where it came from: the user's text, or the expected slot value (``the expected pending.level``)."""

    def describe(self) -> str:
        said = f"from {self.words!r}" if self.words else f"from {self.source}"
        return f"{self.tool}.{self.param} = {self.value!r} {said}"


def directive_text(instruction: str) -> str | None:
    """The body of the last ``<system_directive>`` block of a system instruction, or None.

    Searched from the end: the protocol text before it mentions the tag in prose.
    """
    start = instruction.rfind(_OPEN)
    end = instruction.find(_CLOSE, start)
    if start < 0 or end < 0:
        return None
    body = instruction[start + len(_OPEN) : end].strip()
    return body or None


def _calls_this_turn(messages: Sequence[object]) -> list[ToolCall]:
    start = 0
    for index, message in enumerate(messages):
        if isinstance(message, UserMessage):
            start = index
    calls: list[ToolCall] = []
    for message in messages[start:]:
        if isinstance(message, AssistantToolCalls):
            calls.extend(message.calls)
    return calls


def _user_text(messages: Sequence[object]) -> str:
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            return str(message.text or "")
    return ""


def _now(request: ModelRequest) -> dt.datetime:
    value = request.metadata.get("now")
    if isinstance(value, dt.datetime):
        return value
    if isinstance(value, str):
        try:
            return dt.datetime.fromisoformat(value)
        except ValueError:
            pass
    return dt.datetime.now()


def _from_hints(param: str, hints: Mapping[str, Any]) -> tuple[bool, Any, str]:
    if param in hints:
        return True, hints[param], param
    close = [name for name in hints if name.endswith(f"_{param}") or param.endswith(f"_{name}")]
    if len(close) == 1:
        return True, hints[close[0]], close[0]
    return False, None, ""


# --- where a completed value was said ---------------------------------------------------------------------


def _as_date(text: str) -> dt.date | None:
    for pattern in ("%Y-%m-%d", "%m/%d/%Y", "%d/%m/%Y"):
        try:
            return dt.datetime.strptime(text, pattern).date()
        except ValueError:
            continue
    return None


_CLOCK_RE = re.compile(r"^(\d{1,2}):(\d{2})\s*([ap]\.?m\.?)?$", re.I)


def _as_minutes(text: str) -> int | None:
    match = _CLOCK_RE.match(text.strip())
    if match is None:
        return None
    hour, minute = int(match.group(1)), int(match.group(2))
    if match.group(3):
        hour = hour % 12 + (12 if match.group(3).lower().startswith("p") else 0)
    return hour * 60 + minute


def said_words(text: str, value: Any, now: dt.datetime) -> str:
    """The words of ``text`` a value read from it came from, as the offline parsers find them (the value
    itself, a date, a time, a count, a phone number); ``""`` when they cannot be told."""
    said = str(value).strip()
    if not said or isinstance(value, bool):
        return ""
    if isinstance(value, int | float):
        for found in find_counts(text):
            if found.value == value:
                return text[found.start : found.end]
    as_said = re.search(rf"(?<!\w){re.escape(said)}(?!\w)", text, re.IGNORECASE)
    if as_said is not None:
        return as_said.group(0)
    if isinstance(value, int | float):
        return ""
    day = _as_date(said)
    if day is not None:
        return next((text[f.start : f.end] for f in find_dates(text, now) if f.value == day), "")
    minutes = _as_minutes(said)
    if minutes is not None:
        for found in find_times(text, bare=True):
            if found.value.hour * 60 + found.value.minute == minutes:
                return text[found.start : found.end]
        return ""
    digits = re.sub(r"\D", "", said)
    if len(digits) >= 7:
        for found in find_phones(text):
            if re.sub(r"\D", "", str(found.value)).endswith(digits[-10:]):
                return text[found.start : found.end]
    return ""


# --- the model --------------------------------------------------------------------------------------------


def _tool_view(schema: ToolSchema) -> dict[str, Any]:
    return {"name": schema.name, "description": schema.description, "parameters": dict(schema.parameters)}


class ReplayModel:
    """Replays expected tool calls turn by turn; :meth:`begin_turn` gives it the next turn's calls."""

    def __init__(self, routes: AppRoutes | None = None) -> None:
        self._routes = routes
        self._remaining: list[ReplayCall] = []
        self._issued = 0
        self._hints: dict[str, Any] = {}
        self._transfer_to: str | None = None
        self._routed: set[tuple[str, str]] = set()
        self.completions: list[Completion] = []
        """Arguments this turn's calls were completed with."""
        self.routes_taken: list[str] = []
        """Routing calls made this turn to reach an expected call's agent (``tool(param='v') → agent``)."""

    @property
    def guesses(self) -> list[str]:
        """The completions of this turn, described (``tool.param = value from 'words'``)."""
        return [c.describe() for c in self.completions]

    def begin_turn(
        self,
        calls: Sequence[ReplayCall],
        hints: Mapping[str, Any] | None = None,
        *,
        transfer_to: str | None = None,
    ) -> None:
        """The turn's expected calls, slot values its expectations name (to complete required arguments), and
        the agent it expects a transfer to."""
        self._remaining = list(calls)
        self._hints = dict(hints or {})
        self._transfer_to = transfer_to
        self._routed = set()
        self.completions = []
        self.routes_taken = []

    def _complete(self, want: ReplayCall, request: ModelRequest) -> dict[str, Any]:
        args = dict(want.args)
        schema = next((t for t in request.tools if t.name == want.name), None)
        if schema is None:
            return args
        properties = schema.parameters.get("properties") or {}
        omitted = [p for p in properties if p not in args]
        text = _user_text(request.messages).strip()
        if omitted and text:
            now = _now(request)
            plan = plan_turn(
                [_tool_view(schema)], system_instruction=request.system_instruction, user_text=text, now=now
            )
            planned = next((dict(a) for name, a in plan.tool_calls if name == want.name), {})
            for param in omitted:
                if param in planned:
                    args[param] = planned[param]
                    words = said_words(text, planned[param], now)
                    self.completions.append(Completion(want.name, param, planned[param], words))
        for param in schema.parameters.get("required") or []:
            if param in args:
                continue
            found, value, slot = _from_hints(param, self._hints)
            if found:
                args[param] = value
                self.completions.append(Completion(want.name, param, value, source=f"the expected {slot}"))
        return args

    def _offered(self, request: ModelRequest) -> list[Route]:
        """The routes this request offers: a visible routing tool whose parameter lists the value."""
        assert self._routes is not None
        params = {t.name: t.parameters.get("properties") or {} for t in request.tools}
        offered = []
        for route in self._routes.routes:
            if route.tool in params:
                choices = (params[route.tool].get(route.param) or {}).get("enum")
                if choices is None or route.value in choices:
                    offered.append(route)
        return offered

    def _route(self, request: ModelRequest) -> Route | None:
        """The routing call towards the agent of the next expected calls (or the expected transfer)."""
        if self._routes is None:
            return None
        offered = self._offered(request)
        if not offered:
            return None
        # The agents this request can come from: those having every visible tool some agent has, except the
        # ones it offers a route to (an agent never routes to itself).
        reachable = {route.target for route in offered}
        visible = set(request.tool_names) & frozenset().union(*self._routes.tools.values())
        here = [a for a, tools in self._routes.tools.items() if visible <= tools and a not in reachable]
        targets: list[str] = []
        if self._transfer_to is not None and self._transfer_to not in here:
            targets.append(self._transfer_to)
        for want in self._remaining:
            if any(want.name in self._routes.tools[agent] for agent in here):
                continue  # this agent's engine hides it for now: it is not another agent's tool
            targets.extend(a for a, tools in self._routes.tools.items() if want.name in tools)
        for target in targets:
            for route in offered:
                if route.target == target and (route.tool, route.value) not in self._routed:
                    return route
        return None

    def _next_id(self) -> str:
        self._issued += 1
        return f"replay_{self._issued}"

    async def generate(self, request: ModelRequest) -> ModelResponse:
        happened = _calls_this_turn(request.messages)
        self._remaining = [
            want
            for want in self._remaining
            if not any(
                got.name == want.name and values_match(dict(want.args), dict(got.args)) for got in happened
            )
        ]
        visible = set(request.tool_names)
        now = [want for want in self._remaining if want.name in visible]
        if now:
            self._remaining = [want for want in self._remaining if want not in now]
            calls = [ToolCall(self._next_id(), want.name, self._complete(want, request)) for want in now]
            return ModelResponse(tool_calls=tuple(calls))
        route = self._route(request)
        if route is not None:
            self._routed.add((route.tool, route.value))
            self.routes_taken.append(f"{route.tool}({route.param}={route.value!r}) → {route.target}")
            return ModelResponse(
                tool_calls=(ToolCall(self._next_id(), route.tool, {route.param: route.value}),)
            )
        return ModelResponse(text=directive_text(request.system_instruction) or NEUTRAL_TEXT)
