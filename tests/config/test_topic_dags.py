"""A topic's own DAG in agent.yaml (``topics[i].dag``: a file or inline) is read and checked like the agent's
DAG, against the agent's tools, with every problem located in its file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from slotgraph.config import ConfigValidationError
from slotgraph.logic import load_definition

TOOLS = '''
def set_guests(guests: int) -> dict:
    """Record the guests."""
    return {"stored": True, "value": guests}


def set_amount(amount: int) -> dict:
    """Record the amount."""
    return {"stored": True, "value": amount}
'''
MAIN = {"slots": [{"name": "guests", "source": "user", "setter": "set_guests", "ask": "How many?"}]}
GIFT = {"slots": [{"name": "amount", "source": "user", "setter": "set_amount", "ask": "How much?"}]}


def _agent(path: Path, topics: list[dict[str, object]]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "agent.yaml").write_text(yaml.safe_dump({"name": "shop", "dag": MAIN, "topics": topics}))
    (path / "tools.py").write_text(TOOLS)
    return path


def test_a_topic_dag_file_and_an_inline_one_are_read(tmp_path: Path) -> None:
    (tmp_path / "gift.yaml").write_text(yaml.safe_dump(GIFT))
    topics = [
        {"id": "gift", "description": "Gift cards.", "dag": "gift.yaml"},
        {"id": "more", "description": "More gifts.", "dag": GIFT},
        {"id": "hours", "description": "Opening hours."},
    ]
    definition = load_definition(_agent(tmp_path, topics))
    assert set(definition.topic_dags) == {"gift", "more"}
    assert definition.topic_dags["gift"]["slots"][0]["setter"] == "set_amount"


def test_a_topic_dag_is_checked_with_locations(tmp_path: Path) -> None:
    broken = {"slots": [{"name": "amount", "source": "user", "setter": "set_amont", "ask": "How much?"}]}
    (tmp_path / "gift.yaml").write_text(yaml.safe_dump(broken))
    topics = [
        {"id": "gift", "description": "Gift cards.", "dag": "gift.yaml"},
        {"id": "other", "description": "Others.", "dag": "missing.yaml"},
    ]
    with pytest.raises(ConfigValidationError) as info:
        load_definition(_agent(tmp_path, topics))
    found = {(i.code, i.location) for i in info.value.issues}
    assert ("unknown_tool", "topics[0].dag.slots[0].setter") in found
    assert ("missing_file", "topics[1].dag") in found
    text = str(info.value)
    assert "gift.yaml:" in text and "did you mean 'set_amount'" in text
