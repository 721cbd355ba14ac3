"""Campaigns and characters: the spine every Fate feature stands on.

Two kinds of functions live here:
- `CampaignService` methods open their own transaction (one call = one unit of work);
- the module-level `*_in(session, ...)` helpers work inside a transaction another service opened,
  so that e.g. a roll's invoke and its fate point payment commit together.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import bindparam, func
from sqlalchemy import select as core_select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.bounded import Bounded
from bot.db.cache import parsed, remember
from bot.db.changes import touched
from bot.db.engine import Database
from bot.db.models.campaigns import (
    ActiveCharacter,
    Campaign,
    ChannelCampaign,
    CharacterRow,
    FatePointEntry,
)
from bot.db.models.columns import BIGINT_MAX, utcnow
from bot.db.raw import RawUnit, Sql
from bot.db.repos.characters import CHARACTER_SELECT, new_ledger_entry_raw_in
from bot.db.repos.versioned import StaleError, update_versioned_in, update_versioned_raw_in
from bot.errors import RuleError
from bot.fate.sheet import Character
from bot.fate.skills import SkillList, default_skills
from bot.fate.stress import StressStyle

DEFAULT_CAMPAIGN_NAME = "Main campaign"
CAMPAIGN_NAME_MAX = 80
MAX_CAMPAIGNS_PER_GUILD = 25
MAX_CHARACTERS_PER_CAMPAIGN = 200
SERVER_WIDE = 0  # ActiveCharacter.channel_id for the server-wide choice
NO_ACTIVE_CHARACTER = (
    "You have no active character here. Create one with `/character create` "
    "or pick one with `/character switch`."
)
NAME_CACHE_SECONDS = 30.0


class CampaignSettings(BaseModel):
    """A campaign's table settings (stress style, skill list, ...)."""

    stress_style: StressStyle = StressStyle.CONDENSED
    skills: list[str] | None = Field(default=None, max_length=50)  # None = Fate Condensed's 19
    gm_channel_id: int | None = None
    turn_ping: bool = True  # the "acts next" line pings that one player

    def skill_list(self) -> SkillList:
        return SkillList.from_names(self.skills) if self.skills else default_skills()


@dataclass(frozen=True)
class CampaignInfo:
    """A campaign as the other services need it: id, guild, name, settings."""

    id: int
    guild_id: int
    name: str
    is_default: bool
    settings: CampaignSettings
    version: int

    @classmethod
    def of(cls, row: Campaign) -> CampaignInfo:
        assert row.id is not None
        settings = CampaignSettings.model_validate_json(row.settings_json or "{}")
        return cls(row.id, row.guild_id, row.name, row.is_default, settings, row.version)


@dataclass(frozen=True)
class CharacterRecord:
    """A character row with its parsed sheet and its version."""

    id: int
    campaign_id: int
    guild_id: int
    owner_id: int
    sheet: Character
    version: int

    @property
    def name(self) -> str:
        return self.sheet.name

    @property
    def is_npc(self) -> bool:
        return self.sheet.is_npc

    @classmethod
    def of(cls, row: CharacterRow) -> CharacterRecord:
        assert row.id is not None
        sheet = Character.model_validate_json(row.sheet_json).model_copy(update={"id": row.id})
        return cls(row.id, row.campaign_id, row.guild_id, row.owner_id, sheet, row.version)


@dataclass(frozen=True)
class CharacterName:
    """A character's name for autocomplete (and whether it is an NPC)."""

    id: int
    name: str
    owner_id: int
    is_npc: bool


@dataclass
class NameCache:
    """Character names per campaign, for autocomplete (which must answer from memory)."""

    entries: dict[int, tuple[float, list[CharacterName]]] = field(default_factory=Bounded)

    def get(self, campaign_id: int) -> list[CharacterName] | None:
        hit = self.entries.get(campaign_id)
        if hit and time.monotonic() - hit[0] < NAME_CACHE_SECONDS:
            return hit[1]
        return None

    def put(self, campaign_id: int, names: list[CharacterName]) -> None:
        self.entries[campaign_id] = (time.monotonic(), names)

    def forget(self, campaign_id: int) -> None:
        self.entries.pop(campaign_id, None)


