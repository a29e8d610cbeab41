"""The turn's own records: frozen to mypy, plain slotted dataclasses at run time (``runtime.records``)."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import pytest

from slotgraph.runtime import records
from slotgraph.runtime.preemption import EngineReply
from slotgraph.runtime.tool_execution import ToolOutcome, ToolRunner
from slotgraph.runtime.turn_loop import TurnInputs
from slotgraph.runtime.turn_preparation import Preparation

RECORDS = (TurnInputs, Preparation, ToolRunner, ToolOutcome, EngineReply)


@pytest.mark.parametrize("cls", RECORDS, ids=lambda cls: cls.__name__)
def test_a_record_is_a_slotted_dataclass(cls: type) -> None:
    assert dataclasses.is_dataclass(cls) and not cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert "__slots__" in cls.__dict__ and "__dict__" not in cls.__dict__
    assert tuple(f.name for f in dataclasses.fields(cls)) == cls.__slots__


def test_building_a_record_follows_the_dataclass_rules() -> None:
    outcome = ToolOutcome({"ok": True}, {}, ())
    assert outcome == ToolOutcome({"ok": True}, {}, ()) and not outcome.refused and outcome.transfer is None
    assert "ToolOutcome(result={'ok': True}" in repr(outcome)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'events'"):
        ToolOutcome({"ok": True}, {})  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        ToolOutcome({}, {}, (), colour=1)  # type: ignore[call-arg]
    first, second = Preparation({}, None, (), "", engine_ran=False), Preparation({}, None, (), "", False)
    assert first.notes == {} and first.notes is not second.notes  # a default factory per record


def test_mypy_refuses_to_change_a_record(tmp_path: Path) -> None:
    """What ``frozen=True`` guarded at run time is checked statically: an assignment is a type error."""
    api = pytest.importorskip("mypy.api")
    (tmp_path / "records.py").write_text(inspect.getsource(records), encoding="utf-8")
    (tmp_path / "use.py").write_text(
        "from records import record\n\n\n"
        "@record\nclass Step:\n    index: int\n    name: str = ''\n\n\n"
        "step = Step(1, name='a')\nstep.index = 2\n",
        encoding="utf-8",
    )
    out, _, status = api.run(
        [
            "--strict",
            "--no-incremental",
            "--config-file=",
            str(tmp_path / "use.py"),
            str(tmp_path / "records.py"),
        ]
    )
    assert status == 1 and 'use.py:11: error: Property "index" defined in "Step" is read-only' in out, out
