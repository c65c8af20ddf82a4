"""Real Chromium on the record of a hand: the replay from the result panel, the match's score history, the kitty's
cards marked in the dealer's hand before the burial, the lobby's AI speed and away choice.

Screenshots go to tests/artifacts/ (web_replay_phone.png, web_replay_desktop.png, web_kitty_marks.png).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.test_browser import ARTIFACTS, CHROMIUM, _serve, _submit, _wait_for_lobby, _wait_ready
from tests.test_browser_rooms import _page

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Debian's Chromium at /usr/bin/chromium (apt-get install chromium)")
SIZES = {"phone": (390, 844), "desktop": (1440, 900)}


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    yield from _serve()



@pytest.mark.parametrize("size", list(SIZES))
def test_a_finished_hand_is_replayed_trick_by_trick_from_the_result_panel(browser, server_url: str,
                                                                          size: str) -> None:
    width, height = SIZES[size]
    page = _page(browser, width, height)
    page.goto(server_url)
    _wait_for_lobby(page)
    page.check("input[name=mode][value=watch]")
    page.select_option("#episode", "hand")
    page.select_option("#ai-speed", "none")
    page.fill("#seed", "5")
    page.click("#start")
    page.wait_for_selector("#watch-controls:not(.hidden)")
    page.click("#auto")
    page.wait_for_selector("#result-panel:not(.hidden)", timeout=60_000)
    rows = page.locator("#score-history tbody tr")
    assert rows.count() == 1 and rows.nth(0).locator("td").nth(0).inner_text() == "1"
    page.click("#replay-hand")
    page.wait_for_selector("#replay:not(.hidden) .replay-seat .card")
    assert page.evaluate("document.body.dataset.replayTrick") == "1"
    assert page.is_disabled("#replay-prev") and page.is_enabled("#replay-next")
    seats = page.locator(".replay-seat")
    assert seats.count() == 4
    for i in range(4):  # every seat: its play and the 25 cards it held before the first trick
        seat = seats.nth(i)
        assert seat.locator(".fan.played .card").count() >= 1
        assert seat.locator(".fan.held .card").count() == 25
    assert page.locator(".replay-seat .badge.led").count() == 1 and page.locator(".replay-seat .badge.won").count() == 1
    assert "won the trick" in page.inner_text("#replay-note")
    page.click("#replay-next")
    assert page.evaluate("document.body.dataset.replayTrick") == "2"
    assert "trick 2 of" in page.inner_text("#replay-title")
    held = page.locator(".replay-seat .fan.held").nth(0).locator(".card").count()
    assert held < 25
    page.screenshot(path=str(ARTIFACTS / f"web_replay_{size}.png"))
    overflow = page.evaluate("() => document.documentElement.scrollWidth")
    assert overflow <= width
    page.click("#replay-prev")
    assert page.evaluate("document.body.dataset.replayTrick") == "1"
    while page.is_enabled("#replay-next"):  # to the last trick: the kitty and the total
        page.click("#replay-next")
    assert "Kitty" in page.inner_text("#replay-note") and "in all" in page.inner_text("#replay-note")
    page.click("#replay-close")
    assert page.is_hidden("#replay")
    rows.nth(0).locator("button.replay").click()  # the score history's replay of the same hand
    page.wait_for_selector("#replay:not(.hidden)")
    assert page.evaluate("document.body.dataset.replayTrick") == "1"
    page.keyboard.press("Escape")
    assert page.is_hidden("#replay")
    assert page.errors == []
    page.context.close()


def test_the_dealer_sees_which_cards_came_from_the_kitty(browser, server_url: str) -> None:
    page = _page(browser, 1440, 900)
    page.goto(server_url)
    _wait_for_lobby(page)
    for option in ("none", "normal", "slow"):
        assert page.locator(f"#ai-speed option[value={option}]").count() == 1
    assert page.locator("#away option[value=ai]").count() == 1
    page.select_option("#episode", "hand")
    page.select_option("#away", "ai")
    page.fill("#seed", "5")
    page.click("#start")
    page.evaluate("window.__lastVersion = null")
    while (phase := _wait_ready(page)) in ("deal", "final_bid"):  # seed 5: the first bid makes us the dealer
        bids = page.locator("#bid-buttons button.bid")
        _submit(page, "#bid-buttons button.bid >> nth=0" if bids.count() else "#bid-buttons button.pass")
    assert phase == "kitty"
    page.wait_for_timeout(300)
    assert page.locator("#hand .card").count() == 33
    assert page.locator("#hand .card.from-kitty").count() == 8
    page.screenshot(path=str(ARTIFACTS / "web_kitty_marks.png"))
    assert page.errors == []
    page.context.close()
