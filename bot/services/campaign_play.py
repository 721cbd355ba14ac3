"""A campaign's play state: sessions and milestones, game aspects, GM points carried over
between scenes. One row per campaign, written with its version, parsed once per version."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy.exc import IntegrityError
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.cache import parsed, remember
from bot.db.models.scenes import CampaignPlayRow
from bot.db.raw import RawUnit
from bot.db.repos.versioned import save_versioned_in
from bot.fate import recovery
from bot.fate.aspects import Aspect
from bot.services.campaigns import StaleError


class CampaignPlay(BaseModel):
    """Campaign-wide play state: sessions and milestones, game aspects, GM points carried over."""

    milestones: recovery.Campaign = Field(default_factory=recovery.Campaign)
    game_aspects: list[Aspect] = Field(default_factory=list)
    next_game_number: int = 1
    carried_gm_points: int = 0  # points for the next scene whatever it holds (`carried` option)
    # A major NPC's concession and hostile-invoke points (character id -> points): they go into
    # the GM pool of the next scene that includes that NPC, as the seed says.
    npc_carried: dict[str, int] = Field(default_factory=dict)

    def carried_by(self, character_ids: list[int]) -> int:
        return sum(self.npc_carried.get(str(i), 0) for i in character_ids)

    def without_carried_of(self, character_ids: list[int]) -> CampaignPlay:
        left = {k: v for k, v in self.npc_carried.items() if int(k) not in character_ids}
        return self.model_copy(update={"npc_carried": left})

    def without_character(self, character_id: int) -> CampaignPlay:
        """What a deleted character leaves: nothing waits for it (its id may be handed to
        the next new character)."""
        key = str(character_id)
        grants = [g for g in self.milestones.grants if g.character_id != key]
        milestones = self.milestones.model_copy(update={"grants": grants})
        return self.without_carried_of([character_id]).model_copy(update={"milestones": milestones})


def parsed_play_in(
    session: AsyncSession | RawUnit, campaign_id: int, version: int | None, text: str | None
) -> CampaignPlay:
    """A campaign's play state as read (none stored yet: the empty one), parsed once per
    version."""
    if version is None or text is None:
        return CampaignPlay()
    play: CampaignPlay | None = parsed(session, "play", campaign_id, version)
    if play is None:
        play = CampaignPlay.model_validate_json(text)
        remember(session, "play", campaign_id, version, play)
    return play


async def read_play_in(session: AsyncSession, campaign_id: int) -> CampaignPlay:
    """The campaign's play state for reading (no row is created by a read; parsed once per
    version: every invoke menu reads it)."""
    row = await session.get(CampaignPlayRow, campaign_id)
    if row is None:
        return CampaignPlay()
    return parsed_play_in(session, campaign_id, row.version, row.state_json)


async def insert_first_in(session: AsyncSession, row: Any) -> None:
    """Create a per-campaign/per-character row on first use; a simultaneous first use by
    someone else becomes a StaleError, which `retry_stale` turns into a fresh attempt."""
    session.add(row)
    try:
        await session.flush()
    except IntegrityError:
        raise StaleError("Someone else set this up at the same moment; try again.") from None


async def load_play_in(
    session: AsyncSession, campaign_id: int
) -> tuple[CampaignPlayRow, CampaignPlay]:
    """The campaign's play state row (GM points carried, ...) and its parsed state."""
    row = await session.get(CampaignPlayRow, campaign_id)
    if row is None:
        row = CampaignPlayRow(campaign_id=campaign_id, state_json=CampaignPlay().model_dump_json())
        await insert_first_in(session, row)
    return row, parsed_play_in(session, campaign_id, row.version, row.state_json)


async def save_play_in(session: AsyncSession, row: CampaignPlayRow, play: CampaignPlay) -> None:
    """Write the campaign's play state."""
    await save_versioned_in(
        session,
        row,
        "campaign_id",
        {"state_json": play.model_dump_json()},
        "Someone changed the campaign at the same moment; try again.",
    )
