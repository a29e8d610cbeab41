"""Validation verdicts on disk (``SLOTGRAPH_VERDICT_DIR``): a config that passed is not validated again by a
later process, which compiles it from the plan kept with the verdict, and nothing else changes — not the
errors, not the compiled result."""

from __future__ import annotations

import json
import logging
import marshal
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from slotgraph.config import (
    VERDICT_DIR_ENV,
    ConfigValidationError,
    clear_compile_cache,
    compile_config,
    configure_verdict_dir,
)
from slotgraph.config import validation as validation_module
from slotgraph.config import verdicts as verdicts_module
from slotgraph.config.content import ConfigContent
from slotgraph.config.nodes import DagConfig
from slotgraph.config.verdicts import VerdictDir

from .conftest import calls_of
from .dags import bella_dag, spec_dag

pytestmark = pytest.mark.usefixtures("no_verdicts")


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every semantic validation ``compile_config`` runs (it imports ``validate_raw`` when it validates)."""
    return calls_of(monkeypatch, validation_module, "validate_raw")


def _key(raw: dict[str, Any]) -> str:
    return VerdictDir.key(ConfigContent(raw).key)


def _is_verdict_of(path: Path, raw: dict[str, Any]) -> bool:
    """Whether ``path`` holds the passing verdict of ``raw``: its key, a newline, the plan (the normalised
    config, written by marshal)."""
    head, _, plan = path.read_bytes().partition(b"\n")
    return head == _key(raw).encode() and marshal.loads(plan) == DagConfig.model_validate(raw).model_dump()


def test_a_config_that_passed_is_not_validated_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, validations: list[Any]
) -> None:
    monkeypatch.setenv(VERDICT_DIR_ENV, str(tmp_path / "verdicts"))
    raw = bella_dag()
    first = compile_config(raw)
    assert len(validations) == 1
    assert _is_verdict_of(tmp_path / "verdicts" / _key(raw), raw)
    clear_compile_cache()  # as a fresh process
    second = compile_config(raw)
    assert len(validations) == 1
    assert second is not first and second.fingerprint == first.fingerprint
    assert [s.name for s in second.slots] == [s.name for s in first.slots]
    assert second.state_tables == first.state_tables


def test_without_the_option_every_compilation_validates(validations: list[Any]) -> None:
    compile_config(bella_dag())
    clear_compile_cache()
    compile_config(bella_dag())
    assert len(validations) == 2


def test_an_invalid_config_leaves_no_verdict_and_its_errors_are_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw: dict[str, Any] = spec_dag()
    raw["tasks"][0]["inputs"] = ["num_guests", "dat"]
    with pytest.raises(ConfigValidationError) as without:
        compile_config(raw)
    monkeypatch.setenv(VERDICT_DIR_ENV, str(tmp_path))
    for _ in range(2):
        clear_compile_cache()
        with pytest.raises(ConfigValidationError) as within:
            compile_config(raw)
        assert str(within.value) == str(without.value)
    assert list(tmp_path.iterdir()) == []


def test_a_verdict_is_for_this_content_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, validations: list[Any]
) -> None:
    monkeypatch.setenv(VERDICT_DIR_ENV, str(tmp_path))
    raw = bella_dag()
    compile_config(raw)
    changed = json.loads(json.dumps(raw))
    changed["slots"][0]["ask"] = changed["slots"][0].get("ask", "") + "?"
    compile_config(changed)
    assert len(validations) == 2
    assert len(list(tmp_path.iterdir())) == 2


def test_a_verdict_of_another_version_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, validations: list[Any]
) -> None:
    monkeypatch.setenv(VERDICT_DIR_ENV, str(tmp_path))
    raw = bella_dag()
    compile_config(raw)
    monkeypatch.setattr(verdicts_module, "__version__", "99.0.0")
    clear_compile_cache()
    compile_config(raw)
    assert len(validations) == 2


@pytest.mark.parametrize("content", ["", "yes", "0" * 64])
def test_a_verdict_file_that_is_not_its_key_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, validations: list[Any], content: str
) -> None:
    monkeypatch.setenv(VERDICT_DIR_ENV, str(tmp_path))
    raw = bella_dag()
    (tmp_path / _key(raw)).write_text(content)
    compile_config(raw)
    assert len(validations) == 1
    assert _is_verdict_of(tmp_path / _key(raw), raw)  # replaced by a good verdict


def test_an_unusable_directory_is_reported_once_and_compiling_goes_on(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    validations: list[Any],
    caplog: pytest.LogCaptureFixture,
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv(VERDICT_DIR_ENV, str(blocker / "verdicts"))
    with caplog.at_level(logging.WARNING, logger="slotgraph.config"):
        for _ in range(3):
            clear_compile_cache()
            assert compile_config(bella_dag()).slots
    assert len(validations) == 3
    warnings = [r.getMessage() for r in caplog.records if r.name == "slotgraph.config"]
    assert len(warnings) == 1
    assert str(blocker / "verdicts") in warnings[0] and VERDICT_DIR_ENV in warnings[0]


def test_configure_wins_over_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, validations: list[Any]
) -> None:
    monkeypatch.setenv(VERDICT_DIR_ENV, str(tmp_path / "from-env"))
    configure_verdict_dir(tmp_path / "configured")
    compile_config(bella_dag())
    assert [p.name for p in tmp_path.iterdir()] == ["configured"]
    configure_verdict_dir(None)
    clear_compile_cache()
    compile_config(bella_dag())
    assert len(validations) == 2
    assert [p.name for p in tmp_path.iterdir()] == ["configured"]


def test_a_fresh_process_uses_the_verdict_an_earlier_one_left(tmp_path: Path) -> None:
    """The case the verdicts exist for: one process per engine call, the same config each time."""
    script = (
        "import json, sys\n"
        "from slotgraph.config import validation as v\n"
        "calls = []\n"
        "validate = v.validate_raw\n"
        "v.validate_raw = lambda raw, **kw: calls.append(1) or validate(raw, **kw)\n"
        "from slotgraph.adapters.cxas import slot_filling_engine\n"
        "out = slot_filling_engine({'raw_config': json.load(sys.stdin), 'sm': {}, 'last_user_text': ''})\n"
        "print(len(calls), out['action']['message'] is not None)\n"
    )
    # the script counts validations by patching the validation module, which compiled code would not see
    env = {**os.environ, VERDICT_DIR_ENV: str(tmp_path), "SLOTGRAPH_PURE_PYTHON": "1"}
    config = json.dumps(bella_dag())
    runs = [
        subprocess.run(
            [sys.executable, "-c", script], input=config, env=env, capture_output=True, text=True, check=True
        ).stdout.split()
        for _ in range(2)
    ]
    assert runs == [["1", "True"], ["0", "True"]]
