"""The spec's worked examples (§13, §14, §15) replayed turn by turn through the runtime and real engine."""

from __future__ import annotations

from slotgraph.runtime import ScriptedModel, ScriptedStep, call
from slotgraph.runtime.events import TextEvent, TransferEvent, TurnResult
from slotgraph.runtime.instructions import SENTINEL

from .toy_agent import Backend, clock, toy_agent

EXECUTORS = {"check_availability", "make_reservation"}
READBACK = {"confirm_pending", "reject_pending"}


def _engine_calls(result: TurnResult) -> list[tuple[str, dict[str, object]]]:
    return [(e.name, dict(e.args)) for e in result.tool_calls if e.origin == "engine"]


def test_section_13_happy_path() -> None:
    model = ScriptedModel(
        [
            ScriptedStep(
                text="Welcome! How many guests will be joining us today?",
                expect_tools={
                    "set_num_guests",
                    "set_date",
                    "set_name",
                    "escalate",
                },  # mid-flow: no end_session
                expect_in_instruction=["<system_directive>\nHow many guests?\n</system_directive>"],
                label="turn 1",
            ),
            ScriptedStep(tool_calls=(call("set_num_guests", count=4), call("set_date", date="2026-07-18"))),
            ScriptedStep(
                tool_calls=(call("set_chosen_time", time="19:30"),), expect_hidden=EXECUTORS | READBACK
            ),
            ScriptedStep(
                text="Great choice! And what name should I put this under?",
                expect_tools={"set_name", "escalate"},
                expect_in_instruction=["What name for the reservation?"],
                label="turn 3, after the setter",
            ),
            ScriptedStep(tool_calls=(call("set_name", name="Sarah Chen"),)),
            ScriptedStep(
                text="Is there anything else I can help with?",
                expect_tools={"end_session", "escalate"},
                check=lambda request: SENTINEL not in request.system_instruction,
                label="turn 5: terminal, the model runs freely",
            ),
        ]
    )
    backend = Backend()
    session = toy_agent(model, backend).session(clock=clock)

    turn1 = session.send("Hi")
    assert turn1.text == "Welcome! How many guests will be joining us today?"
    assert turn1.model_calls == 1 and not turn1.preempted

    turn2 = session.send("4 people for next Friday")
    assert _engine_calls(turn2) == [("check_availability", {"num_guests": 4, "date": "2026-07-18"})]
    assert turn2.text == "We have 6 PM, 7:30 PM, 9 PM. Which time?"
    assert turn2.model_calls == 1  # the setters' call; the reply was preempted
    assert session.state["filled"] == {
        "num_guests": 4,
        "date": "2026-07-18",
        "open_slots": "6 PM, 7:30 PM, 9 PM",
    }
    assert [e.origin for e in turn2.events if isinstance(e, TextEvent)] == ["engine"]

    turn3 = session.send("7:30")
    assert turn3.text == "Great choice! And what name should I put this under?"
    assert session.state["filled"]["chosen_time"] == "19:30"

    turn4 = session.send("Sarah Chen")
    assert _engine_calls(turn4) == [
        (
            "make_reservation",
            {"num_guests": 4, "date": "2026-07-18", "chosen_time": "19:30", "name": "Sarah Chen"},
        )
    ]
    assert turn4.text == "Confirmed! Number: RES-4821."
    assert session.status == "complete"
    assert session.state["filled"]["confirmation"] == "RES-4821"

    before = session.state
    turn5 = session.send("Thanks!")
    assert turn5.text == "Is there anything else I can help with?"
    assert session.state["filled"] == before["filled"] and session.status == "complete"
    model.assert_complete()


def test_section_14_failure_exhausts_at_max_retries_1() -> None:
    model = ScriptedModel(
        [
            ScriptedStep(text="How many guests?"),
            ScriptedStep(tool_calls=(call("set_num_guests", count=4), call("set_date", date="2026-07-18"))),
        ]
    )
    backend = Backend(booked_dates=("2026-07-18",))
    session = toy_agent(model, backend, availability_retries=1).session(clock=clock)
    session.send("Hi")
    turn2 = session.send("4 people for next Friday")
    assert "Please call us at 555-0100." in turn2.text
    assert session.state["_retries"]["CheckAvailability"] == 1
    assert session.status == "escalated"
    assert [e.name for e in turn2.tool_calls if e.origin == "engine"] == ["check_availability", "escalate"]
    assert any(isinstance(e, TransferEvent) for e in turn2.events)
    assert session.ended
    model.assert_complete()


