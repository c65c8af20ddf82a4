"""Real Chromium on the page: friends joining by their links, refusals shown in the lobby, the phone layout.

Screenshots of a 25-card hand at 390x844 (a phone) and 1440x900 go to tests/artifacts/ and, when missing or
with UPDATE_SCREENSHOTS=1, to docs/screenshots/web_phone.png and web_desktop.png.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

from tests.test_browser import ARTIFACTS, CHROMIUM, ROOT, _serve, _submit, _wait_for_lobby

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Debian's Chromium at /usr/bin/chromium (apt-get install chromium)")
SCREENSHOTS = ROOT / "docs" / "screenshots"
SIZES = {"phone": (390, 844), "desktop": (1440, 900)}


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    yield from _serve()


def _page(browser, width: int = 1440, height: int = 900):
    """A page in its own browser context (its own storage: another person's browser)."""
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    return page


def _start(page, server_url: str, seats: list[str], seed: int = 5) -> None:
    page.goto(server_url)
    _wait_for_lobby(page)
    for seat, spec in enumerate(seats):
        page.select_option(f"#seat-{seat}", spec)
    page.select_option("#episode", "hand")
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_function("() => document.body.dataset.version !== undefined")


def test_a_friend_joins_by_the_link_and_a_copied_address_only_watches(browser, server_url: str) -> None:
    creator = _page(browser)
    _start(creator, server_url, ["human", "greedy", "human", "greedy"])
    creator.wait_for_selector("#room:not(.hidden) #room-links input")
    links = creator.eval_on_selector_all("#room-links input", "inputs => inputs.map((i) => i.value)")
    assert len(links) == 2 and "token=" in links[0] and "token=" not in links[1], links  # North's, spectators'
    assert "token=" not in creator.url  # the address bar never holds the seat

    friend = _page(browser, 390, 844)
    friend.goto(links[0])
    friend.wait_for_function("() => document.body.dataset.version !== undefined")
    friend.wait_for_selector(".seat.south .plate")
    assert friend.inner_text(".seat.south .plate .who").startswith("You")
    assert friend.inner_text(".seat.north .plate .who").startswith("North (human)")
    assert friend.locator("#hand .card").count() == 25 or friend.locator("#hand .card").count() > 0
    assert "token=" not in friend.url

    watcher = _page(browser)
    watcher.goto(creator.url)  # the creator's address, copied
    watcher.wait_for_function("() => document.body.dataset.version !== undefined")
    assert watcher.locator("#hand .card").count() == 0
    assert "You" not in watcher.inner_text("#felt")

    friend.reload()  # a reload keeps the seat (the token stays in that browser)
    friend.wait_for_function("() => document.body.dataset.version !== undefined")
    assert friend.inner_text(".seat.south .plate .who").startswith("You") and friend.locator("#hand .card").count()
    for page in (creator, friend, watcher):
        assert page.errors == []
        page.context.close()


@pytest.mark.parametrize("address, reason", [("#game={game}&token=guessed", "token"),
                                             ("#game=nosuchgame", "no game")])
def test_a_bad_link_shows_the_servers_reason_in_the_lobby(browser, server_url: str, address: str,
                                                          reason: str) -> None:
    creator = _page(browser)
    _start(creator, server_url, ["human", "greedy", "greedy", "greedy"])
    game = creator.url.split("#game=")[1]
    visitor = _page(browser)
    visitor.goto(server_url + "/" + address.format(game=game))
    visitor.wait_for_selector("#lobby-notice:not(.hidden)")
    assert reason in visitor.inner_text("#lobby-notice")
    assert visitor.is_visible("#lobby-form")
    for page in (creator, visitor):
        assert page.errors == []
        page.context.close()


OVERFLOW = """() => {
  const width = window.innerWidth;
  const felt = document.getElementById('felt');
  const out = [];
  for (const node of document.body.querySelectorAll('*')) {
    if (felt.contains(node) && node !== felt) continue;  // the table clips what it holds
    const box = node.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const name = `${node.tagName}#${node.id}.${node.className}`;
    if (box.left < -1 || box.right > width + 1) out.push(`${name} ${box.left}-${box.right}`);
  }
  return {out, scroll: document.documentElement.scrollWidth, width};
}"""

CARDS_REACHABLE = """() => {
  const cards = [...document.querySelectorAll('#hand .card')];
  const bad = [];
  for (const card of cards) {
    const box = card.getBoundingClientRect();
    const x = box.left + Math.min(10, box.width / 2), y = box.top + 24;  // the strip a card always shows
    const hit = document.elementFromPoint(x, y);
    const inside = box.left >= 0 && box.right <= window.innerWidth && box.top >= 0 && box.bottom <= window.innerHeight;
    if (!inside || !hit || hit.closest('.card') !== card) bad.push(`${card.dataset.card} ${box.left},${box.top}`);
  }
  return {count: cards.length, bad};
}"""


@pytest.mark.parametrize("size", list(SIZES))
def test_a_25_card_hand_fits_and_every_card_can_be_clicked(browser, server_url: str, size: str) -> None:
    width, height = SIZES[size]
    page = _page(browser, width, height)
    page.goto(server_url)
    _wait_for_lobby(page)
    lobby = page.evaluate(OVERFLOW)
    assert lobby["out"] == [] and lobby["scroll"] <= width, lobby
    page.select_option("#episode", "hand")
    page.fill("#seed", "5")
    page.click("#start")
    page.evaluate("window.__lastVersion = null")
    while True:  # pass every bid: someone else deals, and we hold 25 cards when the play starts
        page.wait_for_function("() => document.body.dataset.yourTurn === 'yes' "
                               "&& document.body.dataset.version !== window.__lastVersion", timeout=30_000)
        if page.evaluate("document.body.dataset.phase") == "play":
            break
        _submit(page, "#bid-buttons button.pass")
    page.wait_for_timeout(400)  # the cards' slide-in
    reach = page.evaluate(CARDS_REACHABLE)
    assert reach["count"] == 25 and reach["bad"] == [], reach
    layout = page.evaluate(OVERFLOW)
    assert layout["out"] == [] and layout["scroll"] <= width, layout
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / f"web_{size}.png"
    page.screenshot(path=str(shot))
    # Clicking works on the phone as on the desktop: the first allowed card is selected, Play sends it and
    # the turn is over at once (no Play left enabled while the trick animates).
    selected = int(page.evaluate("document.body.dataset.selected"))
    page.click("#hand .card.playable >> nth=0", position={"x": 10, "y": 24})
    page.wait_for_function(f"() => Number(document.body.dataset.selected) === {selected + 1}")
    while page.is_disabled("#submit"):
        page.click("#hand .card.playable >> nth=0", position={"x": 10, "y": 24})
        page.wait_for_timeout(150)
    page.click("#submit")
    after = page.evaluate("() => ({disabled: document.getElementById('submit').disabled, "
                          "playable: document.querySelectorAll('#hand .card.playable').length, "
                          "turn: document.body.dataset.yourTurn})")
    assert after == {"disabled": True, "playable": 0, "turn": "no"}, after
    assert page.errors == []
    target = SCREENSHOTS / f"web_{size}.png"
    if not target.exists() or os.environ.get("UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, target)
    page.context.close()


def test_big_and_little_jokers_differ_at_every_size(browser, server_url: str) -> None:
    page = _page(browser)
    page.goto(server_url)
    _wait_for_lobby(page)
    drawn = page.evaluate("""() => ['', 'small', 'mini'].map((size) => ['BJ', 'LJ'].map((name) => {
      const card = cardEl({c: name, t: true}, size);
      document.body.append(card);
      const corner = card.querySelector('.corner');
      const after = getComputedStyle(corner, '::after').content;
      const word = size === 'mini' ? after : corner.textContent;
      const seen = {word, pip: card.querySelector('.pip').textContent, color: getComputedStyle(card).color,
                    shown: corner.getBoundingClientRect().width > 0};
      card.remove();
      return seen;
    }))""")
    for big, little in drawn:
        assert big["shown"] and little["shown"]
        assert big["word"] != little["word"] and big["pip"] != little["pip"] and big["color"] != little["color"]
    assert page.errors == []
    page.context.close()
