"""The web playground end to end in headless Chromium (Playwright): chat through the UI and watch it update.

Runs against a real uvicorn server on a loopback port with the offline model and a fixed clock, so every turn
is deterministic. Without Playwright or ``/usr/bin/chromium`` the test is skipped with an install hint —
except under CI (``CI`` set), where a missing browser is a failure.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from slotgraph.server import ServerSettings

from .live import live_server
from .support import app_for

pytestmark = pytest.mark.slow  # a plain `pytest` skips it; `make test` and CI run it

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


class Browser:
    """Headless Chromium tabs; each records console errors and uncaught page errors in ``errors``."""

    def __init__(self, playwright: Any) -> None:
        self._playwright = playwright
        self._contexts: list[Any] = []
        self.errors: list[str] = []

    def tab(self, **context: Any) -> Any:
        profile = tempfile.mkdtemp(prefix="slotgraph-chromium-")
        ctx = self._playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, **context
        )
        self._contexts.append((ctx, profile))
        tab = ctx.pages[0] if ctx.pages else ctx.new_page()
        tab.set_default_timeout(20_000)
        tab.on("pageerror", lambda err: self.errors.append(f"pageerror: {err}"))
        tab.on(
            "console", lambda msg: self.errors.append(f"console: {msg.text}") if msg.type == "error" else None
        )
        return tab

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text}")

    def close(self) -> None:
        for ctx, profile in self._contexts:
            ctx.close()
            shutil.rmtree(profile, ignore_errors=True)


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
def page(browser: Browser) -> Any:
    return browser.tab()


def _send(page: Any, text: str, turn: int) -> None:
    page.fill("#message", text)
    page.press("#message", "Enter")
    page.wait_for_selector(f'body[data-turns="{turn}"]', state="attached")


def test_chat_in_the_playground_updates_transcript_slots_tasks_and_dag(
    browser: Browser, page: Any, tmp_path: Path
) -> None:
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
        assert page.inner_text('#slots tr[data-slot="party_size"] td:last-child').splitlines()[0] == "4"
        assert "FindAvailableTimes" in page.inner_text("#tasks")
        assert page.get_attribute('#graph g[data-node="task:FindAvailableTimes"]', "data-state") == "fired"
        assert "set_selected_time" in page.inner_text("#visible-tools")  # the next question's setter
        assert (
            page.inner_text("#hidden-tools") == "end_session, set_large_party_phone"
        )  # mid-flow; condition false
        assert agent_lines.last.inner_text().startswith("We have 17:30")
        assert "engine" in (agent_lines.last.get_attribute("class") or "")
        transcript = page.locator("#transcript .msg.user").all_inner_texts()
        assert transcript == ["Hi", "A table for 4 on July 17th", "yes"]
        assert page.inner_text("#error") == ""

        shot = tmp_path / "playground.png"
        page.screenshot(path=str(shot), full_page=True)
    data = shot.read_bytes()
    assert len(data) > 1000 and data.startswith(b"\x89PNG\r\n\x1a\n")
    assert browser.errors == []


def _finish_booking(page: Any, first_turn: int) -> None:
    for turn, text in enumerate(
        ["7:30 pm", "yes", "under Chen", "no special requests", "yes"], start=first_turn
    ):
        _send(page, text, turn)


def test_turn_events_are_rows_and_a_finished_session_disables_the_composer(
    browser: Browser, page: Any
) -> None:
    with live_server(app_for()) as base:
        page.goto(base + "/")
        page.wait_for_selector('body[data-ready="true"]', state="attached")
        for turn, text in enumerate(["Hi", "A table for 4 on July 17th", "yes"], start=1):
            _send(page, text, turn)
        rows = page.locator("#trace details.turn[open] li")
        kinds = [rows.nth(i).get_attribute("data-kind") for i in range(rows.count())]
        assert "tool_call" in kinds and "tool_result" in kinds and "text" in kinds
        calls = page.locator('#trace details.turn[open] li[data-kind="tool_call"]').all_inner_texts()
        fired = [c for c in calls if "find_available_times(" in c]
        assert fired and fired[0].startswith("tool call") and "party_size=4" in fired[0]
        assert "by the engine" in fired[0]
        assert page.get_attribute("body", "data-finished") == "false"
        assert page.is_enabled("#message")

        _finish_booking(page, 4)
        page.wait_for_selector('body[data-finished="true"]', state="attached")
        assert page.is_visible("#ended")
        assert "has ended (complete)" in page.inner_text("#ended")
        assert page.is_disabled("#message") and page.is_disabled("#send")
        assert (
            page.locator("#transcript .msg.agent")
            .last.inner_text()
            .startswith("Your reservation is confirmed")
        )

        page.click("#restart")  # a new session re-enables the composer
        page.wait_for_selector('body[data-finished="false"]', state="attached")
        assert page.is_enabled("#message")
        assert page.locator("#transcript .msg").count() == 0
    assert browser.errors == []


def _segments(d: str) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    points = [tuple(float(v) for v in p.split(",")) for p in d.lstrip("M").split(" L")]
    return [(points[i], points[i + 1]) for i in range(len(points) - 1)]  # type: ignore[misc]


def _crosses(segment: tuple[tuple[float, float], tuple[float, float]], box: dict[str, float]) -> bool:
    """Whether an axis-parallel segment passes through the inside of a box."""
    (x1, y1), (x2, y2) = segment
    left, right = box["x"], box["x"] + box["width"]
    top, bottom = box["y"], box["y"] + box["height"]
    lo_x, hi_x, lo_y, hi_y = min(x1, x2), max(x1, x2), min(y1, y2), max(y1, y2)
    return lo_x < right and hi_x > left and lo_y < bottom and hi_y > top


def test_the_dag_is_readable_edges_avoid_unrelated_nodes_and_conditions_are_marked(
    browser: Browser, page: Any
) -> None:
    with live_server(app_for()) as base:
        page.goto(base + "/")
        page.wait_for_selector('body[data-ready="true"]', state="attached")
        boxes = page.evaluate(
            """() => Object.fromEntries([...document.querySelectorAll('#graph g[data-node]')].map((g) => {
                 const r = g.querySelector('rect');
                 return [g.dataset.node, {x: +r.getAttribute('x'), y: +r.getAttribute('y'),
                         width: +r.getAttribute('width'), height: +r.getAttribute('height')}]; }))"""
        )
        edges = page.evaluate(
            """() => [...document.querySelectorAll('#graph path.edge')].map((p) =>
                 ({source: p.dataset.source, target: p.dataset.target, d: p.getAttribute('d')}))"""
        )
        assert len(boxes) == 11 and len(edges) == 11
        for edge in edges:
            for name, box in boxes.items():
                if name in (edge["source"], edge["target"]):
                    continue
                for segment in _segments(edge["d"]):
                    assert not _crosses(segment, box), f"{edge['source']}→{edge['target']} crosses {name}"
        # labels at body size, drawn at natural size (not scaled down to the panel)
        body_px = float(page.evaluate("getComputedStyle(document.body).fontSize").removesuffix("px"))
        label = page.locator('#graph g[data-node="slot:party_size"] text').first
        assert float(label.evaluate("t => getComputedStyle(t).fontSize").removesuffix("px")) >= body_px
        scale = page.evaluate(
            "() => { const s = document.querySelector('#graph svg'); "
            "return s.getBoundingClientRect().width / s.viewBox.baseVal.width; }"
        )
        assert scale == pytest.approx(1.0)
        # the conditional slot is dashed; with no party size yet it is inactive (its condition is false)
        phone = '#graph g[data-node="slot:large_party_phone"]'
        assert page.get_attribute(phone + " rect", "stroke-dasharray") != "none"
        assert page.get_attribute('#graph g[data-node="slot:party_size"] rect', "stroke-dasharray") == "none"
        _send(page, "Hi", 1)
        _send(page, "A table for 4 on July 17th", 2)
        _send(page, "yes", 3)
        assert page.get_attribute(phone, "data-state") == "inactive"
        assert page.get_attribute('#slots tr[data-slot="large_party_phone"]', "data-state") == "inactive"
    assert browser.errors == []


def _png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header.startswith(b"\x89PNG\r\n\x1a\n")
    return int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")


def test_phone_layout_fits_390px_and_send_works_by_tap(browser: Browser, tmp_path: Path) -> None:
    width, height = 390, 844
    page = browser.tab(
        viewport={"width": width, "height": height}, device_scale_factor=1, is_mobile=True, has_touch=True
    )
    with live_server(app_for()) as base:
        page.goto(base + "/")
        page.wait_for_selector('body[data-ready="true"]', state="attached")
        for turn, text in enumerate(["Hi", "A table for 4 on July 17th"], start=1):
            page.tap("#message")
            page.fill("#message", text)
            page.tap("#send")
            page.wait_for_selector(f'body[data-turns="{turn}"]', state="attached")
        assert page.locator("#transcript .msg.user").all_inner_texts() == ["Hi", "A table for 4 on July 17th"]
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.evaluate("window.scrollTo(0, 0)")
        for selector in ("#transcript", "#composer", "#send"):
            box = page.locator(selector).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, selector
            assert box["y"] >= 0 and box["y"] + box["height"] <= height, f"{selector} is off screen: {box}"
        assert page.locator("#transcript .msg.agent").last.is_visible()
        viewport_shot, full_shot = tmp_path / "phone.png", tmp_path / "phone-full.png"
        page.screenshot(path=str(viewport_shot))
        page.screenshot(path=str(full_shot), full_page=True)
    assert _png_size(viewport_shot) == (width, height)
    full_width, full_height = _png_size(full_shot)
    assert full_width == width, "the page scrolls sideways at 390 px"
    assert full_height >= height
    assert browser.errors == []


def test_with_an_api_key_the_key_is_asked_first_and_kept_for_the_tab(browser: Browser) -> None:
    settings = ServerSettings(api_key="k-123")
    page = browser.tab()
    with live_server(app_for(settings=settings)) as base:
        page.goto(base + "/")
        page.wait_for_selector("#key-gate", state="visible")
        assert page.is_hidden("#workspace")
        assert page.locator("#agent option").count() == 0
        assert browser.errors == []  # asking needs no failed request

        page.fill("#api-key", "wrong")
        page.press("#api-key", "Enter")
        page.wait_for_selector("#key-error:has-text('refused')")
        assert page.is_visible("#key-gate")
        browser.errors.clear()  # the refused request is logged by the browser; that is the point here

        page.fill("#api-key", "k-123")
        page.click("#use-key")
        page.wait_for_selector('body[data-ready="true"]', state="attached")
        assert page.is_hidden("#key-gate")
        assert page.input_value("#agent") == "bella_notte"
        _send(page, "Hi", 1)
        assert page.locator("#transcript .msg.agent").first.inner_text().startswith("Welcome to Bella Notte!")

        page.reload()  # the key survives a reload of the tab
        page.wait_for_selector('body[data-ready="true"]', state="attached")
        assert page.is_hidden("#key-gate")
        assert page.is_visible("#change-key")

        other = browser.tab()  # another browser profile (a new tab of its own) is asked again
        other.goto(base + "/")
        other.wait_for_selector("#key-gate", state="visible")
    assert browser.errors == []


def test_the_api_docs_page_works_offline(browser: Browser, page: Any) -> None:
    outside: list[str] = []
    with live_server(app_for()) as base:

        def only_loopback(route: Any) -> None:
            if route.request.url.startswith(base):
                route.continue_()
            else:
                outside.append(route.request.url)
                route.abort()

        page.route("**/*", only_loopback)
        page.goto(base + "/docs")
        page.wait_for_selector(".swagger-ui .info .title:has-text('Slotgraph')")
        page.wait_for_selector(".opblock-summary-path:has-text('/v1/sessions')", state="attached")
    assert outside == []
    assert browser.errors == []


def test_the_slot_table_shows_early_answers_and_changes(browser: Browser, page: Any) -> None:
    """An early answer is listed as ``early`` with its value; a confirmed value being changed as ``changing``
    with the confirmed and the new value (docs/engine.md "Beyond the original platform's limitations")."""
    with live_server(app_for()) as base:
        page.goto(base + "/")
        page.wait_for_selector('body[data-ready="true"]', state="attached")
        _send(page, "Hi", 1)
        _send(page, "4 people on July 17th at 7pm under Chen", 2)
        row = '#slots tr[data-slot="selected_time"]'
        assert page.get_attribute(row, "data-state") == "early"
        assert page.inner_text(f"{row} td:last-child") == "19:00"
        node = '#graph g[data-node="slot:selected_time"]'
        assert page.get_attribute(node, "data-state") == "early"
        _send(page, "yes", 3)
        assert page.get_attribute(row, "data-state") == "pending"
        _send(page, "yes", 4)
        _send(page, "actually make it 6 people", 5)
        party = '#slots tr[data-slot="party_size"]'
        assert page.get_attribute(party, "data-state") == "changing"
        assert page.inner_text(f"{party} td:last-child") == "4 → 6"


def test_a_multi_agent_app_shows_the_active_agent_and_every_agents_slots(
    browser: Browser, tmp_path: Path
) -> None:
    from slotgraph.models.offline import OfflineModel
    from slotgraph.server import load_hosted_agents

    from .support import ROOT

    team = load_hosted_agents([ROOT / "examples" / "bella_notte_team"], model=OfflineModel())
    with live_server(app_for(team)) as base:
        page = browser.tab()
        page.goto(base + "/")
        page.wait_for_selector('body[data-ready="true"]', state="attached")
        assert page.input_value("#agent") == "bella_notte_team"
        assert page.get_attribute("#graph", "data-agent") == "host"  # the root's DAG first
        _send(page, "Hi, I'd like to book a table", 1)
        assert page.inner_text("#active-agent") == "reservations"
        page.wait_for_selector('#graph[data-agent="reservations"] g[data-node="slot:party_size"]')
        assert page.get_attribute('#graph g[data-node="slot:party_size"]', "data-state") == "asking"
        assert "party_size" in page.input_value("#mermaid")
        _send(page, "4 guests", 2)
        _send(page, "yes", 3)
        _send(page, "Could I order takeout?", 4)
        assert page.inner_text("#active-agent") == "takeout"
        page.wait_for_selector('#graph[data-agent="takeout"] g[data-node="slot:order_items"]')
        assert page.get_attribute('#graph g[data-node="slot:order_items"]', "data-state") == "asking"
        assert page.locator('#graph g[data-node="slot:party_size"]').count() == 0
        assert "order_items" in page.input_value("#mermaid")
        assert page.inner_text("#graph-agent").lower() == "of takeout"
        kept = page.locator('#slots tr[data-agent="reservations"][data-slot="party_size"]')
        assert kept.get_attribute("data-state") == "filled" and "4" in kept.inner_text()
        assert page.locator("#slots tr.agent-row.active").inner_text().startswith("takeout (active)")
        assert page.locator('#trace li[data-kind="agent_transfer"]').count() >= 1
        page.screenshot(path=str(tmp_path / "team.png"), full_page=True)
        page.click("#new-session")  # a new conversation starts with the root, and so does the graph
        page.wait_for_selector('#graph[data-agent="host"]', state="attached")
    assert not browser.errors, browser.errors


def test_a_topic_with_its_own_dag_is_drawn_while_it_is_active(browser: Browser) -> None:
    from slotgraph.models.offline import OfflineModel
    from slotgraph.server import load_hosted_agents

    from .support import ROOT

    team = load_hosted_agents([ROOT / "examples" / "bella_notte_team"], model=OfflineModel())
    with live_server(app_for(team)) as base:
        page = browser.tab()
        page.goto(base + "/")
        page.wait_for_selector('body[data-ready="true"]', state="attached")
        _send(page, "Hi, I'd like to buy a gift card", 1)
        page.wait_for_selector('#graph[data-topic="gift_cards"] g[data-node="slot:amount"]')
        assert page.get_attribute('#graph g[data-node="slot:amount"]', "data-state") == "asking"
        assert page.inner_text("#graph-agent").lower() == "of host, topic gift_cards"
        assert "IssueGiftCard" in page.input_value("#mermaid")
        _send(page, "50 dollars", 2)
        assert page.get_attribute('#graph g[data-node="slot:amount"]', "data-state") == "filled"
        assert page.get_attribute('#graph g[data-node="slot:recipient"]', "data-state") == "asking"
        _send(page, "Maria Rossi", 3)  # the card is issued; return_when brings the host back
        page.wait_for_selector('#graph[data-topic=""][data-agent="host"]', state="attached")
        assert page.locator('#graph g[data-node="slot:amount"]').count() == 0
    assert not browser.errors, browser.errors


# ---- a playground that keeps the session, shows the trace, and says what went wrong ------------------------

WIDTHS = [1280, 390]


def _tab_at(browser: Browser, width: int) -> Any:
    """A tab at desktop width, or a phone's (390 px, touch)."""
    if width < 500:
        return browser.tab(viewport={"width": width, "height": 844}, is_mobile=True, has_touch=True)
    return browser.tab(viewport={"width": width, "height": 900})