# --------------------------------------------------------------------------- in-transaction helpers
# The columns a CampaignInfo / CharacterRecord is made of; the objects themselves come from the
# process's cache of parsed rows when it holds the version read (bot/db/cache.py).
CAMPAIGN_COLUMNS = (
    col(Campaign.id),
    col(Campaign.guild_id),
    col(Campaign.name),
    col(Campaign.is_default),
    col(Campaign.settings_json),
    col(Campaign.version),
)
CHARACTER_COLUMNS = (
    col(CharacterRow.id),
    col(CharacterRow.campaign_id),
    col(CharacterRow.guild_id),
    col(CharacterRow.owner_id),
    col(CharacterRow.sheet_json),
    col(CharacterRow.version),
)


def _bound_campaign() -> Any:
    """The channel's campaign, else the server's default one: bound first (one statement, made
    once; parameters `guild` and `channel`)."""
    bound = col(ChannelCampaign.channel_id)
    return (
        core_select(*CAMPAIGN_COLUMNS)
        .outerjoin(
            ChannelCampaign,
            (col(ChannelCampaign.campaign_id) == col(Campaign.id))
            & (bound == bindparam("channel")),
        )
        .where(
            col(Campaign.guild_id) == bindparam("guild"),
            bound.is_not(None) | col(Campaign.is_default),
        )
        .order_by(bound.is_(None))
        .limit(1)
    )


def _active_character() -> Any:
    """The user's character here: the channel's choice first, then the server-wide one, of the
    campaign `campaign` (parameters `guild`, `user`, `channel`, `campaign`)."""
    scope = col(ActiveCharacter.channel_id)
    return (
        core_select(*CHARACTER_COLUMNS)
        .join(ActiveCharacter, col(ActiveCharacter.character_id) == col(CharacterRow.id))
        .where(
            col(ActiveCharacter.guild_id) == bindparam("guild"),
            col(ActiveCharacter.user_id) == bindparam("user"),
            scope.in_([bindparam("channel"), SERVER_WIDE]),
            col(CharacterRow.campaign_id) == bindparam("campaign"),
        )
        .order_by(scope == SERVER_WIDE)
        .limit(1)
    )


def bound_campaign_id(guild: Any, channel: Any) -> Any:
    """The id of the campaign `BOUND_CAMPAIGN` picks (bound to `channel`, else the server's
    default), as a scalar subquery on an outer statement's columns: a statement that loads a
    row of a channel brings that channel's campaign along instead of a second statement."""
    campaign = Campaign.__table__.alias("bound_campaign")  # type: ignore[attr-defined]
    binding = ChannelCampaign.__table__.alias("bound_channel")  # type: ignore[attr-defined]
    return (
        core_select(campaign.c.id)
        .select_from(
            campaign.outerjoin(
                binding,
                (binding.c.campaign_id == campaign.c.id) & (binding.c.channel_id == channel),
            )
        )
        .where(
            campaign.c.guild_id == guild, binding.c.channel_id.is_not(None) | campaign.c.is_default
        )
        .order_by(binding.c.channel_id.is_(None))
        .limit(1)
        .scalar_subquery()
    )


BOUND_CAMPAIGN = _bound_campaign()
ACTIVE_CHARACTER = _active_character()
CAMPAIGN_BY_ID = core_select(*CAMPAIGN_COLUMNS).where(col(Campaign.id) == bindparam("id"))
CHARACTER_BY_NAME = core_select(*CHARACTER_COLUMNS).where(
    col(CharacterRow.campaign_id) == bindparam("campaign"),
    func.lower(col(CharacterRow.name)) == bindparam("name"),
)
CHARACTERS_BY_ID = core_select(*CHARACTER_COLUMNS).where(
    col(CharacterRow.id).in_(bindparam("ids", expanding=True))
)
CHARACTER_BY_ID = core_select(*CHARACTER_COLUMNS).where(col(CharacterRow.id) == bindparam("id"))


