"""What conflicts, contests and challenges share: the encounter row (start, load, the versioned
save, the tracker message), who takes part, the dice, and the invoke and absorb menus.

One service call = one transaction: `EncounterService.transact` loads the row, checks the version
the clicker saw, runs one step on the pure state and saves it with an optimistic version check
(a double click applies once). Dice come from one `DiceSource` the three services share
(SystemRandom in production; tests script it).
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, Field
from sqlalchemy import bindparam, text
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.engine import Database
from bot.db.models.campaigns import Campaign
from bot.db.models.conflicts import LIVE_ENCOUNTER, EncounterRow
from bot.db.models.scenes import SceneRow
from bot.db.raw import RawUnit
from bot.db.repos.encounters import (
    EncounterColumns,
    check_version,
    save_encounter_in,
    set_tracker_in,
)
from bot.errors import RuleError
from bot.fate import conflict as rules
from bot.fate.aspects import GM, Aspect
from bot.fate.dice import fate_symbols
from bot.fate.harm import AbsorbChoice, SlotRef
from bot.fate.ladder import describe, parse_rating
from bot.fate.rolls import InvokeMode, Payment, Roll, Roller, apply_invoke
from bot.fate.sheet import Character
from bot.fate.tracks import Track, TrackKind
from bot.services import aspects_in_play
from bot.services.campaigns import (
    CAMPAIGN_COLUMNS,
    CampaignInfo,
    CharacterRecord,
    bound_campaign_id,
    campaign_by_id_in,
    characters_in,
    characters_raw_in,
    move_fate_points_in,
    parsed_campaign_in,
    resolve_campaign_in,
)
from bot.services.scene_state import pay_owed_points_in, spend_gm_point_in

HIDDEN_NAME = "a hidden aspect"
LOG_KEEP = 8
MAX_PARTICIPANTS = rules.MAX_COMBATANTS


class Member(BaseModel):
    """Who a combatant (or contest/challenge member) is, and who may act for them."""

    character_id: int
    owner_id: int
    name: str
    is_npc: bool

    def controlled_by(self, user_id: int, is_gm: bool) -> bool:
        return is_gm or (not self.is_npc and self.owner_id == user_id)

    @property
    def holder(self) -> str:
        """How scene and game aspects name this member's free invokes (the GM holds NPCs')."""
        return GM if self.is_npc else f"char:{self.character_id}"


def member_of(record: CharacterRecord) -> Member:
    """The member an encounter stores for a character."""
    return Member(
        character_id=record.id, owner_id=record.owner_id, name=record.name, is_npc=record.is_npc
    )


def roller_of(member: Member) -> Roller:
    """Who rolls for a member."""
    return Roller(character_id=member.character_id, user_id=member.owner_id, name=member.name)


def _with_campaign() -> Any:
    """An encounter row with its channel's campaign (what `resolve_campaign_in` would pick)
    in the same statement; the campaign's columns are NULL when it has none yet."""
    campaign_id = bound_campaign_id(col(EncounterRow.guild_id), col(EncounterRow.channel_id))
    return select(EncounterRow, *CAMPAIGN_COLUMNS).outerjoin(  # type: ignore[call-overload]
        Campaign, col(Campaign.id) == campaign_id
    )


# built once: every tracker click loads by id, `/conflict next` the one running in a channel
ENCOUNTER_BY_ID = _with_campaign().where(col(EncounterRow.id) == bindparam("id"))
RUNNING_ENCOUNTER = (
    _with_campaign()
    .where(
        col(EncounterRow.channel_id) == bindparam("channel"),
        col(EncounterRow.kind) == bindparam("kind"),
        text(LIVE_ENCOUNTER),
    )
    .order_by(col(EncounterRow.id).desc())
    .limit(1)
)


