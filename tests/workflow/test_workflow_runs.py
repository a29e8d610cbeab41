"""Running workflows: the channels each stage kind writes, routing, persistence after every stage, resume."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

from slotgraph import ScriptedModel
from slotgraph.models.scripted import ScriptedStep, call
from slotgraph.stores.runs import InMemoryRunStore
from slotgraph.workflow import (
    AgentOutcome,
    AgentRequest,
    HttpAnswer,
    HttpxClient,
    RunConflictError,
    RunRecord,
    WorkflowError,
    WorkflowRunner,
    load_workflow,
)

from .conftest import EchoServer


def _run(runner: WorkflowRunner, goal: Any, **kwargs: Any) -> RunRecord:
    return asyncio.run(runner.run(goal, **kwargs))


def _wf(*stages: dict[str, Any], **top: Any) -> Any:
    return load_workflow({"workflow": "w", "stages": list(stages), **top})


class RecordingStore(InMemoryRunStore):
    """The memory store, keeping a copy of every record saved (to see what was persisted when)."""

    def __init__(self) -> None:
        super().__init__()
        self.saved: list[dict[str, Any]] = []

    async def save_run(self, run_id: str, record: dict[str, Any], expected_version: int) -> int:
        version = await super().save_run(run_id, record, expected_version)
        self.saved.append(record)
        return version


SCHEMA = {
    "type": "object",
    "properties": {"merchant": {"type": "string"}, "amount": {"type": "number"}},
    "required": ["merchant", "amount"],
}


def test_classify_appends_prose_to_notes_and_json_to_slots() -> None:
    workflow = _wf(
        {"id": "triage", "kind": "llm", "role": "classify"},
        {"id": "fields", "kind": "llm", "role": "classify"},
    )
    model = ScriptedModel([ScriptedStep(text="A refund request."), ScriptedStep(text='{"topic": "refund"}')])
    record = _run(WorkflowRunner(workflow, model=model), {"message": "refund please"})
    assert record.status == "succeeded"
    assert record.notes == ["A refund request.", '{"topic": "refund"}']
    assert record.slots == {"fields": {"topic": "refund"}}
    # every LLM stage reads the goal and the notes so far
    assert "message: refund please" in model.requests[1].messages[0].text  # type: ignore[union-attr]
    assert "- A refund request." in model.requests[1].messages[0].text  # type: ignore[union-attr]
    model.assert_complete()


def test_structured_output_is_validated_and_retried_with_the_reason() -> None:
    workflow = _wf({"id": "extract", "kind": "llm", "role": "extract", "output_schema": SCHEMA})
    model = ScriptedModel(
        [
            ScriptedStep(tool_calls=(call("submit_extract", merchant="Blue Bottle", amount="lots"),)),
            ScriptedStep(
                tool_calls=(call("submit_extract", merchant="Blue Bottle", amount=4.5),),
                check=lambda r: "amount" in str(r.messages[-1]),  # the refusal says what was wrong
            ),
        ]
    )
    record = _run(WorkflowRunner(workflow, model=model), {})
    assert record.status == "succeeded"
    assert record.slots["extract"] == {"merchant": "Blue Bottle", "amount": 4.5}
    assert record.notes == []  # extract writes slots only
    (stage,) = record.stages
    assert stage.attempts == 2 and "amount" in stage.detail["rejected"][0]
    assert model.requests[0].tool_names == ("submit_extract",)


def test_an_output_still_invalid_after_the_retries_fails_the_run() -> None:
    workflow = _wf(
        {"id": "extract", "kind": "llm", "role": "extract", "output_schema": SCHEMA, "max_retries": 1}
    )
    model = ScriptedModel([ScriptedStep(text="no idea"), ScriptedStep(text='{"merchant": "x"}')])
    record = _run(WorkflowRunner(workflow, model=model), {})
    assert record.status == "failed"
    assert record.error is not None and record.error["code"] == "invalid_stage_output"
    assert "2 attempt" in record.error["message"] and "amount" in record.error["message"]
    (stage,) = record.stages  # the failed stage keeps its retry history, as a successful one does
    assert (stage.status, stage.attempts) == ("failed", 2)
    assert stage.detail["role"] == "extract" and len(stage.detail["rejected"]) == 2
    assert "no structured output" in stage.detail["rejected"][0] and "amount" in stage.detail["rejected"][1]
    model.assert_complete()


def test_query_formulation_feeds_the_query_key_and_synthesis_sets_the_result(echo_server: EchoServer) -> None:
    workflow = _wf(
        {"id": "q", "kind": "llm", "role": "query_formulation"},
        {"id": "search", "kind": "http", "url": "/search",
         "input_schema": {"type": "object", "properties": {"query": {"type": "string"}, "account_id": {}},
                          "required": ["query"]}},
        {"id": "answer", "kind": "llm", "role": "synthesis"},
        base_url=echo_server.url,
    )  # fmt: skip
    model = ScriptedModel(
        [ScriptedStep(text="  coffee refunds  "), ScriptedStep(text="Your refund is on its way.")]
    )
    record = _run(WorkflowRunner(workflow, model=model), {"account_id": "A-1", "message": "hi"})
    assert record.status == "succeeded", record.error
    assert echo_server.requests[0]["body"] == {"query": "coffee refunds", "account_id": "A-1"}
    assert echo_server.requests[0]["key"] == f"{record.run_id}:search"
    assert record.result == "Your refund is on its way."
    assert record.notes == ["Your refund is on its way."]


def test_branches_route_and_a_gate_can_end_or_fail_the_run() -> None:
    stages = [
        {"id": "route", "kind": "branch", "branches": [{"when": "goal.amount > 100", "next": "big"}],
         "default": "small"},
        {"id": "big", "kind": "gate", "when": "goal.approved == True", "message": "needs approval",
         "next": "end"},
        {"id": "small", "kind": "gate", "when": "False", "otherwise": "end"},
    ]  # fmt: skip
    workflow = _wf(*stages)
    small = _run(WorkflowRunner(workflow), {"amount": 5})
    assert small.status == "succeeded"
    assert [(s.stage_id, s.status) for s in small.stages] == [("route", "succeeded"), ("small", "ended")]
    big = _run(WorkflowRunner(workflow), {"amount": 500})
    assert big.status == "failed" and big.error is not None
    assert (big.error["code"], big.error["stage_id"]) == ("gate_closed", "big")
    assert "needs approval" in big.error["message"]
    approved = _run(WorkflowRunner(workflow), {"amount": 500, "approved": True})
    assert [s.stage_id for s in approved.stages] == ["route", "big"] and approved.status == "succeeded"


def test_the_run_is_saved_after_every_stage() -> None:
    workflow = _wf(
        {"id": "a", "kind": "llm", "role": "classify"},
        {"id": "b", "kind": "llm", "role": "classify"},
    )
    store = RecordingStore()
    model = ScriptedModel([ScriptedStep(text="one"), ScriptedStep(text="two")])
    record = _run(WorkflowRunner(workflow, model=model, store=store), {})
    progress = [(s["status"], s["next_stage"], len(s["stages"]), s["notes"]) for s in store.saved]
    assert progress == [
        ("pending", "a", 0, []),  # created
        ("running", "a", 0, []),  # picked up
        ("running", "b", 1, ["one"]),  # after a
        ("running", None, 2, ["one", "two"]),  # after b
        ("succeeded", None, 2, ["one", "two"]),
    ]
    assert RunRecord.from_json(store.saved[-1]).as_json() == record.as_json()


class _Crash(BaseException):
    """Stands for the process dying: not an Exception, so nothing in the runner catches it."""


class CrashingHttp(HttpxClient):
    def __init__(self, crash_on: str) -> None:
        self.crash_on = crash_on

    async def send(
        self, method: str, url: str, body: Mapping[str, Any], headers: Mapping[str, str], timeout: float
    ) -> HttpAnswer:
        if url.endswith(self.crash_on):
            raise _Crash
        return await super().send(method, url, body, headers, timeout)


def test_a_run_resumes_from_the_last_completed_stage_with_the_same_idempotency_key(
    echo_server: EchoServer,
) -> None:
    workflow = _wf(
        {"id": "first", "kind": "http", "url": "/first"},
        {"id": "second", "kind": "http", "url": "/second"},
        base_url=echo_server.url,
    )
    store = InMemoryRunStore()
    crashing = WorkflowRunner(workflow, store=store, http=CrashingHttp("/second"))
    with pytest.raises(_Crash):
        _run(crashing, {"x": 1}, run_id="r-1")
    stored = asyncio.run(store.load_run("r-1"))
    assert stored is not None and stored[0]["next_stage"] == "second" and stored[0]["status"] == "running"
    record = asyncio.run(WorkflowRunner(workflow, store=store).execute("r-1"))
    assert record.status == "succeeded" and record.attempts == 2
    assert [s.stage_id for s in record.stages] == ["first", "second"]
    assert [(r["path"], r["key"]) for r in echo_server.requests] == [
        ("/first", "r-1:first"),
        ("/second", "r-1:second"),
    ]


def test_two_executors_of_one_run_never_overwrite_each_other() -> None:
    workflow = _wf({"id": "a", "kind": "gate", "when": "True"})
    store = InMemoryRunStore()
    runner = WorkflowRunner(workflow, store=store)
    asyncio.run(runner.create({}, run_id="r"))
    asyncio.run(store.save_run("r", {**asyncio.run(store.load_run("r"))[0], "notes": ["other"]}, 1))  # type: ignore[index]
    stale = WorkflowRunner(workflow, store=store)

    async def race() -> None:
        record, version = await stale.load("r")
        await store.save_run("r", {**record.as_json(), "notes": ["winner"]}, version)
        await stale._save(record, version)

    with pytest.raises(RunConflictError):
        asyncio.run(race())
    with pytest.raises(RunConflictError, match="already exists"):
        asyncio.run(runner.create({}, run_id="r"))


def test_a_run_only_resumes_on_the_workflow_it_started_on() -> None:
    store = InMemoryRunStore()
    first = _wf({"id": "a", "kind": "gate", "when": "True"})
    asyncio.run(WorkflowRunner(first, store=store).create({}, run_id="r"))
    changed = _wf({"id": "a", "kind": "gate", "when": "False"})
    with pytest.raises(WorkflowError, match="another version"):
        asyncio.run(WorkflowRunner(changed, store=store).execute("r"))


def test_a_bad_goal_is_refused_before_anything_is_stored() -> None:
    workflow = _wf(
        {"id": "a", "kind": "gate", "when": "True"},
        goal_schema={"type": "object", "properties": {"doc_id": {"type": "string"}}, "required": ["doc_id"]},
    )
    store = InMemoryRunStore()
    with pytest.raises(WorkflowError, match="doc_id"):
        _run(WorkflowRunner(workflow, store=store), {"other": 1})
    with pytest.raises(WorkflowError, match="JSON object"):
        _run(WorkflowRunner(workflow, store=store), ["not", "an", "object"])
    assert asyncio.run(store.list_runs()) == []


def test_a_failing_endpoint_is_retried_then_fails_the_stage(echo_server: EchoServer) -> None:
    workflow = _wf({"id": "call", "kind": "http", "url": "/fail", "retries": 2}, base_url=echo_server.url)
    record = _run(WorkflowRunner(workflow), {})
    assert record.status == "failed" and record.error is not None
    assert record.error["code"] == "http_stage_failed" and "500" in record.error["message"]
    assert [r["key"] for r in echo_server.requests] == [f"{record.run_id}:call"] * 3
    (stage,) = record.stages
    assert stage.status == "failed" and stage.detail == {
        "url": f"{echo_server.url}/fail",
        "body": {},
        "attempts": 3,
    }


class FakeAgents:
    def __init__(self) -> None:
        self.requests: list[AgentRequest] = []

    async def run_agent(self, request: AgentRequest) -> AgentOutcome:
        self.requests.append(request)
        return AgentOutcome(filled={**request.slots, "confirmed": True}, text="Booked.", ended=True)


def test_an_agent_stage_gets_the_projected_slots_and_its_outcome_lands_in_slots() -> None:
    workflow = _wf(
        {"id": "extract", "kind": "llm", "role": "extract", "output_schema": SCHEMA},
        {"id": "book", "kind": "agent", "agent": "agents/refunds",
         "slots": {"amount": "slots.extract.amount", "account": "goal.account_id", "missing": "goal.nope"},
         "utterance": "goal.message"},
    )  # fmt: skip
    agents = FakeAgents()
    model = ScriptedModel([ScriptedStep(tool_calls=(call("submit_extract", merchant="m", amount=3),))])
    record = _run(WorkflowRunner(workflow, model=model, agents=agents), {"account_id": "A", "message": "go"})
    assert record.status == "succeeded", record.error
    (request,) = agents.requests
    assert dict(request.slots) == {"amount": 3.0, "account": "A"} and request.utterance == "go"
    assert record.slots["book"] == {"filled": {"amount": 3.0, "account": "A", "confirmed": True},
                                    "text": "Booked.", "ended": True}  # fmt: skip


def test_an_agent_stage_without_a_port_fails_with_a_clear_error() -> None:
    workflow = _wf({"id": "book", "kind": "agent", "agent": "agents/refunds"})
    record = _run(WorkflowRunner(workflow), {})
    assert record.error is not None and record.error["code"] == "agent_stage_failed"
    assert "no agent port" in record.error["message"]


def test_a_prefetch_answer_is_packed_as_context_for_later_llm_stages(echo_server: EchoServer) -> None:
    workflow = _wf(
        {"id": "corpus", "kind": "prefetch", "url": "/corpus",
         "input_schema": {"type": "object", "properties": {"topic": {"type": "string"}}}},
        {"id": "answer", "kind": "llm", "role": "synthesis", "input": "goal.question"},
        base_url=echo_server.url,
    )  # fmt: skip
    model = ScriptedModel([ScriptedStep(text="Refunds take 5 days.")])
    record = _run(WorkflowRunner(workflow, model=model), {"topic": "refunds", "question": "How long?"})
    assert record.status == "succeeded", record.error
    assert echo_server.requests[0]["body"] == {"topic": "refunds"}  # the question is not declared: dropped
    assert record.slots["corpus"] == {"ok": True, "echo": {"topic": "refunds"}}
    blob = model.requests[0].messages[0].text  # type: ignore[union-attr]
    assert blob.startswith("How long?") and "Context:" in blob and '[corpus] {"ok": true' in blob
    assert record.result == "Refunds take 5 days."


def test_the_query_goes_out_even_to_a_stage_that_declares_no_properties(echo_server: EchoServer) -> None:
    workflow = _wf(
        {"id": "q", "kind": "llm", "role": "query_formulation"},
        {"id": "search", "kind": "http", "url": "/search"},
        {"id": "narrow", "kind": "http", "url": "/narrow",
         "input_schema": {"type": "object", "properties": {"account_id": {}}}},
        base_url=echo_server.url,
    )  # fmt: skip
    model = ScriptedModel([ScriptedStep(text="coffee refunds")])
    record = _run(WorkflowRunner(workflow, model=model), {"account_id": "A-1"})
    assert record.status == "succeeded", record.error
    bodies = {r["path"]: r["body"] for r in echo_server.requests}
    assert bodies["/search"] == {"account_id": "A-1", "query": "coffee refunds"}  # payload["query"] is set
    assert bodies["/narrow"] == {"account_id": "A-1"}  # declared properties without `query`: dropped
