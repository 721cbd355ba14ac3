"""The campaign: play the books in order, replaying each until the players win it."""

from __future__ import annotations

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
