"""The web playground end to end in headless Chromium (Playwright): chat through the UI and watch it update.

Runs against a real uvicorn server on a loopback port with the offline model and a fixed clock, so every turn
is deterministic. Without Playwright or ``/usr/bin/chromium`` the test is skipped with an install hint —
except under CI (``CI`` set), where a missing browser is a failure.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .live import live_server
from .support import app_for

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
HINT = "install them with: pip install playwright && apt-get install chromium (never `playwright install`)"


def _browser_or_skip() -> Any:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = "the playwright Python package"
    else:
        if shutil.which(CHROMIUM) or Path(CHROMIUM).exists():
            return sync_playwright
        missing = CHROMIUM
    if os.environ.get("CI"):
        pytest.fail(f"CI needs {missing} for the browser test; {HINT}")
    pytest.skip(f"{missing} is not available; {HINT}")


@pytest.fixture
def page() -> Iterator[Any]:
    sync_playwright = _browser_or_skip()
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            tab = context.new_page()
            tab.set_default_timeout(20_000)
            yield tab
        finally:
            context.close()


def _send(page: Any, text: str, turn: int) -> None:
    page.fill("#message", text)
    page.press("#message", "Enter")
    page.wait_for_selector(f'body[data-turns="{turn}"]', state="attached")


def test_chat_in_the_playground_updates_transcript_slots_tasks_and_dag(page: Any, tmp_path: Path) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    with live_server(app_for()) as base:
        page.goto(base + "/")
        page.wait_for_selector('body[data-ready="true"]', state="attached")
        assert page.input_value("#agent") == "bella_notte"
        assert page.locator("#graph svg g[data-node]").count() == 11
        assert page.input_value("#mermaid").startswith("flowchart LR")

        _send(page, "Hi", 1)
        agent_lines = page.locator("#transcript .msg.agent")
        assert agent_lines.first.inner_text().startswith("Welcome to Bella Notte!")
        assert page.inner_text("#asking") == "party_size"
        assert page.get_attribute('#graph g[data-node="slot:party_size"]', "data-state") == "asking"

        _send(page, "A table for 4 on July 17th", 2)
        assert page.get_attribute('#slots tr[data-slot="party_size"]', "data-state") == "pending"
        assert page.get_attribute('#slots tr[data-slot="preferred_date"]', "data-state") == "pending"
        assert "Just to confirm" in page.inner_text("#directive")
        assert page.get_attribute('#graph g[data-node="slot:party_size"]', "data-state") == "pending"

        _send(page, "yes", 3)
        assert page.get_attribute('#slots tr[data-slot="party_size"]', "data-state") == "filled"
        assert page.inner_text('#slots tr[data-slot="party_size"] td:last-child') == "4"
        assert "FindAvailableTimes" in page.inner_text("#tasks")
        assert page.get_attribute('#graph g[data-node="task:FindAvailableTimes"]', "data-state") == "fired"
        assert "set_reservation_basics" in page.inner_text("#hidden-tools")
        assert agent_lines.last.inner_text().startswith("We have 17:30")
        assert "engine" in (agent_lines.last.get_attribute("class") or "")
        transcript = page.locator("#transcript .msg.user").all_inner_texts()
        assert transcript == ["Hi", "A table for 4 on July 17th", "yes"]
        assert page.inner_text("#error") == ""

        shot = tmp_path / "playground.png"
        page.screenshot(path=str(shot), full_page=True)
    data = shot.read_bytes()
    assert len(data) > 1000 and data.startswith(b"\x89PNG\r\n\x1a\n")
    assert errors == []