# A campaign's characters by name, with and without the NPCs (the GM's secrets stay out of
# what players see; the settings' stress change and the invoke menus want them all).
CAMPAIGN_CHARACTERS = (
    core_select(*CHARACTER_COLUMNS)
    .where(col(CharacterRow.campaign_id) == bindparam("campaign"))
    .order_by(col(CharacterRow.name))
)
CAMPAIGN_PCS = (
    core_select(*CHARACTER_COLUMNS)
    .where(
        col(CharacterRow.campaign_id) == bindparam("campaign"),
        col(CharacterRow.is_npc).is_(False),
    )
    .order_by(col(CharacterRow.name))
)


def parsed_campaign_in(session: AsyncSession | RawUnit, found: Any) -> CampaignInfo:
    """The CampaignInfo of CAMPAIGN_COLUMNS read in this transaction (parsed once per version)."""
    key, guild_id, name, is_default, settings_json, version = found
    info: CampaignInfo | None = parsed(session, "campaign", key, version)
    if info is None:
        settings = CampaignSettings.model_validate_json(settings_json or "{}")
        info = CampaignInfo(key, guild_id, name, is_default, settings, version)
        remember(session, "campaign", key, version, info)
    return info


async def campaign_characters_in(
    session: AsyncSession, campaign_id: int, *, npcs: bool = True
) -> list[CharacterRecord]:
    """The campaign's characters by name (players' characters only without `npcs`), each
    sheet parsed once per version: a long campaign's cast is not parsed again on every
    invoke menu."""
    query = CAMPAIGN_CHARACTERS if npcs else CAMPAIGN_PCS
    rows = await session.exec(query, params={"campaign": campaign_id})  # type: ignore[call-overload]
    return [parsed_character_in(session, found) for found in rows.all()]


def campaign_of_raw(unit: RawUnit, found: Any) -> CampaignInfo:
    """The CampaignInfo of the six campaign columns read in a raw unit (parsed once per
    version; SQLite gives the flag back as 0/1)."""
    key, guild_id, name, is_default, settings_json, version = found
    return parsed_campaign_in(unit, (key, guild_id, name, bool(is_default), settings_json, version))


def parsed_character_in(session: AsyncSession | RawUnit, found: Any) -> CharacterRecord:
    """The CharacterRecord of CHARACTER_COLUMNS read in this transaction (parsed once per
    version)."""
    key, campaign_id, guild_id, owner_id, sheet_json, version = found
    record: CharacterRecord | None = parsed(session, "character", key, version)
    if record is None:
        sheet = Character.model_validate_json(sheet_json).model_copy(update={"id": key})
        record = CharacterRecord(key, campaign_id, guild_id, owner_id, sheet, version)
        remember(session, "character", key, version, record)
    return record


async def resolve_campaign_in(
    session: AsyncSession, guild_id: int, channel_id: int
) -> CampaignInfo:
    """The channel's campaign, else the server's default one (created on first use).
    One statement: the bound campaign and the default come back together, bound first."""
    found = (
        await session.exec(  # type: ignore[call-overload]
            BOUND_CAMPAIGN, params={"guild": guild_id, "channel": channel_id}
        )
    ).first()
    if found is None:
        return CampaignInfo.of(await _create_default_in(session, guild_id))
    return parsed_campaign_in(session, found)


async def campaign_by_id_in(session: AsyncSession, campaign_id: int) -> CampaignInfo | None:
    """The campaign with this id (parsed once per version), None when it is gone."""
    found = (
        await session.exec(CAMPAIGN_BY_ID, params={"id": campaign_id})  # type: ignore[call-overload]
    ).first()
    return parsed_campaign_in(session, found) if found is not None else None


