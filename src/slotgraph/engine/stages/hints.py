"""System-instruction hints and rich responses (spec §7a.4, §8.4, §8a): seams for the follow-up issue.

:func:`si_suffix` will assemble ``<readback_scope>`` and ``<deferred_collection>``; :func:`response_parts`
will resolve ``response``/``channel_responses`` and stash non-preempted payloads in ``_pending_payloads``.
Until then there are no hints (``""``) and no rich parts (``None``): hosts fall back to ``message`` as text.
"""

from __future__ import annotations

from typing import Any

from slotgraph.engine.invocation import Invocation, Reply

__all__ = ["response_parts", "si_suffix"]


def si_suffix(inv: Invocation) -> str:
    return ""


def response_parts(inv: Invocation, reply: Reply) -> list[dict[str, Any]] | None:
    return None
