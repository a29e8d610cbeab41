"""Fixtures of the SGD benchmark tests: the shared SGD subset (CC BY-SA 4.0, see its ATTRIBUTION.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmarks.sgd import Dialogue, ServiceSchema, load_dialogues, load_schemas
from benchmarks.sgd.data import data_dir

DATA = data_dir() or Path("shared/data/sgd/train")


@pytest.fixture(scope="session")
def schemas() -> dict[str, ServiceSchema]:
    if not (DATA / "schema.json").is_file():
        pytest.skip(f"SGD data not found at {DATA}")
    return load_schemas(DATA / "schema.json")


@pytest.fixture(scope="session")
def dialogues(schemas: dict[str, ServiceSchema]) -> dict[str, Dialogue]:
    return {d.dialogue_id: d for d in load_dialogues(DATA)}
