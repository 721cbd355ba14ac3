"""The campaign: play the books in order, replaying each until the players win it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from bot.games.base import GameResult
from bot.games.dfccg.packs import Library, load_library
from bot.games.dfccg.state import DfOptions


class CampaignState(BaseModel):
    """Carried between games by the caller (e.g. stored with the channel's game history)."""

    books: list[str]
    index: int = 0
    attempts: list[dict[str, str | int]] = Field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.index >= len(self.books)

    @property
    def current_book(self) -> str | None:
        return None if self.finished else self.books[self.index]


def new_campaign(library: Library | None = None) -> CampaignState:
    """Books by campaign number (Storm Front first) from the loaded packs."""
    return CampaignState(books=[b.key for b in (library or load_library()).campaign_books()])


def campaign_options(campaign: CampaignState, base: DfOptions | None = None) -> DfOptions:
    """The options of a campaign's next game: its difficulty and what earlier games left."""
    book = campaign.current_book
    if book is None:
        raise ValueError("The campaign is complete; start a new one.")
    return (base or DfOptions()).model_copy(update={"book": book})


def record_game(campaign: CampaignState, result: GameResult) -> CampaignState:
    """A win moves on to the next book; a loss replays the same one."""
    updated = campaign.model_copy(deep=True)
    book = updated.current_book or "?"
    updated.attempts.append(
        {"book": book, "winner": result.winner, "players": result.scores.get("players", 0)}
    )
    if result.winner == "players":
        updated.index += 1
    return updated


CAMPAIGN = "campaign"  # the lobby's book value meaning: the channel's next campaign book


def campaign_from_history(
    past: list[tuple[dict[str, Any], dict[str, Any] | None]], library: Library | None = None
) -> CampaignState:
    """Replay a channel's finished campaign games (oldest first) into the campaign so far.
    A finished campaign starts over at Storm Front."""
    campaign = new_campaign(library)
    for options, result in past:
        if not options.get("campaign") or result is None:
            continue
        if campaign.finished:
            campaign = new_campaign(library)
        if options.get("book") == campaign.current_book:
            campaign = record_game(campaign, GameResult.model_validate(result))
    return new_campaign(library) if campaign.finished else campaign
