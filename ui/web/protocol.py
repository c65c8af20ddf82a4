"""Messages a browser may send over a game's WebSocket, and their validation.

Every message is one JSON object with a ``type``:

==============  ==========================================  ===============================
``type``        fields                                      effect
==============  ==========================================  ===============================
``state``       none                                        the current state is sent back
``select``      ``cards``: list of card names               check a partial selection; the
                                                            state says which cards may be added
``play``        ``cards``                                   play them (phase play)
``bury``        ``cards``: the kitty's card names           bury the kitty (phase kitty)
``tribute``     ``cards``: one card name                    give it as tribute (phase tribute)
``return``      ``cards``: one card name                    return it to the giver (phase
                                                            tribute_return)
``bid``         ``index``: position in ``bid_options``      bid
``fix``         ``index``: position in ``bid_options``      刮风: fix the trump (扣主) with that fix
``give_back``   ``cards``                                   刮风: give these cards back (回牌)
``pass``        none                                        pass (bidding, a 炒地皮 turn, 扣主)
``hint``        none                                        the hint bot's suggestion
``next_hand``   none                                        deal the next hand of the match
``step``        none                                        watch mode: one AI move
``auto``        ``on``: bool                                watch mode: play on by itself
==============  ==========================================  ===============================

Anything else gets ``{"type": "error", "message": ...}`` and changes nothing. A
message may come as a text or a binary WebSocket frame; a binary one must hold
UTF-8 JSON text as well.
"""

from __future__ import annotations

import json
from typing import Any

MAX_MESSAGE_BYTES = 4096
MAX_CARDS = 64
"""The most cards a message may name: more than a dealer's hand and kitty with four decks (52 + 8, RULES.md 11)."""
MESSAGE_TYPES = ("state", "select", "play", "bury", "tribute", "return", "give_back", "bid", "fix", "pass", "hint",
                 "next_hand", "step", "auto")


class ProtocolError(ValueError):
    """A message that is not valid JSON of the protocol; the game is not touched."""


def parse_message(text: str | bytes | None) -> dict[str, Any]:
    """Decode and validate one message; raises :class:`ProtocolError` saying what is wrong."""
    if text is None:
        raise ProtocolError("empty message")
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", errors="surrogatepass"))
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"message longer than {MAX_MESSAGE_BYTES} bytes")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError("a message must be UTF-8 JSON text") from None
    try:
        message = json.loads(text)
    except json.JSONDecodeError as error:
        raise ProtocolError(f"malformed JSON: {error.msg}") from None
    except RecursionError:  # e.g. 2,000 nested brackets fit in the size limit
        raise ProtocolError("malformed JSON: nested too deeply") from None
    if not isinstance(message, dict):
        raise ProtocolError("a message must be a JSON object with a 'type'")
    kind = message.get("type")
    if kind not in MESSAGE_TYPES:
        raise ProtocolError(f"unknown message type {kind!r}; expected one of {', '.join(MESSAGE_TYPES)}")
    if kind in ("select", "play", "bury", "tribute", "return", "give_back"):
        cards = message.get("cards")
        if not isinstance(cards, list) or not all(isinstance(c, str) and len(c) <= 4 for c in cards):
            raise ProtocolError(f"'{kind}' needs 'cards': a list of card names such as [\"SA\", \"SA\"]")
        if len(cards) > MAX_CARDS:
            raise ProtocolError(f"at most {MAX_CARDS} cards in a message")
    if kind in ("bid", "fix"):
        index = message.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            raise ProtocolError(f"'{kind}' needs 'index': the position of the {kind} in bid_options")
    if kind == "auto" and not isinstance(message.get("on"), bool):
        raise ProtocolError("'auto' needs 'on': true or false")
    return message