async def encounter_with_campaign_in(
    session: AsyncSession, kind: str, encounter_id: int | None, channel_id: int | None = None
) -> tuple[EncounterRow, CampaignInfo | None] | None:
    """The encounter `encounter_id` of `kind`, or (None) the one of `kind` running in
    `channel_id`, with its channel's campaign (None when that has to be made first): one
    statement. None when there is no such encounter."""
    if encounter_id is None:
        params: dict[str, Any] = {"channel": channel_id, "kind": kind}
        found = (await session.exec(RUNNING_ENCOUNTER, params=params)).first()  # type: ignore[call-overload]
    else:
        found = (await session.exec(ENCOUNTER_BY_ID, params={"id": encounter_id})).first()  # type: ignore[call-overload]
    if found is None or found[0].kind != kind:
        return None
    row, *campaign = found
    return row, parsed_campaign_in(session, campaign) if campaign[0] is not None else None


async def sheets_raw_in(unit: RawUnit, members: dict[str, Member]) -> dict[str, Character]:
    """`sheets_in` in a raw unit of work: one statement, sheets parsed once per version."""
    records = await characters_raw_in(unit, [m.character_id for m in members.values()])
    return {
        key: records[member.character_id].sheet
        for key, member in members.items()
        if member.character_id in records
    }


async def sheets_in(session: AsyncSession, members: dict[str, Member]) -> dict[str, Character]:
    """The sheets of the members that still exist (a deleted character is left out): one
    statement for all of them."""
    records = await characters_in(session, [m.character_id for m in members.values()])
    return {
        key: records[member.character_id].sheet
        for key, member in members.items()
        if member.character_id in records
    }


def without_spent(aspects: list[Aspect], key: str, spent: Aspect | None) -> list[Aspect]:
    """The aspects after a free invoke on `key`: updated, or gone when it was a boost."""
    if spent is None:
        return [a for a in aspects if a.id != key]
    return [spent if a.id == key else a for a in aspects]


def parse_names(text: str, what: str, limit: int = MAX_PARTICIPANTS) -> list[str]:
    """Names from a comma-separated list; a sentence when it is empty or too long."""
    names = [n.strip() for n in text.replace(";", ",").split(",") if n.strip()]
    if not names:
        raise RuleError(f"List the {what} by name, separated by commas (e.g. `Harry, Molly`).")
    if len(names) > limit:
        raise RuleError(f"List at most {limit} {what}.")
    return names


def parse_difficulty(text: str) -> int:
    """A difficulty typed as a number or a ladder word."""
    try:
        return parse_rating(text)
    except ValueError as error:
        raise RuleError(f"Difficulty: {error}") from None


def roll_line(name: str, roll: Roll) -> str:
    """A roll as one log line: skill, dice, bonuses and effort."""
    skill = f"{roll.skill} " if roll.skill else ""
    extras = [f"{m.value:+d} {m.label}" for m in roll.modifiers if m.value]
    if roll.teamwork_bonus:
        extras.append(f"+{roll.teamwork_bonus} teamwork")
    scale = roll.effort_before_scale_success() - roll.skill_rating - roll.dice_total
    scale -= sum(m.value for m in roll.modifiers) + roll.teamwork_bonus
    scale -= sum(i.bonus for i in roll.invokes if not i.hostile)
    if scale:
        extras.append(f"{scale:+d} scale")
    bonus = sum(i.bonus for i in roll.invokes if not i.hostile)
    if bonus:
        extras.append(f"+{bonus} invokes")
    more = (" " + " ".join(extras)) if extras else ""
    return (
        f"{name}: {skill}{roll.skill_rating:+d} {fate_symbols(roll.dice)}{more} = "
        f"{describe(roll.effort())}"
    )


REROLL = "rr:"  # heads a tracker invoke menu's values when the invoke rerolls the dice


def rerolls(choices: Sequence[Choice]) -> list[Choice]:
    """An invoke menu's choices for a reroll (the rules: +2, or reroll all four dice)."""
    return [Choice(f"{REROLL}{c.value}", c.label, c.description) for c in choices]


def invoke_mode(value: str) -> tuple[InvokeMode, str]:
    """The mode a tracker invoke menu's pick asks for, and the pick without its head."""
    if value.startswith(REROLL):
        return InvokeMode.REROLL, value.removeprefix(REROLL)
    return InvokeMode.BONUS, value


