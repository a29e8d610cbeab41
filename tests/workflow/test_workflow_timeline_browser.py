"""The run timeline page end to end in headless Chromium: start a run from the page, watch its stages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from server.live import live_server
from server.test_playground_browser import Browser, _browser_or_skip
from slotgraph.server import create_app
from slotgraph.server.runs import RunService, load_hosted_workflows
from slotgraph.stores.runs import InMemoryRunStore

from .conftest import EXAMPLE, RunningApi

pytestmark = pytest.mark.slow  # a plain `pytest` skips it; `make test` and CI run it


@pytest.fixture
def browser() -> Iterator[Browser]:
    sync_playwright = _browser_or_skip()
    with sync_playwright() as p:
        b = Browser(p)
        try:
            yield b
        finally:
            b.close()


def test_start_a_run_and_read_its_timeline_and_channels(browser: Browser, purchases_api: RunningApi) -> None:
    runs = RunService(
        load_hosted_workflows([EXAMPLE / "workflow.yaml"]), InMemoryRunStore(), base_url=purchases_api.url
    )
    goal = {"doc_id": "D-1", "account_id": "A-77", "message": "Blue Bottle Coffee, November 20, 2026"}
    with live_server(create_app([], runs=runs)) as base:
        page: Any = browser.tab()
        page.goto(base + "/runs")
        page.wait_for_selector('body[data-ready="true"]', state="attached")
        assert page.input_value("#workflow") == "purchase_refund"
        page.fill("#payload", json.dumps(goal))
        page.click("#start-form button")
        page.wait_for_selector('body[data-run-status="failed"]', state="attached")
        stages = page.locator("#timeline [data-stage]")
        assert [stages.nth(i).get_attribute("data-stage") for i in range(stages.count())] == [
            "extract_fields",
            "match_purchase",
        ]
        assert page.get_attribute('[data-stage="match_purchase"]', "data-stage-status") == "failed"
        assert "missing_required_key" in page.inner_text("#run-error")
        assert json.loads(page.inner_text("#goal")) == goal
        assert json.loads(page.inner_text("#slots"))["extract_fields"]["merchant"] == "Blue Bottle Coffee"
        run_id = page.get_attribute("body", "data-run")
        assert page.locator(f'#run-list li[data-run-id="{run_id}"]').count() == 1
        # a link to the run shows it directly
        other: Any = browser.tab()
        other.goto(f"{base}/runs?run={run_id}")
        other.wait_for_selector('body[data-run-status="failed"]', state="attached")
    assert browser.errors == []
