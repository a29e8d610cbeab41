"""Aggregate replay outcomes into the benchmark's figures, per service and overall.

Figures (see ``docs/sgd-benchmark.md``): dialogues whose transactional calls equal the gold calls; questions
asked for a slot the user had already given (the gold system: 0); readbacks (turns ending with values
pending confirmation) against the gold system's ``CONFIRM`` turns; user turns to completion against the
dataset's; desyncs (acts the runtime was not ready for); turns the engine answered without the model.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .replay import DialogueOutcome

__all__ = ["Summary", "desync_categories", "format_report", "summarize"]


@dataclass(frozen=True, slots=True)
class Summary:
    """The figures of a group of dialogues."""

    name: str
    dialogues: int
    matched: int
    reasks: int
    readbacks: int
    gold_readbacks: int
    completed: int
    turns_to_completion: int
    gold_turns_to_completion: int
    desyncs: int
    backend_mismatches: int
    preempted_turns: int
    model_calls: int
    user_turns: int
    booking_dialogues: int = 0
    """Dialogues whose gold system made at least one booking (transactional call)."""
    booking_matched: int = 0
    """Of those, the dialogues whose bookings equal the gold calls exactly."""

    @property
    def match_rate(self) -> float:
        return 100.0 * self.matched / self.dialogues if self.dialogues else 0.0


def summarize(name: str, outcomes: Sequence[DialogueOutcome]) -> Summary:
    """Sum the outcomes; turns to completion count only dialogues that matched with a booking."""
    done = [o for o in outcomes if o.matched and o.turns_to_completion is not None]
    return Summary(
        name=name,
        dialogues=len(outcomes),
        matched=sum(o.matched for o in outcomes),
        reasks=sum(o.reasks for o in outcomes),
        readbacks=sum(o.readbacks for o in outcomes),
        gold_readbacks=sum(o.gold_readbacks for o in outcomes),
        completed=len(done),
        turns_to_completion=sum(o.turns_to_completion or 0 for o in done),
        gold_turns_to_completion=sum(o.gold_turns_to_completion or 0 for o in done),
        desyncs=sum(len(o.desyncs) for o in outcomes),
        backend_mismatches=sum(o.backend_mismatches for o in outcomes),
        preempted_turns=sum(o.preempted_turns for o in outcomes),
        model_calls=sum(o.model_calls for o in outcomes),
        user_turns=sum(o.user_turns for o in outcomes),
        booking_dialogues=sum(o.needs_booking for o in outcomes),
        booking_matched=sum(o.needs_booking and o.matched for o in outcomes),
    )


def desync_categories(outcomes: Iterable[DialogueOutcome]) -> Counter[str]:
    """Desyncs by ``<act kind>: <reason>``."""
    return Counter(f"{d.op.kind}: {d.reason}" for o in outcomes for d in o.desyncs)


def first_divergences(outcomes: Iterable[DialogueOutcome]) -> Counter[str]:
    """Why the dialogues that missed their gold booking first went wrong (real models only)."""
    return Counter(
        o.first_divergence.reason if o.first_divergence is not None else "no divergent reading (flow)"
        for o in outcomes
        if o.needs_booking and not o.matched
    )


def _pct(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 0.0


def _line(s: Summary) -> str:
    return (
        f"{s.name}: {s.matched}/{s.dialogues} match ({s.match_rate:.1f}%); bookings exact "
        f"{s.booking_matched}/{s.booking_dialogues} ({_pct(s.booking_matched, s.booking_dialogues):.1f}%); "
        f"re-asked {s.reasks}; "
        f"readbacks {s.readbacks} (gold {s.gold_readbacks}); user turns to completion "
        f"{s.turns_to_completion} vs gold {s.gold_turns_to_completion} over {s.completed} bookings; "
        f"desyncs {s.desyncs}; calls the gold never made {s.backend_mismatches}; "
        f"preempted turns {s.preempted_turns}/{s.user_turns}; model calls {s.model_calls}"
    )


def format_report(
    outcomes: Sequence[DialogueOutcome], *, show: bool = False, summary: bool = False
) -> list[str]:
    """The benchmark's lines: one per service, desync categories, failure taxonomy (real models),
    mismatches (with ``show``: the first divergent utterance); the last line is overall. ``summary``: the
    per-service lines, the model's latency and the overall line only — nothing about single dialogues or
    why they failed (how a held-out set is measured)."""
    lines: list[str] = []
    services = sorted({o.service for o in outcomes})
    for service in services:
        lines.append(_line(summarize(service, [o for o in outcomes if o.service == service])))
    total = summarize("all", outcomes)
    lines.append(_line(total))
    if summary:
        return [
            *lines,
            *_latency(outcomes),
            f"overall: {total.match_rate:.1f}% of {total.dialogues} dialogues",
        ]
    for category, count in sorted(desync_categories(outcomes).items()):
        lines.append(f"desync {category}: {count}")
    live = any(o.divergences for o in outcomes)
    if live:
        for service in [*services, None]:
            chosen = [o for o in outcomes if service is None or o.service == service]
            for reason, count in first_divergences(chosen).most_common():
                lines.append(f"first divergence ({service or 'all'}) {reason}: {count}")
    for o in outcomes:
        if not o.matched:
            line = (
                f"mismatch {o.dialogue_id} ({o.service}): {len(o.runtime_calls)} calls vs gold "
                f"{len(o.gold_calls)}; desyncs {len(o.desyncs)}"
            )
            d = o.first_divergence
            if show and d is not None:
                line += f"; turn {d.turn} {d.reason} [{d.detail}]: {d.utterance!r}"
            lines.append(line)
    lines.extend(_latency(outcomes))
    lines.append(f"overall: {total.match_rate:.1f}% of {total.dialogues} dialogues")
    return lines


def _latency(outcomes: Sequence[DialogueOutcome]) -> list[str]:
    seconds = sorted(x for o in outcomes for x in o.model_seconds)
    if not seconds:
        return []
    median = seconds[len(seconds) // 2] * 1000
    p99 = seconds[min(len(seconds) - 1, round(0.99 * (len(seconds) - 1)))] * 1000
    return [f"model latency per call: median {median:.2f} ms, p99 {p99:.2f} ms over {len(seconds)} calls"]
