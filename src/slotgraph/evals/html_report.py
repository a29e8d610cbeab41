"""The HTML report of a run (``slotgraph test --report FILE.html``): one self-contained file.

Inline CSS and inline SVG only — no scripts, fonts or images from anywhere — so it opens from disk or a CI
artifact without a server. It shows the run's totals, two charts (model calls per turn for every scenario;
the share of preempted turns) and, per scenario, a timeline: each turn's input, the agent's text, the tool
calls with their origin, preempted markers and the failures with expected and actual values.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape

from slotgraph.evals.results import RunSummary, ScenarioResult, TurnRecord
from slotgraph.runtime import PayloadEvent, RefusalEvent, ToolCallEvent

__all__ = ["html_report", "model_calls_chart", "preemption_chart"]

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem;color:#1d2330;background:#fafbfc}
h1{margin:0 0 .3rem}h2{margin:2rem 0 .5rem}.muted{color:#667}
.totals{display:flex;gap:1rem;flex-wrap:wrap;margin:1rem 0}
.totals div{background:#fff;border:1px solid #dde;border-radius:6px;padding:.5rem .9rem}
.totals b{display:block;font-size:1.3rem}
.scenario{background:#fff;border:1px solid #dde;border-radius:8px;margin:1rem 0;padding:.4rem 1rem}
.scenario>summary{cursor:pointer;font-weight:600;padding:.4rem 0}
.passed .badge{background:#1a7f37}.failed .badge{background:#cf222e}.skipped .badge{background:#8c959f}
.badge{color:#fff;border-radius:4px;padding:0 .4rem;font-size:.8rem;margin-right:.5rem}
.turn{border-left:3px solid #d0d7de;margin:.6rem 0;padding:.2rem .8rem}
.turn.bad{border-color:#cf222e}.who{font-weight:600;margin-right:.4rem}
.call{font-family:ui-monospace,Menlo,monospace;font-size:.85rem;margin:.1rem 0}
.origin-engine{color:#8250df}.origin-model{color:#0969da}
.tag{font-size:.75rem;border-radius:3px;padding:0 .3rem;margin-left:.3rem;background:#eef}
.tag.pre{background:#fff1c2}.fail{background:#ffebe9;border-radius:4px;padding:.3rem .5rem;margin:.3rem 0}
.fail code{white-space:pre-wrap}table.side{border-collapse:collapse}
table.side td{padding:0 .6rem 0 0;vertical-align:top}
svg text{font:11px system-ui,sans-serif;fill:#445}
"""


def model_calls_chart(results: Sequence[ScenarioResult], width: int = 640) -> str:
    """An inline SVG: one row per scenario, one bar per turn, its height the turn's model calls."""
    rows = [r for r in results if r.played]
    if not rows:
        return "<p class='muted'>No turns were played.</p>"
    peak = max(1, *(t.model_calls for r in rows for t in r.played))
    label_w, row_h, bar_h = 180, 26, 18
    longest = max(len(r.played) for r in rows)
    step = max(4.0, (width - label_w - 10) / max(1, longest))
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{row_h * len(rows) + 20}' "
        "role='img' aria-label='Model calls per turn'>"
    ]
    for row, result in enumerate(rows):
        y = row * row_h + 4
        parts.append(f"<text x='0' y='{y + 13}'>{escape(result.name[:28])}</text>")
        for n, turn in enumerate(result.played):
            height = bar_h * turn.model_calls / peak
            x = label_w + n * step
            color = "#f0b400" if turn.preempted else ("#cf222e" if turn.failures else "#0969da")
            title = f"turn {turn.index}: {turn.model_calls} model call(s)" + (
                " — preempted" if turn.preempted else ""
            )
            parts.append(
                f"<rect x='{x:.1f}' y='{y + bar_h - max(height, 2):.1f}' width='{step * 0.8:.1f}' "
                f"height='{max(height, 2):.1f}' fill='{color}'><title>{escape(title)}</title></rect>"
            )
    parts.append(
        f"<text x='{label_w}' y='{row_h * len(rows) + 14}'>bar height: model calls (max {peak}); "
        "yellow: preempted turn (no model call); red: turn with failures</text></svg>"
    )
    return "".join(parts)


