"""A real browser (Playwright + Debian's Chromium) plays a complete hand on the web page by clicking.

Screenshots go to tests/artifacts/; docs/screenshots/web_game.png (the README's) is written when
missing or with UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from conftest import CHROMIUM, CHROMIUM_ARGS, serve_app

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts"
SCREENSHOT = ROOT / "docs" / "screenshots" / "web_game.png"

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Debian's Chromium at /usr/bin/chromium (apt-get install chromium)")


def _serve(**settings) -> Iterator[str]:
    """The web server of ``WebSettings(**settings)`` on a free 127.0.0.1 port, in a thread."""
    from ui.web.server import WebSettings, create_app

    app = create_app(WebSettings(seats=("human", "greedy", "greedy", "greedy"), ai_delay=0.05,
                                 checkpoint_dir=str(ROOT / "checkpoints"), **settings))  # absolute, as play.py
    for address in serve_app(app):
        yield f"http://{address}"


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    """The web server of the standard game."""
    yield from _serve()


@pytest.fixture(scope="module")
def page(server_url: str):
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.errors = errors
        yield page
        browser.close()


READY = """() => {
  const b = document.body.dataset;
  const result = !document.getElementById('result-panel').classList.contains('hidden');
  return result || (b.yourTurn === 'yes' && b.version !== window.__lastVersion);
}"""


def _wait_ready(page) -> str:
    """Wait for our decision (a state newer than our last action) or the result; returns what it is."""
    page.wait_for_function(READY, timeout=20_000)
    if page.is_visible("#result-panel"):
        return "result"
    return page.evaluate("document.body.dataset.phase")


def _click_cards_until_complete(page, which: int = 0) -> int:
    """Click allowed cards (the ``which``-th allowed one each time) until the Play button is enabled."""
    clicks = 0
    while page.is_disabled("#submit"):
        selected = int(page.evaluate("document.body.dataset.selected"))
        page.click(f"#hand .card.playable >> nth={which}", position={"x": 12, "y": 40})  # the visible strip
        page.wait_for_function(f"() => Number(document.body.dataset.selected) === {selected + 1}", timeout=10_000)
        clicks += 1
    return clicks


def _wait_for_lobby(page) -> None:
    """Until the lobby is shown: it starts hidden and shows once its seats and rules have come from the
    server, so what a test reads from it is the server's."""
    page.wait_for_selector("#lobby-form")
    page.wait_for_function("!document.getElementById('lobby').classList.contains('hidden')")


def _submit(page, selector: str) -> None:
    page.evaluate("window.__lastVersion = document.body.dataset.version")
    page.click(selector)


def test_browser_plays_a_complete_hand(page, server_url: str) -> None:
    page.goto(server_url)
    _wait_for_lobby(page)
    page.select_option("#seat-1", "greedy")
    page.select_option("#seat-2", "greedy")
    page.select_option("#episode", "hand")
    page.fill("#seed", "5")
    page.click("#start")
    page.evaluate("window.__lastVersion = null")
    plays = buried = 0
    screenshot_taken = False
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    while (phase := _wait_ready(page)) != "result":
        if phase in ("deal", "final_bid"):
            bids = page.locator("#bid-buttons button.bid")
            _submit(page, "#bid-buttons button.bid >> nth=0" if bids.count() else "#bid-buttons button.pass")
            continue
        # Illegal cards are greyed out: whatever is clickable, clicked in any order, ends in a legal play.
        assert page.locator("#hand .card.playable").count() > 0
        following = page.locator("#hand .card.disabled").count() > 0
        if phase == "play" and plays >= 3 and following and not screenshot_taken:
            page.wait_for_timeout(150)  # let the last card's slide-in finish
            page.screenshot(path=str(ARTIFACTS / "web_game.png"))
            screenshot_taken = True
        _click_cards_until_complete(page, -1 if phase == "kitty" else 0)  # bury the weakest cards
        buried += phase == "kitty"
        plays += phase == "play"
        _submit(page, "#submit")
    page.wait_for_timeout(300)
    page.screenshot(path=str(ARTIFACTS / "web_result.png"))
    assert screenshot_taken
    assert plays == 25 and buried == 1  # seed 5: taking the first bid makes us the dealer
    assert "Defenders took" in page.inner_text("#result-summary")
    assert page.inner_text("#result-title") == "Hand 1 over"  # a one-hand game is no match
    tricks = page.locator("#trick-history > li")
    assert tricks.count() >= 15 and tricks.nth(0).locator(".row").count() == 4  # the hand's record, every trick
    href = page.get_attribute("#result-log", "href")
    log = page.request.get(server_url + href).json()
    assert sum(d["action"] == "play" and d["seat"] == 0 for d in log["decisions"]) >= 25
    assert page.errors == []
    if not SCREENSHOT.exists() or os.environ.get("UPDATE_SCREENSHOTS") == "1":
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ARTIFACTS / "web_game.png", SCREENSHOT)


