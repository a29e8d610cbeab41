"""slotgraph.config.graph: Mermaid and DOT renderings of a DAG, checked by structure."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from diagram_checks import (
    assert_braces_balanced,
    assert_dot_is_sane,
    assert_mermaid_is_sane,
    dot_edges,
    dot_nodes,
    mermaid_classes,
    mermaid_edges,
    mermaid_nodes,
)

from slotgraph.config.graph import render_dot, render_mermaid
from slotgraph.config.nodes import DagConfig

BELLA_NOTTE_DAG = Path(__file__).resolve().parents[2] / "examples" / "bella_notte" / "dag.yaml"

SMALL = {
    "slots": [
        {"name": "hello", "source": "announce", "message": "Hi!"},
        {"name": "guests", "source": ["event", "user"], "setter": "set_guests", "requires_readback": True},
        {"name": "caller", "source": "event", "event_key": "ani"},
        {"name": "date", "source": "user", "setter": "set_date"},
        {"name": "open", "source": "task:Check"},
        {"name": "time", "source": "user", "setter": "set_time", "requires": ["open"]},
        {
            "name": "phone",
            "source": "user",
            "setter": "set_phone",
            "condition": "lambda filled: filled.get(\"guests\", 0) > 4 and filled.get('x') != '<|#&>'",
        },
        {"name": "ref", "source": "task:Book"},
    ],
    "tasks": [
        {"name": "Check", "tool": "check", "inputs": ["guests", "date"], "outputs": {"times": "open"}},
        {
            "name": "Book",
            "tool": "book",
            "inputs": ["guests", "date", "time", "phone"],
            "requires": ["hello"],
            "outputs": {"ref": "ref"},
            "terminal": True,
        },
    ],
}


@pytest.fixture
def small() -> DagConfig:
    return DagConfig.model_validate(SMALL)


@pytest.fixture
def bella_notte() -> DagConfig:
    return DagConfig.model_validate(yaml.safe_load(BELLA_NOTTE_DAG.read_text(encoding="utf-8")))


# --- Mermaid -------------------------------------------------------------------------------------------


def test_mermaid_declares_every_slot_and_task_in_order(small: DagConfig) -> None:
    text = render_mermaid(small)
    assert_mermaid_is_sane(text)
    assert list(mermaid_nodes(text)) == [
        "slot_hello",
        "slot_guests",
        "slot_caller",
        "slot_date",
        "slot_open",
        "slot_time",
        "slot_phone",
        "slot_ref",
        "task_Check",
        "task_Book",
    ]


def test_mermaid_shapes_and_classes_follow_the_source(small: DagConfig) -> None:
    text = render_mermaid(small)
    classes = mermaid_classes(text)
    assert classes["slot_hello"] == "announce"
    assert classes["slot_guests"] == "event_user"
    assert classes["slot_caller"] == "event"
    assert classes["slot_date"] == "user"
    assert classes["slot_open"] == "task_sourced"
    assert classes["task_Check"] == "task"
    assert classes["task_Book"] == "terminal"
    nodes = mermaid_nodes(text)
    assert nodes["task_Check"][1] == "[["
    assert nodes["slot_open"][1] == "[("
    assert nodes["task_Book"][1] == "{{"
    assert nodes["slot_hello"][1] == ">"
    assert "classDef terminal " in text


def test_mermaid_labels_mark_sources_readback_and_terminal(small: DagConfig) -> None:
    nodes = mermaid_nodes(render_mermaid(small))
    assert nodes["slot_guests"][0].split("<br/>") == [
        "guests",
        "source: event → user",
        "setter: set_guests",
        "readback",
    ]
    assert "readback" not in nodes["slot_date"][0]
    assert nodes["task_Book"][0].split("<br/>") == ["Book", "tool: book", "terminal"]


def test_mermaid_edges(small: DagConfig) -> None:
    edges = mermaid_edges(render_mermaid(small))
    assert ("slot_guests", "-->", "", "task_Check") in edges
    assert ("task_Check", "-->", "times", "slot_open") in edges  # result key differs from the slot
    assert ("task_Book", "-->", "", "slot_ref") in edges  # same name: no label
    assert ("slot_open", "-.->", "requires", "slot_time") in edges  # slot requires: dashed
    assert ("slot_hello", "-.->", "requires", "task_Book") in edges  # task requires: dashed
    assert ("slot_phone", "-->", "", "task_Book") in edges
    assert len(edges) == len(set(edges)) == 10


def test_mermaid_escapes_quotes_and_markup_in_conditions(small: DagConfig) -> None:
    text = render_mermaid(small)
    label = mermaid_nodes(text)["slot_phone"][0]
    condition = label.split("<br/>")[-1]
    assert condition == (
        "if filled.get(#quot;guests#quot;, 0) #gt; 4 and filled.get('x') != '#lt;#124;#35;#amp;#gt;'"
    )
    assert '"guests"' not in text


# --- DOT -----------------------------------------------------------------------------------------------


def test_dot_is_syntactically_sane(small: DagConfig, bella_notte: DagConfig) -> None:
    assert_dot_is_sane(render_dot(small))
    assert_dot_is_sane(render_dot(bella_notte))


def test_dot_nodes_and_styles(small: DagConfig) -> None:
    nodes = dot_nodes(render_dot(small))
    assert list(nodes)[:2] == ["slot_hello", "slot_guests"]
    assert "shape=note" in nodes["slot_hello"][1]
    assert "shape=parallelogram" in nodes["slot_caller"][1]
    assert "shape=cylinder" in nodes["slot_open"][1]
    assert "shape=component" in nodes["task_Check"][1]
    assert "shape=doubleoctagon" in nodes["task_Book"][1]
    assert nodes["task_Book"][0].split("\\n") == ["Book", "tool: book", "terminal"]
    assert nodes["slot_guests"][0].split("\\n")[-1] == "readback"


def test_dot_edges(small: DagConfig) -> None:
    edges = dot_edges(render_dot(small))
    assert ("task_Check", "slot_open", ' [label="times"]') in edges
    assert ("slot_open", "slot_time", ' [label="requires", style=dashed]') in edges
    assert ("slot_hello", "task_Book", ' [label="requires", style=dashed]') in edges
    assert ("slot_date", "task_Check", "") in edges


def test_dot_escapes_quotes_and_backslashes() -> None:
    dag = DagConfig.model_validate(
        {"slots": [{"name": "a", "setter": "s", "condition": 'lambda filled: filled.get("a\\\\b") == "}"'}]}
    )
    text = render_dot(dag)
    assert_dot_is_sane(text)
    label = dot_nodes(text)["slot_a"][0]
    assert label.endswith('if filled.get(\\"a\\\\\\\\b\\") == \\"}\\"')


def test_braces_check_catches_unbalanced_output() -> None:
    with pytest.raises(AssertionError):
        assert_braces_balanced('digraph x { "a" -> "b";')
    assert_braces_balanced('digraph x { "a" [label="}"]; }')


# --- identifiers and undeclared references -------------------------------------------------------------


def test_identifiers_are_sanitised_and_unique() -> None:
    dag = DagConfig.model_validate(
        {
            "slots": [{"name": "a-b"}, {"name": "a b"}, {"name": "end"}],
            "tasks": [{"name": "a-b", "tool": "t", "inputs": ["a-b", "a b"]}],
        }
    )
    mermaid = render_mermaid(dag)
    assert_mermaid_is_sane(mermaid)
    assert list(mermaid_nodes(mermaid)) == ["slot_a_b", "slot_a_b_2", "slot_end", "task_a_b"]
    assert ("slot_a_b_2", "-->", "", "task_a_b") in mermaid_edges(mermaid)
    assert_dot_is_sane(render_dot(dag))


def test_undeclared_references_get_a_missing_node() -> None:
    dag = DagConfig.model_validate(
        {
            "slots": [{"name": "x", "requires": ["ghost"]}, {"name": "y", "source": "task:Nowhere"}],
            "tasks": [{"name": "T", "tool": "t", "inputs": ["x", "phantom"]}],
        }
    )
    mermaid = render_mermaid(dag)
    assert_mermaid_is_sane(mermaid)
    classes = mermaid_classes(mermaid)
    assert classes["slot_ghost"] == classes["slot_phantom"] == classes["task_Nowhere"] == "missing"
    dot = render_dot(dag)
    assert_dot_is_sane(dot)
    assert "undeclared task" in dot_nodes(dot)["task_Nowhere"][0]


def test_output_is_deterministic(bella_notte: DagConfig) -> None:
    assert render_mermaid(bella_notte) == render_mermaid(bella_notte.model_copy(deep=True))
    assert render_dot(bella_notte) == render_dot(bella_notte.model_copy(deep=True))


# --- the Bella Notte example ---------------------------------------------------------------------------


def test_bella_notte_mermaid(bella_notte: DagConfig) -> None:
    text = render_mermaid(bella_notte)
    assert_mermaid_is_sane(text)
    nodes = mermaid_nodes(text)
    assert len(nodes) == 11  # 9 slots + 2 tasks
    classes = mermaid_classes(text)
    assert classes["slot_welcome"] == "announce"
    assert classes["slot_party_size"] == "event_user"
    assert classes["slot_available_times"] == classes["slot_confirmation_number"] == "task_sourced"
    assert classes["task_BookReservation"] == "terminal"
    assert "#gt;= 5" in nodes["slot_large_party_phone"][0]
    readback = {node_id for node_id, (label, _) in nodes.items() if "<br/>readback" in label}
    assert readback == {
        "slot_party_size",
        "slot_preferred_date",
        "slot_selected_time",
        "slot_guest_name",
        "slot_special_requests",
    }
    edges = mermaid_edges(text)
    book_inputs = [src for src, _, _, dst in edges if dst == "task_BookReservation"]
    assert book_inputs == [
        "slot_party_size",
        "slot_preferred_date",
        "slot_selected_time",
        "slot_guest_name",
        "slot_special_requests",
        "slot_large_party_phone",
    ]
    assert ("task_FindAvailableTimes", "-->", "", "slot_available_times") in edges
    assert ("slot_available_times", "-.->", "requires", "slot_selected_time") in edges


def test_bella_notte_dot(bella_notte: DagConfig) -> None:
    text = render_dot(bella_notte)
    edges = dot_edges(text)
    assert ("task_BookReservation", "slot_confirmation_number", "") in edges
    assert sum(1 for _, dst, _ in edges if dst == "task_FindAvailableTimes") == 2
    assert "grouped readback of inputs" in dot_nodes(text)["task_BookReservation"][0]


TRIP_QUOTE_DAG = Path(__file__).resolve().parents[2] / "examples" / "trip_quote" / "dag.yaml"


def test_parallel_tasks_are_drawn_as_one_group() -> None:
    dag = DagConfig.model_validate(yaml.safe_load(TRIP_QUOTE_DAG.read_text(encoding="utf-8")))
    mermaid, dot = render_mermaid(dag), render_dot(dag)
    assert_mermaid_is_sane(mermaid)
    assert_dot_is_sane(dot)
    group = (
        'subgraph parallel_1["parallel: fire together"]\n        task_FlightQuote\n        task_HotelQuote\n'
    )
    assert group + "    end" in mermaid
    assert '"task_FlightQuote";\n        "task_HotelQuote";\n    }' in dot
    assert "subgraph cluster_parallel_1 {" in dot
    assert "parallel" in mermaid_nodes(mermaid)["task_HotelQuote"][0]
    assert "BookTrip" not in mermaid.split("subgraph")[1].split("end")[0]  # terminal: never parallel


def test_dependent_parallel_tasks_are_not_grouped() -> None:
    from slotgraph.config.graph import parallel_groups

    raw = {
        "slots": [
            {"name": "a", "setter": "set_a", "ask": "A?"},
            {"name": "x", "source": "task:First"},
            {"name": "y", "source": "task:Second"},
            {"name": "z", "source": "task:Third"},
        ],
        "tasks": [
            {"name": "First", "tool": "first", "inputs": ["a"], "outputs": {"x": "x"}, "parallel": True},
            {
                "name": "Second",
                "tool": "second",
                "inputs": ["a", "x"],
                "outputs": {"y": "y"},
                "parallel": True,
            },
            {"name": "Third", "tool": "third", "inputs": ["a"], "outputs": {"z": "z"}, "parallel": True},
        ],
    }
    dag = DagConfig.model_validate(raw)
    assert parallel_groups(dag) == [["First", "Third"]]
    assert_mermaid_is_sane(render_mermaid(dag))
