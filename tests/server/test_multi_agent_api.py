"""A multi-agent app over HTTP: hosted under the app's name, its transfers in replies and on the SSE stream,
the view naming the active agent and every agent's slots, a reload finding the active agent again."""

from __future__ import annotations

import json

from slotgraph.models.offline import OfflineModel
from slotgraph.server import load_hosted_agents

from .support import ROOT, app_for, client, new_session, say

TEAM = ROOT / "examples" / "bella_notte_team"


def _api():  # type: ignore[no-untyped-def]
    return client(app_for(load_hosted_agents([TEAM], model=OfflineModel())))


def test_the_app_is_listed_under_its_name() -> None:
    with _api() as c:
        listed = c.get("/v1/agents").json()
        names = [a["name"] for a in (listed["agents"] if isinstance(listed, dict) else listed)]
        assert names == ["bella_notte_team"]


def test_a_transfer_is_an_event_and_the_view_shows_the_active_agent_and_every_agents_slots() -> None:
    with _api() as c:
        session_id = new_session(c, "bella_notte_team")
        reply = say(c, session_id, "Hi, I'd like to book a table")
        assert {"kind": "agent_transfer", "from_agent": "host", "to_agent": "reservations",
                "tool": "transfer_to_agent"} in reply["events"]  # fmt: skip
        assert reply["view"]["agent"] == "reservations" and reply["view"]["asking"] == "party_size"
        say(c, session_id, "4 guests")
        say(c, session_id, "yes")
        with c.stream(
            "POST", f"/v1/sessions/{session_id}/messages:stream", json={"text": "Could I order takeout?"}
        ) as r:
            body = "".join(r.iter_text())
        assert "event: agent_transfer" in body
        turn = next(
            json.loads(line[6:])
            for line in body.splitlines()
            if line.startswith("data: ") and '"view"' in line and '"session_id"' in line
        )
        view = turn["view"]
        assert view["agent"] == "takeout" and view["asking"] == "order_items"
        assert view["agents"]["reservations"]["filled"]["party_size"] == 4
        assert view["agents"]["host"]["status"] in ("in_progress", "complete")
        stored = c.get(f"/v1/sessions/{session_id}").json()
        assert stored["view"]["agent"] == "takeout"
        assert stored["view"]["agents"]["reservations"]["filled"]["party_size"] == 4


def test_each_agent_of_an_app_has_its_graph() -> None:
    with _api() as c:
        root = c.get("/v1/agents/bella_notte_team/graph").json()
        assert root["agent"] == "bella_notte_team" and root["app_agent"] == "host"
        takeout = c.get("/v1/agents/bella_notte_team/graph", params={"agent": "takeout"}).json()
        assert takeout["app_agent"] == "takeout"
        ids = {n["id"] for n in takeout["nodes"]}
        assert ids >= {"slot:order_items", "slot:pickup_time", "task:PlaceOrder"}
        assert takeout["mermaid"].startswith("flowchart LR") and "order_items" in takeout["mermaid"]
        reservations = c.get("/v1/agents/bella_notte_team/graph?agent=reservations").json()
        assert "slot:party_size" in {n["id"] for n in reservations["nodes"]}
        assert "order_items" not in reservations["mermaid"]
        missing = c.get("/v1/agents/bella_notte_team/graph?agent=kitchen")
        assert missing.status_code == 404
        problem = missing.json()
        assert problem["code"] == "unknown_agent" and "kitchen" in problem["detail"]
        assert "host, reservations, takeout" in problem["fix"]


def test_a_single_agents_graph_takes_its_own_name_only() -> None:
    with client(app_for()) as c:
        assert c.get("/v1/agents/bella_notte/graph?agent=bella_notte").json()["app_agent"] is None
        assert c.get("/v1/agents/bella_notte/graph?agent=other").status_code == 404


def test_a_topic_with_its_own_dag_has_its_graph_and_the_view_describes_it() -> None:
    with _api() as c:
        gift = c.get("/v1/agents/bella_notte_team/graph?agent=host&topic=gift_cards").json()
        assert gift["app_agent"] == "host" and gift["topic"] == "gift_cards"
        assert {"slot:amount", "slot:recipient", "task:IssueGiftCard"} <= {n["id"] for n in gift["nodes"]}
        assert "IssueGiftCard" in gift["mermaid"]
        missing = c.get("/v1/agents/bella_notte_team/graph?agent=takeout&topic=gift_cards")
        assert missing.status_code == 404 and "none" in missing.json()["fix"]

        session_id = new_session(c, "bella_notte_team")
        entered = say(c, session_id, "Hi, I'd like to buy a gift card")["view"]
        assert entered["agent"] == "host" and entered["topic_dag"] == "gift_cards"
        assert entered["asking"] == "amount"
        view = say(c, session_id, "50 dollars")["view"]
        assert view["filled"] == {"amount": 50} and view["asking"] == "recipient"
        stored = c.get(f"/v1/sessions/{session_id}").json()["view"]
        assert stored["topic_dag"] == "gift_cards" and stored["filled"] == {"amount": 50}
        assert stored["agents"]["host"]["filled"] == {}  # the host's own DAG never saw the amount