def test_section_14_failure_then_retry_with_max_retries_2() -> None:
    model = ScriptedModel(
        [
            ScriptedStep(text="How many guests?"),
            ScriptedStep(tool_calls=(call("set_num_guests", count=4), call("set_date", date="2026-07-18"))),
            ScriptedStep(
                tool_calls=(call("set_date", date="2026-07-19"),),
                check=lambda request: "set_date" in request.tool_names,  # date was cleared: asked again
                label="turn 3",
            ),
        ]
    )
    backend = Backend(booked_dates=("2026-07-18",))
    session = toy_agent(model, backend, availability_retries=2).session(clock=clock)
    session.send("Hi")

    turn2 = session.send("4 people for next Friday")
    assert "No availability for that date. Try another?" in turn2.text
    assert session.state["_retries"] == {"CheckAvailability": 1}
    assert session.state["filled"] == {"num_guests": 4}  # clear_slots: date
    assert session.status == "in_progress"

    turn3 = session.send("How about Saturday?")
    assert _engine_calls(turn3) == [("check_availability", {"num_guests": 4, "date": "2026-07-19"})]
    assert "8 PM" in turn3.text
    assert "CheckAvailability" not in session.state["_retries"]  # cleared on success
    assert session.state["filled"]["open_slots"] == "8 PM"
    model.assert_complete()


def test_section_15_inline_correction_during_readback() -> None:
    model = ScriptedModel(
        [
            ScriptedStep(text="How many guests?"),
            ScriptedStep(tool_calls=(call("set_num_guests", count=4),)),
            ScriptedStep(
                text="Just to confirm, you said 4 guests. Is that right?",
                expect_in_instruction=["Just to confirm", "4 guests", "<readback_protocol>"],
                check=lambda r: "<slot_filling_protocol>" not in r.system_instruction,
                expect_hidden=READBACK | {"set_num_guests"},  # fresh pending (§4.3)
                label="turn 2 readback",
            ),
            ScriptedStep(
                tool_calls=(call("set_num_guests", count=6),),
                check=lambda r: {"confirm_pending", "reject_pending", "set_num_guests"} <= set(r.tool_names),
                expect_hidden=EXECUTORS | {"set_chosen_time"},
                label="turn 3: the setter is visible for inline correction",
            ),
            ScriptedStep(
                text="Updated to 6 guests. Is that correct?",
                expect_in_instruction=["6 guests"],
                label="turn 3 readback of the new value",
            ),
        ]
    )
    backend = Backend()
    session = toy_agent(model, backend, readback=True).session(clock=clock, seed=0)
    session.send("Hi")

    turn2 = session.send("4 people")
    assert session.state["pending"] == {"num_guests": 4}
    assert turn2.text == "Just to confirm, you said 4 guests. Is that right?"

    turn3 = session.send("Actually, make it 6")
    assert session.state["pending"] == {"num_guests": 6}
    assert turn3.text == "Updated to 6 guests. Is that correct?"

    turn4 = session.send("Yes")
    assert turn4.preempted  # auto-confirm and the readback transition, without the model
    assert [e.name for e in turn4.tool_calls] == ["confirm_pending"]
    assert turn4.text == "Wonderful! What date works for you?"
    assert session.state["filled"] == {"num_guests": 6}
    assert session.state["pending"] == {}
    model.assert_complete()


def test_section_3_0a_gate_slot_keeps_the_users_first_message() -> None:
    model = ScriptedModel(
        [
            ScriptedStep(
                tool_calls=(call("set_num_guests", count=4),),
                expect_tools={"set_num_guests", "set_date", "set_name", "end_session", "escalate"},
                expect_in_instruction=["Number of guests → set_num_guests"],
                label="gate closed: the engine is skipped",
            ),
            ScriptedStep(
                tool_calls=(call("set_date", date="2026-07-18"),),
                expect_in_instruction=["<user_context>", "4 people for next Friday"],
                label="first call after the gate opened",
            ),
        ]
    )
    agent = toy_agent(model, Backend(), gate_slot="num_guests")
    session = agent.session(clock=clock)
    result = session.send("4 people for next Friday")
    assert session.state["filled"]["num_guests"] == 4
    assert "_gate_user_text" not in session.state
    assert "We have 6 PM, 7:30 PM, 9 PM" in result.text  # the date completed the task's inputs: cascade
    model.assert_complete()