def invoked_how(mode: InvokeMode, before: Roll, after: Roll) -> str:
    """How an invoke changed a roll, for a tracker's log line."""
    if mode is InvokeMode.BONUS:
        return "for +2"
    return f"to reroll: {fate_symbols(before.dice)} -> {fate_symbols(after.dice)}"


def invoke_for_bonus(
    roll: Roll,
    rng: random.Random,
    member: Member,
    user_id: int,
    aspect: tuple[str, str],
    payment: str,
    mode: InvokeMode = InvokeMode.BONUS,
) -> Roll:
    """`roll` with +2 (or its dice rerolled) from an invoke `user_id` made for `member` on
    `aspect` (its key and the name the log shows); `payment` "fp" is a fate point, anything
    else a free invoke."""
    key, name = aspect
    invoked, _ = apply_invoke(
        roll,
        rng,
        invoker_id=user_id,
        invoker_name=member.name,
        aspect_key=key,
        aspect_name=name,
        mode=mode,
        payment=Payment.FATE_POINT if payment == "fp" else Payment.FREE_INVOKE,
        payer_id=member.character_id,
    )
    return invoked


def skill_choices(
    sheet: Character, campaign_skills: Sequence[str] = (), limit: int = 25
) -> list[tuple[str, int]]:
    """The skills a character may roll, best first, then every other skill of the campaign at
    Mediocre (+0): an unrated Will still defends a mental attack (for selects)."""
    rated = sorted(sheet.skills.items(), key=lambda kv: (-kv[1], kv[0]))
    known = {name.casefold() for name, _ in rated}
    mediocre = [(name, 0) for name in campaign_skills if name.casefold() not in known]
    return [*rated, *mediocre][:limit]


@dataclass(frozen=True)
class Choice:
    """One entry of a menu: the value sent back, the label shown and a description."""

    value: str
    label: str
    description: str = ""


@dataclass(frozen=True)
class AbsorbOption:
    """One way to take a hit, as a menu entry."""

    index: int
    label: str
    slots_needing_text: tuple[str, ...]  # labels of consequence slots that need an aspect


async def pay_invoke_point_in(
    session: AsyncSession,
    campaign: CampaignInfo,
    channel_id: int,
    record: CharacterRecord,
    user_id: int,
    note: str,
) -> None:
    """A fate point for an invoke: a PC pays from the sheet; an NPC from the GM pool of the
    channel's scene (as /roll does), or from its own sheet when no scene is running."""
    if record.is_npc:
        scene = await session.get(SceneRow, channel_id)
        if scene is not None and scene.active and scene.campaign_id == campaign.id:
            await spend_gm_point_in(
                session, campaign, channel_id, reason="invoke", actor_id=user_id, note=note
            )
            return
    await move_fate_points_in(
        session, record, -1, reason="invoke", actor_id=user_id, note=note, channel_id=channel_id
    )


def rank_aspects(
    found: list[aspects_in_play.AspectInPlay], invoker: str, participants: set[str]
) -> list[aspects_in_play.AspectInPlay]:
    """The invoker's own aspects first, then the scene's and the participants', then the rest
    (menus hold 25 options; the characters of the whole campaign can hold many more)."""

    def rank(aspect: aspects_in_play.AspectInPlay) -> int:
        if aspect.owner == invoker:
            return 0
        if not aspect.key.startswith("char:") or aspect.owner in participants:
            return 1
        return 2

    return sorted(found, key=rank)


def in_play_choices(
    found: list[aspects_in_play.AspectInPlay],
    holder: str,
    *,
    value_head: str = "",
    label_head: str = "",
    with_owner: bool = True,
) -> list[Choice]:
    """Invoke menu entries for aspects in play: a free invoke where `holder` has one, a fate
    point on any but a boost."""
    choices = []
    for aspect in found:
        owner = aspect.owner[:100] if with_owner else ""
        if aspect.free_invokes.get(holder):
            label = f"{label_head}Free invoke: {aspect.name}"[:100]
            choices.append(Choice(f"{value_head}free|{aspect.key}", label, owner))
        if not aspect.is_boost:
            label = f"{label_head}Fate point: {aspect.name}"[:100]
            choices.append(Choice(f"{value_head}fp|{aspect.key}", label, owner))
    return choices


