"""Tool gates in the turn loop: availability (fail closed, composed with the DAG's visibility), bound and
merge-bound arguments, captures, progress messages, set_variables and required ending summaries — each
refusal an ordinary tool result plus a typed RefusalEvent naming who refused."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from slotgraph.models.protocol import ToolResultMessage
from slotgraph.runtime import Agent, AgentLoadError, ScriptedModel, ScriptedStep, call
from slotgraph.runtime.events import EndSessionEvent, RefusalEvent, TextEvent, ToolCallEvent

DAG: dict[str, Any] = {
    "slots": [{"name": "topic", "source": "user", "setter": "set_topic", "ask": "What is it about?"}],
    "tasks": [],
}

NO_FLOW: dict[str, Any] = {"slots": [], "tasks": []}
"""An agent without a flow: its model may end the session (mid-flow end_session is hidden)."""

VARIABLES = [
    {"name": "verified", "type": "boolean", "default": False, "description": "The caller passed the check."},
    {"name": "order_id", "type": "string", "description": "The caller's verified order id."},
    {"name": "refund_id", "type": "string", "description": "The id of the refund issued."},
    {"name": "transfer_params", "type": "object", "description": "Verified transfer fields."},
    {"name": "tier", "type": "string", "description": "Loyalty tier.", "linked_to": "tier"},
]


class Backend:
    def __init__(self) -> None:
        self.refunds: list[dict[str, Any]] = []
        self.transfers: list[dict[str, Any]] = []

    def tools(self) -> list[Any]:
        def set_topic(topic: str) -> dict[str, Any]:
            """Record what the call is about.

            Args:
                topic: What the caller wants.
            """
            return {"value": topic}

        def refund(order_id: str, amount: float, note: str = "") -> dict[str, Any]:
            """Refund an order.

            Args:
                order_id: The order to refund.
                amount: How much.
                note: Why.
            """
            self.refunds.append({"order_id": order_id, "amount": amount, "note": note})
            return {"refund_id": f"R-{len(self.refunds)}", "status": "done", "empty": None}

        def transfer(params: dict[str, Any], reason: str = "") -> dict[str, Any]:
            """Transfer to a person.

            Args:
                params: Fields for the person who takes over.
                reason: Why.
            """
            self.transfers.append({"params": params, "reason": reason})
            return {"ok": True}

        return [set_topic, refund, transfer]


TOOL_LOGIC: dict[str, Any] = {
    "refund": {
        "available_when": "verified",
        "unavailable_message": "Refunds need a verified caller: verify the caller first.",
        "bind": {"order_id": {"kind": "variable", "name": "order_id"}},
        "capture": {"refund_id": "$.refund_id", "order_id": "$.empty"},
        "progress_message": "One moment while I issue the refund.",
    },
    "transfer": {"merge_bind": {"params": {"kind": "variable", "name": "transfer_params"}}},
}


def _agent(steps: list[ScriptedStep], backend: Backend, **kw: Any) -> tuple[Agent, ScriptedModel]:
    model = ScriptedModel(steps)
    agent = Agent.from_config(
        DAG,
        tools=backend.tools(),
        model=model,
        variables=kw.pop("variables", VARIABLES),
        tool_logic=kw.pop("tool_logic", TOOL_LOGIC),
        **kw,
    )
    return agent, model


def _refusals(result: Any) -> list[RefusalEvent]:
    return [e for e in result.events if isinstance(e, RefusalEvent)]


def _results(session: Any, name: str) -> list[Any]:
    return [m.result for m in session.history if isinstance(m, ToolResultMessage) and m.name == name]


def test_a_closed_gate_hides_the_tool_and_refuses_a_call_with_its_message() -> None:
    backend = Backend()
    steps = [
        ScriptedStep(tool_calls=(call("refund", amount=5.0),), expect_hidden=("refund",)),
        ScriptedStep(text="Let me verify you first."),
    ]
    agent, model = _agent(steps, backend)
    session = agent.session(variables={"order_id": "O-1"})
    result = session.send("refund my order")
    [refusal] = _refusals(result)
    assert (refusal.refused, refusal.by) == ("gate_closed", "gate")
    assert _results(session, "refund") == [
        {
            "error": True,
            "refused": "gate_closed",
            "message": "Refunds need a verified caller: verify the caller first.",
        }
    ]
    assert backend.refunds == []
    model.assert_complete()


def test_a_gate_that_fails_to_evaluate_stays_closed() -> None:
    backend = Backend()
    # tier is linked to a caller fact, so its type is unknown at load: "gold" + 1 fails only at run time
    logic = {"refund": {"available_when": "tier + 1 > 0"}}
    steps = [ScriptedStep(tool_calls=(call("refund", order_id="O-1", amount=5.0),)), ScriptedStep(text="ok")]
    agent, _ = _agent(steps, backend, tool_logic=logic)
    result = agent.session(variables={"order_id": "O-1"}, metadata={"tier": "gold"}).send("refund")
    [refusal] = _refusals(result)
    assert refusal.refused == "gate_closed"
    assert refusal.message == "refund is not available right now."
    assert backend.refunds == []


def test_an_open_gate_binds_captures_and_says_its_progress_message_before_the_tool_runs() -> None:
    backend = Backend()

    def schema_without_bound(request: Any) -> bool:
        [tool] = [t for t in request.tools if t.name == "refund"]
        return "order_id" not in tool.parameters["properties"] and "order_id" not in tool.parameters.get(
            "required", []
        )

    steps = [
        # the model tries to refund another order: the bound, verified id wins
        ScriptedStep(tool_calls=(call("refund", order_id="O-EVIL", amount=5.0),), check=schema_without_bound),
        ScriptedStep(text="Done."),
    ]
    agent, model = _agent(steps, backend)
    session = agent.session(variables={"order_id": "O-1", "verified": True})
    result = session.send("refund my order")
    assert backend.refunds == [{"order_id": "O-1", "amount": 5.0, "note": ""}]
    assert session.variables["refund_id"] == "R-1"
    assert session.variables["order_id"] == "O-1"  # a captured None never overwrites
    kinds = [(type(e).__name__, getattr(e, "text", getattr(e, "name", ""))) for e in result.events]
    progress = kinds.index(("TextEvent", "One moment while I issue the refund."))
    assert kinds[progress - 1] == ("ToolCallEvent", "refund")
    assert kinds[progress + 1][0] == "ToolResultEvent"
    [sent] = [e for e in result.events if isinstance(e, ToolCallEvent) and e.name == "refund"]
    assert sent.args == {"order_id": "O-1", "amount": 5.0}
    assert next(e.origin for e in result.events if isinstance(e, TextEvent)) == "logic"
    model.assert_complete()


def test_a_bound_variable_that_is_not_set_refuses_the_call() -> None:
    backend = Backend()
    steps = [ScriptedStep(tool_calls=(call("refund", amount=5.0),)), ScriptedStep(text="ok")]
    agent, _ = _agent(steps, backend)
    result = agent.session(variables={"verified": True}).send("refund")
    [refusal] = _refusals(result)
    assert (refusal.refused, refusal.by) == ("bind_unresolved", "gate")
    assert "'order_id'" in refusal.message
    assert backend.refunds == []


def test_merge_bind_keeps_the_applications_keys_over_the_models() -> None:
    backend = Backend()
    steps = [
        ScriptedStep(
            tool_calls=(call("transfer", params={"account": "FORGED", "EscalationReason": "billing"}),)
        ),
        ScriptedStep(tool_calls=(call("transfer", params="just do it"),)),
        ScriptedStep(text="ok"),
    ]
    agent, _ = _agent(steps, backend)
    session = agent.session(variables={"transfer_params": {"account": "A-7"}})
    result = session.send("transfer me")
    assert backend.transfers == [{"params": {"account": "A-7", "EscalationReason": "billing"}, "reason": ""}]
    [refusal] = _refusals(result)
    assert (refusal.refused, refusal.by) == ("merge_bind_refused", "gate")


def test_a_tool_hidden_by_the_dag_is_refused_by_the_dag_even_when_its_gate_is_open() -> None:
    backend = Backend()
    logic = {"set_topic": {"available_when": "True"}}
    dag = {**DAG, "slots": [{**DAG["slots"][0], "condition": "verified"}]}
    steps = [ScriptedStep(tool_calls=(call("set_topic", topic="x"),)), ScriptedStep(text="ok")]
    model = ScriptedModel(steps)
    agent = Agent.from_config(dag, tools=backend.tools(), model=model, variables=VARIABLES, tool_logic=logic)
    result = agent.session().send("hi")
    [refusal] = _refusals(result)
    assert (refusal.refused, refusal.by) == ("hidden_tool", "dag")


def test_set_variables_writes_open_a_gate_within_the_same_turn_and_rejects_bad_names() -> None:
    backend = Backend()

    def schema_is_the_declarations(request: Any) -> bool:
        [tool] = [t for t in request.tools if t.name == "set_variables"]
        props = tool.parameters["properties"]
        assert set(props) == {"verified", "order_id", "refund_id", "transfer_params"}  # not the linked one
        described = {"description": "The caller passed the check.", "type": ["boolean", "null"]}
        assert props["verified"] == described
        assert not tool.parameters.get("required")
        return True

    steps = [
        ScriptedStep(
            tool_calls=(call("set_variables", verified=True, order_id="O-9", tier="gold", nope=1),),
            check=schema_is_the_declarations,
            expect_hidden=("refund",),
        ),
        ScriptedStep(tool_calls=(call("refund", amount=2.5),), expect_in_instruction=("verified",)),
        ScriptedStep(text="Refunded."),
    ]
    agent, model = _agent(steps, backend, instruction="{{#when verified}}The caller is verified.{{/when}}")
    session = agent.session()
    session.send("I am verified, order O-9")
    [saved] = _results(session, "set_variables")
    assert saved["saved"] == {"verified": True, "order_id": "O-9"}
    assert set(saved["rejected"]) == {"tier", "nope"}
    assert "read-only" in saved["rejected"]["tier"]
    assert "variables you can set" in saved["rejected"]["nope"]
    assert backend.refunds == [{"order_id": "O-9", "amount": 2.5, "note": ""}]
    model.assert_complete()


def test_set_variables_rejects_a_value_of_the_wrong_type_in_its_result() -> None:
    steps = [ScriptedStep(tool_calls=(call("set_variables", verified="yes"),)), ScriptedStep(text="ok")]
    agent, _ = _agent(steps, Backend())
    session = agent.session()
    session.send("hi")
    [saved] = _results(session, "set_variables")
    assert saved["saved"] == {}
    assert "expected a boolean" in saved["rejected"]["verified"]
    assert session.variables["verified"] is False


def test_an_agent_without_mutable_variables_has_no_set_variables() -> None:
    agent = Agent.from_config(DAG, tools=Backend().tools(), variables=[VARIABLES[-1]])
    assert "set_variables" not in agent.tools.names


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({}, "none was given"),
        ({"summary": "   "}, "blank"),
        ({"summary": 42}, "must be text"),
    ],
)
def test_a_required_summary_refuses_missing_blank_and_non_string_summaries(
    args: dict[str, Any], problem: str
) -> None:
    def summary_is_required(request: Any) -> bool:
        [tool] = [t for t in request.tools if t.name == "end_session"]
        return "summary" in tool.parameters["required"]

    steps = [
        ScriptedStep(tool_calls=(call("end_session", reason="done", **args),), check=summary_is_required),
        ScriptedStep(tool_calls=(call("end_session", reason="done", summary="Ada got her refund."),)),
    ]
    model = ScriptedModel(steps)
    agent = Agent.from_config(
        NO_FLOW,
        tools=Backend().tools(),
        model=model,
        builtin_tools={"end_session": {"require_summary": True}},
    )
    session = agent.session()
    result = session.send("bye")
    [refusal] = _refusals(result)
    assert (refusal.refused, refusal.by) == ("summary_required", "gate")
    assert problem in refusal.message
    [ended] = [e for e in result.events if isinstance(e, EndSessionEvent)]
    assert ended.summary == "Ada got her refund."
    assert session.ended
    model.assert_complete()


def test_without_require_summary_end_session_takes_no_summary() -> None:
    agent = Agent.from_config(DAG, tools=Backend().tools())
    tool = agent.tools.get("end_session")
    assert tool is not None and "summary" not in tool.schema.parameters["properties"]


def test_a_gate_binding_a_parameter_the_tool_lacks_does_not_load() -> None:
    logic = {"refund": {"bind": {"order": {"kind": "literal", "value": "x"}}}}
    with pytest.raises(AgentLoadError, match=r"tool_logic\.refund\.bind\.order: refund has no parameter"):
        Agent.from_config(DAG, tools=Backend().tools(), variables=VARIABLES, tool_logic=logic)


def test_a_parameter_in_both_binding_modes_does_not_load() -> None:
    logic = {
        "transfer": {
            "bind": {"params": {"kind": "literal", "value": {}}},
            "merge_bind": {"params": {"kind": "literal", "value": {}}},
        }
    }
    with pytest.raises(AgentLoadError, match="both 'bind' and 'merge_bind'"):
        Agent.from_config(DAG, tools=Backend().tools(), variables=VARIABLES, tool_logic=logic)


def test_rule_tool_calls_go_through_the_gate_too() -> None:
    backend = Backend()
    rules = [
        {
            "name": "auto_refund",
            "trigger": "user_message",
            "actions": [{"run_tool": {"tool": "refund", "args": {"amount": "1.0"}}}],
        }
    ]
    steps = [ScriptedStep(text="ok")]
    agent, _ = _agent(steps, backend, rules=rules)
    result = agent.session(variables={"order_id": "O-1"}).send("hello")
    [refusal] = _refusals(result)
    assert (refusal.refused, refusal.by) == ("gate_closed", "gate")
    [rule] = [e for e in result.events if getattr(e, "kind", "") == "rule"]
    assert not rule.ok and "verify the caller first" in (rule.error or "")
    assert backend.refunds == []


def test_the_step_record_lists_the_tools_the_model_was_offered() -> None:
    backend = Backend()
    steps = [ScriptedStep(text="Verify first.", expect_hidden=("refund",))]
    agent, _ = _agent(steps, backend)
    result = agent.session(variables={"order_id": "O-1"}).send("refund")
    [step] = result.steps
    assert "refund" not in step.visible_tools and "refund" in step.hidden_tools
    assert "transfer" in step.visible_tools


def test_merge_bind_refuses_when_the_applications_value_is_not_an_object() -> None:
    backend = Backend()
    logic = {"transfer": {"merge_bind": {"params": {"kind": "variable", "name": "refund_id"}}}}
    steps = [ScriptedStep(tool_calls=(call("transfer", params={"a": 1}),)), ScriptedStep(text="ok")]
    agent, _ = _agent(steps, backend, tool_logic=logic)
    result = agent.session(variables={"refund_id": "R-1"}).send("transfer")
    [refusal] = _refusals(result)
    assert refusal.refused == "merge_bind_refused" and "configuration problem" in refusal.message
    assert backend.transfers == []


def test_writes_by_set_variables_and_captures_fire_variable_changed_rules() -> None:
    backend = Backend()
    rules = [
        {
            "name": "verified_now",
            "trigger": "variable_changed",
            "variable": "verified",
            "condition": "verified",
            "actions": [{"inject_instruction": "The caller is verified: offer the refund."}],
        },
        {
            "name": "refunded",
            "trigger": "variable_changed",
            "variable": "refund_id",
            "actions": [{"set_variable": {"variable": "order_id", "value": "'refunded ' + refund_id"}}],
        },
    ]
    steps = [
        ScriptedStep(tool_calls=(call("set_variables", verified=True),)),
        ScriptedStep(tool_calls=(call("refund", amount=1.0),), expect_in_instruction=("offer the refund",)),
        ScriptedStep(text="Done."),
    ]
    agent, model = _agent(steps, backend, rules=rules)
    session = agent.session(variables={"order_id": "O-1"})
    result = session.send("I'm verified")
    fired = [e.rule for e in result.events if getattr(e, "kind", "") == "rule" and e.ok]
    assert fired == ["verified_now", "refunded"]
    assert session.variables["order_id"] == "refunded R-1"
    model.assert_complete()


def test_what_the_model_is_offered_never_changes_the_tools_own_schemas() -> None:
    """A tool's schema is shared by every call: the gate layer offers it as it is when nothing of it is
    bound (it was deep-copied for every tool of every model call), and builds a new top-level mapping when
    parameters are bound — the tool's own schema stays as declared."""
    seen: list[dict[str, Any]] = []

    def offered(request: Any) -> bool:
        seen.append({t.name: t.parameters for t in request.tools})
        return True

    steps = [
        ScriptedStep(tool_calls=(call("refund", order_id="O-1", amount=5.0),), check=offered),
        ScriptedStep(text="Done.", check=offered),
    ]
    agent, model = _agent(steps, Backend())
    own = {tool.name: tool.schema.parameters for tool in agent.tools}
    declared = copy.deepcopy({name: dict(parameters) for name, parameters in own.items()})
    agent.session(variables={"order_id": "O-1", "verified": True}).send("refund my order")
    model.assert_complete()
    assert {name: dict(parameters) for name, parameters in own.items()} == declared
    first = seen[0]
    unbound = [name for name in first if name != "refund"]
    assert unbound and all(first[name] is own[name] for name in unbound)  # offered as they are
    refund = first["refund"]
    assert refund is not own["refund"] and "order_id" not in refund["properties"]
    assert refund["properties"]["amount"] is own["refund"]["properties"]["amount"]  # nested parts shared


