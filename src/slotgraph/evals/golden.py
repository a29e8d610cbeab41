"""Import of the original platform's golden evaluations (``evaluations/<Name>/*.json``), unchanged.

A golden is ``{"golden": {"turns": [{"steps": [...]}, ...]}}`` (a bare ``{"turns": [...]}`` is accepted
too). Each step is a ``userInput`` — ``text``, ``variables`` (``event_data``) or ``event``
(``{"event": "welcome"}``) — or an ``expectation``:

* ``toolCall`` ``{tool, args}``: a call of that tool in the turn, ``args`` a subset (numbers by value);
* ``updatedVariables`` ``{sm: {...}}``: a recursive subset of the state at the end of the turn OR after any
  tool call in it (the state snapshot after each tool);
* ``agentResponse`` ``{chunks: [{text}]}``: each chunk's text is contained in the agent's text (any case);
* ``agentTransfer``: the conversation was handed over (a transfer, or ``end_session`` escalated);
* ``note``: kept for reports.

Goldens run with the replay model (:mod:`slotgraph.evals.replay`), fed each turn's expected tool calls.
Goldens carry dates, so the session clock is set from ``--today``, the golden's own top-level ``"today"``
or an optional ``evaluations/slotgraph.yaml`` (``agent``, ``today``, ``channel``, ``seed``) next to them (the
runner moves the wall clock tool code reads there too, :mod:`slotgraph.evals.clock`). Without ``--agent``
the agent is the settings file's ``agent`` or the nearest directory above holding an ``agent.yaml`` (or a
multi-agent app's ``app.yaml``: then an ``agentTransfer`` is checked against the app's transfers).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from slotgraph.config.yaml_budget import bounded_safe_load
from slotgraph.evals.errors import ScenarioFormatError
from slotgraph.evals.format import (
    ConversationExpect,
    Scenario,
    TextExpect,
    ToolCallExpect,
    Turn,
    TurnExpect,
    UserSimulation,
)

__all__ = ["SETTINGS_FILE", "GoldenSettings", "golden_scenario", "golden_settings", "import_golden"]

SETTINGS_FILE = "slotgraph.yaml"
_SETTINGS_KEYS = frozenset(
    {"agent", "today", "channel", "seed", "semantic_similarity_threshold", "extra_tool_calls"}
)
_STEP_KEYS = frozenset({"userInput", "expectation"})
_INPUT_KEYS = frozenset({"text", "variables", "event"})
_EXPECT_KEYS = frozenset({"toolCall", "updatedVariables", "agentResponse", "agentTransfer", "note"})


@dataclass(frozen=True, slots=True)
class GoldenSettings:
    """Run settings for a directory of goldens (``evaluations/slotgraph.yaml``)."""

    agent: Path | None = None
    today: datetime.date | None = None
    channel: str | None = None
    seed: int | None = 0
    semantic_similarity_threshold: int = 3
    """The app's ``semanticSimilaritySuccessThreshold`` (0–4): 0 means reply text never fails a turn, so
    ``agentResponse`` is not checked; above 0 it is approximated by "each chunk is contained"."""
    extra_tool_calls: str = "allow"
    """The app's ``extraToolCallBehavior``: ``allow`` (calls a golden does not list are fine) or ``fail``."""


def _nearest_agent(start: Path) -> Path | None:
    for folder in [start, *start.parents]:
        if (folder / "agent.yaml").is_file() or (folder / "app.yaml").is_file():
            return folder
    return None


