"""Exhaustion (docs/engine.md#task-results-retries-and-exhaustion): the last word when retries are used up.

Shared by task failures, slot validation errors and steer-back: the ``on_exhaust.say`` message
rendered from ``filled``, ``on_exhaust.then`` resolved to a function call with its ``{slot}`` placeholders
filled, and ``status`` set to ``"escalated"``. Without an ``on_exhaust`` (or without its ``say``) the default
message :data:`~slotgraph.engine.text.DEFAULT_EXHAUST_MESSAGE` is used; without ``then`` there is no call.
The reply's segment carries ``on_exhaust.response``/``on_exhaust.channel_responses``.
"""

from __future__ import annotations

from slotgraph.config.compiled import NO_RESPONSES, Exhaust
from slotgraph.engine.actions import Reason
from slotgraph.engine.invocation import FunctionCall, Invocation, Reply, Segment
from slotgraph.engine.state import ESCALATED
from slotgraph.engine.text import DEFAULT_EXHAUST_MESSAGE, render, render_value

__all__ = ["exhaust"]


def exhaust(
    inv: Invocation, on_exhaust: Exhaust | None, *, reason: Reason, force_preempt: bool = False
) -> Reply:
    filled = inv.filled
    say = (
        render(on_exhaust.say, filled)
        if on_exhaust is not None and on_exhaust.say
        else DEFAULT_EXHAUST_MESSAGE
    )
    call = None
    if on_exhaust is not None and on_exhaust.then is not None:
        call = FunctionCall(on_exhaust.then.tool, render_value(dict(on_exhaust.then.args), filled))
    inv.sm["status"] = ESCALATED
    responses = on_exhaust.responses if on_exhaust is not None else NO_RESPONSES
    return Reply(
        message=say,
        function_call=call,
        preempt=True,
        force_preempt=force_preempt,
        reason=reason,
        segments=(Segment(say, responses),),
    )
