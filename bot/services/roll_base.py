"""What every roll step shares: the roll's views and results, who may act on a roll, and
RollBase (the row, its campaign and view, the versioned save, the clicker's role). RollService
(rolls.py) builds on RollInvokes (roll_invokes.py), which builds on this."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from sqlalchemy import bindparam, text, update
from sqlalchemy import select as core_select
from sqlalchemy.orm import aliased
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.changes import touched
from bot.db.engine import Database
from bot.db.models.campaigns import ActiveCharacter, CharacterRow
from bot.db.models.columns import utcnow
from bot.db.models.conflicts import LIVE_ENCOUNTER, EncounterRow
from bot.db.models.rolls import OPEN_ROLL, RollRow
from bot.db.raw import RawUnit
from bot.db.repos.encounters import active_encounter_in
from bot.db.repos.rolls import MESSAGE_IDS as RAW_MESSAGE_IDS
from bot.db.repos.versioned import save_versioned_in
from bot.errors import RuleError
from bot.fate.aspects import GM, character_holder
from bot.fate.rolls import (
    Action,
    Roll,
)
from bot.services.aspects_in_play import (
    AspectInPlay,
)
from bot.services.campaigns import (
    BOUND_CAMPAIGN,
    CHARACTER_COLUMNS,
    SERVER_WIDE,
    CampaignInfo,
    CharacterRecord,
    active_character_in,
    get_character_in,
    parsed_campaign_in,
    parsed_character_in,
    resolve_campaign_in,
)

DESCRIPTION_MAX = 200
RESULT_MAX = 300
HIDDEN_NAME = "a hidden aspect"
HIDDEN_ROLL = (
    "That is a hidden roll: only its roller and the GM act on it. Make your own with `/roll`."
)
LOG_LIMIT = 10
CONFLICT_HINT = (
    "A conflict is running here: this roll does not count for it. Act through the conflict's "
    "tracker instead (Attack, Defend, Overcome, Create advantage on your turn); `/conflict "
    "tracker` posts it again."
)
PICKER_LIMIT = 25  # Discord's cap on select options
PENDING_LIMIT = 25
MODIFIER_RANGE = (-20, 20)
log = logging.getLogger(__name__)
# SQLite: a new roll's message id is written this soon, or with the next roll
MESSAGE_IDS_SECONDS = 0.05
MESSAGE_IDS_RETRY_MAX = 5.0  # the longest pause before writing a waiting message id again
SAME_MOMENT = "Someone changed this roll at the same moment; look at it again and retry."
GM_HOLDER = GM  # the GM side as a holder of free invokes
GM_PAYER = 0  # payer/holder id that means "the GM" in the pure roll's events


class RollNotAllowed(RuleError):
    """The clicker may not do that on this roll."""


class AdvantageChanged(RuleError):
    """A click on a roll's advantage made on a copy from before the roll changed: the copy
    clicked is redrawn (a hidden roll's private copy is not redrawn otherwise)."""


class Role(StrEnum):
    """Who is looking at a roll: its roller, another player or the GM."""

    ROLLER = "roller"
    GM = "gm"
    ALLY = "ally"


@dataclass(frozen=True)
class StuntOption:
    """A stunt that may add its bonus to a roll."""

    index: int
    name: str
    bonus: int


@dataclass(frozen=True)
class RollView:
    """One roll as the renderers need it."""

    id: int
    channel_id: int
    user_id: int
    character_id: int | None
    message_id: int | None
    gm_channel_id: int | None
    gm_message_id: int | None
    opposes_id: int | None
    hidden: bool
    closed: bool
    version: int
    roll: Roll
    stunts: tuple[StuntOption, ...] = ()
    guild_id: int = 0

    @classmethod
    def of(cls, row: RollRow, stunts: tuple[StuntOption, ...] = ()) -> RollView:
        assert row.id is not None
        return cls(
            id=row.id,
            channel_id=row.channel_id,
            user_id=row.user_id,
            character_id=row.character_id,
            message_id=row.message_id,
            gm_channel_id=row.gm_channel_id,
            gm_message_id=row.gm_message_id,
            opposes_id=row.opposes_id,
            hidden=row.hidden,
            closed=row.closed,
            version=row.version,
            roll=Roll.model_validate_json(row.roll_json),
            stunts=stunts,
            guild_id=row.guild_id,
        )

    @classmethod
    def of_columns(cls, found: Any, stunts: tuple[StuntOption, ...] = ()) -> RollView:
        """The view of a raw row of ROLL_COLUMNS (bot/db/repos/rolls.py)."""
        (key, _campaign, guild, channel, user, character, message, gm_channel, gm_message) = found[
            :9
        ]
        opposes, hidden, closed, roll_json, version = found[9:]
        return cls(
            id=key,
            channel_id=channel,
            user_id=user,
            character_id=character,
            message_id=message,
            gm_channel_id=gm_channel,
            gm_message_id=gm_message,
            opposes_id=opposes,
            hidden=bool(hidden),
            closed=bool(closed),
            version=version,
            roll=Roll.model_validate_json(roll_json),
            stunts=stunts,
            guild_id=guild,
        )


@dataclass(frozen=True)
class RollRequest:
    """A roll as /roll, /advantage or a Defend click asks for it; `RollService.start` checks it."""

    guild_id: int
    channel_id: int
    user_id: int
    user_name: str
    skill: str | None = None
    modifier: int = 0
    difficulty: str | None = None
    description: str | None = None
    hidden: bool = False
    against: int | None = None
    action: Action | None = None
    is_gm: bool = False
    advantage_aspect: str | None = None
    zone: str | None = None
    character: str | None = None
    enemy_on_fail: bool = False  # `/advantage on_fail`, chosen beforehand (or neither)
    not_created_on_fail: bool = False


@dataclass(frozen=True)
class RollChange:
    """What a change touched: the roll itself plus rolls whose message must be redrawn."""

    view: RollView
    others: list[RollView] = field(default_factory=list)
    note: str = ""


@dataclass(frozen=True)
class PaymentOption:
    """One way to pay for an invoke (a free invoke someone holds, or a fate point)."""

    value: str
    label: str
    who: str = ""  # who invokes when paying this way (a character, or "GM"), as the roll shows


@dataclass(frozen=True)
class InvokePicker:
    """What the invoke menu of a roll offers to one user."""

    view: RollView
    aspects: list[AspectInPlay]


def squeezed(text: str | None, limit: int) -> str:
    """`text` with its runs of spaces made one, cut to `limit` characters."""
    return " ".join((text or "").split())[:limit]


def stunt_options(view_roll: Roll, sheet_record: CharacterRecord | None) -> tuple[StuntOption, ...]:
    """Bonus stunts of the roller that apply to this roll's skill and are not used yet."""
    if sheet_record is None or view_roll.skill is None:
        return ()
    used = {m.label.casefold() for m in view_roll.modifiers}
    found = []
    for index, stunt in enumerate(sheet_record.sheet.stunts):
        if not stunt.applies_to(view_roll.skill, view_roll.action):
            continue
        if stunt.name.casefold() in used:
            continue
        found.append(StuntOption(index, stunt.name, stunt.bonus))
    return tuple(found[:PICKER_LIMIT])


def _roll_context() -> Any:
    """The campaign (bound, else the default), the roller's active character of it and whether
    a conflict runs in the channel: one statement (parameters `guild`, `channel`, `user`)."""
    campaign = BOUND_CAMPAIGN.subquery("bound")
    scope = col(ActiveCharacter.channel_id)
    chosen = aliased(CharacterRow)
    active = (
        core_select(col(ActiveCharacter.character_id))
        .join(chosen, col(chosen.id) == col(ActiveCharacter.character_id))
        .where(
            col(ActiveCharacter.guild_id) == bindparam("guild"),
            col(ActiveCharacter.user_id) == bindparam("user"),
            scope.in_([bindparam("channel"), SERVER_WIDE]),
            col(chosen.campaign_id) == campaign.c.id,
        )
        .order_by(scope == SERVER_WIDE)
        .limit(1)
        .scalar_subquery()
    )
    conflict = (
        core_select(col(EncounterRow.id))
        .where(
            col(EncounterRow.channel_id) == bindparam("channel"),
            col(EncounterRow.kind) == "conflict",
            text(LIVE_ENCOUNTER),
        )
        .exists()
    )
    return (
        core_select(*campaign.c, *CHARACTER_COLUMNS, conflict.label("conflict"))
        .select_from(campaign)
        .outerjoin(CharacterRow, col(CharacterRow.id) == active)
    )


ROLL_CONTEXT = _roll_context()


async def roll_context_in(
    session: AsyncSession, guild_id: int, channel_id: int, user_id: int
) -> tuple[CampaignInfo, CharacterRecord | None, bool]:
    """(campaign, the user's active character, a conflict runs here) for a new roll: one
    statement, with the parsed campaign and sheet from the process's cache when their
    versions are the ones read."""
    params = {"guild": guild_id, "channel": channel_id, "user": user_id}
    found = (await session.exec(ROLL_CONTEXT, params=params)).first()  # type: ignore[call-overload]
    if found is None:  # the server's first command: make its default campaign
        campaign = await resolve_campaign_in(session, guild_id, channel_id)
        character = await active_character_in(session, campaign, channel_id, user_id)
        running = await active_encounter_in(session, channel_id, "conflict") is not None
        return campaign, character, running
    campaign = parsed_campaign_in(session, found[:6])
    character = parsed_character_in(session, found[6:12]) if found[6] is not None else None
    return campaign, character, bool(found[12])


class _MessageIds:
    """Where new rolls' messages are. On SQLite they are written in batches, with the next
    roll's own transaction (so a roll is one transaction), or after MESSAGE_IDS_SECONDS when no
    roll comes. On PostgreSQL, where units of work overlap, each is written at once in a
    transaction of its own (one row, so one lock): riding along, a unit that had locked other
    players' rolls for their ids and then waited to close its own roll deadlocked with one doing
    the same the other way round.

    Until written, `overlay` puts them on the views this process reads. A write that fails is
    tried again after a pause that grows to MESSAGE_IDS_RETRY_MAX. A process that stops writes
    what is left (`flush`); one that crashes in between loses only where the message is (the
    roll itself is stored before it is answered): that message is then not redrawn."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.waiting: dict[int, tuple[int | None, int | None, int]] = {}
        self._task: asyncio.Task[None] | None = None
        self._ride_along = db.one_writer  # nothing to deadlock with

    async def put(
        self, roll_id: int, message_id: int | None, gm_message_id: int | None, guild: int
    ) -> None:
        self.waiting[roll_id] = (message_id, gm_message_id, guild)
        if not self._ride_along:
            try:
                await self._write_alone(roll_id)
                return
            except Exception:  # noqa: BLE001 - kept waiting and tried again (below)
                log.warning("could not write roll %s's message id yet", roll_id, exc_info=True)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._later(), name="fatetable-roll-message-ids"
            )

    def overlay(self, view: RollView) -> RollView:
        found = self.waiting.get(view.id)
        if found is None or view.message_id is not None or view.gm_message_id is not None:
            return view
        return replace(view, message_id=found[0], gm_message_id=found[1])

    async def write_in(
        self, session: AsyncSession
    ) -> dict[int, tuple[int | None, int | None, int]]:
        """On SQLite, write the waiting ids in the caller's transaction; `done` them once it
        commits (on PostgreSQL nothing: they are written on their own)."""
        batch = dict(self.waiting) if self._ride_along else {}
        if batch:
            await session.exec(  # type: ignore[call-overload]
                MESSAGE_IDS,
                params=[
                    {"roll": k, "message": m, "gm_message": g} for k, (m, g, _) in batch.items()
                ],
            )
            touched(session, {guild for _, _, guild in batch.values() if guild})
        return batch

    async def write_raw_in(self, unit: RawUnit) -> dict[int, tuple[int | None, int | None, int]]:
        """`write_in` for a raw unit of work."""
        batch = dict(self.waiting) if self._ride_along else {}
        if batch:
            await _write_ids_raw_in(unit, batch)
        return batch

    def done(self, batch: dict[int, tuple[int | None, int | None, int]]) -> None:
        for key, value in batch.items():
            if self.waiting.get(key) == value:
                del self.waiting[key]

    async def flush(self) -> None:
        if not self._ride_along:
            for roll_id in list(self.waiting):
                await self._write_alone(roll_id)
        elif self.waiting:
            async with self.db.raw() as unit:
                batch = await self.write_raw_in(unit)
            self.done(batch)

    async def _write_alone(self, roll_id: int) -> None:
        value = self.waiting.get(roll_id)
        if value is None:  # written meanwhile (a put's own write, or another flush)
            return
        batch = {roll_id: value}
        async with self.db.raw() as unit:
            await _write_ids_raw_in(unit, batch)
        self.done(batch)

    async def _later(self) -> None:
        pause = MESSAGE_IDS_SECONDS
        while self.waiting:  # ids put while a flush was writing are written in the next one
            await asyncio.sleep(pause)
            try:
                await self.flush()
            except Exception:  # noqa: BLE001 - kept waiting, tried again after a longer pause
                log.warning("could not write roll message ids yet", exc_info=True)
                pause = min(pause * 4, MESSAGE_IDS_RETRY_MAX)


async def _write_ids_raw_in(
    unit: RawUnit, batch: dict[int, tuple[int | None, int | None, int]]
) -> None:
    await unit.run_many(
        RAW_MESSAGE_IDS,
        [{"roll": k, "message": m, "gm_message": g} for k, (m, g, _) in batch.items()],
    )
    touched(unit, {guild for _, _, guild in batch.values() if guild})


_OPEN_ROLLS = select(RollRow).where(
    col(RollRow.campaign_id) == bindparam("campaign"), text(OPEN_ROLL)
)
# the open rolls a new roll closes: its character's, or a plain roller's in the channel
OPEN_ROLLS_OF_CHARACTER = _OPEN_ROLLS.where(col(RollRow.character_id) == bindparam("character"))
OPEN_PLAIN_ROLLS = _OPEN_ROLLS.where(
    col(RollRow.user_id) == bindparam("user"),
    col(RollRow.character_id).is_(None),
    col(RollRow.channel_id) == bindparam("channel"),
)

LOCK_ROLL = text("SELECT id FROM roll WHERE id = :id FOR UPDATE")  # PostgreSQL only
MESSAGE_IDS = (
    update(RollRow.__table__)  # type: ignore[attr-defined]
    .where(RollRow.__table__.c.id == bindparam("roll"))  # type: ignore[attr-defined]
    .values(message_id=bindparam("message"), gm_message_id=bindparam("gm_message"))
)


class RollBase:
    """What every roll step shares: the row, its campaign and view, the versioned save, who
    the clicker is for the roll, and an opposed roll kept in step."""

    def __init__(self, db: Database, rng: random.Random | None = None) -> None:
        self.db = db
        self.rng = rng or random.SystemRandom()
        self._message_ids = _MessageIds(db)

    @asynccontextmanager
    async def _unit(self) -> AsyncIterator[AsyncSession]:
        """A unit of work that may write; on SQLite it first stores the message ids still
        waiting (see `_MessageIds`; the views it builds take them from `overlay` anyway)."""
        async with self.db.session() as session:
            written = await self._message_ids.write_in(session)
            yield session
        self._message_ids.done(written)

    # ----------------------------------------------------------------- helpers
    async def _row_in(self, session: AsyncSession, roll_id: int) -> RollRow:
        row = await session.get(RollRow, roll_id)
        if row is None:
            raise RuleError("That roll no longer exists; make a new one with `/roll`.")
        return row

    async def _changing_row_in(self, session: AsyncSession, roll_id: int) -> RollRow:
        """The roll a unit is about to change. A unit that changes one of an opposed pair also
        changes the other (its effort); on PostgreSQL two units on the two sides at once would
        lock the rows in opposite orders and deadlock, so the pair's rows are locked first,
        lower id first, and the roll is read again under the lock."""
        row = await self._row_in(session, roll_id)
        if row.opposes_id is None or self.db.one_writer:
            return row
        for key in sorted((roll_id, row.opposes_id)):
            await session.exec(LOCK_ROLL, params={"id": key})  # type: ignore[call-overload]
        await session.refresh(row)
        return row

    async def _campaign_in(self, session: AsyncSession, row: RollRow) -> CampaignInfo:
        return await resolve_campaign_in(session, row.guild_id, row.channel_id)

    async def _view_in(self, session: AsyncSession, row: RollRow) -> RollView:
        record = None
        if row.character_id is not None and not row.closed:
            try:
                record = await get_character_in(session, row.character_id)
            except RuleError:
                record = None
        roll = Roll.model_validate_json(row.roll_json)
        return self._message_ids.overlay(RollView.of(row, stunt_options(roll, record)))

    async def _save_in(self, session: AsyncSession, row: RollRow, roll: Roll) -> RollRow:
        """Write the roll if nobody changed it since it was read."""
        await save_versioned_in(
            session,
            row,
            "id",
            {"roll_json": roll.model_dump_json(), "closed": roll.closed, "updated_at": utcnow()},
            SAME_MOMENT,
        )
        return row

    async def _role_in(
        self, session: AsyncSession, row: RollRow, user_id: int, is_gm: bool
    ) -> tuple[Role, CharacterRecord | None]:
        """Who the clicker is for this roll, with their character here (if any)."""
        campaign = await self._campaign_in(session, row)
        mine = await active_character_in(session, campaign, row.channel_id, user_id)
        if user_id == row.user_id:
            if row.character_id is not None:
                try:
                    mine = await get_character_in(session, row.character_id)
                except RuleError:
                    mine = None
            return Role.ROLLER, mine
        if is_gm:
            return Role.GM, mine
        if mine is not None and mine.id == row.character_id:
            return Role.ROLLER, mine  # the GM rolled for this player's character
        if row.hidden:
            raise RollNotAllowed(HIDDEN_ROLL)
        if mine is not None:
            return Role.ALLY, mine
        raise RollNotAllowed(
            "Only the roller, the GM and players with a character in this campaign can act on "
            "this roll. Make your own with `/roll`."
        )

    async def _pc_opponent_in(self, session: AsyncSession, row: RollRow) -> str | None:
        """The PC whose roll opposed this one (their holder), if a PC's did."""
        if row.opposes_id is None:
            return None
        partner = await session.get(RollRow, row.opposes_id)
        if partner is None or partner.character_id is None:
            return None
        try:
            record = await get_character_in(session, partner.character_id)
        except RuleError:  # deleted since
            return None
        return None if record.is_npc else character_holder(record.id)

    async def _sync_partner_in(self, session: AsyncSession, row: RollRow) -> list[RollView]:
        """Keep an opposed pair of rolls pointing at each other's current effort."""
        if row.opposes_id is None:
            return []
        partner = await session.get(RollRow, row.opposes_id)
        if partner is None:
            return []
        effort = Roll.model_validate_json(row.roll_json).effort()
        partner_roll = Roll.model_validate_json(partner.roll_json)
        if partner_roll.opposition_effort == effort and partner_roll.difficulty is None:
            return []
        partner_roll = partner_roll.model_copy(
            update={"opposition_effort": effort, "difficulty": None}
        )
        partner = await self._save_in(session, partner, partner_roll)
        return [await self._view_in(session, partner)]


def check_advantage_choice(roll: Roll, *, enemy_on_fail: bool, declined: bool) -> None:
    """A failed new aspect's choice (`enemy_on_fail`, `declined`) only where the roll asks
    it, and nothing else there: `AdvantageChanged` for a click on a copy from before."""
    chooses = roll.failure_is_rollers_choice()
    aim = roll.advantage
    if (enemy_on_fail or declined) and aim is not None and aim.key is not None:
        raise RuleError("Only a failed roll on a new aspect is its roller's choice.")
    if (enemy_on_fail or declined) and not chooses:
        raise AdvantageChanged(
            "That choice is only for a failed roll on a new aspect, and this roll does "
            "not fail (any more): it resolves with its **Create aspect** button."
        )
    if chooses and not (enemy_on_fail or declined):
        raise AdvantageChanged(
            "This roll fails now, so its roller chooses: **Don't create it**, or "
            "**Create it — the enemy gets the free invoke**."
        )
