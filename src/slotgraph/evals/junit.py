"""JUnit XML of a run (``slotgraph test --junit FILE``), for CI systems that show test results.

One ``<testsuite name="slotgraph">`` with one ``<testcase>`` per scenario (``classname`` is the file path);
a failed scenario has a ``<failure>`` listing every unmet expectation, a skipped one a ``<skipped>``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from slotgraph.evals.results import RunSummary, ScenarioResult

__all__ = ["junit_xml"]


def _failure_text(result: ScenarioResult) -> str:
    lines = [result.error] if result.error else []
    for failure in result.all_failures:
        lines.append(f"{failure.headline()}\n  expected: {failure.expected}\n  actual:   {failure.actual}")
    return "\n".join(lines)


def junit_xml(summary: RunSummary) -> str:
    """The run as a JUnit XML document."""
    suite = ET.Element(
        "testsuite",
        name="slotgraph",
        tests=str(len(summary.results)),
        failures=str(summary.failed),
        skipped=str(summary.skipped),
        errors="0",
        time=f"{summary.latency_s:.3f}",
    )
    for result in summary.results:
        case = ET.SubElement(
            suite, "testcase", classname=str(result.source), name=result.name, time=f"{result.latency_s:.3f}"
        )
        if result.outcome == "failed":
            failures = result.all_failures
            message = failures[0].headline() if failures else (result.error or "failed")
            node = ET.SubElement(case, "failure", message=message, type="ExpectationFailed")
            node.text = _failure_text(result)
        elif result.outcome == "skipped":
            ET.SubElement(case, "skipped", message=result.skip_reason)
        if result.replay_notes:  # what the replay filled in for a golden
            out = ET.SubElement(case, "system-out")
            out.text = "\n".join(f"turn {turn}: {note}" for turn, note in result.replay_notes)
        props = ET.SubElement(case, "properties")
        for key, value in (
            ("model_calls", result.model_calls),
            ("preempted_turns", result.preempted_turns),
            ("refusals", result.refusals),
            ("tokens", result.tokens),
        ):
            ET.SubElement(props, "property", name=key, value=str(value))
    ET.indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
