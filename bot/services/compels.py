"""Compel offers: stored rows answered by buttons, with the fate points each answer moves."""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import ColumnElement
from sqlmodel import col, func, or_, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.bounded import Bounded
from bot.db.engine import Database
from bot.db.models.campaigns import Campaign, CharacterRow
from bot.db.models.scenes import CompelOfferRow, SceneRow
from bot.db.repos.versioned import save_versioned_in
from bot.errors import RuleError
from bot.fate import compels
from bot.fate.aspects import GM
from bot.fate.compels import CompelOffer, CompelState
from bot.fate.economy import FatePointChange
from bot.fate.words import plural
from bot.services.aspects_in_play import AspectInPlay, aspects_in_play_in
from bot.services.campaigns import (
    CampaignInfo,
    CharacterRecord,
    get_character_in,
    move_fate_points_in,
    require_active_in,
    resolve_campaign_in,
)
from bot.services.character_aspects import character_known_here_in
from bot.services.scene_state import change_gm_pool_in, holder_of, retry_stale, scene_of

MAX_OPEN_LISTED = 25
MAX_OPEN_OFFERS = 100  # open offers per campaign
CHOICES_SECONDS = 15.0


class CompelNotYours(RuleError):
    """Someone other than the target pressed a compel's button."""


@dataclass(frozen=True)
class OfferView:
    """A compel offer as its message shows it."""

    id: int
    channel_id: int
    target: str
    offered_by: str  # "the GM" or a character name
    aspect: str
    complication: str
    state: CompelState
    message_id: int | None
    points_note: str = ""  # what the answer did, e.g. "Harry now has 4 fate points."


def _compellable(aspect: AspectInPlay, is_gm: bool) -> bool:
    """Players never see hidden aspects; the GM may compel an NPC's own (sheet) aspects."""
    return not aspect.hidden or (is_gm and not aspect.key.startswith("scene:"))


async def _resolve_aspect_in(
    session: AsyncSession,
    campaign: CampaignInfo,
    channel_id: int,
    target: CharacterRecord,
    ref: str,
    is_gm: bool,
) -> tuple[str, str]:
    """(aspect key, aspect text) from an autocomplete key or text; hidden ones are refused."""
    wanted = " ".join(ref.split()).casefold()
    found = await aspects_in_play_in(session, campaign, channel_id, include_hidden=True)
    by_key = [a for a in found if a.key == ref.strip()]
    by_text = [a for a in found if a.name.casefold() == wanted]
    # the target's own aspects first, then the scene's, then anyone else's
    by_text.sort(key=lambda a: (a.owner != target.name, not a.key.startswith("scene:")))
    for aspect in by_key + by_text:
        if not _compellable(aspect, is_gm):
            if is_gm:
                raise RuleError(
                    "That aspect is hidden; reveal it with `/aspect reveal` before compelling it."
                )
            continue
        if aspect.is_boost:
            raise RuleError("Boosts cannot be compelled. Pick a real aspect.")
        return aspect.key, aspect.name
    # a sheet aspect not in play (an NPC's are hidden, above): only the GM compels by its text
    for text in target.sheet.aspect_texts() if is_gm or not target.is_npc else []:
        if text.casefold() == wanted:
            return f"sheet:{target.id}", text
    raise RuleError(
        f"'{ref.strip()[:80]}' is not an aspect of {target.name} or of this scene; "
        "pick one from the suggestions."
    )


async def _require_room_in(session: AsyncSession, campaign: CampaignInfo) -> None:
    """A RuleError when the campaign has as many compels waiting as it may."""
    waiting = (
        await session.exec(
            select(func.count())
            .select_from(CompelOfferRow)
            .where(
                CompelOfferRow.campaign_id == campaign.id,
                CompelOfferRow.state == CompelState.OFFERED.value,
            )
        )
    ).one()
    if waiting >= MAX_OPEN_OFFERS:
        raise RuleError(
            f"{MAX_OPEN_OFFERS} compels are already waiting for an answer; answer or "
            "withdraw some first (`/compel list`)."
        )


def _view(
    row: CompelOfferRow, offer: CompelOffer, target: str, by: str, note: str = ""
) -> OfferView:
    assert row.id is not None
    return OfferView(
        id=row.id,
        channel_id=row.channel_id,
        target=target,
        offered_by=by,
        aspect=offer.aspect_text,
        complication=offer.complication,
        state=offer.state,
        message_id=row.message_id,
        points_note=note,
    )


