"""Parallel stages and the deterministic_prefetch mode, against a real HTTP server on loopback.

The server's ``/together/*`` endpoints answer only once two of them have been called (a barrier): stages
that ran one after the other would wait for ever (the barrier breaks after its timeout, a 500), so a run
that succeeds is a run whose stages were in flight at the same time — no clock is read."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from slotgraph import ScriptedModel
from slotgraph.models.scripted import ScriptedStep
from slotgraph.workflow import RunRecord, WorkflowRunner, load_workflow, validate_workflow


class Api:
    """Answers ``{"path": ..., "got": body}`` plus a few fields by path; ``/together/*`` waits for a partner;
    ``/down/*`` answers 503."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.barrier = threading.Barrier(2, timeout=10)
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"null")
                with owner.lock:
                    owner.requests.append({"path": self.path, "body": body})
                status, answer = 200, {"path": self.path, "got": body}
                if self.path.startswith("/together/"):
                    try:
                        owner.barrier.wait()
                    except threading.BrokenBarrierError:
                        status = 500
                if self.path.startswith("/down/"):
                    status, answer = 503, {"error": "the quote service is down"}
                if self.path.endswith("/flights"):
                    answer["flight_price"] = 420
                if self.path.endswith("/hotels"):
                    answer["hotel_price"] = 300
                if self.path.startswith("/corpus/"):
                    answer = {"passages": [f"{self.path.split('/')[2]}: {json.dumps(body)}"]}
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def bodies(self, path: str) -> list[Any]:
        return [r["body"] for r in self.requests if r["path"] == path]


@pytest.fixture
def api() -> Iterator[Api]:
    server = Api()
    try:
        yield server
    finally:
        server.barrier.abort()
        server.server.shutdown()
        server.server.server_close()
        server.thread.join(timeout=10)


def _run(workflow: dict[str, Any], goal: dict[str, Any], **kwargs: Any) -> RunRecord:
    return asyncio.run(WorkflowRunner(load_workflow(workflow), **kwargs).run(goal))


QUOTE = {"type": "object", "properties": {"destination": {"type": "string"}}, "required": ["destination"]}
QUOTES = {
    "id": "quotes",
    "kind": "parallel",
    "stages": [
        {"id": "flight", "kind": "http", "url": "/together/flights", "input_schema": QUOTE,
         "output_schema": {"type": "object", "properties": {"flight_price": {"type": "number"}}}},
        {"id": "hotel", "kind": "http", "url": "/together/hotels", "input_schema": QUOTE,
         "output_schema": {"type": "object", "properties": {"hotel_price": {"type": "number"}}}},
    ],
}  # fmt: skip
TOTAL = {
    "id": "total",
    "kind": "http",
    "url": "/total",
    "input_schema": {
        "type": "object",
        "properties": {"flight_price": {"type": "number"}, "hotel_price": {"type": "number"}},
        "required": ["flight_price", "hotel_price"],
    },
}


def test_independent_stages_run_at_the_same_time_and_merge_in_the_order_written(api: Api) -> None:
    workflow = {"workflow": "trip", "base_url": api.url, "stages": [QUOTES, TOTAL]}
    record = _run(workflow, {"destination": "Lisbon", "message": "not sent"})
    assert record.status == "succeeded", record.error
    assert list(record.slots) == ["flight", "hotel", "total"]  # the order written, not the order finished
    assert record.slots["flight"]["flight_price"] == 420 and record.slots["hotel"]["hotel_price"] == 300
    # schema-bound bodies: each stage sends only what its input_schema declares
    assert api.bodies("/together/flights") == [{"destination": "Lisbon"}]
    assert api.bodies("/total") == [{"flight_price": 420, "hotel_price": 300}]
    assert [(s.stage_id, s.kind, s.status) for s in record.stages] == [
        ("flight", "http", "succeeded"),
        ("hotel", "http", "succeeded"),
        ("quotes", "parallel", "succeeded"),
        ("total", "http", "succeeded"),
    ]
    assert record.stages[2].detail == {"stages": ["flight", "hotel"]}


def test_a_failed_stage_of_a_group_fails_the_run_clearly_and_keeps_the_others(api: Api) -> None:
    down = {**QUOTES, "stages": [QUOTES["stages"][0] | {"url": "/flights"},
                                 QUOTES["stages"][1] | {"url": "/down/hotels", "retries": 0}]}  # fmt: skip
    record = _run(
        {"workflow": "trip", "base_url": api.url, "stages": [down, TOTAL]}, {"destination": "Porto"}
    )
    assert record.status == "failed" and record.error is not None
    assert record.error["stage_id"] == "hotel" and record.error["group"] == "quotes"
    assert record.error["code"] == "http_stage_failed" and "503" in record.error["message"]
    assert record.slots == {
        "flight": {"path": "/flights", "got": {"destination": "Porto"}, "flight_price": 420}
    }
    statuses = {s.stage_id: s.status for s in record.stages}
    assert statuses == {"flight": "succeeded", "hotel": "failed", "quotes": "failed"}
    assert record.stages[-1].detail["failed"] == ["hotel"]
    assert api.bodies("/total") == []  # the run stopped at the group


def test_deterministic_prefetch_runs_the_prefetch_stages_first_from_the_goal(api: Api) -> None:
    corpus = {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]}
    workflow = {
        "workflow": "answer",
        "mode": "deterministic_prefetch",
        "base_url": api.url,
        "stages": [
            {"id": "classify", "kind": "llm", "role": "classify", "instruction": "What is it about?"},
            {"id": "policies", "kind": "prefetch", "url": "/corpus/policies", "input_schema": corpus},
            {"id": "reply", "kind": "http", "url": "/replies",
             "input_schema": {"type": "object",
                              "properties": {"question": {}, "prefetch": {"type": "string"}},
                              "required": ["question", "prefetch"]}},
            {"id": "faq", "kind": "prefetch", "url": "/corpus/faq", "input_schema": corpus},
        ],
    }  # fmt: skip
    model = ScriptedModel(
        [
            ScriptedStep(
                text="Baggage.",
                check=lambda r: "[policies] " in r.messages[0].text and "[faq] " in r.messages[0].text,
            )
        ]  # type: ignore[union-attr]
    )
    record = _run(workflow, {"question": "Can I bring a bike?", "account": "A-1"}, model=model)
    assert record.status == "succeeded", record.error
    assert [s.stage_id for s in record.stages] == ["policies", "faq", "prefetch", "classify", "reply"]
    assert record.slots["prefetch"] == {
        "policies": {"passages": ['policies: {"question": "Can I bring a bike?"}']},
        "faq": {"passages": ['faq: {"question": "Can I bring a bike?"}']},
    }
    assert "policies" not in record.slots and "faq" not in record.slots
    # empty invoke: the corpus gateways get the goal as their schema allows, nothing else
    assert api.bodies("/corpus/policies") == [{"question": "Can I bring a bike?"}]
    [reply] = api.bodies("/replies")
    assert reply["question"] == "Can I bring a bike?"
    assert (
        reply["prefetch"].splitlines()[0]
        == '[policies] {"passages": ["policies: {\\"question\\": \\"Can I bring a bike?\\"}"]}'
    )
    model.assert_complete()


def test_validation_of_groups_and_the_prefetch_mode() -> None:
    dependent = {
        "id": "quotes",
        "kind": "parallel",
        "stages": [
            {"id": "flight", "kind": "http", "url": "http://x/f",
             "output_schema": {"type": "object", "properties": {"flight_price": {"type": "number"}}}},
            {"id": "hotel", "kind": "http", "url": "http://x/h", "next": "end",
             "input_schema": {"type": "object", "properties": {"flight_price": {}},
                              "required": ["flight_price"]}},
            {"id": "summary", "kind": "llm", "role": "classify", "input": "slots.flight.flight_price"},
        ],
    }  # fmt: skip
    _, report = validate_workflow(
        {"workflow": "w", "stages": [dependent, {"id": "g", "kind": "gate", "when": "True", "next": "hotel"}]}
    )
    found = {(i.code, i.location) for i in report.errors}
    assert found == {
        ("parallel_dependency", "stages[0].stages[1].input_schema.required"),
        ("parallel_dependency", "stages[0].stages[2].input"),
        ("next_in_group", "stages[0].stages[1].next"),
        ("group_member_target", "stages[1].next"),
    }
    prefetching = {
        "workflow": "w",
        "mode": "deterministic_prefetch",
        "stages": [
            {"id": "prefetch", "kind": "http", "url": "http://x/p"},
            {"id": "docs", "kind": "prefetch", "url": "http://x/d", "next": "prefetch"},
            {"id": "g", "kind": "gate", "when": "True", "next": "docs"},
        ],
    }
    _, report = validate_workflow(prefetching)
    assert {(i.code, i.location) for i in report.errors} == {
        ("reserved_id", "stages[0].id"),
        ("next_in_prefetch", "stages[1].next"),
        ("prefetch_target", "stages[2].next"),
    }
    _, report = validate_workflow(
        {
            "workflow": "w",
            "mode": "deterministic_prefetch",
            "stages": [{"id": "g", "kind": "gate", "when": "True"}],
        }
    )
    assert [(w.code, w.location) for w in report.warnings] == [("nothing_to_prefetch", "mode")]