def distinct_labels(choices: list[Choice]) -> list[Choice]:
    """The first choice of each label (a menu shows labels), at most a select's 25."""
    unique: dict[str, Choice] = {}
    for choice in choices:
        unique.setdefault(choice.label.casefold(), choice)
    return list(unique.values())[:25]


def absorb_menu(choices: list[AbsorbChoice], tracks: list[Track]) -> list[AbsorbOption]:
    """The absorb choices as menu entries (with the consequence slots that need a name)."""
    labels = {t.key: t for t in tracks}
    return [
        AbsorbOption(
            index,
            describe_absorb(option, labels),
            tuple(
                labels[s.track].label
                for s in option.slots
                if labels[s.track].kind is TrackKind.CONSEQUENCE
            ),
        )
        for index, option in enumerate(choices)
    ]


def name_slots(option: AbsorbChoice, tracks: list[Track], texts: list[str]) -> AbsorbChoice:
    """Write the player's consequence names into the chosen slots, in order."""
    by_key = {t.key: t for t in tracks}
    wanted = iter(" ".join(t.split())[:80] for t in texts)
    slots = [
        SlotRef(
            track=s.track,
            aspect=next(wanted, None) if by_key[s.track].kind is TrackKind.CONSEQUENCE else None,
        )
        for s in option.slots
    ]
    return option.model_copy(update={"slots": slots})


def describe_absorb(option: AbsorbChoice, tracks: dict[str, Track]) -> str:
    """One way to take a hit in words (boxes, consequence slots, taken out)."""
    if option.taken_out:
        return "Taken out (absorb nothing)"
    parts = []
    by_track: dict[str, list[int]] = {}
    for ref in option.stress:
        by_track.setdefault(ref.track, []).append(ref.box + 1)
    for key, boxes in by_track.items():
        label = tracks[key].label if key in tracks else key
        parts.append(f"{label} box {', '.join(str(b) for b in boxes)}")
    for slot in option.slots:
        track = tracks.get(slot.track)
        parts.append(f"{track.label} ({track.absorb})" if track else slot.track)
    return " + ".join(parts)[:100]


# --------------------------------------------------------------------------- the shared service
class DiceSource:
    """Where the encounters' dice come from. The cog makes one and hands it to the three
    services, so a test scripts every encounter's dice in one place (`dice.factory = ...`)."""

    def __init__(self, factory: Callable[[], random.Random] = random.SystemRandom) -> None:
        self.factory = factory

    def __call__(self) -> random.Random:
        return self.factory()


class LogLines(str):
    """A step's answer that is exactly the lines it added to the tracker's log: the tracker's
    edit shows it, so the clicker needs no private copy. Any other answer (a plain `str`, or
    one built from these with more text) is said privately too."""


def on_tracker(message: str) -> bool:
    """Whether a step's answer is what its tracker shows (see `LogLines`)."""
    return isinstance(message, LogLines)


@dataclass(frozen=True)
class NextUp:
    """Who acts next on an encounter, as its state decides: `key` changes exactly when the
    turn does; `user_id` is the player to tell (None for an NPC, which the GM plays, or for a
    side of several, which decides among itself)."""

    key: tuple[Any, ...]
    name: str
    user_id: int | None


