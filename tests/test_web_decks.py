"""The web page with three and four decks (RULES.md 11): the lobby's deck count, long hands, triples.

A real Chromium plays a three-deck hand to its end at 1440x900 (bidding the strongest bid, burying and
playing what the page's Hint selects, and one triple clicked copy by copy), and lays out 39-, 52- and
60-card hands at 1440x900 and 390x844: nothing outside the window, every card reachable by its strip.
Screenshots go to tests/artifacts/ and, when missing or with UPDATE_SCREENSHOTS=1, to
docs/screenshots/web_three_decks_desktop.png and web_three_decks_phone.png.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.test_browser import ARTIFACTS, CHROMIUM, ROOT, _serve, _submit, _wait_for_lobby, _wait_ready
from tests.test_browser_rooms import CARDS_REACHABLE, OVERFLOW

SCREENSHOTS = ROOT / "docs" / "screenshots"
SIZES = {"phone": (390, 844), "desktop": (1440, 900)}
DEALER_SEEDS = {3: 4, 4: 3}
"""Seeds where taking the strongest bid against three greedy bots makes us the dealer (we bury); with three
decks we hold a triple at the burial and at our first lead."""
browser_only = pytest.mark.skipif(not CHROMIUM.exists(),
                                  reason="needs Debian's Chromium at /usr/bin/chromium (apt-get install chromium)")


# ---------------------------------------------------------------------- without a browser
def test_options_offer_the_deck_counts_with_their_deal() -> None:
    from ui.web.server import WebSettings, create_app

    client = TestClient(create_app(WebSettings(checkpoint_dir=str(ROOT / "checkpoints"))))
    choices = client.get("/api/options").json()["deck_choices"]
    assert [c["decks"] for c in choices] == [1, 2, 3, 4]
    assert choices[2]["text"] == "3 decks · 39 cards a hand · kitty of 6"
    game = client.post("/api/games", json={"seats": ["human", "random", "random", "random"], "seed": 1,
                                           "options": {"decks": 4}}).json()
    with client.websocket_connect(f"/ws/{game['id']}?token={game['links'][0]['token']}") as socket:
        state = socket.receive_json()
    assert state["layout"] | {"num_tricks": 0} == {"players": 4, "decks": 4, "hand_size": 52, "kitty_size": 8,
                                                   "num_tricks": 0, "points": 400}
    assert state["decks_text"] == "4 decks" and state["rules_text"].startswith("4 decks · 52 cards a hand")
    refused = client.post("/api/games", json={"options": {"decks": 5}})
    assert refused.status_code == 400 and "decks" in refused.json()["detail"]


def test_a_dealer_may_name_every_card_of_a_four_deck_hand_and_kitty() -> None:
    from ui.web.protocol import parse_message

    message = parse_message('{"type": "select", "cards": [' + ", ".join(['"SA"'] * 60) + "]}")
    assert len(message["cards"]) == 60


def test_bids_of_three_and_four_cards_in_words() -> None:
    from env.standard.bidding import Bid
    from ui.narrate import bid_text

    words = {str(bid): bid_text(bid) for bid in (Bid(1, 1), Bid(2, 1), Bid(5, 0), Bid(8, 3), Bid(3, None),
                                                 Bid(4, None), Bid(6, None), Bid(10, None))}
    assert words == {"single H": "one heart", "pair H": "a pair of hearts", "triple S": "three spades",
                     "quad D": "four diamonds", "LJ pair": "two little jokers (no trump)",
                     "BJ pair": "two big jokers (no trump)", "LJ triple": "three little jokers (no trump)",
                     "BJ quad": "four big jokers (no trump)"}


# ---------------------------------------------------------------------- in Chromium
@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    yield from _serve()  # the AI seats: greedy bots


def _page(browser, size: str):
    width, height = SIZES[size]
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    return page


def _start(page, server_url: str, decks: int) -> None:
    """A one-hand game of ``decks`` decks against three greedy bots, chosen in the lobby."""
    page.goto(server_url)
    _wait_for_lobby(page)
    page.wait_for_function("() => document.querySelectorAll('#opt-decks option').length === 4")
    assert "39 cards a hand" in page.inner_text("#opt-decks")  # the deals come from the server's rules
    page.select_option("#opt-decks", str(decks))
    page.select_option("#episode", "hand")
    page.fill("#seed", str(DEALER_SEEDS[decks]))
    page.click("#start")
    page.evaluate("window.__lastVersion = null")


def _bid_strongest(page) -> None:
    bids = page.locator("#bid-buttons button.bid")
    _submit(page, "#bid-buttons button.bid >> nth=-1" if bids.count() else "#bid-buttons button.pass")


def _hinted(page) -> None:
    """Select what the Hint suggests (the page sends it as a selection) and submit it."""
    page.click("#hint")
    page.wait_for_function("() => !document.getElementById('submit').disabled", timeout=10_000)
    _submit(page, "#submit")


def _copies(page) -> dict[str, int]:
    """How many copies of each card the hand shows as playable."""
    names = page.eval_on_selector_all("#hand .card.playable", "cards => cards.map((c) => c.dataset.card)")
    return {name: names.count(name) for name in set(names)}


def _click_copies(page, copies: int) -> str | None:
    """Click ``copies`` copies of a card the hand holds that often, one click per copy; the card (``None``:
    no card is held that often)."""
    held = _copies(page)
    name = next((n for n, count in sorted(held.items()) if count >= copies), None)
    if name is None:
        return None
    for clicked in range(1, copies + 1):
        page.click(f'#hand .card.playable[data-card="{name}"] >> nth=0', position={"x": 10, "y": 24})
        page.wait_for_function(f"() => Number(document.body.dataset.selected) === {clicked}")
    selected = page.eval_on_selector_all("#hand .card.selected", "cs => cs.map((c) => c.dataset.card)")
    assert selected == [name] * copies, selected
    return name


def _check_layout(page, size: str, cards: int) -> None:
    page.wait_for_timeout(400)  # the cards' slide-in
    reach = page.evaluate(CARDS_REACHABLE)
    assert reach["count"] == cards and reach["bad"] == [], reach
    layout = page.evaluate(OVERFLOW)
    assert layout["out"] == [] and layout["scroll"] <= SIZES[size][0], layout
    for button in ("#hint", "#submit"):  # the actions stay clear of the side panels and the window's edge
        box = page.locator(button).bounding_box()
        hit = page.evaluate(f"""() => {{ const b = document.querySelector('{button}').getBoundingClientRect();
          return document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2)?.id; }}""")
        assert box["y"] + box["height"] <= SIZES[size][1] and hit == button[1:], (button, box, hit)


def _keep(shot, name: str) -> None:
    target = SCREENSHOTS / name
    if not target.exists() or os.environ.get("UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, target)


@browser_only
def test_browser_plays_a_three_deck_hand(browser, server_url: str) -> None:
    page = _page(browser, "desktop")
    _start(page, server_url, 3)
    plays = buried = triples = 0
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "web_three_decks_desktop.png"
    shot.unlink(missing_ok=True)
    while (phase := _wait_ready(page)) != "result":
        if phase in ("deal", "final_bid"):
            _bid_strongest(page)
            continue
        if phase == "kitty":
            _check_layout(page, "desktop", 45)  # hand and kitty: 39 + 6
            name = _click_copies(page, 3)
            page.click("#hand .card.selected >> nth=0", position={"x": 10, "y": 24})  # one copy back
            page.wait_for_function("() => Number(document.body.dataset.selected) === 2")
            selected = page.eval_on_selector_all("#hand .card.selected", "cs => cs.map((c) => c.dataset.card)")
            assert selected == [name] * 2, selected
            page.click("#clear")
            page.wait_for_function("() => Number(document.body.dataset.selected) === 0")
            buried += 1
        if phase == "play" and not page.locator("#hand .card.disabled").count() and not triples:
            name = _click_copies(page, 3)  # our first lead: a triple
            if name is not None:
                assert page.is_enabled("#submit")  # a triple is a lead
                _submit(page, "#submit")
                triples += 1
                plays += 1
                page.wait_for_selector(f'#trick .slot.south .card[data-card="{name}"]')
                assert page.locator("#trick .slot.south .card").count() == 3
                continue
        if phase == "play" and page.locator("#hand .card.disabled").count() and not shot.exists():
            page.wait_for_timeout(150)  # let the last card's slide-in finish
            _check_layout(page, "desktop", page.locator("#hand .card").count())
            page.screenshot(path=str(shot))  # our first follow, the trick so far on the table
        _hinted(page)
        plays += phase == "play"
    page.wait_for_timeout(300)
    page.screenshot(path=str(ARTIFACTS / "web_three_decks_result.png"))
    assert buried == 1 and triples == 1 and plays >= 10 and shot.exists(), (buried, triples, plays)
    assert "Defenders took" in page.inner_text("#result-summary")
    assert page.inner_text("#result-points").strip().isdigit()
    assert "3 decks" in page.inner_text("#status-line")
    assert page.inner_text("#fact-rules").startswith("3 decks · 39 cards a hand")
    assert page.locator("#result-kitty .card").count() == 6
    assert page.errors == []
    _keep(shot, "web_three_decks_desktop.png")
    page.context.close()


@browser_only
@pytest.mark.parametrize("decks", [3, 4])
def test_long_hands_fit_a_phone(browser, server_url: str, decks: int) -> None:
    """The dealer's hand and kitty (45 or 60 cards), then the hand (39 or 52), at 390x844: every card
    reachable, nothing wider than the window."""
    page = _page(browser, "phone")
    _start(page, server_url, decks)
    hand = {3: 39, 4: 52}[decks]
    kitty = {3: 6, 4: 8}[decks]
    while (phase := _wait_ready(page)) in ("deal", "final_bid"):
        _bid_strongest(page)
    assert phase == "kitty"
    _check_layout(page, "phone", hand + kitty)
    _hinted(page)
    while (phase := _wait_ready(page)) != "play":
        _hinted(page)
    _check_layout(page, "phone", page.locator("#hand .card").count())
    assert hand - 1 <= page.locator("#hand .card").count() <= hand  # we lead or follow the first trick
    shot = ARTIFACTS / f"web_{'three' if decks == 3 else 'four'}_decks_phone.png"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shot))
    assert page.errors == []
    if decks == 3:
        _keep(shot, "web_three_decks_phone.png")
    page.context.close()


@browser_only
def test_a_four_deck_burial_fits_the_desktop(browser, server_url: str) -> None:
    page = _page(browser, "desktop")
    _start(page, server_url, 4)
    while (phase := _wait_ready(page)) in ("deal", "final_bid"):
        _bid_strongest(page)
    assert phase == "kitty"
    _check_layout(page, "desktop", 60)
    page.screenshot(path=str(ARTIFACTS / "web_four_decks_burial.png"))
    assert page.errors == []
    page.context.close()