def test_browser_watch_mode(page, server_url: str) -> None:
    page.goto(server_url)
    _wait_for_lobby(page)
    page.check("input[name=mode][value=watch]")
    page.select_option("#seat-1", "random")
    page.select_option("#seat-2", "expert")
    page.select_option("#episode", "hand")
    page.click("#start")
    page.wait_for_selector("#watch-controls:not(.hidden)")
    version = page.evaluate("document.body.dataset.version")
    page.click("#step")
    page.wait_for_function(f"() => document.body.dataset.version !== '{version}'")
    page.click("#auto")
    page.wait_for_selector("#trick .slot .card", timeout=20_000)
    assert page.locator(".seat.north .card").count() > 0  # spectators see every hand
    page.screenshot(path=str(ARTIFACTS / "web_watch.png"))
    assert page.errors == []


def test_seat_menus_name_checkpoints_without_server_paths(page, server_url: str) -> None:
    """The menus offer the shipped checkpoint by name with its card's facts; no path reaches the page."""
    page.goto(server_url)
    _wait_for_lobby(page)
    page.wait_for_function("() => document.querySelectorAll('#seat-1 option').length > 1")
    options = page.eval_on_selector_all("#seat-1 option", "os => os.map((o) => [o.value, o.textContent])")
    for value, label in options:
        assert "/" not in value and ".pt" not in value + label and str(ROOT) not in label, (value, label)
    labels = dict(options)
    assert labels["dmc_cpu60"].startswith("dmc_cpu60 · 8.4M frames · +0.38 vs random")
    values = [value for value, _ in options]
    strongest = "relabel:plans:dmc_play_cpu145"  # the network player built around a checkpoint, next to it
    assert values.index(strongest) == values.index("dmc_play_cpu145") + 1
    assert labels[strongest].startswith("dmc_play_cpu145 · burial planned, suits renamed · ")
    assert "relabel:plans:dmc_cpu60" not in labels  # no value head: no planned burial
    page.select_option("#seat-1", "dmc_cpu60")
    page.select_option("#seat-2", "greedy")
    page.click("#start")
    page.wait_for_selector(".seat.east .plate")
    assert "dmc_cpu60" in page.inner_text(".seat.east .plate")
    assert str(ROOT) not in page.content()
    assert page.errors == []


def _gold_ink(pixels: np.ndarray) -> np.ndarray:
    """Where the title's gold (#f2c14e) is, whatever the dark background behind it."""
    r, g, b = (pixels[..., i].astype(int) for i in range(3))
    return (r > 170) & (g > 130) & (b < 140) & (r - b > 80)


def _longest_run(row: np.ndarray) -> int:
    """The longest stretch of consecutive True in a row of pixels."""
    longest = current = 0
    for inked in row:
        current = current + 1 if inked else 0
        longest = max(longest, current)
    return longest


