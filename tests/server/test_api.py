"""The /v1 API end to end through the ASGI app: sessions, turns, reads, agents, graph, health, docs."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from slotgraph.engine import Reason

from .support import PROBLEM, new_session, say


def test_create_session_returns_201_and_an_id(api: TestClient) -> None:
    response = api.post("/v1/sessions", json={"agent": "bella_notte"})
    assert response.status_code == 201
    body = response.json()
    assert body["agent"] == "bella_notte"
    assert len(body["session_id"]) >= 16


def _decided(reply: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    return [(step["kind"], step["phase"], step["reason"]) for step in reply["steps"]]


def test_a_booking_conversation_reports_text_events_and_the_engine_view(api: TestClient) -> None:
    session_id = new_session(api)
    first = say(api, session_id, "Hi")
    assert first["text"].startswith("Welcome to Bella Notte!")
    assert first["preempted"] is False and first["model_calls"] == 1
    assert first["view"]["asking"] == "party_size"
    assert "set_reservation_basics" not in first["view"]["hidden_tools"]
    assert _decided(first) == [("model", "collection", "next_question")]
    (step,) = first["steps"]
    assert step["index"] == 1 and step["directive"] == first["text"]
    assert "set_reservation_basics" in step["visible_tools"]
    assert {"book_reservation", "confirm_pending"} <= set(step["hidden_tools"])  # executors, no readback yet

    second = say(api, session_id, "A table for 4 on July 17th")
    assert [e["kind"] for e in second["events"]] == ["tool_call", "tool_result", "state_snapshot", "text"]
    assert second["view"]["pending"] == {"party_size": 4, "preferred_date": "2026-07-17"}
    assert second["view"]["directive"] == second["text"]
    # the model set both values, then relayed the fresh readback (its setter hidden until it is read back)
    assert _decided(second) == [("model", "collection", "next_question"), ("model", "readback", "readback")]
    assert second["steps"][1]["directive"] == second["text"]
    assert "set_reservation_basics" in second["steps"][1]["hidden_tools"]

    third = say(api, session_id, "yes")
    assert third["preempted"] is True and third["model_calls"] == 0
    assert third["status"] == "in_progress" and third["ended"] is False
    assert third["view"]["tasks"] == [
        {"name": "FindAvailableTimes", "tool": "find_available_times", "succeeded": True}
    ]
    assert third["view"]["filled"]["party_size"] == 4
    fired = [e for e in third["events"] if e["kind"] == "tool_call" and e["origin"] == "engine"]
    assert [e["name"] for e in fired] == ["confirm_pending", "find_available_times"]
    assert _decided(third) == [  # "yes" confirmed, the task fired and the next question came: no model call
        ("engine", "readback", "auto_confirm"),
        ("engine", "collection", "fire"),
        ("engine", "collection", "next_question"),
    ]
    assert third["steps"][-1]["directive"] == third["text"]
    assert all(step["usage"] == {"prompt_tokens": 0, "completion_tokens": 0} for step in third["steps"])


def test_each_step_and_tool_result_reports_its_time(api: TestClient) -> None:
    session_id = new_session(api)
    say(api, session_id, "Hi")
    say(api, session_id, "A table for 4 on July 17th")
    third = say(api, session_id, "yes")  # the task fires: the engine calls find_available_times
    for step in third["steps"]:
        assert step["duration_ms"] >= step["engine_ms"] + step["model_ms"] > 0
        assert step["model_ms"] == 0  # engine steps: no model call
    results = {e["name"]: e["duration_ms"] for e in third["events"] if e["kind"] == "tool_result"}
    assert results["confirm_pending"] is None  # a built-in readback tool: no tool code ran
    assert results["find_available_times"] >= 0
    fire = next(s for s in third["steps"] if s["reason"] == "fire")
    assert fire["duration_ms"] >= results["find_available_times"]


def test_the_view_lists_the_tools_the_model_had_and_the_agents_tools_the_dag_hid(api: TestClient) -> None:
    session_id = new_session(api)
    say(api, session_id, "Hi")
    readback = say(api, session_id, "A table for 4 on July 17th")
    last = readback["steps"][-1]
    assert {"confirm_pending", "find_available_times"} <= set(last["hidden_tools"])  # the step: every tool
    view = readback["view"]  # the view: the agent's own tools the DAG kept from the model, nothing built in
    assert view["hidden_tools"] == ["set_large_party_phone", "set_reservation_basics"]
    assert view["visible_tools"] == sorted(last["visible_tools"])
    assert view["spoken"] == {"party_size": "4 guests", "preferred_date": "on July 17th"}
    assert api.get(f"/v1/sessions/{session_id}").json()["view"]["spoken"] == view["spoken"]


def test_each_step_names_its_events_by_position(api: TestClient) -> None:
    session_id = new_session(api)
    say(api, session_id, "Hi")
    say(api, session_id, "A table for 4 on July 17th")
    third = say(api, session_id, "yes")
    positions = [i for step in third["steps"] for i in step["events"]]
    assert positions == list(range(len(third["events"])))  # every event of this turn is a step's, in order
    fire = next(step for step in third["steps"] if step["reason"] == "fire")
    kinds = [third["events"][i]["kind"] for i in fire["events"]]
    assert kinds == ["tool_call", "tool_result", "state_snapshot"]


def test_reading_a_session_gives_state_status_and_transcript(api: TestClient) -> None:
    session_id = new_session(api)
    say(api, session_id, "Hi")
    say(api, session_id, "A table for 4 on July 17th")
    response = api.get(f"/v1/sessions/{session_id}")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "in_progress" and body["turns"] == 2 and body["agent"] == "bella_notte"
    assert body["state"]["pending"] == {"party_size": 4, "preferred_date": "2026-07-17"}
    roles = [entry["role"] for entry in body["transcript"]]
    assert roles == ["user", "agent", "user", "tool_call", "agent"]
    assert body["transcript"][2]["text"] == "A table for 4 on July 17th"
    assert body["view"]["pending"]["party_size"] == 4


def test_event_data_given_at_creation_reaches_every_turn(api: TestClient) -> None:
    session_id = new_session(api, event_data={"party_size": 2})
    say(api, session_id, "Hi")
    body = api.get(f"/v1/sessions/{session_id}").json()
    assert body["state"]["filled"]["party_size"] == 2  # trusted event data: filled without a readback
    assert "party_size" not in body["state"]["pending"]
    assert body["view"]["asking"] == "preferred_date"


def test_a_new_session_reads_empty(api: TestClient) -> None:
    session_id = new_session(api)
    body = api.get(f"/v1/sessions/{session_id}").json()
    assert body["transcript"] == [] and body["turns"] == 0 and body["status"] == "in_progress"


def test_unknown_agent_and_unknown_session_are_problems(api: TestClient) -> None:
    response = api.post("/v1/sessions", json={"agent": "nobody"})
    assert response.status_code == 404
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["code"] == "unknown_agent" and "bella_notte" in body["fix"]
    assert set(body) >= {"type", "title", "status", "detail", "code"}
    for method, path in (("GET", "/v1/sessions/nope"), ("POST", "/v1/sessions/nope/messages")):
        response = api.request(method, path, json={"text": "hi"})
        assert response.status_code == 404
        assert response.json()["code"] == "session_not_found"


def test_invalid_bodies_are_invalid_request_with_locations(api: TestClient) -> None:
    response = api.post("/v1/sessions", json={"agnt": "bella_notte"})
    assert response.status_code == 422
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["code"] == "invalid_request"
    locations = {e["location"] for e in body["errors"]}
    assert locations == {"body.agent", "body.agnt"}
    session_id = new_session(api)
    response = api.post(f"/v1/sessions/{session_id}/messages", json={"text": ""})
    assert response.json()["errors"][0]["location"] == "body.text"
    response = api.post("/v1/sessions", content=b"{not json", headers={"content-type": "application/json"})
    assert response.status_code == 422 and response.json()["code"] == "invalid_request"


def test_unknown_routes_and_methods_are_problems(api: TestClient) -> None:
    response = api.get("/v2/nothing")
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    response = api.delete("/v1/agents")
    assert response.status_code == 405 and response.json()["code"] == "method_not_allowed"


def test_agents_are_listed_with_description_and_counts(api: TestClient) -> None:
    agents = api.get("/v1/agents").json()["agents"]
    assert len(agents) == 1
    agent = agents[0]
    assert agent["name"] == "bella_notte"
    assert agent["description"].startswith("Takes table reservations")
    assert (agent["slots"], agent["tasks"]) == (9, 2)
    assert "set_reservation_basics" in agent["tools"]


def test_graph_has_nodes_edges_layout_and_mermaid(api: TestClient) -> None:
    graph = api.get("/v1/agents/bella_notte/graph").json()
    ids = {n["id"] for n in graph["nodes"]}
    assert {"slot:party_size", "task:FindAvailableTimes", "task:BookReservation"} <= ids
    edges = {(e["source"], e["target"]) for e in graph["edges"]}
    assert ("slot:party_size", "task:FindAvailableTimes") in edges
    assert ("task:FindAvailableTimes", "slot:available_times") in edges
    by_id = {n["id"]: n for n in graph["nodes"]}
    assert by_id["task:FindAvailableTimes"]["rank"] > by_id["slot:party_size"]["rank"]
    assert by_id["slot:available_times"]["rank"] > by_id["task:FindAvailableTimes"]["rank"]
    assert by_id["task:BookReservation"]["kind"] == "terminal"
    assert graph["mermaid"].startswith("flowchart LR")
    assert api.get("/v1/agents/nobody/graph").json()["code"] == "unknown_agent"


def test_health_readiness_openapi_docs_and_playground(api: TestClient) -> None:
    assert api.get("/healthz").json() == {
        "status": "ok",
        "agents": None,
        "api_key_required": False,
        "max_message_chars": 8000,
    }
    assert api.get("/readyz").json() == {"status": "ready", "agents": 1}
    spec = api.get("/openapi.json").json()
    assert {
        "/v1/sessions",
        "/v1/sessions/{session_id}/messages",
        "/v1/sessions/{session_id}/messages:stream",
        "/v1/sessions/{session_id}",
        "/v1/agents",
        "/v1/agents/{name}/graph",
    } <= set(spec["paths"])
    docs = api.get("/docs")
    assert "text/html" in docs.headers["content-type"]
    assert "cdn" not in docs.text and "https://" not in docs.text  # its assets are served by the app
    bundle = api.get("/static/api-docs/swagger-ui-bundle.js")
    assert bundle.status_code == 200 and "javascript" in bundle.headers["content-type"]
    assert "SwaggerUIBundle" in bundle.text
    assert api.get("/favicon.ico").headers["content-type"] == "image/svg+xml"
    script, style = api.get("/static/playground/playground.js"), api.get("/static/playground/playground.css")
    assert "javascript" in script.headers["content-type"] and "/v1/sessions" in script.text
    assert style.headers["content-type"].startswith("text/css") and "{" in style.text
    assert api.get("/static/playground/nothing.js").json()["code"] == "not_found"
    page = api.get("/")
    assert page.status_code == 200 and "Slotgraph playground" in page.text
    assert "http://" not in page.text.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page.text


def test_the_turn_steps_are_typed_in_the_openapi_document(api: TestClient) -> None:
    schemas = api.get("/openapi.json").json()["components"]["schemas"]
    steps = schemas["TurnReply"]["properties"]["steps"]
    assert steps["items"] == {"$ref": "#/components/schemas/TurnStepView"}
    assert "steps" in schemas["TurnReply"]["required"]
    step = schemas["TurnStepView"]["properties"]
    assert step["kind"]["enum"] == ["model", "engine"]
    assert step["phase"]["enum"] == ["collection", "readback", "terminal", "gate"]
    reasons = next(s for s in step["reason"]["anyOf"] if "$ref" in s)["$ref"].rsplit("/", 1)[1]
    assert set(schemas[reasons]["enum"]) == {reason.value for reason in Reason}