class EncounterState(BaseModel):
    """What every encounter's stored state has: who takes part and the tracker's log."""

    members: dict[str, Member] = Field(default_factory=dict)
    log: list[str] = Field(default_factory=list)
    # character id -> fate points owed for hostile invokes made here (a fate point spent on
    # someone's aspect against them): paid when the encounter closes
    owed: dict[int, int] = Field(default_factory=dict)

    def team_of(self, member_id: str) -> str:
        """The side a member is on, for hostile invokes: one team unless the encounter has
        sides (a contest)."""
        return ""

    def name(self, member_id: str | None) -> str:
        member = self.members.get(member_id or "")
        return member.name if member else str(member_id)

    def player_of(self, member_id: str) -> int | None:
        """The player who plays this member (None for an NPC or a member not here)."""
        member = self.members.get(member_id)
        return member.owner_id if member is not None and not member.is_npc else None

    def next_up(self) -> NextUp | None:
        """Who acts next, for encounters with a turn order (None: nobody in particular)."""
        return None

    def add_log(self, *lines: str) -> None:
        self.log = [*self.log, *[line for line in lines if line]][-LOG_KEEP:]

    def logged(self, *lines: str) -> str:
        """Add `lines` to the log and return them as one message (what a step answers)."""
        self.add_log(*lines)
        return LogLines(" ".join(lines))


StateT = TypeVar("StateT", bound=EncounterState)
SnapshotT = TypeVar("SnapshotT")