def _ready(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector('body[data-ready="true"]', state="attached")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_reload_resumes_the_conversation_and_its_trace(browser: Browser, width: int) -> None:
    page = _tab_at(browser, width)
    with live_server(app_for()) as base:
        _ready(page, base + "/")
        session = page.get_attribute("body", "data-session")
        assert page.url == f"{base}/?agent=bella_notte&session={session}"  # the address names the session
        _send(page, "Hi", 1)
        _send(page, "A table for 4 on July 17th", 2)
        said = page.locator("#transcript .msg").all_inner_texts()

        page.reload()
        page.wait_for_selector('body[data-resumed="true"]', state="attached")
        assert page.get_attribute("body", "data-session") == session
        assert page.locator("#transcript .msg").all_inner_texts() == said
        assert page.get_attribute('#slots tr[data-slot="party_size"]', "data-state") == "pending"
        assert page.get_attribute('#graph g[data-node="slot:party_size"]', "data-state") == "pending"
        assert page.locator("#trace details.turn").count() == 2  # this tab's traces came back too
        assert page.is_enabled("#message")
        _send(page, "yes", 1)  # the conversation goes on where it was
        assert "FindAvailableTimes" in page.inner_text("#tasks")
        assert page.locator("#trace details.turn").count() == 3
        assert page.get_attribute("#trace details.turn[open]", "data-turn") == "3"

        other = _tab_at(browser, width)  # another browser: the server's transcript, no traces
        _ready(other, f"{base}/?agent=bella_notte&session={session}")
        assert other.get_attribute("body", "data-resumed") == "true"
        assert other.locator("#transcript .msg.user").all_inner_texts() == [
            "Hi",
            "A table for 4 on July 17th",
            "yes",
        ]
        assert "3 earlier turns without a trace here" in other.inner_text("#trace")

        assert not browser.errors, browser.errors
        gone = _tab_at(browser, width)  # a session the server does not know: said, and a new one starts
        _ready(gone, f"{base}/?agent=bella_notte&session=no-such-session")
        assert "not on this server any more" in gone.inner_text("#transcript")
        fresh = gone.get_attribute("body", "data-session")
        assert fresh and fresh != "no-such-session" and gone.url.endswith(f"session={fresh}")
    assert len(browser.errors) == 1 and "404" in browser.errors[0]  # the browser logs the unknown session


@pytest.mark.parametrize("width", WIDTHS)
def test_the_trace_shows_each_steps_time_split_and_each_tools_time(browser: Browser, width: int) -> None:
    page = _tab_at(browser, width)
    with live_server(app_for()) as base:
        _ready(page, base + "/")
        _send(page, "Hi", 1)
        _send(page, "A table for 4 on July 17th", 2)
        readback = page.locator('#trace details.turn[data-turn="2"]')
        assert "2 steps · 2 model calls" in readback.locator("summary").inner_text()
        model_steps = readback.locator('.step[data-kind="model"]')
        assert model_steps.count() == 2
        assert model_steps.first.locator('.seg[data-part="model"]').count() == 1  # time spent in the model
        # during the readback the row lists the tools hidden from the model (end_session: mid-flow), not the
        # built-in readback tools nor the task tools (the engine runs those)
        assert (
            page.inner_text("#hidden-tools") == "end_session, set_large_party_phone, set_reservation_basics"
        )
        assert "confirm_pending" not in page.inner_text("#visible-tools")
        # a value is shown with how the agent reads it back; an empty slot shows no value at all
        party = page.inner_text('#slots tr[data-slot="party_size"] td:last-child')
        assert party.splitlines() == ["4", "“4 guests”"]
        assert page.inner_text('#slots tr[data-slot="guest_name"] td:last-child') == ""

        _send(page, "yes", 3)
        turn = page.locator("#trace details.turn[open]")
        assert turn.get_attribute("data-turn") == "3"
        summary = turn.locator("summary").inner_text()
        assert "3 steps · 0 model calls" in summary
        assert "ms in the server" in summary and "round trip" in summary
        steps = turn.locator(".step")
        assert [steps.nth(i).get_attribute("data-kind") for i in range(3)] == ["engine"] * 3
        fire = turn.locator('.step[data-step="2"]')
        assert "fire" in fire.locator(".step-head").inner_text()
        tools = fire.locator('.seg[data-part="tools"]')
        assert tools.count() == 1 and float(tools.get_attribute("data-ms")) > 0
        result = fire.locator('li[data-kind="tool_result"]').inner_text()
        assert "find_available_times" in result and result.rstrip().endswith("ms")
        assert fire.locator('.seg[data-part="model"]').count() == 0  # the engine spoke: no model time
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert not browser.errors, browser.errors


def _finish_with_no_special_requests(page: Any) -> None:
    for turn, text in enumerate(
        ["Hi", "A table for 4 on July 17th", "yes", "7:30 pm", "yes", "under Chen", "no special requests"],
        start=1,
    ):
        _send(page, text, turn)


def test_a_none_value_reads_as_what_the_agent_says(browser: Browser, page: Any) -> None:
    with live_server(app_for()) as base:
        _ready(page, base + "/")
        _finish_with_no_special_requests(page)
        cell = page.inner_text('#slots tr[data-slot="special_requests"] td:last-child')
        assert cell.splitlines()[-1] == "“no special requests”"  # the example's "None" means none
    assert not browser.errors, browser.errors


@pytest.mark.parametrize("width", WIDTHS)
def test_an_undelivered_message_says_why_and_can_be_sent_again(browser: Browser, width: int) -> None:
    page = _tab_at(browser, width)
    with live_server(app_for()) as base:
        _ready(page, base + "/")
        assert page.get_attribute("#message", "maxlength") == "8000"  # the server's limit
        page.fill("#message", "x" * 8001)
        assert len(page.input_value("#message")) == 8000
        assert page.inner_text("#count") == "8,000 / 8,000 characters — the most one message can have"
        page.fill("#message", "")

        page.route("**/messages:stream", lambda route: route.abort("connectionrefused"))
        _send(page, "Hi", 1)
        error = page.inner_text("#error")
        assert "does not answer" in error and "Failed to fetch" not in error
        bubble = page.locator("#transcript .msg.user")
        assert bubble.get_attribute("data-delivered") == "false" and "undelivered" in (
            bubble.get_attribute("class") or ""
        )
        assert page.locator("#trace details.turn").count() == 0  # nothing was played
        page.unroute("**/messages:stream")
        page.click("#transcript .retry")
        page.wait_for_selector('body[data-turns="2"]', state="attached")
        assert page.locator("#transcript .msg.user").all_inner_texts() == ["Hi"]
        assert page.locator("#transcript .msg.undelivered").count() == 0
        assert page.locator("#transcript .msg.agent").first.inner_text().startswith("Welcome to Bella Notte!")
        assert page.inner_text("#error") == ""
    # the server is stopped now: the page says so in words, and keeps the message for a retry
    page.fill("#message", "A table for 4")
    page.press("#message", "Enter")
    page.wait_for_selector('body[data-turns="3"]', state="attached")
    assert "does not answer — it may have stopped" in page.inner_text("#error")
    assert page.locator("#transcript .msg.undelivered").inner_text() == "A table for 4"
    assert page.is_visible("#transcript .retry")
    browser.errors.clear()  # the browser logs the refused requests; saying so in words is the point here


def test_a_message_the_server_refuses_names_the_limit(browser: Browser, page: Any) -> None:
    def no_limit(route: Any) -> None:  # a server that does not publish its limit: the 422 must say it
        route.fulfill(json={"status": "ok", "api_key_required": False})

    with live_server(app_for()) as base:
        page.route("**/healthz", no_limit)
        _ready(page, base + "/")
        assert page.get_attribute("#message", "maxlength") is None
        _send(page, "x" * 8001, 1)
        assert "text: String should have at most 8000 characters" in page.inner_text("#error")
        assert page.locator("#transcript .msg.undelivered").count() == 1
    browser.errors.clear()  # the refused request is logged by the browser


@pytest.mark.parametrize("width", WIDTHS)
def test_the_dag_spaces_arrowheads_and_pads_labels(browser: Browser, width: int) -> None:
    page = _tab_at(browser, width)
    with live_server(app_for()) as base:
        _ready(page, base + "/")
        page.wait_for_selector("#graph[data-drawn]", state="attached")
        ends = page.evaluate(
            """() => [...document.querySelectorAll('#graph path.edge')].map((p) => {
                 const d = p.getAttribute('d').slice(1).split(' L').map((xy) => xy.split(',').map(Number));
                 return {target: p.dataset.target, end: d[d.length - 1]}; })"""
        )
        boxes = page.evaluate(
            """() => Object.fromEntries([...document.querySelectorAll('#graph g[data-node]')].map((g) => {
                 const r = g.querySelector('rect'), texts = [...g.querySelectorAll('text')].map((t) => {
                   const b = t.getBBox(); return [b.x, b.y, b.width, b.height]; });
                 return [g.dataset.node, {x: +r.getAttribute('x'), y: +r.getAttribute('y'),
                         w: +r.getAttribute('width'), h: +r.getAttribute('height'), texts}]; }))"""
        )
        into: dict[str, list[float]] = {}
        for edge in ends:
            box, (x, y) = boxes[edge["target"]], edge["end"]
            assert x == pytest.approx(box["x"], abs=0.5), edge  # it ends on the box's left edge
            assert box["y"] < y < box["y"] + box["h"], edge
            into.setdefault(edge["target"], []).append(y)
        booking = sorted(into["task:BookReservation"])
        assert len(booking) == 6  # six inputs, each with its own arrowhead
        assert min(b - a for a, b in itertools.pairwise(booking)) >= 10
        for name, box in boxes.items():
            for x, y, w, h in box["texts"]:
                assert x - box["x"] >= 8, f"{name}: a label touches its box's left edge"
                assert box["x"] + box["w"] - (x + w) >= 8, f"{name}: a label touches its box's right edge"
                assert y >= box["y"] and y + h <= box["y"] + box["h"], name
        overflow = page.evaluate("document.documentElement.scrollWidth")
        assert overflow <= width  # a wide DAG scrolls inside its panel, never the page
    assert not browser.errors, browser.errors


@pytest.mark.parametrize("width", WIDTHS)
def test_slot_names_break_only_between_words_and_the_agent_select_fits(
    browser: Browser, width: int, tmp_path: Path
) -> None:
    from slotgraph.models.offline import OfflineModel
    from slotgraph.server import load_hosted_agents

    from .support import BELLA, write_crashy_agent

    agents = load_hosted_agents([BELLA, write_crashy_agent(tmp_path)], model=OfflineModel())
    page = _tab_at(browser, width)
    with live_server(app_for(agents)) as base:
        _ready(page, base + "/?agent=bella_notte")
        assert page.inner_text("#agent-info") == "9 slots · 2 tasks"
        whole = page.evaluate(
            """() => [...document.querySelectorAll('#slots td.slot-name')].flatMap((td) =>
                 [...td.childNodes].filter((n) => n.nodeType === 3).map((n) => {
                   const r = document.createRange(); r.selectNodeContents(n);
                   return [n.textContent, r.getClientRects().length]; }))"""
        )
        assert whole and all(lines == 1 for _, lines in whole), whole  # no part of a name wraps inside
        fits = page.evaluate(
            """() => { const s = document.getElementById('agent');
                 const c = document.createElement('canvas').getContext('2d'), st = getComputedStyle(s);
                 c.font = st.fontSize + ' ' + st.fontFamily;
                 const r = s.getBoundingClientRect();
                 return {text: c.measureText(s.selectedOptions[0].text).width, inner: s.clientWidth,
                         left: r.left, right: r.right}; }"""
        )
        assert fits["text"] + 24 <= fits["inner"], fits  # the name and the arrow are not cut
        assert fits["left"] >= 0 and fits["right"] <= width
        page.select_option("#agent", "crashy")
        page.wait_for_selector('#graph[data-drawn] g[data-node="task:Lookup"]', state="attached")
        assert page.inner_text("#agent-info") == "3 slots · 1 task"
        assert page.url.startswith(f"{base}/?agent=crashy&session=")
    assert not browser.errors, browser.errors


@pytest.mark.parametrize("width", WIDTHS)
def test_runs_without_a_workflow_say_how_to_add_one(browser: Browser, width: int) -> None:
    page = _tab_at(browser, width)
    with live_server(app_for()) as base:
        _ready(page, base + "/runs")
        assert page.is_visible("#no-workflows")
        assert "slotgraph serve" in page.inner_text("#no-workflows")
        assert page.is_disabled("#start-fields button")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert not browser.errors, browser.errors