async def _create_default_in(session: AsyncSession, guild_id: int) -> Campaign:
    """Insert the server's default campaign, or fetch the one a concurrent first command just
    made (INSERT ... ON CONFLICT DO NOTHING, then read): a new server's first burst of
    commands creates it once and every command gets it."""
    dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
    insert = postgresql_insert if dialect == "postgresql" else sqlite_insert
    await session.exec(  # type: ignore[call-overload]
        insert(Campaign)
        .values(
            guild_id=guild_id,
            name=DEFAULT_CAMPAIGN_NAME,
            is_default=True,
            settings_json="{}",
            created_at=utcnow(),
            version=1,
        )
        .on_conflict_do_nothing(index_elements=["guild_id", "name"])
    )
    return (
        await session.exec(
            select(Campaign)
            .where(Campaign.guild_id == guild_id, Campaign.name == DEFAULT_CAMPAIGN_NAME)
            .execution_options(populate_existing=True)
        )
    ).one()


async def get_character_in(session: AsyncSession, character_id: int) -> CharacterRecord:
    """The character with this id; a sentence when it was deleted."""
    found = (
        await session.exec(CHARACTER_BY_ID, params={"id": character_id})  # type: ignore[call-overload]
    ).first()
    if found is None:
        raise RuleError("That character no longer exists.")
    return parsed_character_in(session, found)


async def characters_in(
    session: AsyncSession, character_ids: list[int]
) -> dict[int, CharacterRecord]:
    """The characters with these ids that still exist, in one statement."""
    if not character_ids:
        return {}
    rows = await session.exec(  # type: ignore[call-overload]
        CHARACTERS_BY_ID, params={"ids": sorted(set(character_ids))}
    )
    return {record.id: record for record in (parsed_character_in(session, r) for r in rows.all())}


@lru_cache(maxsize=32)
def _characters_by_id_raw(count: int) -> Sql:
    """CHARACTERS_BY_ID as a raw statement (bot/db/raw.py) for `count` ids `:id0`, ..."""
    wanted = ", ".join(f":id{n}" for n in range(count))
    return Sql(f"SELECT {CHARACTER_SELECT} FROM character WHERE character.id IN ({wanted})")


async def characters_raw_in(unit: RawUnit, character_ids: list[int]) -> dict[int, CharacterRecord]:
    """`characters_in` in a raw unit of work: one statement, sheets parsed once per version."""
    ids = sorted(set(character_ids))
    if not ids:
        return {}
    params = {f"id{n}": key for n, key in enumerate(ids)}
    rows = await unit.rows(_characters_by_id_raw(len(ids)), params)
    return {record.id: record for record in (parsed_character_in(unit, r) for r in rows)}


def character_ref(text: str) -> int | None:
    """The id in a "#<id>" reference (what autocomplete fills in), if it can be a row id."""
    digits = text.strip().removeprefix("#")
    if not text.strip().startswith("#") or not digits.isdigit() or len(digits) > 19:
        return None
    number = int(digits)
    return number if number <= BIGINT_MAX else None


async def find_character_in(session: AsyncSession, campaign_id: int, name: str) -> CharacterRecord:
    """A character of the campaign by name (case-insensitive), or by "#id" from autocomplete."""
    wanted = name.strip()
    ref = character_ref(wanted)
    if ref is not None:
        record = await get_character_in(session, ref)
        if record.campaign_id == campaign_id:
            return record
    params = {"campaign": campaign_id, "name": wanted.lower()}
    found = (await session.exec(CHARACTER_BY_NAME, params=params)).first()  # type: ignore[call-overload]
    if found is None:
        raise unknown_character(wanted)
    return parsed_character_in(session, found)


def unknown_character(name: str) -> RuleError:
    """The one sentence for a name that finds no character (or none the asker may see)."""
    return RuleError(
        f"No character called '{name.strip()[:80]}' in this campaign. "
        "Pick one from the suggestions, or see `/character list`."
    )