class CompelService:
    """Compels: offer one on an aspect, accept, refuse or withdraw it."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._choices: dict[int, tuple[float, list[AspectInPlay]]] = Bounded()

    async def aspect_choices(
        self, guild_id: int, channel_id: int, *, is_gm: bool, typed: str, target: str | None
    ) -> list[tuple[str, str]]:
        """Aspects one could compel here, the target's first; from memory for a few seconds."""
        hit = self._choices.get(channel_id)
        if hit is None or time.monotonic() - hit[0] > CHOICES_SECONDS:
            async with self.db.session() as session:
                campaign = await resolve_campaign_in(session, guild_id, channel_id)
                found = await aspects_in_play_in(session, campaign, channel_id, include_hidden=True)
            self._choices[channel_id] = (time.monotonic(), found)
        else:
            found = hit[1]
        needle = typed.strip().casefold()
        who = (target or "").strip().casefold()
        picked = [
            a
            for a in found
            if _compellable(a, is_gm)
            and not a.is_boost
            and needle in a.name.casefold()
            and (a.key.startswith("scene:") or not who or a.owner.casefold() == who)
        ]
        picked.sort(key=lambda a: (a.owner.casefold() != who, a.key.startswith("scene:")))
        return [(a.key, f"{a.name} ({a.owner})"[:100]) for a in picked[:25]]

    @retry_stale
    async def offer(
        self,
        guild_id: int,
        channel_id: int,
        *,
        user_id: int,
        is_gm: bool,
        target: str,
        aspect: str,
        complication: str,
    ) -> OfferView:
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            victim = await character_known_here_in(
                session, campaign, channel_id, target, user_id=user_id, is_gm=is_gm
            )
            mine = (
                None if is_gm else await require_active_in(session, campaign, channel_id, user_id)
            )
            aspect_id, aspect_text = await _resolve_aspect_in(
                session, campaign, channel_id, victim, aspect, is_gm
            )
            await _require_room_in(session, campaign)
            row = CompelOfferRow(
                campaign_id=campaign.id,
                channel_id=channel_id,
                target_character_id=victim.id,
                offerer_character_id=mine.id if mine else None,
                offered_by_user=user_id,
                offer_json="{}",
            )
            session.add(row)
            await session.flush()
            offer, changes, _ = compels.offer_compel(
                str(row.id),
                offered_by=holder_of(mine) if mine else GM,
                target=holder_of(victim),
                aspect_id=aspect_id,
                aspect_text=aspect_text,
                complication=complication,
                target_is_npc=victim.is_npc,
                offerer_points=mine.sheet.fate_points if mine else 0,
            )
            await self._apply_in(session, campaign, row, changes, user_id)
            row.offer_json = offer.model_dump_json()
            session.add(row)
            await session.flush()
            return _view(row, offer, victim.name, mine.name if mine else "the GM")

    async def _apply_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        row: CompelOfferRow,
        changes: list[FatePointChange],
        actor_id: int,
    ) -> str:
        notes = []
        for change in changes:
            note = f"compel #{row.id}"
            if change.who == GM:
                pool, _ = await change_gm_pool_in(
                    session,
                    campaign,
                    row.channel_id,
                    change.delta,
                    reason=change.reason.value,
                    actor_id=actor_id,
                    note=note,
                )
                notes.append(f"The GM pool now holds {pool}.")
                continue
            record = await get_character_in(session, int(change.who.split(":", 1)[1]))
            updated, _ = await move_fate_points_in(
                session,
                record,
                change.delta,
                reason=change.reason.value,
                actor_id=actor_id,
                note=note,
                channel_id=row.channel_id,
            )
            notes.append(
                f"{updated.name} now has {plural(updated.sheet.fate_points, 'fate point')}."
            )
        return " ".join(notes)

    async def _load_open_in(
        self, session: AsyncSession, offer_id: int
    ) -> tuple[CompelOfferRow, CompelOffer, CampaignInfo, CharacterRecord]:
        """An offer still waiting for an answer, with its campaign and target."""
        row = await session.get(CompelOfferRow, offer_id)
        if row is None or row.target_character_id is None:
            raise RuleError("That compel no longer exists.")
        offer = CompelOffer.model_validate_json(row.offer_json)
        campaign_row = await session.get(Campaign, row.campaign_id)
        assert campaign_row is not None
        target = await get_character_in(session, row.target_character_id)
        if not offer.is_open:
            raise RuleError(f"That compel was already {offer.state.value}.")
        return row, offer, CampaignInfo.of(campaign_row), target

    async def _close_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        row: CompelOfferRow,
        target: CharacterRecord,
        answered: CompelOffer,
        changes: list[FatePointChange],
        user_id: int,
    ) -> OfferView:
        """Save the answered offer and move its fate points."""
        await self._save_in(session, row, answered)
        note = await self._apply_in(session, campaign, row, changes, user_id)
        return _view(row, answered, target.name, await self._offerer_in(session, row), note)

    async def _save_in(
        self, session: AsyncSession, row: CompelOfferRow, offer: CompelOffer
    ) -> None:
        await save_versioned_in(
            session,
            row,
            "id",
            {"offer_json": offer.model_dump_json(), "state": offer.state.value},
            "That compel was answered at the same moment by someone else.",
        )

    @retry_stale
    async def answer(self, offer_id: int, *, user_id: int, is_gm: bool, accept: bool) -> OfferView:
        async with self.db.session() as session:
            row, offer, campaign, target = await self._load_open_in(session, offer_id)
            allowed = is_gm if offer.target_wallet == GM else target.owner_id == user_id
            if not allowed:
                who = "the GM" if offer.target_wallet == GM else f"{target.name}'s player"
                raise CompelNotYours(f"Only {who} can answer this compel.")
            if accept:
                answered, changes, _ = compels.accept(offer)
            else:
                balance = await self._balance_in(session, row, offer, target)
                answered, changes, _ = compels.refuse(offer, balance)
            return await self._close_in(session, campaign, row, target, answered, changes, user_id)

    @retry_stale
    async def withdraw(self, offer_id: int, *, user_id: int, is_gm: bool) -> OfferView:
        async with self.db.session() as session:
            row, offer, campaign, target = await self._load_open_in(session, offer_id)
            if row.offered_by_user != user_id and not is_gm:
                raise CompelNotYours(
                    "Only whoever offered this compel, or the GM, can withdraw it."
                )
            answered, changes, _ = compels.withdraw(offer, offer.offered_by)
            return await self._close_in(session, campaign, row, target, answered, changes, user_id)

    async def _balance_in(
        self,
        session: AsyncSession,
        row: CompelOfferRow,
        offer: CompelOffer,
        target: CharacterRecord,
    ) -> int:
        if offer.target_wallet != GM:
            return target.sheet.fate_points
        scene = await session.get(SceneRow, row.channel_id)
        return scene_of(scene).gm_pool if scene is not None and scene.active else 0

    async def _offerer_in(self, session: AsyncSession, row: CompelOfferRow) -> str:
        if row.offerer_character_id is None:
            return "the GM"
        try:
            return (await get_character_in(session, row.offerer_character_id)).name
        except RuleError:
            return "a player"

    async def set_message(self, offer_id: int, message_id: int) -> None:
        async with self.db.session() as session:
            row = await session.get(CompelOfferRow, offer_id)
            if row is not None:
                row.message_id = message_id
                session.add(row)

    async def open_offers(
        self, guild_id: int, channel_id: int, *, user_id: int, is_gm: bool
    ) -> tuple[list[OfferView], int]:
        """The first open offers of the campaign (oldest first) and how many are open in all.
        A player sees no offer on the GM's NPCs made in another channel (the GM channel's
        bookkeeping, another table's scene): it would name the NPC and its aspect."""
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            open_ones: list[ColumnElement[bool]] = [
                col(CompelOfferRow.campaign_id) == campaign.id,
                col(CompelOfferRow.state) == CompelState.OFFERED.value,
                col(CompelOfferRow.target_character_id).is_not(None),
            ]
            if not is_gm:
                gms_npcs = select(CharacterRow.id).where(
                    col(CharacterRow.campaign_id) == campaign.id,
                    col(CharacterRow.is_npc),
                    col(CharacterRow.owner_id) != user_id,
                )
                open_ones.append(
                    or_(
                        col(CompelOfferRow.channel_id) == channel_id,
                        col(CompelOfferRow.target_character_id).not_in(gms_npcs),
                    )
                )
            total = (
                await session.exec(
                    select(func.count()).select_from(CompelOfferRow).where(*open_ones)
                )
            ).one()
            rows = await session.exec(
                select(CompelOfferRow)
                .where(*open_ones)
                .order_by(col(CompelOfferRow.id))
                .limit(MAX_OPEN_LISTED)
            )
            views = []
            for row in rows.all():
                assert row.target_character_id is not None
                offer = CompelOffer.model_validate_json(row.offer_json)
                try:
                    target = await get_character_in(session, row.target_character_id)
                except RuleError:
                    total -= 1  # deleted mid-offer: nobody can answer it
                    continue
                views.append(_view(row, offer, target.name, await self._offerer_in(session, row)))
            return views, int(total)