def test_title_glyphs_are_drawn_without_a_cjk_font(page, server_url: str) -> None:
    """The title's 升级 is drawn with strokes, not taken from a font the machine may lack.

    Without a CJK font, text shows two empty boxes. So: no text in the title to
    fall back, and on screen the strokes are there, 升's long horizontal across the
    middle of the first character (an empty box has only its two sides there), and
    a second character that has ink of its own and differs from the first.
    """
    from PIL import Image

    page.goto(server_url)
    _wait_for_lobby(page)
    for selector in ("#topbar .brand .cn", "#lobby h1 .cn"):
        box = page.locator(selector).bounding_box()
        assert box and box["width"] > 15 and box["height"] > 10, (selector, box)
    drawn = page.evaluate("""() => {
      const title = document.querySelector('#lobby h1 .cn');
      const text = [...title.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent);
      const strokes = title.querySelector('svg use');
      return {text: text.join('').trim(), width: strokes ? strokes.getBBox().width : 0,
              label: title.querySelector('svg')?.getAttribute('aria-label')};
    }""")
    assert drawn["text"] == "" and drawn["width"] > 0 and drawn["label"] == "升级", drawn

    title = page.locator("#lobby h1 .cn")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    title.screenshot(path=str(ARTIFACTS / "web_title.png"))
    ink = _gold_ink(np.asarray(Image.open(io.BytesIO(title.screenshot())).convert("RGB")))
    rows, columns = np.nonzero(ink)
    assert rows.size, "the title has no ink"
    ink = ink[rows.min():rows.max() + 1, columns.min():columns.max() + 1]
    height, width = ink.shape
    first, second = ink[:, :width // 2], ink[:, width - width // 2:]
    middle = first[int(height * 0.4):int(height * 0.6) + 1]
    assert max(_longest_run(row) for row in middle) >= 0.6 * first.shape[1]  # 升's 一
    assert second.mean() > 0.04
    assert np.count_nonzero(first != second) > 0.05 * first.size


@pytest.fixture(scope="module")
def chaodipi_url() -> Iterator[str]:
    """A second server whose games play the 炒地皮 option (RULES.md 9)."""
    yield from _serve(rules={"chaodipi": True})


def test_browser_rebids_for_the_kitty_and_buries_it(page, chaodipi_url: str) -> None:
    # Seed 5: passing every bid of the deal, we are offered a 炒地皮 bid after the dealer's burial;
    # taking it hands us the kitty to bury, and the hand plays to its end.
    page.goto(chaodipi_url)
    _wait_for_lobby(page)
    page.select_option("#episode", "hand")
    page.fill("#seed", "5")
    page.click("#start")
    page.evaluate("window.__lastVersion = null")
    rebids = buried = plays = 0
    while (phase := _wait_ready(page)) != "result":
        if phase in ("deal", "final_bid"):
            _submit(page, "#bid-buttons button.pass")
            continue
        if phase == "rebid":
            assert page.locator("#bid-buttons button.bid").count() > 0
            _submit(page, "#bid-buttons button.bid >> nth=0")
            rebids += 1
            continue
        _click_cards_until_complete(page, -1 if phase == "kitty" else 0)
        buried += phase == "kitty"
        plays += phase == "play"
        _submit(page, "#submit")
    assert rebids >= 1 and buried >= 1 and plays > 0
    assert "Defenders took" in page.inner_text("#result-summary")
    assert page.errors == []


@pytest.fixture(scope="module")
def guafeng_url() -> Iterator[str]:
    """A third server whose games are 刮风 (RULES-guafeng.md)."""
    yield from _serve(rules={"ruleset": "guafeng"})


GUAFENG_SEED = 6
"""A deal in which the person, among random bots, is offered a fix (taken), then takes up the kitty and buries it."""


def test_browser_plays_a_guafeng_hand(page, guafeng_url: str) -> None:
    # The person takes the first fix offered, passes every later fix, gives back and buries with the
    # cards the page allows, and leads and follows with the first allowed cards until the hand is scored.
    page.goto(guafeng_url)
    _wait_for_lobby(page)
    assert page.input_value("#rules") == "guafeng"
    page.select_option("#seat-1", "random")
    page.select_option("#seat-2", "random")
    page.select_option("#episode", "hand")
    page.fill("#seed", str(GUAFENG_SEED))
    page.click("#start")
    page.evaluate("window.__lastVersion = null")
    decisions: list[str] = []
    while _wait_ready(page) != "result":
        decision = page.evaluate("document.body.dataset.decision")
        decisions.append(decision)
        if decision == "fix":
            assert "扣主" in page.inner_text("#bid-title")
            first = decisions.count("fix") == 1
            _submit(page, "#bid-buttons button.bid >> nth=0" if first else "#bid-buttons button.pass")
            continue
        if decision == "play" and decisions.count("play") == 1:
            assert "trump" in page.inner_text("#prompt")
        if decision == "bury":
            assert "kitty" in page.inner_text("#prompt")
            page.screenshot(path=str(ARTIFACTS / "web_guafeng_bury.png"))
        _click_cards_until_complete(page, -1 if decision == "bury" else 0)
        _submit(page, "#submit")
    page.wait_for_timeout(300)
    page.screenshot(path=str(ARTIFACTS / "web_guafeng_result.png"))
    assert decisions.count("fix") >= 1 and decisions.count("bury") == 1 and decisions.count("play") >= 10, decisions
    summary = page.inner_text("#result-summary")
    assert "Kitty (捡底)" in summary and "Defenders' points" in summary
    assert page.inner_text("#fact-dealer-label") == "Stage team"
    assert page.errors == []