def preemption_chart(summary: RunSummary, width: int = 640) -> str:
    """An inline SVG bar split into preempted and model-answered turns."""
    total = summary.turns
    if not total:
        return "<p class='muted'>No turns were played.</p>"
    share = summary.preempted_turns / total
    split = (width - 2) * share
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='46' role='img' "
        "aria-label='Preemption share'>"
        f"<rect x='1' y='1' width='{split:.1f}' height='24' fill='#f0b400'/>"
        f"<rect x='{1 + split:.1f}' y='1' width='{width - 2 - split:.1f}' height='24' fill='#0969da'/>"
        f"<text x='2' y='40'>preempted {summary.preempted_turns} of {total} turns ({share:.0%}) — the engine "
        "answered without calling the model</text></svg>"
    )


def _turn_html(turn: TurnRecord) -> str:
    tags = ""
    if turn.kind != "variables":
        tags += "<span class='tag pre'>preempted</span>" if turn.preempted else ""
        tags += f"<span class='tag'>{turn.model_calls} model call(s)</span>"
    out = [f"<div class='turn{' bad' if turn.failures else ''}'>"]
    out.append(f"<div><span class='who'>turn {turn.index} · user</span>{escape(turn.user_text)}{tags}</div>")
    if turn.note:
        out.append(f"<div class='muted'>{escape(turn.note)}</div>")
    for note in turn.replay_notes:  # what the replay filled in for the golden
        out.append(f"<div class='muted'>↳ replay {escape(note)}</div>")
    for event in turn.events:
        if isinstance(event, ToolCallEvent):
            args = escape(json.dumps(dict(event.args), default=str, ensure_ascii=False))
            out.append(
                f"<div class='call origin-{event.origin}'>⚙ {escape(event.name)}({args}) "
                f"<span class='tag'>{event.origin}</span></div>"
            )
        elif isinstance(event, RefusalEvent):
            out.append(f"<div class='call'>⛔ refused {escape(event.name)}: {escape(event.refused)}</div>")
        elif isinstance(event, PayloadEvent):
            part = escape(json.dumps(dict(event.part), default=str, ensure_ascii=False)[:200])
            out.append(f"<div class='call'>▣ payload {part}</div>")
    if turn.text:
        out.append(f"<div><span class='who'>agent</span>{escape(turn.text)}</div>")
    for failure in turn.failures:
        out.append(_failure_html(failure.expectation, failure.expected, failure.actual))
    out.append("</div>")
    return "".join(out)


def _failure_html(where: str, expected: str, actual: str) -> str:
    return (
        f"<div class='fail'><b>✗ {escape(where)}</b><table class='side'>"
        f"<tr><td>expected</td><td><code>{escape(expected)}</code></td></tr>"
        f"<tr><td>actual</td><td><code>{escape(actual)}</code></td></tr></table></div>"
    )


def _scenario_html(result: ScenarioResult) -> str:
    head = (
        f"<summary><span class='badge'>{result.outcome}</span>{escape(result.name)} "
        f"<span class='muted'>{escape(str(result.source))} · {result.model_calls} model calls · "
        f"{result.preempted_turns} preempted · {result.refusals} refusals · {result.tokens} tokens"
        "</span></summary>"
    )
    body = [_turn_html(t) for t in result.turns]
    if result.skip_reason:
        body.append(f"<p class='muted'>skipped: {escape(result.skip_reason)}</p>")
    body += [_failure_html(f.headline(), f.expected, f.actual) for f in result.failures]
    opened = " open" if result.outcome == "failed" else ""
    return f"<details class='scenario {result.outcome}'{opened}>{head}{''.join(body)}</details>"


def html_report(summary: RunSummary, title: str = "Slotgraph evaluation report") -> str:
    """The whole report as one HTML document."""
    totals = [
        ("pass rate", f"{summary.pass_rate:.0%}"),
        ("passed", summary.passed),
        ("failed", summary.failed),
        ("skipped", summary.skipped),
        ("turns", summary.turns),
        ("model calls", summary.model_calls),
        ("preempted turns", summary.preempted_turns),
        ("refusals", summary.refusals),
        ("tokens", summary.tokens),
        ("latency", f"{summary.latency_s:.2f} s"),
    ]
    boxes = "".join(f"<div><b>{escape(str(v))}</b>{escape(k)}</div>" for k, v in totals)
    scenarios = "".join(_scenario_html(r) for r in summary.results)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{escape(title)}</h1><p class='muted'>{escape(summary.tally())}</p>"
        f"<div class='totals'>{boxes}</div>"
        f"<h2>Model calls per turn</h2>{model_calls_chart(summary.results)}"
        f"<h2>Preemption share</h2>{preemption_chart(summary)}"
        f"<h2>Scenarios</h2>{scenarios}</body></html>\n"
    )
