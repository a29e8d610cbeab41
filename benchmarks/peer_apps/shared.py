"""What every prompt-driven peer shares: its instruction (the persona, today's date and the booking's
process) and its ``end_session`` tool.

Without an engine the model must know the process (order of questions, readbacks, retries, escalation), so
it is prose in the instruction, as a careful prompt engineer would write it; the two designs differ only in
where the details are kept (``design``: ``"conversation"`` or ``"record"``, see ``benchmarks/peers.py``).
"""

from __future__ import annotations

import datetime
from typing import Any

from .backend import EXAMPLE, backend

PROCESS = """\
<reservation_process>
Take a table reservation, one question at a time, in this order{keeping}:
1. Greet: "Welcome to Bella Notte! I'd be happy to help you with a reservation."
2. The party size: 1 to 12 guests; for larger groups give events@bellanotte.example.
3. Only for 5 or more guests: a contact phone number.
4. The date, not in the past. Read the party size and the date back ("4 guests, on July 17th") and wait
   for a yes; if the guest corrects one, read the new value back.
5. Once both are confirmed, call find_available_times and offer its times. If the day is fully booked,
   say so and ask for another date; after 2 failures, apologise, give the number 555-0100 and call
   end_session(reason="retry_exhausted", session_escalated=true).
6. The time: only one of the offered times. Read it back ("at 7:30 PM") and wait for a yes.
7. The name, then special requests or dietary needs ("None" if there are none). Read both back together
   and wait for a yes.
8. Call book_reservation{booking}, then give the confirmation number. If it fails, try once more; then
   apologise, give 555-0100 and call end_session as above.
If a tool reports an error, ask again with a short explanation; after 3 errors on one detail, give
555-0100 and call end_session. If the guest changes a confirmed detail, read the new value back and check
the availability again. If the guest drifts off topic, answer briefly and return to the open question.
</reservation_process>"""
DESIGNS = {
    "conversation": {"keeping": "", "booking": " with every detail"},
    "record": {
        "keeping": "; record each detail with record_details as soon as the guest gives it (it checks it)",
        "booking": " (it books the recorded details)",
    },
}


def instructions(today: datetime.date, design: str = "conversation") -> str:
    """The persona (Slotgraph's agent's ``instruction.md``), today's date and the process."""
    persona = (EXAMPLE / "instruction.md").read_text(encoding="utf-8").strip()
    process = PROCESS.format(**DESIGNS[design])
    return (
        f"{persona}\n\nToday is {today:%A, %B} {today.day}, {today.year} ({today.isoformat()}).\n\n{process}"
    )


def end_session(reason: str, session_escalated: bool = False, note: str = "") -> dict[str, Any]:
    """End the conversation; with session_escalated the guest is handed over to a human.

    reason: why the conversation ends (e.g. "retry_exhausted").
    note: context for whoever picks the conversation up.
    """
    return dict(backend.end_session(reason, session_escalated, note))
