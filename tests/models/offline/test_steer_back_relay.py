"""What the offline model says when a steer-back directive is all it has: never the directive's own words.

The directive is addressed to the model ("The conversation has drifted — steer back. <question>"); a model
relays what it asks for. Before, the offline model read it out verbatim, so a user who drifted heard the
framework's instructions.
"""

from __future__ import annotations

from tests.runtime.test_bella_notte import AGENT_DIR

from slotgraph.models.offline import NEUTRAL_REPLY, OFF_TOPIC_REPLY, relay_text
from slotgraph.names import READBACK_SCOPE, SENTINEL, STEER_BACK, STEER_BACK_ARMED, STEER_BACK_SOFT, tagged
from slotgraph.runtime import Agent


def _instruction(steer: str) -> str:
    return f"You book tables.\n{SENTINEL}\n{tagged(STEER_BACK, steer)}"


def test_the_soft_directive_relays_its_question() -> None:
    assert relay_text(_instruction(f"{STEER_BACK_SOFT} How many guests?")) == "How many guests?"


def test_the_armed_directive_gets_one_short_sentence_without_a_question() -> None:
    reply = relay_text(_instruction(f"{STEER_BACK_ARMED} How many guests?"))
    assert reply == OFF_TOPIC_REPLY and "?" not in reply


def test_a_bare_directive_gets_the_neutral_reply() -> None:
    assert relay_text(_instruction(STEER_BACK_SOFT)) == NEUTRAL_REPLY


def test_a_drifting_guest_never_hears_the_framework() -> None:
    session = Agent.load(AGENT_DIR).session()
    said: list[str] = []
    for text in ["hello", "what's the weather like?", "do you like jazz?", "nice", "ok", "hmm", "really"]:
        said.append(session.send(text).text)
    assert not [line for line in said if "drifted" in line or "<" in line], said


def test_a_readback_waiting_for_a_yes_is_asked_again() -> None:
    # after the values were read back the engine sends no directive: a message with no answer in it gets
    # the confirmation asked again, not a neutral "How can I help you?"
    listed = "You MUST confirm ALL of the following values:\n  - party size: 4 guests\n  - date: on June 5th"
    expected = "Just to confirm — 4 guests, on June 5th. Is that correct?"
    assert relay_text(f"You book tables.\n{SENTINEL}\n{tagged(READBACK_SCOPE, listed)}") == expected
    plain = tagged(READBACK_SCOPE, "Pending confirmation: 4 guests, on June 5th.")
    assert relay_text(f"You book tables.\n{SENTINEL}\n{plain}") == expected


def test_a_guest_asking_something_else_during_the_readback_hears_it_again() -> None:
    session = Agent.load(AGENT_DIR).session()
    readback = session.send("I'd like a table for 4 next Friday").text
    assert readback.startswith("Just to confirm")
    assert session.send("do you have parking?").text == readback
