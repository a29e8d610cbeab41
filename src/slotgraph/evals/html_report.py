"""The HTML report of a run (``slotgraph test --report FILE.html``): one self-contained file.

Inline CSS, inline SVG and one short inline script — nothing loaded from anywhere (no fonts, images or
script files) — so it opens from disk or a CI artifact without a server. It shows the run's totals, two
charts (model calls per turn for every scenario; the share of preempted turns) and, per scenario, a
timeline: each turn's input, the agent's text, the tool calls with their origin, preempted markers and the
failures with expected and actual values.

The page fits a phone's width (long names and arguments wrap; nothing scrolls sideways). Filters: by
outcome (all, failed, passed, skipped), plain CSS that works where scripts are blocked; and by text in a
case's name or file, which the script adds.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape

from slotgraph.evals.results import RunSummary, ScenarioResult, TurnRecord
from slotgraph.runtime import PayloadEvent, RefusalEvent, ToolCallEvent

__all__ = ["html_report", "model_calls_chart", "preemption_chart"]

OUTCOMES = ("failed", "passed", "skipped")

_CSS = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem;color:#1d2330;background:#fafbfc;
overflow-wrap:anywhere}
h1{margin:0 0 .3rem}h2{margin:2rem 0 .5rem}.muted{color:#667}
.totals{display:flex;gap:1rem;flex-wrap:wrap;margin:1rem 0}
.totals div{background:#fff;border:1px solid #dde;border-radius:6px;padding:.5rem .9rem}
.totals b{display:block;font-size:1.3rem}
.filters{display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center;margin:1rem 0;position:sticky;top:0;
background:#fafbfc;padding:.5rem 0;z-index:1}
.filters label{cursor:pointer;white-space:nowrap;border:1px solid #dde;border-radius:1rem;padding:0 .6rem;
background:#fff}.show{position:absolute;opacity:0;pointer-events:none}
#show-all:checked~.filters [for=show-all],#show-failed:checked~.filters [for=show-failed],
#show-passed:checked~.filters [for=show-passed],#show-skipped:checked~.filters [for=show-skipped]{
background:#1d2330;color:#fff;border-color:#1d2330}
#show-all:focus-visible~.filters [for=show-all],#show-failed:focus-visible~.filters [for=show-failed],
#show-passed:focus-visible~.filters [for=show-passed],#show-skipped:focus-visible~.filters [for=show-skipped]{
outline:2px solid #0969da;outline-offset:1px}.filters input[type=search]{font:inherit;padding:.2rem .4rem;
min-width:12rem;flex:1 1 12rem;max-width:24rem}
#show-failed:checked~.cases [data-outcome]:not([data-outcome=failed]),
#show-passed:checked~.cases [data-outcome]:not([data-outcome=passed]),
#show-skipped:checked~.cases [data-outcome]:not([data-outcome=skipped]),[data-outcome].unmatched{display:none}
.chart{display:grid;grid-template-columns:minmax(8rem,16rem) 1fr;gap:.15rem .8rem;align-items:center}
.chart .name{font-size:.8rem;color:#445}.chart svg{display:block;max-width:100%;height:18px}
.legend{font-size:.8rem;color:#445;margin:.4rem 0}
.share{display:block;width:100%;max-width:640px;height:24px}
.scenario{background:#fff;border:1px solid #dde;border-radius:8px;margin:1rem 0;padding:.4rem 1rem}
.scenario>summary{cursor:pointer;font-weight:600;padding:.4rem 0}
.passed .badge{background:#1a7f37}.failed .badge{background:#cf222e}.skipped .badge{background:#8c959f}
.badge{color:#fff;border-radius:4px;padding:0 .4rem;font-size:.8rem;margin-right:.5rem}
.turn{border-left:3px solid #d0d7de;margin:.6rem 0;padding:.2rem .8rem}
.turn.bad{border-color:#cf222e}.who{font-weight:600;margin-right:.4rem}
.call{font-family:ui-monospace,Menlo,monospace;font-size:.85rem;margin:.1rem 0}
.origin-engine{color:#8250df}.origin-model{color:#0969da}
.tag{font-size:.75rem;border-radius:3px;padding:0 .3rem;margin-left:.3rem;background:#eef;white-space:nowrap}
.tag.pre{background:#fff1c2}.fail{background:#ffebe9;border-radius:4px;padding:.3rem .5rem;margin:.3rem 0}
.fail code{white-space:pre-wrap}table.side{border-collapse:collapse;width:100%}
table.side td{padding:0 .6rem 0 0;vertical-align:top}table.side td:first-child{width:5rem}
@media (max-width:600px){body{margin:1rem}.chart{grid-template-columns:1fr}.chart svg{margin-bottom:.3rem}
.scenario{padding:.3rem .6rem}.turn{padding:.2rem .5rem}}
"""

