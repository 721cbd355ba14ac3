"""The fate point ledger (log, undo, GM edits), sessions and arcs with their milestones, and
consequence recovery.

Balances live on the characters and, for the GM, on the channel's scene; every movement goes
through `move_fate_points_in` / `change_gm_pool_in`, which write a `FatePointEntry` each.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import func, or_, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import SelectOfScalar

from bot.db.engine import Database
from bot.db.models.campaigns import CharacterRow, FatePointEntry
from bot.db.models.scenes import RecoveryRow, SceneRow
from bot.db.repos.versioned import StaleError, mark_saved
from bot.errors import RuleError
from bot.fate import recovery
from bot.fate.aspects import Event, OutcomeKind, classify
from bot.fate.dice import fate_symbols, roll_fate_dice
from bot.fate.economy import check_undo, refresh_delta
from bot.fate.recovery import MilestoneKind
from bot.fate.tracks import Track
from bot.services.campaign_play import load_play_in, read_play_in, save_play_in
from bot.services.campaigns import (
    CampaignInfo,
    CharacterRecord,
    campaign_characters_in,
    character_names_in,
    find_character_in,
    get_character_in,
    log_gm_points_in,
    move_fate_points_in,
    require_active_in,
    resolve_campaign_in,
    save_character_in,
    unknown_character,
)
from bot.services.character_aspects import character_known_here_in
from bot.services.scene_state import (
    carry_gm_points_in,
    change_gm_pool_in,
    load_recovery_in,
    resolve_skill,
    retry_stale,
    save_recovery_in,
)

LOG_PAGE_SIZE = 10
# The footer's page count reads at most this many pages' entries (a ledger only grows): past
# them it says "of 50+", so a long campaign's /fp log costs no more than a year-old one's.
LOG_PAGES_COUNTED = 50
MAX_EDIT = 10
GM_NAMES = ("gm", "the gm", "gm pool")
# GM ledger entries that are carried to the next scene rather than paid into the current pool
CARRIED_REASONS = ("concession", "hostile_invoke_payout")


@dataclass(frozen=True)
class LedgerLine:
    """One fate point movement as /fp log lists it."""

    id: int
    who: str
    delta: int
    balance_after: int
    reason: str
    note: str
    undone: bool
    at: str
    npc: bool = False  # an NPC's movement: the GM's to read


@dataclass(frozen=True)
class LedgerPage:
    """One page of /fp log and what it was filtered by."""

    lines: list[LedgerLine]
    page: int
    older: bool  # whether an older page follows
    pages: int  # the pages counted: all of them, or LOG_PAGES_COUNTED when `more_pages`
    campaign_id: int
    character: str | None
    more_pages: bool = False  # the ledger has more than LOG_PAGES_COUNTED pages


@dataclass(frozen=True)
class Movement:
    """A fate point movement that was just made."""

    who: str
    delta: int
    balance_after: int
    reason: str
    npc: bool = False  # an NPC's movement: the GM's to read


@dataclass(frozen=True)
class Refreshed:
    """Who got how many fate points back at a refresh."""

    session_number: int
    raised: list[Movement]
    kept: list[str]  # PCs at or above refresh


RecoveryTick = Callable[
    [list[Track], recovery.RecoveryState],
    tuple[list[Track], recovery.RecoveryState, list[Event]],
]


@dataclass(frozen=True)
class MilestoneReport:
    """What a milestone did to each character."""

    kind: MilestoneKind
    number: int  # session or arc number that ended
    unused: list[str]  # characters who may still use a milestone
    recovered: list[str]


@dataclass(frozen=True)
class Treatment:
    """The outcome of a recovery roll on a consequence."""

    healer: str
    patient: str
    skill: str
    rating: int
    dice: list[int]
    effort: int
    difficulty: int
    outcome: OutcomeKind
    events: list[Event]

    @property
    def dice_text(self) -> str:
        return fate_symbols(self.dice)


def _line(entry: FatePointEntry) -> LedgerLine:
    assert entry.id is not None
    return LedgerLine(
        id=entry.id,
        who=entry.who,
        delta=entry.delta,
        balance_after=entry.balance_after,
        reason=entry.reason,
        note=entry.note,
        undone=entry.undone,
        at=entry.created_at.strftime("%Y-%m-%d %H:%M"),
    )


async def _mark_undone_in(session: AsyncSession, entry: FatePointEntry, undone: bool) -> None:
    """Flip an entry's undone mark with `UPDATE ... WHERE undone = <the other value>`: of two
    undos at once only one claims the entry, under any isolation level (PostgreSQL's row lock
    makes the other wait and then match nothing); that one retries on the next entry."""
    claimed = await session.exec(  # type: ignore[call-overload]
        update(FatePointEntry)
        .where(col(FatePointEntry.id) == entry.id, col(FatePointEntry.undone).is_(not undone))
        .values(undone=undone)
        .execution_options(synchronize_session=False)
    )
    if claimed.rowcount != 1:
        raise StaleError("Someone undid that movement at the same moment; look at `/fp log`.")
    mark_saved(entry, undone=undone)


async def _pcs_in(session: AsyncSession, campaign_id: int) -> list[CharacterRecord]:
    return await campaign_characters_in(session, campaign_id, npcs=False)


UNDO_REASONS = ("undo", "void")  # entries that are reversals themselves


@dataclass(frozen=True)
class UndoPreview:
    """What `/fp undo` would do: the entry and the reversal it would write."""

    entry: LedgerLine
    inverse: LedgerLine
    campaign_id: int


class _RolledBack(Exception):  # noqa: N818 - carries a preview out of a rolled-back transaction
    def __init__(self, preview: UndoPreview) -> None:
        super().__init__("preview")
        self.preview = preview


def _undoable(campaign_id: int) -> Any:
    """Entries of the campaign an undo may still reverse."""
    return select(FatePointEntry).where(
        FatePointEntry.campaign_id == campaign_id,
        col(FatePointEntry.undone).is_(False),
        col(FatePointEntry.reason).not_in(UNDO_REASONS),
    )


async def _entry_to_undo_in(
    session: AsyncSession, campaign_id: int, entry_id: int | None
) -> FatePointEntry:
    """The entry to reverse (the newest one when none is named), or a sentence saying why not."""
    if entry_id is None:
        newest_first = _undoable(campaign_id).order_by(col(FatePointEntry.id).desc())
        newest = (await session.exec(newest_first.limit(1))).first()
        if newest is None:
            raise RuleError("There is no fate point movement left to undo.")
        return newest
    entry = await session.get(FatePointEntry, entry_id)
    if entry is None or entry.campaign_id != campaign_id:
        raise RuleError(
            f"There is no entry #{entry_id} in this campaign's ledger; pick one from the "
            "suggestions or look at `/fp log`."
        )
    if entry.undone:
        raise RuleError(f"Entry #{entry.id} is already undone (struck through in `/fp log`).")
    if entry.reason in UNDO_REASONS:
        raise RuleError(
            f"Entry #{entry.id} is itself a reversal ({entry.reason}) and cannot be undone; "
            "give or take the points with `/fp give` or `/fp take` instead."
        )
    return entry


def why_not_reversed(entry: FatePointEntry) -> str:
    """Why `undo_entry_in` found nothing left to change for this entry."""
    if entry.character_id is None and entry.who != "GM":
        return "its character was deleted"
    return "the scene whose GM pool it moved has ended"


async def undo_entry_in(
    session: AsyncSession,
    campaign: CampaignInfo,
    entry: FatePointEntry,
    actor_id: int,
    *,
    reason: str = "undo",
    note: str = "",
) -> FatePointEntry | None:
    """Reverse one ledger entry, once: claim it (a second undo at the same moment gets
    StaleError), write the inverse movement and link it. None when nothing is left to change
    (the scene whose GM pool it moved has ended, or its character is deleted)."""
    await _mark_undone_in(session, entry, True)
    inverse = await _reverse_in(
        session, campaign, entry, actor_id, note or f"undo #{entry.id} ({entry.reason})", reason
    )
    if inverse is None:
        await _mark_undone_in(session, entry, False)
        return None
    inverse.undoes_id = entry.id
    session.add(inverse)
    await session.flush()
    return inverse


async def _reverse_in(
    session: AsyncSession,
    campaign: CampaignInfo,
    entry: FatePointEntry,
    actor_id: int,
    note: str,
    reason: str,
) -> FatePointEntry | None:
    if entry.character_id is not None:
        record = await get_character_in(session, entry.character_id)
        check_undo(record.sheet.fate_points, entry.delta, f"#{entry.id} would leave {record.name}")
        _, inverse = await move_fate_points_in(
            session,
            record,
            -entry.delta,
            reason=reason,
            actor_id=actor_id,
            note=note,
            channel_id=entry.channel_id,
        )
        return inverse
    if entry.who != "GM":
        return None  # a deleted character's movement: nothing left to change
    if entry.reason in CARRIED_REASONS:
        return await _reverse_carried_in(session, campaign, entry, actor_id, note, reason)
    if entry.channel_id is None:
        return None
    scene = await session.get(SceneRow, entry.channel_id)
    if scene is None or not scene.active or scene.campaign_id != campaign.id:
        return None  # that scene's pool is gone with the scene
    _, inverse = await change_gm_pool_in(
        session,
        campaign,
        entry.channel_id,
        -entry.delta,
        reason=reason,
        actor_id=actor_id,
        note=note,
    )
    return inverse


async def _reverse_carried_in(
    session: AsyncSession,
    campaign: CampaignInfo,
    entry: FatePointEntry,
    actor_id: int,
    note: str,
    reason: str,
) -> FatePointEntry:
    """NPC payouts wait for the GM pool of the NPC's next scene; take them back. The entry's
    note ends with the NPC's name (`conflict #3: Alice`)."""
    _, play = await load_play_in(session, campaign.id)
    name = entry.note.rpartition(": ")[2]
    names = await character_names_in(session, campaign.id)
    npc = next((c for c in names if c.is_npc and c.name == name), None)
    if npc is None or play.carried_by([npc.id]) - entry.delta < 0:
        raise RuleError(
            f"Undoing #{entry.id} is not possible: those GM points already went into a scene."
        )
    carried = await carry_gm_points_in(session, campaign.id, -entry.delta, npc.id)
    return await log_gm_points_in(
        session,
        campaign.id,
        -entry.delta,
        carried,
        reason=reason,
        actor_id=actor_id,
        note=note,
        channel_id=entry.channel_id,
    )