def golden_settings(file: Path) -> GoldenSettings:
    """The settings for a golden file: ``evaluations/slotgraph.yaml`` if present, else defaults."""
    evaluations = file.parent.parent
    settings_file = evaluations / SETTINGS_FILE
    agent = _nearest_agent(evaluations.resolve())
    if not settings_file.is_file():
        return GoldenSettings(agent=agent)
    try:
        data = bounded_safe_load(settings_file.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as err:
        raise ScenarioFormatError(settings_file, "", f"cannot read the golden settings: {err}") from None
    if not isinstance(data, dict):
        raise ScenarioFormatError(
            settings_file, "<top>", "the settings are a mapping", "write 'today: YYYY-MM-DD'"
        )
    unknown = sorted(set(data) - _SETTINGS_KEYS)
    if unknown:
        raise ScenarioFormatError(
            settings_file, unknown[0], f"unknown key {unknown[0]!r}", f"use one of {sorted(_SETTINGS_KEYS)}"
        )
    today = data.get("today")
    if today is not None and not isinstance(today, datetime.date):
        raise ScenarioFormatError(settings_file, "today", f"not a date: {today!r}", "write today: YYYY-MM-DD")
    seed = data.get("seed", 0)
    if seed is not None and not isinstance(seed, int):
        raise ScenarioFormatError(settings_file, "seed", f"not a whole number: {seed!r}", "write seed: 0")
    if "agent" in data:
        agent = (evaluations / str(data["agent"])).resolve()
    threshold = data.get("semantic_similarity_threshold", 3)
    if isinstance(threshold, bool) or not isinstance(threshold, int) or not 0 <= threshold <= 4:
        raise ScenarioFormatError(
            settings_file,
            "semantic_similarity_threshold",
            f"not a whole number from 0 to 4: {threshold!r}",
            "write the app's semanticSimilaritySuccessThreshold, e.g. semantic_similarity_threshold: 0",
        )
    extra = data.get("extra_tool_calls", "allow")
    if extra not in ("allow", "fail"):
        raise ScenarioFormatError(
            settings_file,
            "extra_tool_calls",
            f"not 'allow' or 'fail': {extra!r}",
            "write extra_tool_calls: allow",
        )
    return GoldenSettings(
        agent=agent,
        today=today,
        channel=data.get("channel"),
        seed=seed,
        semantic_similarity_threshold=threshold,
        extra_tool_calls=extra,
    )


def agent_names(agent: Path) -> frozenset[str]:
    """The names an agent directory answers to: its folder name and the ``name`` in its ``agent.yaml``."""
    folder = agent if agent.is_dir() else agent.parent
    names = {folder.name}
    try:
        data = bounded_safe_load((folder / "agent.yaml").read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        data = None
    if isinstance(data, Mapping) and isinstance(data.get("name"), str):
        names.add(data["name"])
    return frozenset(names)


class _Reader:
    """Walks one golden file, raising located errors."""

    def __init__(
        self,
        file: Path,
        settings: GoldenSettings | None = None,
        agent_names: frozenset[str] = frozenset(),
    ) -> None:
        self.file = file
        self.settings = settings or GoldenSettings()
        self.agent_names = agent_names
        self.locations: dict[str, str] = {}
        """Where each converted expectation was written: ``turns[1].expect.tool_calls[0]`` → golden path."""

    def fail(self, where: str, message: str, fix: str) -> ScenarioFormatError:
        return ScenarioFormatError(self.file, where, message, fix)

    def mapping(self, value: Any, where: str, allowed: AbstractSet[str] | None = None) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(
                where, f"expected an object, got {type(value).__name__}", "write a JSON object {...}"
            )
        if allowed is not None:
            unknown = sorted(set(value) - allowed)
            if unknown:
                raise self.fail(
                    f"{where}.{unknown[0]}", f"unknown key {unknown[0]!r}", f"use one of {sorted(allowed)}"
                )
        return value

    def listing(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(where, f"expected a list, got {type(value).__name__}", "write a JSON list [...]")
        return value

    def turn(self, raw: Any, where: str, index: int) -> Turn:
        steps = self.listing(self.mapping(raw, where).get("steps"), f"{where}.steps")
        user: str | None = None
        event: str | None = None
        variables: dict[str, Any] | None = None
        calls: list[ToolCallExpect] = []
        state: dict[str, Any] = {}
        chunks: list[str] = []
        transfer: bool | None = None
        transfer_to: str | None = None
        requested: str | None = None
        notes: list[str] = []
        base = f"turns[{index}]"
        self.locations[base] = where
        for n, step in enumerate(steps):
            at = f"{where}.steps[{n}]"
            body = self.mapping(step, at, _STEP_KEYS)
            if "userInput" in body:
                got = self.mapping(body["userInput"], f"{at}.userInput", _INPUT_KEYS)
                if "text" in got:
                    if not isinstance(got["text"], str):
                        raise self.fail(f"{at}.userInput.text", "the text is not a string", "write a string")
                    user = got["text"]
                if "event" in got:
                    raw_event = got["event"]
                    name = raw_event.get("event") if isinstance(raw_event, Mapping) else raw_event
                    if not isinstance(name, str) or not name:
                        raise self.fail(
                            f"{at}.userInput.event", "the event has no name", 'write {"event": "welcome"}'
                        )
                    event = name
                if "variables" in got:
                    found = self.mapping(got["variables"], f"{at}.userInput.variables", {"event_data"})
                    self.mapping(found.get("event_data", {}), f"{at}.userInput.variables.event_data")
                    variables = {**(variables or {}), **found}
            if "expectation" in body:
                before = (len(calls), set(state), len(chunks))
                self.expectation(body["expectation"], f"{at}.expectation", calls, state, chunks, notes)
                self._locate(base, f"{at}.expectation", before, calls, state, chunks)
                if "agentTransfer" in body["expectation"]:
                    target = body["expectation"]["agentTransfer"].get("targetAgent")
                    if isinstance(target, str) and target.rsplit("/", 1)[-1] in self.agent_names:
                        # The conversation is already with the target (an imported specialist that has
                        # the routing tool): the routing tool must have asked for it.
                        requested = target.rsplit("/", 1)[-1]
                        self.locations[f"{base}.expect.transfer_requested"] = (
                            f"{at}.expectation.agentTransfer"
                        )
                    elif isinstance(target, str) and target:
                        transfer_to = target.rsplit("/", 1)[-1]
                        self.locations[f"{base}.expect.transfer_to"] = f"{at}.expectation.agentTransfer"
                    else:
                        transfer = True
                        self.locations[f"{base}.expect.transfer"] = f"{at}.expectation.agentTransfer"
        if user is not None and event is not None:
            raise self.fail(where, "the turn has both user text and an event", "split them into two turns")
        if user is None and event is None and variables is None:
            raise self.fail(where, "the turn has no userInput", 'add {"userInput": {"text": "..."}}')
        check_text = chunks and self.settings.semantic_similarity_threshold > 0
        expect = TurnExpect(
            tool_calls=calls,
            state_during=state,
            text=TextExpect(contains=chunks) if check_text else None,
            transfer=transfer,
            transfer_to=transfer_to,
            transfer_requested=requested,
            platform_matching=True,
            only=self.settings.extra_tool_calls == "fail",
        )
        return Turn(user=user, event=event, variables=variables, expect=expect, note=" ".join(notes))

    def _locate(
        self,
        base: str,
        at: str,
        before: tuple[int, set[str], int],
        calls: list[ToolCallExpect],
        state: dict[str, Any],
        chunks: list[str],
    ) -> None:
        for j in range(before[0], len(calls)):
            self.locations[f"{base}.expect.tool_calls[{j}]"] = f"{at}.toolCall"
        for key in set(state) - before[1]:
            self.locations[f"{base}.expect.state_during.{key}"] = f"{at}.updatedVariables.sm.{key}"
        for j in range(before[2], len(chunks)):
            self.locations[f"{base}.expect.text.contains[{j}]"] = (
                f"{at}.agentResponse.chunks[{j - before[2]}]"
            )

    def expectation(
        self,
        raw: Any,
        where: str,
        calls: list[ToolCallExpect],
        state: dict[str, Any],
        chunks: list[str],
        notes: list[str],
    ) -> None:
        body = self.mapping(raw, where, _EXPECT_KEYS)
        if "toolCall" in body:
            call = self.mapping(body["toolCall"], f"{where}.toolCall", {"tool", "args"})
            tool = call.get("tool")
            if not isinstance(tool, str) or not tool:
                raise self.fail(f"{where}.toolCall.tool", "the tool name is missing", 'write "tool": "set_x"')
            args = self.mapping(call.get("args", {}), f"{where}.toolCall.args")
            calls.append(ToolCallExpect(name=tool.rsplit("/", 1)[-1], args=dict(args)))
        if "updatedVariables" in body:
            updated = self.mapping(body["updatedVariables"], f"{where}.updatedVariables", {"sm"})
            sm = self.mapping(updated.get("sm", {}), f"{where}.updatedVariables.sm")
            state.update(sm)
        if "agentResponse" in body:
            response = self.mapping(body["agentResponse"], f"{where}.agentResponse", {"chunks", "role"})
            for n, chunk in enumerate(
                self.listing(response.get("chunks", []), f"{where}.agentResponse.chunks")
            ):
                text = self.mapping(chunk, f"{where}.agentResponse.chunks[{n}]").get("text")
                if not isinstance(text, str):
                    raise self.fail(
                        f"{where}.agentResponse.chunks[{n}].text",
                        "the chunk has no text",
                        'write {"text": "..."}',
                    )
                chunks.append(text)
        if "agentTransfer" in body:
            self.mapping(body["agentTransfer"], f"{where}.agentTransfer")
        if "note" in body:
            notes.append(str(body["note"]))


def _scenario(
    reader: _Reader,
    top: Mapping[str, Any],
    agent: Path,
    today: datetime.date | None,
    settings: GoldenSettings,
) -> Scenario:
    """A platform scenario (simulated user) as a Slotgraph simulation: the task is the user's persona and
    goal, the user facts are added to the goal, expected tool calls must happen at some point. Rubrics and
    LLM-judged criteria need a judge and are listed in the description as not evaluated."""
    body = reader.mapping(top["scenario"], "scenario")
    task = body.get("task")
    if not isinstance(task, str) or not task.strip():
        raise reader.fail("scenario.task", "the scenario has no task", 'write "task": "You are ..."')
    facts = [
        f"{fact.get('name')}: {fact.get('value')}"
        for fact in reader.listing(body.get("userFacts", []), "scenario.userFacts")
        if isinstance(fact, Mapping)
    ]
    calls: list[ToolCallExpect] = []
    for n, item in enumerate(
        reader.listing(body.get("scenarioExpectations", []), "scenario.scenarioExpectations")
    ):
        where = f"scenario.scenarioExpectations[{n}]"
        entry = reader.mapping(item, where)
        if "toolExpectation" in entry:
            expected = reader.mapping(entry["toolExpectation"], f"{where}.toolExpectation").get(
                "expectedToolCall"
            )
            call = reader.mapping(expected, f"{where}.toolExpectation.expectedToolCall")
            tool = call.get("tool")
            if not isinstance(tool, str) or not tool:
                raise reader.fail(
                    f"{where}.toolExpectation.expectedToolCall.tool", "no tool name", "add tool"
                )
            args = reader.mapping(call.get("args", {}), f"{where}.toolExpectation.expectedToolCall.args")
            reader.locations[f"expect.tool_calls[{len(calls)}]"] = f"{where}.toolExpectation"
            calls.append(ToolCallExpect(name=tool.rsplit("/", 1)[-1], args=dict(args)))
    rubrics = [str(r) for r in body.get("rubrics", []) if isinstance(r, str)]
    turns = body.get("maxTurns", 12)
    goal = task.strip() + (" Facts you know: " + "; ".join(facts) + "." if facts else "")
    now = datetime.datetime.combine(today, datetime.time(12, 0)) if today is not None else None
    name = top.get("displayName") if isinstance(top.get("displayName"), str) else None
    return Scenario(
        name=name or reader.file.stem,
        description=(
            "A platform scenario (simulated user). Not evaluated here (they need an LLM judge): "
            + "; ".join(rubrics)
            if rubrics
            else "A platform scenario (simulated user)."
        ),
        agent=str(agent),
        now=now,
        channel=settings.channel,
        seed=settings.seed,
        user_sim=UserSimulation(
            persona=task.strip(), goal=goal, max_turns=turns if isinstance(turns, int) and turns > 0 else 12
        ),
        expect=ConversationExpect(tool_calls=calls),
        tags=[str(t) for t in top.get("tags", []) if isinstance(t, str)],
    )


def _own_today(reader: _Reader, top: Mapping[str, Any]) -> datetime.date | None:
    """The golden's own ``"today": "YYYY-MM-DD"`` (Slotgraph's key; the platform ignores it), or None."""
    raw = top.get("today")
    if raw is None:
        return None
    if isinstance(raw, str):
        try:
            return datetime.date.fromisoformat(raw)
        except ValueError:
            pass
    raise reader.fail("today", f"not a date: {raw!r}", 'write "today": "YYYY-MM-DD"')


def golden_scenario(
    data: Any,
    file: Path,
    *,
    agent: Path,
    today: datetime.date | None,
    settings: GoldenSettings | None = None,
) -> Scenario:
    """Convert a golden's JSON into a :class:`~slotgraph.evals.format.Scenario` run by the replay model."""
    return import_golden(data, file, agent=agent, today=today, settings=settings)[0]


def import_golden(
    data: Any,
    file: Path,
    *,
    agent: Path,
    today: datetime.date | None,
    settings: GoldenSettings | None = None,
) -> tuple[Scenario, dict[str, str]]:
    """The scenario of a golden and where each of its expectations is written in the golden file
    (``turns[1].expect.tool_calls[0]`` → ``golden.turns[1].steps[2].expectation.toolCall``)."""
    settings = settings or GoldenSettings()
    reader = _Reader(file, settings, agent_names(agent))
    top = reader.mapping(data, "<top>")
    today = today or _own_today(reader, top) or settings.today
    if "scenario" in top:
        return _scenario(reader, top, agent, today, settings), reader.locations
    base = "golden.turns"
    if "golden" in top:
        turns_raw = reader.mapping(top["golden"], "golden").get("turns")
    else:
        turns_raw, base = top.get("turns"), "turns"
    turns = [reader.turn(raw, f"{base}[{i}]", i) for i, raw in enumerate(reader.listing(turns_raw, base))]
    if not turns:
        raise reader.fail(base, "the golden has no turns", "add at least one turn with a userInput")
    name = top.get("displayName") if isinstance(top.get("displayName"), str) else None
    now = datetime.datetime.combine(today, datetime.time(12, 0)) if today is not None else None
    scenario = Scenario(
        name=name or file.stem,
        agent=str(agent),
        model="replay",
        now=now,
        channel=settings.channel,
        seed=settings.seed,
        turns=turns,
    )
    return scenario, reader.locations
