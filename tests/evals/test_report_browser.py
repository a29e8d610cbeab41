"""The HTML report (``slotgraph test --report``) in headless Chromium, on a desktop and on a phone.

Nothing scrolls sideways at 390 px, whole case names show (the chart cut them at 28 characters), and the
filters work: by outcome (CSS) and by text (the page's script).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from server.test_playground_browser import Browser, _browser_or_skip

from .conftest import TOY_NO_READBACK, WriteScenario, cli_app

pytestmark = pytest.mark.slow  # a plain `pytest` skips it; `make test` and CI run it

LONG = "a_case_name_without_any_space_that_used_to_push_the_whole_report_sideways_on_a_phone_screen"
SPACED = "the guest changes the party size after the time was confirmed and the times are checked again"


def _scenario(name: str, expected: str) -> str:
    return f"""
name: {name}
agent: {TOY_NO_READBACK}
model: replay
now: 2026-07-11T12:00:00
turns:
  - user: Hi
    expect: {{text: "{expected}"}}
"""


@pytest.fixture
def browser() -> Iterator[Browser]:
    sync_playwright = _browser_or_skip()
    with sync_playwright() as p:
        b = Browser(p)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def report(write_scenario: WriteScenario, tmp_path: Path) -> Path:
    write_scenario(_scenario(LONG, "How many guests?"), name="long")
    write_scenario(_scenario(SPACED, "How many guests?"), name="spaced")
    folder = write_scenario(_scenario("fails", "How many cats?"), name="fails").parent
    write_scenario(
        {"agent": str(TOY_NO_READBACK), "user_sim": {"persona": "Ada", "goal": "book"}}, name="sim"
    )
    path = tmp_path / "report.html"
    result = CliRunner().invoke(cli_app(), ["test", str(folder), "--report", str(path)])
    assert result.exit_code == 1, result.output  # one case fails on purpose
    return path


def _visible(page: Any, selector: str, attribute: str) -> list[str]:
    return list(
        page.locator(selector).evaluate_all(
            f"els => els.filter(e => e.getClientRects().length > 0).map(e => e.dataset.{attribute})"
        )
    )


@pytest.mark.parametrize("width", [390, 1280])
def test_the_report_fits_the_screen_shows_whole_names_and_filters(
    report: Path, browser: Browser, width: int
) -> None:  # the report first: Playwright's sync API runs an event loop, and `slotgraph test` its own
    page = browser.tab(viewport={"width": width, "height": 900})
    page.goto(report.as_uri())
    page.wait_for_selector("#text-filter", state="visible")  # the script ran
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow} px at {width} px"

    names = page.locator(".chart .name").evaluate_all(
        "els => els.map(e => [e.textContent, e.scrollWidth <= e.clientWidth + 1])"
    )
    assert sorted(text for text, _ in names) == sorted([LONG, SPACED, "fails"])
    assert all(fits for _, fits in names), names

    assert sorted(_visible(page, "details.scenario", "outcome")) == ["failed", "passed", "passed", "skipped"]
    page.click("label[for=show-failed]")
    assert _visible(page, "details.scenario", "outcome") == ["failed"]
    assert page.locator(".chart .name:visible").all_text_contents() == ["fails"]
    page.click("label[for=show-passed]")
    assert _visible(page, "details.scenario", "outcome") == ["passed", "passed"]
    page.click("label[for=show-all]")
    page.fill("#text-filter", "SIDEWAYS")  # matches the name, whatever the case
    assert _visible(page, "details.scenario", "outcome") == ["passed"]
    assert page.locator(".chart .name:visible").all_text_contents() == [LONG]
    page.fill("#text-filter", "sim.yaml")  # or the file
    assert _visible(page, "details.scenario", "outcome") == ["skipped"]
    page.fill("#text-filter", "")
    assert len(_visible(page, "details.scenario", "outcome")) == 4
    assert browser.errors == []
