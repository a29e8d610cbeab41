"""Unit tests of validate_dag beyond the broken corpus: valid configs, report shape, noise suppression."""

from __future__ import annotations

from typing import Any

from slotgraph.config import ConfigIssue, ValidationReport, validate_dag

from .dags import BELLA_TOOLS, bella_dag, spec_dag


def _codes(report: ValidationReport) -> set[tuple[str, str]]:
    return {(i.code, i.location) for i in report.issues}


def test_valid_configs_have_no_errors() -> None:
    assert validate_dag(spec_dag()).ok
    report = validate_dag(bella_dag(), tool_names=BELLA_TOOLS)
    assert report.ok, str(report)
    assert report.warnings == ()


def test_issue_str_reads_location_message_fix() -> None:
    issue = ConfigIssue(
        "unknown_slot", "tasks[1].inputs[2]", "unknown slot 'dat' (did you mean 'date'?)", "fix it"
    )
    assert str(issue) == "tasks[1].inputs[2]: unknown slot 'dat' (did you mean 'date'?) — fix: fix it"
    assert issue.severity == "error"


def test_not_a_mapping() -> None:
    report = validate_dag(["slots"])  # type: ignore[arg-type]
    assert [i.code for i in report.errors] == ["not_a_mapping"]


def test_builtin_tools_always_exist() -> None:
    raw = spec_dag()
    tools = {"set_num_guests", "set_date", "set_chosen_time", "set_name", "check_availability",
             "make_reservation", "escalate"}  # fmt: skip
    assert validate_dag(raw, tool_names=tools).ok  # end_session in steer_back is built in
    # escalate (the spec's `then: "escalate"`) is provided by the runtime, like end_session.
    assert validate_dag(raw, tool_names=tools - {"escalate"}).ok
    raw["tasks"][0]["on_failure"]["on_exhaust"]["then"] = "transfer_to_human"
    report = validate_dag(raw, tool_names=tools)
    assert ("unknown_tool", "tasks[0].on_failure.on_exhaust.then") in _codes(report)
    assert validate_dag(raw).ok  # without tool names, tools are not checked


def test_placeholders_accept_result_keys_escapes_and_format_specs() -> None:
    raw = bella_dag()
    raw["slots"][1]["ask"] = "How many {{exactly}}? Last time {party_size!r:>3} came."
    raw["tasks"][1]["then_say"] = "Number {confirmation_number}, table {confirmation.table}."
    assert validate_dag(raw, tool_names=BELLA_TOOLS).ok


def test_bad_source_does_not_cascade() -> None:
    raw = spec_dag()
    raw["slots"][0]["source"] = "users"
    codes = {c for c, _ in _codes(validate_dag(raw))}
    assert "unknown_source" in codes
    assert "unfillable_slot" not in codes
    assert "setter_on_non_user_slot" not in codes


def test_structure_errors_do_not_stop_reference_checks() -> None:
    raw: dict[str, Any] = spec_dag()
    raw["slots"][0]["requires_readback"] = "maybe"
    raw["tasks"][1]["inputs"].append("nmae")
    found = _codes(validate_dag(raw))
    assert ("wrong_type", "slots[0].requires_readback") in found
    assert ("unknown_slot", "tasks[1].inputs[4]") in found


def test_union_branch_errors_are_collapsed() -> None:
    raw = spec_dag()
    raw["steer_back"]["on_exhaust"]["then"] = 5
    report = validate_dag(raw)
    assert [(i.code, i.location) for i in report.errors] == [("wrong_type", "steer_back.on_exhaust.then")]
    assert "a string or a mapping" in report.errors[0].message


def test_multi_setter_with_fields_is_valid() -> None:
    raw = bella_dag()
    assert not any(i.code.endswith("setter_field") for i in validate_dag(raw).issues)


def test_event_slot_is_fillable_and_announce_gates_tasks() -> None:
    raw = {
        "slots": [
            {"name": "caller_id", "source": "event"},
            {"name": "terms", "source": "announce", "message": "Terms apply."},
        ],
        "tasks": [{"name": "Lookup", "tool": "lookup", "inputs": ["caller_id"], "requires": ["terms"],
                   "success_check": "ok"}],
    }  # fmt: skip
    assert validate_dag(raw).ok


def test_report_deduplicates_and_separates_warnings() -> None:
    issue = ConfigIssue("x", "a", "m", "f")
    warning = ConfigIssue("y", "b", "m", "f", severity="warning")
    report = ValidationReport.from_issues([issue, issue, warning])
    assert report.errors == (issue,)
    assert report.warnings == (warning,)
    assert report.ok is False
    assert "warning: b: m" in str(report)
    assert str(ValidationReport()) == "config is valid"


def test_prefixed_issue() -> None:
    assert ConfigIssue("c", "slots[0]", "m", "f").prefixed("dag").location == "dag.slots[0]"


def test_the_keys_beyond_the_spec_warn_where_they_have_no_effect() -> None:
    raw: dict[str, Any] = {
        "slots": [
            {"name": "a", "setter": "set_a", "ask": "A?", "accept_early": True},
            {"name": "b", "setter": "set_b", "ask": "B?", "requires": ["a"], "accept_early": True},
            {"name": "out", "source": "task:T", "changeable": True},
        ],
        "tasks": [
            {"name": "T", "tool": "t", "inputs": ["a", "b"], "outputs": {"o": "out"}, "success_check": "ok",
             "parallel": True, "terminal": True, "readback_together": True},
        ],
    }  # fmt: skip
    codes = _codes(validate_dag(raw))
    assert ("accept_early_without_requires", "slots[0].accept_early") in codes
    assert not any(location == "slots[1].accept_early" for _, location in codes)
    assert ("changeable_without_setter", "slots[2].changeable") in codes
    assert ("parallel_terminal_task", "tasks[0].parallel") in codes
    assert ("readback_together_without_group", "tasks[0].readback_together") in codes


def test_many_slots_sharing_one_setter_are_reported_in_linear_space() -> None:
    """5,000 slots sharing one setter without setter_field took 1.1 GB and 11 s to validate, 20,000 a
    MemoryError: each slot's issue named every slot of the group. Each issue now names the first few and
    how many more, so the report grows with the slots, not with their square."""
    count = 5000
    raw = {
        "slots": [
            {"name": f"s{i}", "source": "user", "setter": "set_all", "ask": f"Value {i}?"}
            for i in range(count)
        ],
        "tasks": [{"name": "T", "tool": "t", "inputs": [f"s{i}" for i in range(count)]}],
    }
    issues = [i for i in validate_dag(raw).errors if i.code == "shared_setter_without_field"]
    assert len(issues) == count - 1
    assert issues[0].message == (
        "setter 'set_all' is shared by slots 's0', 's1', 's2', 's3', 's4' and 4,995 more but none has a "
        "setter_field"
    )
    assert max(len(i.message) for i in issues) < 200
