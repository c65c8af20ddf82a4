"""The phases of a standard hand (RULES.md 4-9), as the hand, its views and the masks name them."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """Where a hand stands."""

    DEAL = "deal"            # dealing, with bidding decision points
    FINAL_BID = "final_bid"  # one more bidding round after the deal
    TRIBUTE = "tribute"      # a tribute hand: the defenders give their highest card (RULES.md 9)
    TRIBUTE_RETURN = "tribute_return"  # the dealer returns one card to each giver
    KITTY = "kitty"          # the dealer (or a 炒地皮 bidder) buries the kitty
    REBID = "rebid"          # 炒地皮: re-bidding for the kitty after the burial (RULES.md 9)
    PLAY = "play"            # the tricks
    DONE = "done"            # scored

    @property
    def is_bidding(self) -> bool:
        """The deal's bidding: the phases in which cards are dealt with bids, and the final round."""
        return self in (Phase.DEAL, Phase.FINAL_BID)

    @property
    def takes_bids(self) -> bool:
        """Whether the decision of the phase is a bid or a pass: the deal's bidding and 炒地皮."""
        return self in (Phase.DEAL, Phase.FINAL_BID, Phase.REBID)


BIDDING_PHASES = (Phase.DEAL, Phase.FINAL_BID)
"""The phases of the deal's bidding (:attr:`Phase.is_bidding`)."""