# Hides the cases whose name or file does not contain the typed text; the outcome filter is CSS.
_SCRIPT = """
(function () {
  var box = document.getElementById("text-filter");
  box.hidden = false;
  box.addEventListener("input", function () {
    var wanted = box.value.trim().toLowerCase();
    document.querySelectorAll("[data-case]").forEach(function (el) {
      el.classList.toggle("unmatched", wanted !== "" && el.dataset.case.indexOf(wanted) < 0);
    });
  });
})();
"""


def _case_attributes(result: ScenarioResult) -> str:
    """What the filters read: the outcome, and the name and file in lower case."""
    text = f"{result.name} {result.source}".lower()
    return f"data-outcome='{result.outcome}' data-case='{escape(text, quote=True)}'"


def model_calls_chart(results: Sequence[ScenarioResult]) -> str:
    """One row per scenario: its whole name, then one bar per turn, the bar's height its model calls."""
    rows = [r for r in results if r.played]
    if not rows:
        return "<p class='muted'>No turns were played.</p>"
    peak = max(1, *(t.model_calls for r in rows for t in r.played))
    step, bar_h = 14, 18
    parts = ["<div class='chart' role='img' aria-label='Model calls per turn'>"]
    for result in rows:
        width = step * len(result.played)
        bars = []
        for n, turn in enumerate(result.played):
            height = max(bar_h * turn.model_calls / peak, 2)
            color = "#f0b400" if turn.preempted else ("#cf222e" if turn.failures else "#0969da")
            title = f"turn {turn.index}: {turn.model_calls} model call(s)" + (
                " — preempted" if turn.preempted else ""
            )
            bars.append(
                f"<rect x='{n * step}' y='{bar_h - height:.1f}' width='{step * 0.8:.1f}' "
                f"height='{height:.1f}' fill='{color}'><title>{escape(title)}</title></rect>"
            )
        attributes = _case_attributes(result)
        parts.append(f"<span class='name' {attributes}>{escape(result.name)}</span>")
        parts.append(
            f"<svg xmlns='http://www.w3.org/2000/svg' {attributes} width='{width}' "
            f"viewBox='0 0 {width} {bar_h}' preserveAspectRatio='xMinYMid meet'>{''.join(bars)}</svg>"
        )
    parts.append("</div>")
    parts.append(
        f"<p class='legend'>bar height: model calls (max {peak}); yellow: preempted turn (no model call); "
        "red: turn with failures</p>"
    )
    return "".join(parts)


def preemption_chart(summary: RunSummary, width: int = 640) -> str:
    """An inline SVG bar split into preempted and model-answered turns (it shrinks to the page's width)."""
    total = summary.turns
    if not total:
        return "<p class='muted'>No turns were played.</p>"
    share = summary.preempted_turns / total
    split = width * share
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' class='share' viewBox='0 0 {width} 24' "
        "preserveAspectRatio='none' role='img' aria-label='Preemption share'>"
        f"<rect x='0' y='0' width='{split:.1f}' height='24' fill='#f0b400'/>"
        f"<rect x='{split:.1f}' y='0' width='{width - split:.1f}' height='24' fill='#0969da'/></svg>"
        f"<p class='legend'>preempted {summary.preempted_turns} of {total} turns ({share:.0%}) — the engine "
        "answered without calling the model</p>"
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
    attributes = _case_attributes(result)
    return f"<details class='scenario {result.outcome}' {attributes}{opened}>{head}{''.join(body)}</details>"


def _filters(summary: RunSummary) -> str:
    """The outcome radios (CSS does the filtering: they precede ``.cases``) and the text box (hidden until
    the script shows it)."""
    counts = {"failed": summary.failed, "passed": summary.passed, "skipped": summary.skipped}
    radios = ["<input type='radio' class='show' name='show' id='show-all' checked>"]
    labels = [f"<label for='show-all'>all ({len(summary.results)})</label>"]
    for outcome in OUTCOMES:
        radios.append(f"<input type='radio' class='show' name='show' id='show-{outcome}'>")
        labels.append(f"<label for='show-{outcome}'>{outcome} ({counts[outcome]})</label>")
    search = (
        "<input type='search' id='text-filter' placeholder='filter by name or file' "
        "aria-label='filter by name or file' hidden>"
    )
    return (
        "".join(radios)
        + f"<div class='filters'><span class='muted'>show</span>{''.join(labels)}{search}</div>"
    )


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
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{escape(title)}</h1><p class='muted'>{escape(summary.tally())}</p>"
        f"<div class='totals'>{boxes}</div>{_filters(summary)}<div class='cases'>"
        f"<h2>Model calls per turn</h2>{model_calls_chart(summary.results)}"
        f"<h2>Preemption share</h2>{preemption_chart(summary)}"
        f"<h2>Scenarios</h2>{scenarios}</div><script>{_SCRIPT}</script></body></html>\n"
    )
