"""Checks for the whole test session (fixtures live next to the tests that use them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Refuse to run the suite against another checkout's code.

    The tests import ``slotgraph`` from the virtualenv's editable install. A virtualenv borrowed from another
    checkout (a copied or symlinked ``.venv``, a second git worktree) imports *that* checkout's ``src/``, and
    every test would pass or fail for code that is not the one under test.
    """
    import slotgraph

    expected = (config.rootpath / "src" / "slotgraph").resolve()
    actual = Path(slotgraph.__file__).resolve().parent
    if actual != expected:
        pytest.exit(
            f"the tests would run against {actual}, not this checkout's {expected}: the virtualenv is "
            "another checkout's (symlinked or copied?). Fix: rm -rf .venv && make .venv/bin/.installed",
            returncode=4,
        )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Keep each phase's report on the item, so a fixture's teardown can tell whether the test passed."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture(autouse=True)
def scripted_models_are_played_to_the_end(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Fail a passing test that leaves steps of a ``ScriptedModel`` unplayed: a script longer than the
    conversation means the test no longer plays what it was written for. A test that leaves steps on purpose
    says so with ``@pytest.mark.scripted_leftover("why")``."""
    from slotgraph.models.scripted import ScriptedModel

    created: list[ScriptedModel] = []
    original = ScriptedModel.__init__

    def recording_init(self: ScriptedModel, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        created.append(self)

    monkeypatch.setattr(ScriptedModel, "__init__", recording_init)
    yield
    passed = getattr(getattr(request.node, "report_call", None), "passed", False)
    if not passed or request.node.get_closest_marker("scripted_leftover") is not None:
        return
    left = [model for model in created if model.remaining]
    if left:
        details = "; ".join(f"{m.remaining} of {len(m.steps)} steps not played" for m in left)
        pytest.fail(f"a ScriptedModel script was not played to the end ({details})", pytrace=False)