class EconomyService:
    """The fate point economy: give, spend, refresh, the ledger, recovery."""

    def __init__(self, db: Database, rng: random.Random | None = None) -> None:
        self.db = db
        self.rng = rng or random.Random()

    # ----- the ledger
    async def log(
        self,
        guild_id: int,
        channel_id: int,
        *,
        page: int = 0,
        character: str | None = None,
        for_gm: bool = False,
    ) -> LedgerPage:
        """A page of the campaign's ledger; NPCs' lines only `for_gm`."""
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            return await self.ledger_page_in(
                session, campaign.id, page=page, character=character, for_gm=for_gm
            )

    async def log_page(
        self,
        guild_id: int,
        channel_id: int,
        campaign_id: int,
        page: int,
        who: str | None,
        *,
        for_gm: bool = False,
    ) -> LedgerPage:
        """Another page of a ledger already shown; `who` is None, "GM" or "#<character id>".
        Only the ledger of the channel's own campaign: a page button names its campaign, and
        a forged one must not read another campaign's of the same server. (A read: the
        server's default campaign exists whenever the button's campaign does.)"""
        async with self.db.read() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            if campaign.id != campaign_id:
                raise RuleError("That ledger is another campaign's; `/fp log` shows this one's.")
            return await self.ledger_page_in(
                session, campaign_id, page=page, character=who, for_gm=for_gm
            )

    async def ledger_page_in(
        self,
        session: AsyncSession,
        campaign_id: int,
        *,
        page: int,
        character: str | None,
        for_gm: bool = False,
    ) -> LedgerPage:
        """One page of movements, filtered to one character (or the GM pool) when asked.
        A player sees no NPC's line, and naming an NPC gets the unknown-name sentence."""
        where: list[Any] = [FatePointEntry.campaign_id == campaign_id]
        if not for_gm:
            npcs = select(CharacterRow.id).where(
                CharacterRow.campaign_id == campaign_id, col(CharacterRow.is_npc)
            )
            entry = col(FatePointEntry.character_id)
            where.append(or_(entry.is_(None), entry.not_in(npcs)))
        label = None
        if character:
            if character.strip().casefold() in GM_NAMES:
                where.append(col(FatePointEntry.character_id).is_(None))
                label = "GM"
            else:
                record = await find_character_in(session, campaign_id, character)
                if record.is_npc and not for_gm:
                    raise unknown_character(character)
                where.append(FatePointEntry.character_id == record.id)
                label = f"#{record.id}"
        query = select(FatePointEntry).where(*where).order_by(col(FatePointEntry.id).desc())
        # The count stops past LOG_PAGES_COUNTED pages (a player's count reads every entry's
        # row); the page read is one row longer to know whether an older page follows.
        counted_max = LOG_PAGES_COUNTED * LOG_PAGE_SIZE
        capped = select(FatePointEntry.id).where(*where).limit(counted_max + 1).subquery()
        total = int((await session.exec(select(func.count()).select_from(capped))).one())
        pages = max(1, -(-min(total, counted_max) // LOG_PAGE_SIZE))
        more_pages = total > counted_max
        page = max(0, page) if more_pages else min(max(0, page), pages - 1)
        rows = list(await self._page_in(session, query, page))
        if not rows and page > 0:  # past the oldest page of a long ledger: its last page
            counter = select(func.count()).select_from(FatePointEntry).where(*where)
            total = int((await session.exec(counter)).one())
            page = max(0, -(-total // LOG_PAGE_SIZE) - 1)
            rows = list(await self._page_in(session, query, page))
        lines = [_line(r) for r in rows[:LOG_PAGE_SIZE]]
        older = len(rows) > LOG_PAGE_SIZE
        return LedgerPage(lines, page, older, pages, campaign_id, label, more_pages)

    @staticmethod
    async def _page_in(
        session: AsyncSession, query: SelectOfScalar[FatePointEntry], page: int
    ) -> Sequence[FatePointEntry]:
        """The entries of a page, and the first of the next one if there is one."""
        found = await session.exec(query.offset(page * LOG_PAGE_SIZE).limit(LOG_PAGE_SIZE + 1))
        return found.all()

    async def undo_choices(self, guild_id: int, channel_id: int) -> list[LedgerLine]:
        """The newest movements an undo may still reverse, for autocomplete."""
        async with self.db.read() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            rows = await session.exec(
                _undoable(campaign.id).order_by(col(FatePointEntry.id).desc()).limit(25)
            )
            return [_line(r) for r in rows.all()]

    async def undo_preview(
        self, guild_id: int, channel_id: int, *, actor_id: int, entry_id: int | None
    ) -> UndoPreview:
        """What undoing the entry would do: the undo itself, in a transaction rolled back."""
        try:
            async with self.db.session() as session:
                campaign, entry, inverse = await self._undo_in(
                    session, guild_id, channel_id, actor_id, entry_id
                )
                raise _RolledBack(UndoPreview(_line(entry), _line(inverse), campaign.id))
        except _RolledBack as done:
            return done.preview

    @retry_stale
    async def undo(
        self,
        guild_id: int,
        channel_id: int,
        *,
        actor_id: int,
        entry_id: int | None = None,
        campaign_id: int | None = None,
    ) -> tuple[LedgerLine, LedgerLine]:
        """Reverse one movement (by default the newest one not undone yet), once: a second
        undo of the same entry gets a sentence, never a second reversal. With `campaign_id`
        (the campaign a preview was made in), a channel that plays another campaign now gets
        a sentence instead."""
        async with self.db.session() as session:
            _, entry, inverse = await self._undo_in(
                session, guild_id, channel_id, actor_id, entry_id, campaign_id
            )
            holder = (
                await session.get(CharacterRow, entry.character_id)
                if entry.character_id is not None
                else None
            )
            npc = holder is not None and holder.is_npc
            return replace(_line(entry), npc=npc), replace(_line(inverse), npc=npc)

    async def _undo_in(
        self,
        session: AsyncSession,
        guild_id: int,
        channel_id: int,
        actor_id: int,
        entry_id: int | None,
        previewed_in: int | None = None,
    ) -> tuple[CampaignInfo, FatePointEntry, FatePointEntry]:
        campaign = await resolve_campaign_in(session, guild_id, channel_id)
        if previewed_in is not None and campaign.id != previewed_in:
            raise RuleError(
                f"That preview was made for another campaign; this channel now plays "
                f"**{campaign.name}**. Type `/fp undo` again to see what it would undo here."
            )
        entry = await _entry_to_undo_in(session, campaign.id, entry_id)
        inverse = await undo_entry_in(session, campaign, entry, actor_id)
        if inverse is None:
            why = why_not_reversed(entry)
            raise RuleError(
                f"Entry #{entry.id} ({entry.reason}, {entry.delta:+d} for {entry.who}) cannot be "
                f"undone: {why}. Pick another with `entry:`, or set the balance with `/fp give`."
            )
        return campaign, entry, inverse

    @retry_stale
    async def edit(
        self, guild_id: int, channel_id: int, *, actor_id: int, target: str, delta: int, note: str
    ) -> Movement:
        """The GM gives or takes fate points (a character's, or the GM pool of this scene)."""
        if delta == 0 or abs(delta) > MAX_EDIT:
            raise RuleError(f"Give or take 1 to {MAX_EDIT} fate points.")
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            if target.strip().casefold() in GM_NAMES:
                pool, _ = await change_gm_pool_in(
                    session,
                    campaign,
                    channel_id,
                    delta,
                    reason="gm_edit",
                    actor_id=actor_id,
                    note=note,
                )
                return Movement("GM pool", delta, pool, "gm_edit")
            record = await find_character_in(session, campaign.id, target)
            updated, entry = await move_fate_points_in(
                session,
                record,
                delta,
                reason="gm_edit",
                actor_id=actor_id,
                note=note,
                channel_id=channel_id,
            )
            return Movement(updated.name, delta, entry.balance_after, "gm_edit", record.is_npc)

    # ----- sessions and arcs
    @retry_stale
    async def start_session(self, guild_id: int, channel_id: int, *, actor_id: int) -> Refreshed:
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            play_row, play = await load_play_in(session, campaign.id)
            milestones, _ = recovery.start_session(play.milestones)
            await save_play_in(
                session, play_row, play.model_copy(update={"milestones": milestones})
            )
            raised: list[Movement] = []
            kept: list[str] = []
            for record in await _pcs_in(session, campaign.id):
                delta = refresh_delta(record.sheet.fate_points, record.sheet.refresh)
                if not delta:
                    kept.append(record.name)
                    continue
                updated, entry = await move_fate_points_in(
                    session,
                    record,
                    delta,
                    reason="refresh",
                    actor_id=actor_id,
                    note=f"session {milestones.session_number}",
                    channel_id=channel_id,
                )
                raised.append(Movement(updated.name, delta, entry.balance_after, "refresh"))
            return Refreshed(milestones.session_number, raised, kept)

    @retry_stale
    async def end_session(self, guild_id: int, channel_id: int) -> MilestoneReport:
        return await self._end(guild_id, channel_id, MilestoneKind.MINOR)

    @retry_stale
    async def end_arc(self, guild_id: int, channel_id: int) -> MilestoneReport:
        return await self._end(guild_id, channel_id, MilestoneKind.MAJOR)

    async def _end(self, guild_id: int, channel_id: int, kind: MilestoneKind) -> MilestoneReport:
        """End the session (each PC earns a minor milestone) or the arc (a major one), and
        let healing consequences count it."""
        minor = kind is MilestoneKind.MINOR
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            play_row, play = await load_play_in(session, campaign.id)
            pcs = await _pcs_in(session, campaign.id)
            number = play.milestones.session_number if minor else play.milestones.arc_number
            end = recovery.end_session if minor else recovery.end_arc
            milestones, _ = end(play.milestones, [str(p.id) for p in pcs])
            await save_play_in(
                session, play_row, play.model_copy(update={"milestones": milestones})
            )
            tick = recovery.after_session if minor else recovery.after_major_milestone
            recovered = await self._tick_all_in(session, pcs, tick)
            return MilestoneReport(kind, number, self._unused(milestones, pcs), recovered)

    @staticmethod
    def _unused(milestones: recovery.Campaign, pcs: list[CharacterRecord]) -> list[str]:
        names = {str(p.id): p.name for p in pcs}
        shown = []
        for grant in recovery.unused_milestones(milestones):
            if grant.character_id in names:
                shown.append(f"{names[grant.character_id]} ({grant.kind.value})")
        return sorted(set(shown))

    async def _tick_all_in(
        self, session: AsyncSession, pcs: list[CharacterRecord], tick: RecoveryTick
    ) -> list[str]:
        """Tick the recovery of every PC that has something healing."""
        recovered: list[str] = []
        for record in pcs:
            row = await session.get(RecoveryRow, record.id)
            if row is None:
                continue
            state = recovery.RecoveryState.model_validate_json(row.state_json)
            tracks, state, events = tick(record.sheet.tracks, state)
            if tracks != record.sheet.tracks:
                await save_character_in(
                    session, record, record.sheet.model_copy(update={"tracks": tracks})
                )
            await save_recovery_in(session, row, state)
            recovered.extend(f"{record.name}: {e.text}" for e in events)
        return recovered

    @retry_stale
    async def award_milestone(
        self, guild_id: int, channel_id: int, *, character: str, kind: MilestoneKind
    ) -> CharacterRecord:
        """The GM gives one character a milestone to spend with `/character milestone`."""
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            record = await find_character_in(session, campaign.id, character)
            play_row, play = await load_play_in(session, campaign.id)
            milestones = recovery.award_milestone(play.milestones, str(record.id), kind)
            await save_play_in(
                session, play_row, play.model_copy(update={"milestones": milestones})
            )
            return record

    @retry_stale
    async def use_milestone(
        self, guild_id: int, channel_id: int, *, user_id: int, kind: MilestoneKind
    ) -> str:
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            record = await require_active_in(session, campaign, channel_id, user_id)
            play_row, play = await load_play_in(session, campaign.id)
            milestones = recovery.use_milestone(play.milestones, str(record.id), kind)
            await save_play_in(
                session, play_row, play.model_copy(update={"milestones": milestones})
            )
            return record.name

    # ----- recovery
    async def treat(self, guild_id: int, channel_id: int, **options: Any) -> Treatment:
        """The dice are rolled once, before any retry."""
        dice = roll_fate_dice(self.rng)
        return await self._treat(guild_id, channel_id, dice=dice, **options)

    @retry_stale
    async def _treat(
        self,
        guild_id: int,
        channel_id: int,
        *,
        dice: list[int],
        user_id: int,
        patient: str | None,
        consequence: str,
        skill: str,
        healing_name: str,
        is_gm: bool = False,
    ) -> Treatment:
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            healer = await require_active_in(session, campaign, channel_id, user_id)
            target = (
                await character_known_here_in(
                    session, campaign, channel_id, patient, user_id=user_id, is_gm=is_gm
                )
                if patient
                else healer
            )
            skill_name, rating = resolve_skill(healer, campaign, skill)
            track = target.sheet.track(consequence)
            scene = await session.get(SceneRow, channel_id)
            play = await read_play_in(session, campaign.id)
            row, state = await load_recovery_in(session, target.id)
            effort = sum(dice) + rating
            tracks, state, events = recovery.treat(
                target.sheet.tracks,
                state,
                track.key,
                effort=effort,
                healing_text=healing_name,
                treating_self=target.id == healer.id,
                during_scene=scene is not None and scene.active,
                during_session=play.milestones.in_session,
            )
            if tracks != target.sheet.tracks:
                await save_character_in(
                    session, target, target.sheet.model_copy(update={"tracks": tracks})
                )
                await save_recovery_in(session, row, state)
            difficulty = recovery.treatment_difficulty(
                recovery.severity_of(track), target.id == healer.id
            )
            return Treatment(
                healer=healer.name,
                patient=target.name,
                skill=skill_name,
                rating=rating,
                dice=dice,
                effort=effort,
                difficulty=difficulty,
                outcome=classify(effort, difficulty),
                events=events,
            )