async def active_character_in(
    session: AsyncSession, campaign: CampaignInfo, channel_id: int, user_id: int
) -> CharacterRecord | None:
    """The user's character here: the channel's choice first, then the server-wide one (one
    statement; a choice of a character of another campaign does not count)."""
    params = {
        "guild": campaign.guild_id,
        "user": user_id,
        "channel": channel_id,
        "campaign": campaign.id,
    }
    found = (await session.exec(ACTIVE_CHARACTER, params=params)).first()  # type: ignore[call-overload]
    return parsed_character_in(session, found) if found is not None else None


async def require_active_in(
    session: AsyncSession, campaign: CampaignInfo, channel_id: int, user_id: int
) -> CharacterRecord:
    """The user's active character here; a sentence saying how to pick one."""
    record = await active_character_in(session, campaign, channel_id, user_id)
    if record is None:
        raise RuleError(NO_ACTIVE_CHARACTER)
    return record


async def set_active_in(
    session: AsyncSession, guild_id: int, user_id: int, character_id: int, channel_id: int | None
) -> None:
    """Make a character the user's active one in a channel, or server-wide."""
    scope = channel_id or SERVER_WIDE
    existing = await session.get(ActiveCharacter, (guild_id, user_id, scope))
    if existing is None:
        session.add(
            ActiveCharacter(
                guild_id=guild_id, user_id=user_id, channel_id=scope, character_id=character_id
            )
        )
    else:
        existing.character_id = character_id
        session.add(existing)


async def insert_character_in(
    session: AsyncSession, campaign: CampaignInfo, owner_id: int, sheet: Character
) -> CharacterRecord:
    """Store a new character of the campaign, owned by `owner_id`."""
    count = (
        await session.exec(
            select(func.count())
            .select_from(CharacterRow)
            .where(CharacterRow.campaign_id == campaign.id)
        )
    ).one()
    if count >= MAX_CHARACTERS_PER_CAMPAIGN:
        raise RuleError(
            f"This campaign already has {MAX_CHARACTERS_PER_CAMPAIGN} characters; "
            "delete some before making more."
        )
    clash = (
        await session.exec(
            select(CharacterRow.id).where(
                CharacterRow.campaign_id == campaign.id,
                func.lower(CharacterRow.name) == sheet.name.lower(),
            )
        )
    ).first()
    if clash is not None:
        raise RuleError(f"There is already a character called '{sheet.name}' in this campaign.")
    row = CharacterRow(
        campaign_id=campaign.id,
        guild_id=campaign.guild_id,
        owner_id=owner_id,
        name=sheet.name,
        is_npc=sheet.is_npc,
        sheet_json=sheet.model_copy(update={"id": None}).model_dump_json(),
    )
    session.add(row)
    await session.flush()
    return CharacterRecord.of(row)


async def save_character_in(
    session: AsyncSession, record: CharacterRecord, sheet: Character
) -> CharacterRecord:
    """Write a changed sheet if nobody else changed it since `record` was read."""
    values = _sheet_values(sheet, utcnow())
    stale = _stale_sheet(record)
    await update_versioned_in(session, CharacterRow, record.id, record.version, values, stale)
    return _saved(record, sheet)


def _sheet_values(sheet: Character, now: Any) -> dict[str, Any]:
    return {
        "sheet_json": sheet.model_copy(update={"id": None}).model_dump_json(),
        "name": sheet.name,
        "is_npc": sheet.is_npc,
        "updated_at": now,
    }


def _stale_sheet(record: CharacterRecord) -> StaleError:
    return StaleError(
        f"{record.name} was changed by someone else at the same moment; "
        "look at the sheet again and retry."
    )


def _saved(record: CharacterRecord, sheet: Character) -> CharacterRecord:
    """The record as just written (version + 1)."""
    return CharacterRecord(
        record.id,
        record.campaign_id,
        record.guild_id,
        record.owner_id,
        sheet.model_copy(update={"id": record.id}),
        record.version + 1,
    )


def target_of_in(unit: RawUnit, found: Any) -> tuple[CampaignInfo, CharacterRecord | None]:
    """The campaign and character of a raw sheet-command row (bot/db/repos/characters.py)."""
    campaign = parsed_campaign_in(unit, (*found[:3], bool(found[3]), *found[4:6]))
    record = parsed_character_in(unit, found[6:12]) if found[6] is not None else None
    return campaign, record