class EncounterService(Generic[StateT, SnapshotT]):
    """Start, read and act on one kind of encounter, each call one versioned transaction.

    Subclasses name their `kind` (the row's kind and the slash command), their state model and
    snapshot type, and say when the encounter is still open."""

    kind: ClassVar[str]
    state_model: type[StateT]
    snapshot_type: Callable[..., SnapshotT]

    def __init__(self, db: Database, dice: DiceSource | None = None) -> None:
        self.db = db
        self.dice = dice or DiceSource()

    def _is_open(self, state: StateT) -> bool:
        raise NotImplementedError(f"{type(self).__name__} must say when it is still open")

    def is_open(self, state: StateT) -> bool:
        """Whether the encounter still takes actions (its tracker still matters)."""
        return self._is_open(state)

    def _state(self, row: EncounterRow | EncounterColumns) -> StateT:
        return self.state_model.model_validate_json(row.state_json)

    async def _snapshot_in(
        self,
        session: AsyncSession,
        row: EncounterRow,
        state: StateT,
        message: str = "",
        *,
        with_sheets: bool = True,
        campaign: CampaignInfo | None = None,
    ) -> SnapshotT:
        """What the tracker shows; the campaign's skills come from `campaign` when the unit
        has it already (else it is read)."""
        assert row.id is not None
        sheets = await sheets_in(session, state.members) if with_sheets else {}
        skills: tuple[str, ...] = ()
        # whether the whose-turn line pings: the channel's campaign, as the cog would read it
        ping = campaign.settings.turn_ping if campaign is not None else None
        if with_sheets:
            if campaign is None or campaign.id != row.campaign_id:
                campaign = await campaign_by_id_in(session, row.campaign_id)
            if campaign is not None:
                skills = tuple(campaign.settings.skill_list().names)
        return self._snapshot_from(row, state, sheets, message, skills, ping)

    def _snapshot_of(
        self,
        row: EncounterColumns,
        state: StateT,
        sheets: dict[str, Character],
        message: str,
        campaign: CampaignInfo,
    ) -> SnapshotT:
        """`_snapshot_in` from what a unit already read (the encounter's own campaign)."""
        assert campaign.id == row.campaign_id
        skills = tuple(campaign.settings.skill_list().names)
        return self._snapshot_from(row, state, sheets, message, skills, campaign.settings.turn_ping)

    def _snapshot_from(
        self,
        row: EncounterRow | EncounterColumns,
        state: StateT,
        sheets: dict[str, Character],
        message: str,
        skills: tuple[str, ...],
        ping: bool | None,
    ) -> SnapshotT:
        return self.snapshot_type(
            row.id,
            row.version,
            row.channel_id,
            row.tracker_message_id,
            state,
            sheets,
            message,
            skills,
            turn_ping=ping,
        )

    async def _begin_in(self, session: AsyncSession, row: EncounterRow, state: StateT) -> SnapshotT:
        """Store the first state of a new encounter's row and return its snapshot."""
        row.state_json = state.model_dump_json()
        session.add(row)
        await session.flush()
        return await self._snapshot_in(session, row, state)

    async def _act(
        self,
        encounter_id: int | None,
        version: int | None,
        step: Callable[[AsyncSession, EncounterRow, StateT], Awaitable[str]],
        *,
        channel_id: int | None = None,
    ) -> SnapshotT:
        """One step on the encounter `encounter_id`, or (None) the one running in
        `channel_id`: loaded once, in the step's own transaction."""
        async with self.db.session() as session:
            row, campaign = await self._load_in(session, encounter_id, channel_id)
            return await self._act_on_in(session, row, version, step, campaign=campaign)

    async def _load_in(
        self, session: AsyncSession, encounter_id: int | None, channel_id: int | None = None
    ) -> tuple[EncounterRow, CampaignInfo]:
        """The encounter (by id, or the one running in `channel_id`) and its channel's
        campaign, in one statement (the campaign is made on its first use, as everywhere)."""
        found = await encounter_with_campaign_in(session, self.kind, encounter_id, channel_id)
        if found is None:
            if encounter_id is None:
                raise RuleError(
                    f"No {self.kind} is running here; start one with `/{self.kind} start`."
                )
            raise RuleError(f"That {self.kind} no longer exists.")
        row, campaign = found
        if campaign is None:
            campaign = await resolve_campaign_in(session, row.guild_id, row.channel_id)
        return row, campaign

    async def _act_on_in(
        self,
        session: AsyncSession,
        row: EncounterRow,
        version: int | None,
        step: Callable[[AsyncSession, EncounterRow, StateT], Awaitable[str]],
        *,
        campaign: CampaignInfo | None = None,
    ) -> SnapshotT:
        """Run one step on the state of `row` and save it, if the clicker saw `version`."""
        check_version(row, version)
        if not row.active:
            raise RuleError(f"This {self.kind} is over; start a new one with `/{self.kind} start`.")
        state = self._state(row)
        message = await step(session, row, state)
        if state.owed and not self._is_open(state):
            campaign = campaign or await resolve_campaign_in(session, row.guild_id, row.channel_id)
            message = await self._pay_owed_in(session, campaign, row, state, message)
        row.version = await save_encounter_in(
            session, row, state.model_dump_json(), active=self._is_open(state)
        )
        return await self._snapshot_in(session, row, state, message, campaign=campaign)

    async def _pay_owed_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        row: EncounterRow,
        state: StateT,
        message: str,
    ) -> str:
        """As the encounter closes, pay what its hostile invokes owe (the conflict pays its
        own, with its concessions)."""
        paid, _ = await pay_owed_points_in(
            session,
            campaign,
            state.owed,
            actor_id=row.created_by,
            channel_id=row.channel_id,
            note=f"hostile invokes of {self.kind} #{row.id}",
        )
        state.owed = {}
        if not paid:
            return message
        line = state.logged(f"Paid for hostile invokes: {'; '.join(paid)}.")
        return LogLines(f"{message} {line}") if on_tracker(message) else f"{message} {line}"

    async def _running_in(self, session: AsyncSession, channel_id: int) -> EncounterRow:
        found = await encounter_with_campaign_in(session, self.kind, None, channel_id)
        if found is None:
            raise RuleError(f"No {self.kind} is running here; start one with `/{self.kind} start`.")
        return found[0]

    async def in_channel(self, channel_id: int) -> SnapshotT:
        """The encounter of this kind running in the channel (a sentence when none is)."""
        async with self.db.session() as session:
            row = await self._running_in(session, channel_id)
            return await self._snapshot_in(session, row, self._state(row))

    async def get(self, encounter_id: int, *, with_sheets: bool = True) -> SnapshotT:
        """The encounter as it is; without the sheets when only its state is asked about."""
        async with self.db.read() as session:
            found = await encounter_with_campaign_in(session, self.kind, encounter_id)
            if found is None:
                raise RuleError(f"That {self.kind} no longer exists.")
            row, campaign = found
            return await self._snapshot_in(
                session, row, self._state(row), with_sheets=with_sheets, campaign=campaign
            )

    async def set_tracker(self, encounter_id: int, message_id: int) -> None:
        async with self.db.session() as session:
            await set_tracker_in(session, encounter_id, message_id)
