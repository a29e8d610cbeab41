"""The model protocol and ScriptedModel live in slotgraph.models; the runtime and slotgraph re-export them."""

from __future__ import annotations

import subprocess
import sys

import pytest

import slotgraph
import slotgraph.models as models
import slotgraph.runtime as runtime
from slotgraph.errors import SlotgraphError
from slotgraph.models.errors import ModelError, ModelNotAvailableError, ScriptedModelError
from slotgraph.models.protocol import Model, ModelRequest, ModelResponse, ToolCall
from slotgraph.models.scripted import ScriptedModel, ScriptedStep, call


@pytest.mark.parametrize(
    "name", ["Model", "ModelRequest", "ModelResponse", "ToolCall", "ScriptedModel", "ScriptedStep", "call"]
)
def test_one_object_under_every_name(name: str) -> None:
    home = {
        "Model": Model,
        "ModelRequest": ModelRequest,
        "ModelResponse": ModelResponse,
        "ToolCall": ToolCall,
        "ScriptedModel": ScriptedModel,
        "ScriptedStep": ScriptedStep,
        "call": call,
    }[name]
    assert getattr(models, name) is home
    assert getattr(runtime, name) is home
    if name in slotgraph.__all__:
        assert getattr(slotgraph, name) is home


def test_model_errors_share_the_root_with_code_and_fix() -> None:
    for cls in (ModelError, ModelNotAvailableError, ScriptedModelError):
        assert issubclass(cls, SlotgraphError)
        assert cls.code != SlotgraphError.code
    assert runtime.ModelNotAvailableError is ModelNotAvailableError
    assert runtime.ScriptedModelError is ScriptedModelError
    assert issubclass(ScriptedModelError, AssertionError)  # pytest shows it as a failed assertion
    err = ModelNotAvailableError("no such backend", fix="use 'offline'")
    assert (str(err), err.code, err.fix) == ("no such backend", "model_not_available", "use 'offline'")


def test_importing_the_protocol_loads_no_runtime() -> None:
    code = (
        "import sys, slotgraph.models.protocol, slotgraph.models.scripted; "
        "print(sorted(m for m in sys.modules if m.startswith('slotgraph.runtime')))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'NoSuchThing'"):
        _ = models.NoSuchThing  # type: ignore[attr-defined]