def test_requiring_a_summary_leaves_end_sessions_own_schema_as_declared() -> None:
    def summary_is_required(request: Any) -> bool:
        [tool] = [t for t in request.tools if t.name == "end_session"]
        return tool.parameters["required"][0] == "summary"

    steps = [ScriptedStep(text="Hello.", check=summary_is_required)]
    model = ScriptedModel(steps)
    agent = Agent.from_config(
        NO_FLOW,
        tools=Backend().tools(),
        model=model,
        builtin_tools={"end_session": {"require_summary": True}},
    )
    tool = agent.tools.get("end_session")
    assert tool is not None
    declared = copy.deepcopy(dict(tool.schema.parameters))
    agent.session().send("hi")
    model.assert_complete()
    assert dict(tool.schema.parameters) == declared and "summary" not in declared.get("required", [])


def test_params_fields_advertise_named_ending_details_that_merge_bind_supplements(tmp_path: Any) -> None:
    """``builtin_tools.end_session.params_fields``: ``end_session`` takes a ``params`` object whose fields are
    the named, optional strings (described for the model); a ``merge_bind`` of ``params`` adds the
    application's verified keys on top; the ending's details are on the EndSessionEvent."""
    (tmp_path / "agent.yaml").write_text(
        "name: desk\n"
        "dag: {slots: [], tasks: []}\n"  # no flow: the model may end the session (hidden mid-flow)
        "variables:\n"
        "  - {name: transfer_params, type: object, description: Verified fields for the follow-up.}\n"
        "builtin_tools:\n"
        "  end_session:\n"
        "    params_fields:\n"
        "      EscalationReason: Why a person must follow up, in the caller's words.\n"
        "      CallbackNumber: The number the caller asked to be called back on.\n"
        "tool_logic:\n"
        "  end_session:\n"
        "    merge_bind: {params: {kind: variable, name: transfer_params}}\n",
        encoding="utf-8",
    )
    (tmp_path / "tools.py").write_text(
        "def set_topic(topic: str) -> dict:\n    return {'value': topic}\n", encoding="utf-8"
    )

    def advertised(request: Any) -> bool:
        [tool] = [t for t in request.tools if t.name == "end_session"]
        params = tool.parameters["properties"]["params"]
        assert "params" not in tool.parameters.get("required", [])
        assert params["properties"]["EscalationReason"] == {
            "type": "string",
            "description": "Why a person must follow up, in the caller's words.",
        }
        return set(params["properties"]) == {"EscalationReason", "CallbackNumber"}

    model = ScriptedModel(
        [
            ScriptedStep(
                tool_calls=(call("end_session", reason="handover", params={"EscalationReason": 7}),),
                check=advertised,
            ),
            ScriptedStep(
                tool_calls=(
                    call(
                        "end_session",
                        reason="handover",
                        params={"EscalationReason": "wants a manager", "customer_id": "forged"},
                    ),
                )
            ),
        ]
    )
    agent = Agent.load(tmp_path, model=model)
    session = agent.session(variables={"transfer_params": {"customer_id": "C-42"}})
    result = session.send("I want a manager")
    [refusal] = _refusals(result)  # a field of the wrong type is the model's to repair
    assert refusal.refused == "bad_arguments" and "params.EscalationReason must be text" in refusal.message
    [ended] = [e for e in result.events if isinstance(e, EndSessionEvent)]
    assert ended.params == {"EscalationReason": "wants a manager", "customer_id": "C-42"}  # application wins
    assert session.ended
    model.assert_complete()


def test_params_fields_need_an_own_end_session_with_params() -> None:
    def end_session(reason: str = "") -> dict[str, Any]:
        """End."""
        return {"ended": True}

    with pytest.raises(AgentLoadError, match="end_session has no 'params' parameter"):
        Agent.from_config(
            DAG,
            tools=[*Backend().tools(), end_session],
            builtin_tools={"end_session": {"params_fields": {"reason_code": "Why."}}},
        )