def _with_fate_points_moved(record: CharacterRecord, delta: int) -> Character:
    """The sheet with `delta` fate points (a sentence when it has too few to spend)."""
    if record.sheet.fate_points + delta < 0:
        raise RuleError(f"{record.name} has no fate point to spend.")
    return record.sheet.adjust_fate_points(delta)


async def move_fate_points_raw_in(
    unit: RawUnit,
    record: CharacterRecord,
    delta: int,
    *,
    reason: str,
    actor_id: int,
    note: str = "",
    channel_id: int | None = None,
) -> CharacterRecord:
    """`move_fate_points_in` in a raw unit of work: the versioned sheet save and the ledger
    entry, two statements."""
    sheet = _with_fate_points_moved(record, delta)
    values = _sheet_values(sheet, unit.timestamp(utcnow()))
    stale = _stale_sheet(record)
    await update_versioned_raw_in(unit, "character", record.id, record.version, values, stale)
    await new_ledger_entry_raw_in(
        unit,
        {
            "campaign": record.campaign_id,
            "channel": channel_id,
            "character": record.id,
            "who": record.name,
            "delta": delta,
            "balance": sheet.fate_points,
            "reason": reason,
            "note": note[:200],
            "actor": actor_id,
            "undone": False,
        },
    )
    touched(unit, {record.guild_id})
    saved = _saved(record, sheet)
    # the sheet was validated as it changed (the sheet API re-validates), so it is what a parse
    # of the stored JSON gives: the next read of this version needs no parse (kept on commit)
    remember(unit, "character", saved.id, saved.version, saved)
    return saved


async def move_fate_points_in(
    session: AsyncSession,
    record: CharacterRecord,
    delta: int,
    *,
    reason: str,
    actor_id: int,
    note: str = "",
    channel_id: int | None = None,
    roll_id: int | None = None,
) -> tuple[CharacterRecord, FatePointEntry]:
    """Change a character's fate points and write the ledger entry, in the caller's transaction
    (`roll_id`: the roll an invoke was paid on, which void gives the point back from)."""
    updated = await save_character_in(session, record, _with_fate_points_moved(record, delta))
    entry = FatePointEntry(
        campaign_id=record.campaign_id,
        channel_id=channel_id,
        character_id=record.id,
        who=record.name,
        delta=delta,
        balance_after=updated.sheet.fate_points,
        reason=reason,
        note=note[:200],
        actor_id=actor_id,
        roll_id=roll_id,
    )
    session.add(entry)
    await session.flush()
    return updated, entry


async def log_gm_points_in(
    session: AsyncSession,
    campaign_id: int,
    delta: int,
    balance_after: int,
    *,
    reason: str,
    actor_id: int,
    note: str = "",
    channel_id: int | None = None,
    roll_id: int | None = None,
) -> FatePointEntry:
    """A ledger entry for the GM's pool (the pool itself lives with the scene)."""
    entry = FatePointEntry(
        campaign_id=campaign_id,
        channel_id=channel_id,
        character_id=None,
        who="GM",
        delta=delta,
        balance_after=balance_after,
        reason=reason,
        note=note[:200],
        actor_id=actor_id,
        roll_id=roll_id,
    )
    session.add(entry)
    await session.flush()
    return entry


async def character_names_in(session: AsyncSession, campaign_id: int) -> list[CharacterName]:
    """The names of the campaign's characters, for autocomplete."""
    rows = await session.exec(
        select(CharacterRow.id, CharacterRow.name, CharacterRow.owner_id, CharacterRow.is_npc)
        .where(CharacterRow.campaign_id == campaign_id)
        .order_by(CharacterRow.name)
    )
    return [CharacterName(int(i or 0), n, int(o), bool(npc)) for i, n, o, npc in rows.all()]


