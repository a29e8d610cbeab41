"""The ``offline`` model: the embedded default — no network, no weights, deterministic, instant.

It plays the LLM's part (docs/architecture.md#one-turn) for any agent, reading only the request: the visible
tools and their JSON Schemas, the ``<system_directive>``, the phase, and the last user message. It turns the
message into setter calls (dates, times, counts, choices, phones, emails, names, notes; yes/no during
readback) and otherwise relays the directive. :func:`plan_turn` is the pure core; :class:`OfflineModel` adapts
it to the runtime's model protocol. See ``docs/offline-model.md``.
"""

from slotgraph.models.offline.model import OfflineModel
from slotgraph.models.offline.planner import NEUTRAL_REPLY, OFF_TOPIC_REPLY, Plan, plan_turn, relay_text

__all__ = [
    "NEUTRAL_REPLY",
    "OFF_TOPIC_REPLY",
    "OfflineModel",
    "Plan",
    "plan_turn",
    "relay_text",
]
