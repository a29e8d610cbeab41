"""Deterministic confirmation of a readback (docs/engine.md#auto-confirm-and-inline-confirm).

Both apply only when the engine is *awaiting confirmation*: values were pending when the previous
invocation ended and still are (not fresh), and the user just spoke (``last_user_text`` non-empty — post-tool
invocations never confirm).

* **Auto-confirm** — the message is a short pure affirmative: the invocation ends with a preempting
  ``function_call`` to ``confirm_pending`` (``force_preempt``), and ``_auto_confirm_pending`` is set so the
  resulting state change does not reset the steer-back counter.
* **Inline confirm** — the message starts affirmative but says more ("Yea, also my wife has a shellfish
  allergy"): ``_inline_confirm`` is set, then consumed by :func:`apply_inline_confirm`, which moves pending to
  filled silently (a flag already in the incoming state is dropped first: only this invocation's detection
  counts); the invocation carries on in the collection phase with ``inline_confirmed`` so the model
  can call setters for the new content (a task fire is held for this invocation).
"""

from __future__ import annotations

from slotgraph.engine.actions import Reason
from slotgraph.engine.affirmatives import is_affirmative, starts_affirmative
from slotgraph.engine.invocation import FunctionCall, Invocation, Reply
from slotgraph.engine.state import CONFIRM_PENDING

__all__ = ["apply_inline_confirm", "try_auto_confirm"]


def _awaiting_confirmation(inv: Invocation) -> bool:
    return bool(inv.user_text.strip()) and bool(inv.pending) and inv.prior_pending and not inv.fresh_pending


def try_auto_confirm(inv: Invocation) -> Reply | None:
    # Only this invocation's detection may set the inline-confirm flag: one left in the incoming state (a host
    # that died between the two steps, an edited state) must not commit values nobody confirmed.
    inv.sm.pop("_inline_confirm", None)
    if not _awaiting_confirmation(inv):
        return None
    if is_affirmative(inv.user_text):
        inv.sm["_auto_confirm_pending"] = True
        inv.trace.emit("auto_confirm", user_msg=inv.user_text)
        return Reply(
            function_call=FunctionCall(CONFIRM_PENDING, {}),
            preempt=True,
            force_preempt=True,
            reason=Reason.AUTO_CONFIRM,
        )
    if starts_affirmative(inv.user_text):
        inv.sm["_inline_confirm"] = True
    return None


def apply_inline_confirm(inv: Invocation) -> None:
    if not inv.sm.pop("_inline_confirm", False):
        return
    committed = list(inv.pending)
    inv.filled.update(inv.pending)
    inv.pending.clear()
    inv.inline_confirmed = True
    inv.fresh_pending = False
    inv.trace.emit("auto_confirm_inline", committed=committed)