# --------------------------------------------------------------------------- the service
class CampaignService:
    """Campaigns: create, bind to channels, settings, and the character names cache."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.names = NameCache()

    async def current(self, guild_id: int, channel_id: int) -> CampaignInfo:
        async with self.db.session() as session:
            return await resolve_campaign_in(session, guild_id, channel_id)

    async def create(self, guild_id: int, name: str, settings: CampaignSettings) -> CampaignInfo:
        name = name.strip()
        if not name or len(name) > CAMPAIGN_NAME_MAX:
            raise RuleError(f"A campaign name needs 1 to {CAMPAIGN_NAME_MAX} characters.")
        async with self.db.session() as session:
            await resolve_campaign_in(session, guild_id, 0)  # make sure the default exists
            existing = await self._list_in(session, guild_id)
            if len(existing) >= MAX_CAMPAIGNS_PER_GUILD:
                raise RuleError(f"A server can run at most {MAX_CAMPAIGNS_PER_GUILD} campaigns.")
            if any(c.name.lower() == name.lower() for c in existing):
                raise RuleError(f"There is already a campaign called '{name}' here.")
            row = Campaign(guild_id=guild_id, name=name, settings_json=settings.model_dump_json())
            session.add(row)
            await session.flush()
            return CampaignInfo.of(row)

    async def _list_in(self, session: AsyncSession, guild_id: int) -> list[CampaignInfo]:
        rows = await session.exec(
            select(Campaign).where(Campaign.guild_id == guild_id).order_by(col(Campaign.id))
        )
        return [CampaignInfo.of(r) for r in rows.all()]

    async def overview(self, guild_id: int) -> tuple[list[CampaignInfo], dict[int, list[int]]]:
        """The server's campaigns and, for each, the channels bound to it."""
        async with self.db.session() as session:
            await resolve_campaign_in(session, guild_id, 0)
            campaigns = await self._list_in(session, guild_id)
            bindings = await session.exec(
                select(ChannelCampaign).where(ChannelCampaign.guild_id == guild_id)
            )
            channels: dict[int, list[int]] = {}
            for binding in bindings.all():
                channels.setdefault(binding.campaign_id, []).append(binding.channel_id)
            return campaigns, channels

    async def find(self, guild_id: int, name: str) -> CampaignInfo:
        async with self.db.session() as session:
            return await self._find_in(session, guild_id, name)

    async def _find_in(self, session: AsyncSession, guild_id: int, name: str) -> CampaignInfo:
        for campaign in await self._list_in(session, guild_id):
            if campaign.name.lower() == name.strip().lower():
                return campaign
        raise RuleError(f"No campaign called '{name[:80]}' here; see `/campaign list`.")

    async def bind(self, guild_id: int, channel_id: int, name: str) -> CampaignInfo:
        async with self.db.session() as session:
            campaign = await self._find_in(session, guild_id, name)
            binding = await session.get(ChannelCampaign, channel_id)
            if binding is None:
                binding = ChannelCampaign(
                    channel_id=channel_id, guild_id=guild_id, campaign_id=campaign.id
                )
            else:
                binding.campaign_id = campaign.id
            session.add(binding)
            return campaign

    async def update_settings(self, campaign_id: int, settings: CampaignSettings) -> CampaignInfo:
        async with self.db.session() as session:
            row = await session.get(Campaign, campaign_id)
            if row is None:
                raise RuleError("That campaign no longer exists.")
            # versioned like every write the parsed-row cache trusts: two edits at once never
            # both become the same version
            await update_versioned_in(
                session,
                Campaign,
                campaign_id,
                row.version,
                {"settings_json": settings.model_dump_json()},
                RuleError("The settings changed meanwhile; run the command again."),
            )
            return CampaignInfo.of(row)

    async def character_names(self, campaign_id: int) -> list[CharacterName]:
        """For autocomplete: from memory when fresh, else one quick query."""
        cached = self.names.get(campaign_id)
        if cached is not None:
            return cached
        async with self.db.session() as session:
            names = await character_names_in(session, campaign_id)
        self.names.put(campaign_id, names)
        return names
