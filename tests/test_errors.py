"""One error root: every error Slotgraph raises on purpose is a SlotgraphError with its own code and a fix,
and no two public classes share a name."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from collections import defaultdict
from pathlib import Path

import pytest

import slotgraph
from slotgraph.errors import SlotgraphError

SRC = Path(slotgraph.__file__).parent

# Exceptions that never leave the module that raises them: control flow, not errors a caller sees.
INTERNAL_SIGNALS = {
    # one attempt of a model call failed in a retryable way; the retry loop raises its ModelError in the end
    "slotgraph.models.retry.RetryableError",
}


def _modules() -> list[str]:
    names = ["slotgraph"]
    for info in pkgutil.walk_packages([str(SRC)], prefix="slotgraph."):
        if info.name.endswith("__main__"):
            continue
        names.append(info.name)
    return names


def _public_exceptions() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for name in _modules():
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == name
                and not attr.startswith("_")
            ):
                found[f"{name}.{attr}"] = value
    return found


def test_every_public_error_inherits_the_root_with_its_own_code() -> None:
    errors = _public_exceptions()
    assert len(errors) > 40  # the walk found the packages' errors
    outside = sorted(n for n, cls in errors.items() if not issubclass(cls, SlotgraphError))
    assert outside == sorted(INTERNAL_SIGNALS)
    roots = [cls for cls in errors.values() if issubclass(cls, SlotgraphError) and cls is not SlotgraphError]
    default = [cls.__qualname__ for cls in roots if cls.code == SlotgraphError.code]
    assert default == [], "each error needs a stable code of its own"


@pytest.mark.parametrize(
    "make",
    [
        lambda: __import__("slotgraph.config", fromlist=["x"]).ConfigLoadError("x", fix="check the path"),
        lambda: __import__("slotgraph.engine", fromlist=["x"]).EngineInputError("x", fix="pass a dict"),
        lambda: __import__("slotgraph.evals", fromlist=["x"]).ScenarioFormatError(
            "f.yaml", "turns", "x", "y"
        ),
        lambda: __import__("slotgraph.server.errors", fromlist=["x"]).SessionBusyError("x", fix="wait"),
        lambda: __import__("slotgraph.workflow.errors", fromlist=["x"]).GoalError("x", fix="send a goal"),
    ],
)
def test_fix_is_kept_where_the_package_takes_one(make: object) -> None:
    err = make()  # type: ignore[operator]
    assert isinstance(err, SlotgraphError)
    assert err.fix and err.code != SlotgraphError.code


def test_a_config_validation_error_says_how_to_fix_it() -> None:
    from slotgraph.config import ConfigIssue, ConfigValidationError

    one = ConfigValidationError([ConfigIssue("unknown_key", "slots[0]", "unknown key 'askk'", "write 'ask'")])
    assert one.fix == "write 'ask'"
    two = ConfigValidationError(
        [ConfigIssue("a", "x", "m", "fix a"), ConfigIssue("b", "y", "n", "fix b")], source="dag.yaml"
    )
    assert "each one says how" in two.fix


def test_no_two_public_classes_share_a_name() -> None:
    homes: dict[str, list[str]] = defaultdict(list)
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                homes[node.name].append(str(path.relative_to(SRC)))
    shared = {name: where for name, where in homes.items() if len(where) > 1}
    assert shared == {}
