"""Conflicts in a channel: start, turns, attacks and defences, invokes, absorbing, concessions.

One service call = one transaction: load the encounter row, call the pure rules in
`bot.fate.conflict` / `bot.fate.harm` / `bot.fate.rolls`, write sheets and fate points through
the campaign spine, and save the row with an optimistic version check (a double click applies
once). Dice come from `rng_factory` (SystemRandom in production; tests script it).

The encounter helpers at the top are shared with contests and challenges.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from pydantic import BaseModel, Field
from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.engine import Database
from bot.db.models.columns import utcnow
from bot.db.models.conflicts import EncounterRow
from bot.db.models.scenes import SceneRow
from bot.errors import RuleError
from bot.fate import conflict as rules
from bot.fate.aspects import (
    GM,
    Aspect,
    AspectKind,
    FailChoice,
    OutcomeKind,
    classify,
    create_advantage_existing,
    create_advantage_new,
    make_boost,
)
from bot.fate.aspects import Event as RuleEvent
from bot.fate.aspects import spend_free_invoke as spend_own_invoke
from bot.fate.conflict import Combatant, Conflict, ConflictKind, PendingAttack, Phase
from bot.fate.dice import fate_symbols
from bot.fate.harm import AbsorbChoice, SlotRef, suggest_absorb_options
from bot.fate.ladder import describe, parse_rating
from bot.fate.rolls import (
    Action,
    InvokeMode,
    Payment,
    Roll,
    Roller,
    ScaleLevel,
    ScaleMode,
    add_modifier,
    add_teamwork,
    apply_invoke,
    apply_scale,
    make_roll,
)
from bot.fate.scene import put_aspect
from bot.fate.sheet import Character
from bot.fate.tracks import Track, TrackKind
from bot.services import aspects_in_play
from bot.services.campaigns import (
    CampaignInfo,
    CharacterRecord,
    StaleError,
    find_character_in,
    get_character_in,
    log_gm_points_in,
    move_fate_points_in,
    resolve_campaign_in,
    save_character_in,
)
from bot.services.rolls import stunt_options
from bot.services.scenes import (
    carry_gm_points_in,
    find_ref,
    load_play_in,
    save_play_in,
    save_scene_in,
    scene_of,
    spend_gm_point_in,
    touch_board_in,
)
from bot.services.versioned import update_versioned_in

MAX_ZONES = 10
HIDDEN_NAME = "a hidden aspect"
HIDDEN_TAG = "hidden: only the GM sees it"
VOID_LINE = "The aspect left play before the roll was resolved; the action is spent for nothing."
ZONE_NAME_MAX = 40
LOG_KEEP = 8
MAX_PARTICIPANTS = rules.MAX_COMBATANTS
SOURCE_PREFIX = "cf"
IMPEDED = "imp|"  # a move choice's value prefix: the move takes the action and a roll

T = TypeVar("T")


# --------------------------------------------------------------------------- shared row helpers
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
    return Member(
        character_id=record.id, owner_id=record.owner_id, name=record.name, is_npc=record.is_npc
    )


def roller_of(member: Member) -> Roller:
    return Roller(character_id=member.character_id, user_id=member.owner_id, name=member.name)


async def sheets_in(session: AsyncSession, members: dict[str, Member]) -> dict[str, Character]:
    """The sheets of the members that still exist (a deleted character is left out)."""
    sheets: dict[str, Character] = {}
    for key, member in members.items():
        try:
            sheets[key] = (await get_character_in(session, member.character_id)).sheet
        except RuleError:
            continue
    return sheets


def without_spent(aspects: list[Aspect], key: str, spent: Aspect | None) -> list[Aspect]:
    """The aspects after a free invoke on `key`: updated, or gone when it was a boost."""
    if spent is None:
        return [a for a in aspects if a.id != key]
    return [spent if a.id == key else a for a in aspects]


async def active_encounter_in(
    session: AsyncSession, channel_id: int, kind: str
) -> EncounterRow | None:
    return (
        await session.exec(
            select(EncounterRow)
            .where(
                EncounterRow.channel_id == channel_id,
                EncounterRow.kind == kind,
                col(EncounterRow.active),
            )
            .order_by(col(EncounterRow.id).desc())
        )
    ).first()


async def new_encounter_in(
    session: AsyncSession, campaign_id: int, guild_id: int, channel_id: int, kind: str, user_id: int
) -> EncounterRow:
    """An encounter row with its id (the rules name the encounter by it); state comes next."""
    row = EncounterRow(
        campaign_id=campaign_id,
        guild_id=guild_id,
        channel_id=channel_id,
        kind=kind,
        state_json="{}",
        created_by=user_id,
    )
    session.add(row)
    await session.flush()
    assert row.id is not None
    return row


async def load_encounter_in(session: AsyncSession, encounter_id: int, kind: str) -> EncounterRow:
    row = await session.get(EncounterRow, encounter_id)
    if row is None or row.kind != kind:
        raise RuleError(f"That {kind} no longer exists.")
    return row


def check_version(row: EncounterRow, version: int | None) -> None:
    if version is not None and row.version != version:
        raise StaleError(
            "Someone acted first (or you clicked twice); look at the tracker again and retry."
        )


async def save_encounter_in(
    session: AsyncSession, row: EncounterRow, state_json: str, *, active: bool
) -> int:
    """Write the new state if nobody changed the row since it was read; returns the version."""
    assert row.id is not None
    stale = StaleError(
        "Someone acted first (or you clicked twice); look at the tracker again and retry."
    )
    values = {"state_json": state_json, "active": active, "updated_at": utcnow()}
    return await update_versioned_in(session, EncounterRow, row.id, row.version, values, stale)


async def set_tracker_in(session: AsyncSession, encounter_id: int, message_id: int) -> None:
    await session.exec(  # type: ignore[call-overload]
        update(EncounterRow)
        .where(col(EncounterRow.id) == encounter_id)
        .values(tracker_message_id=message_id)
    )


def parse_names(text: str, what: str, limit: int = MAX_PARTICIPANTS) -> list[str]:
    names = [n.strip() for n in text.replace(";", ",").split(",") if n.strip()]
    if not names:
        raise RuleError(f"List the {what} by name, separated by commas (e.g. `Harry, Molly`).")
    if len(names) > limit:
        raise RuleError(f"List at most {limit} {what}.")
    return names


def parse_difficulty(text: str) -> int:
    try:
        return parse_rating(text)
    except ValueError as error:
        raise RuleError(f"Difficulty: {error}") from None


def roll_line(name: str, roll: Roll) -> str:
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


def skill_choices(sheet: Character, limit: int = 25) -> list[tuple[str, int]]:
    """The skills a character would roll, best first (for selects)."""
    rated = sorted(sheet.skills.items(), key=lambda kv: (-kv[1], kv[0]))
    return rated[:limit]


# --------------------------------------------------------------------------- conflict state
class PendingAction(BaseModel):
    """An overcome, create-an-advantage or impeded move that is rolled and waits for invokes,
    stunts and teamwork before it is resolved."""

    kind: str  # "overcome" | "advantage" | "move"
    actor: str
    roll: Roll
    aspect_text: str = ""  # a new aspect to create
    aspect_key: str = ""  # or an existing one (a conflict "cf:..." or scene "scene:..." key)
    aspect_name: str = ""  # the existing aspect's text, for the tracker
    zone: str = ""


ROLL_SLOTS = ("attack", "defence", "action")


class ConflictState(BaseModel):
    conflict: Conflict
    members: dict[str, Member]
    zones: list[str] = Field(default_factory=list)
    aspects: list[Aspect] = Field(default_factory=list)  # boosts, advantages, consequences
    attack_roll: Roll | None = None
    defence_roll: Roll | None = None
    log: list[str] = Field(default_factory=list)
    gm_carried: int = 0  # fate points NPC payouts gave the GM for later scenes
    next_aspect: int = 1
    action: PendingAction | None = None  # a rolled action waiting to be resolved
    scale: dict[str, int] = Field(default_factory=dict)  # side -> ScaleLevel set by the GM

    def open_rolls(self) -> list[tuple[str, str]]:
        """(slot, roller) of the rolls that still take invokes, stunts and teamwork."""
        if self.action is not None:
            return [("action", self.action.actor)]
        c = self.conflict
        if c.phase is Phase.DEFENDING and c.pending is not None and self.attack_roll is not None:
            found = [("attack", c.pending.attacker)]
            if self.defence_roll is not None:
                found.append(("defence", c.pending.defender))
            return found
        return []

    def roll_in(self, slot: str) -> Roll:
        roll = {
            "attack": self.attack_roll,
            "defence": self.defence_roll,
            "action": self.action.roll if self.action else None,
        }.get(slot)
        if roll is None:
            raise RuleError("That roll is already resolved; look at the tracker again.")
        return roll

    def put_roll(self, slot: str, roll: Roll) -> None:
        if slot == "attack":
            self.attack_roll = roll
            pending = self.conflict.pending
            if pending is not None and self.conflict.phase is Phase.DEFENDING:
                pending = pending.model_copy(update={"attack_effort": roll.effort()})
                self.conflict = self.conflict.model_copy(update={"pending": pending})
        elif slot == "defence":
            self.defence_roll = roll
        elif slot == "action" and self.action is not None:
            self.action = self.action.model_copy(update={"roll": roll})

    def require_no_action(self) -> None:
        if self.action is not None:
            raise RuleError(
                f"{self.name(self.action.actor)}'s roll is waiting: invoke, add stunts or "
                "teamwork, then press Resolve the roll."
            )

    def name(self, combatant_id: str | None) -> str:
        if combatant_id is None:
            return "nobody"
        if combatant_id == GM:
            return "the GM"
        member = self.members.get(combatant_id)
        return member.name if member else combatant_id

    def add_log(self, *lines: str) -> None:
        self.log = [*self.log, *[line for line in lines if line]][-LOG_KEEP:]

    def new_aspect_id(self) -> str:
        key = f"{SOURCE_PREFIX}:{self.conflict.id}:{self.next_aspect}"
        self.next_aspect += 1
        return key


@dataclass
class ConflictSnapshot:
    """What the tracker and the replies need after a call."""

    id: int
    version: int
    channel_id: int
    tracker_message_id: int | None
    state: ConflictState
    sheets: dict[str, Character] = field(default_factory=dict)
    message: str = ""

    @property
    def conflict(self) -> Conflict:
        return self.state.conflict


@dataclass(frozen=True)
class Choice:
    value: str
    label: str
    description: str = ""


@dataclass(frozen=True)
class AbsorbOption:
    index: int
    label: str
    slots_needing_text: tuple[str, ...]  # labels of consequence slots that need an aspect


def _events_text(state: ConflictState, events: list[RuleEvent]) -> list[str]:
    lines = []
    for event in events:
        if event.kind in ("turn", "conflict_started"):
            continue
        who = state.name(event.who) if event.who and event.who in state.members else None
        lines.append(f"{who}: {event.text}" if who else event.text)
    return lines


def _resolve_skill(sheet: Character, skill: str) -> tuple[str, int]:
    wanted = " ".join(skill.split())
    if not wanted or len(wanted) > 40:
        raise RuleError("Pick a skill from the list (or type its name, up to 40 characters).")
    for name, rating in sheet.skills.items():
        if name.casefold() == wanted.casefold():
            return name, rating
    return wanted, 0


class ConflictService:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.rng_factory: Callable[[], random.Random] = random.SystemRandom

    # ------------------------------------------------------------------ plumbing
    async def _snapshot_in(
        self, session: AsyncSession, row: EncounterRow, state: ConflictState, message: str = ""
    ) -> ConflictSnapshot:
        sheets = await sheets_in(session, state.members)
        assert row.id is not None
        return ConflictSnapshot(
            row.id, row.version, row.channel_id, row.tracker_message_id, state, sheets, message
        )

    async def _act(
        self,
        conflict_id: int,
        version: int | None,
        step: Callable[[AsyncSession, CampaignInfo, EncounterRow, ConflictState], Awaitable[str]],
    ) -> ConflictSnapshot:
        async with self.db.session() as session:
            row = await load_encounter_in(session, conflict_id, "conflict")
            check_version(row, version)
            if not row.active:
                raise RuleError("This conflict is over; start a new one with `/conflict start`.")
            state = ConflictState.model_validate_json(row.state_json)
            campaign = await resolve_campaign_in(session, row.guild_id, row.channel_id)
            message = await step(session, campaign, row, state)
            ended = state.conflict.phase is Phase.ENDED
            if ended:
                await self._pay_in(session, campaign, row, state)
            row.version = await save_encounter_in(
                session, row, state.model_dump_json(), active=not ended
            )
            return await self._snapshot_in(session, row, state, message)

    async def _pay_in(
        self, session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
    ) -> None:
        note = f"conflict #{row.id}"
        for payout in rules.payouts_due(state.conflict):
            change = payout.change
            if payout.is_npc:
                # NPC payouts wait as carried points for the GM pool of the next scene
                state.gm_carried += change.delta
                carried = await carry_gm_points_in(session, campaign.id, change.delta)
                await log_gm_points_in(
                    session,
                    campaign.id,
                    change.delta,
                    carried,
                    reason=change.reason.value,
                    actor_id=row.created_by,
                    note=f"{note}: {state.name(change.who)}",
                    channel_id=row.channel_id,
                )
                continue
            member = state.members[change.who]
            record = await get_character_in(session, member.character_id)
            await move_fate_points_in(
                session,
                record,
                change.delta,
                reason=change.reason.value,
                actor_id=row.created_by,
                note=note,
                channel_id=row.channel_id,
            )
        if state.conflict.payouts:
            paid = ", ".join(
                f"{state.name(p.change.who)} +{p.change.delta}" for p in state.conflict.payouts
            )
            state.add_log(f"Fate points paid: {paid}.")

    @staticmethod
    def _member(state: ConflictState, combatant_id: str) -> Member:
        member = state.members.get(combatant_id)
        if member is None:
            raise RuleError("That character is not in this conflict.")
        return member

    def _require_control(
        self, state: ConflictState, combatant_id: str | None, user_id: int, is_gm: bool, doing: str
    ) -> Member:
        if combatant_id is None:
            raise RuleError("Nobody is acting right now; the GM picks who goes next.")
        member = self._member(state, combatant_id)
        if not member.controlled_by(user_id, is_gm):
            who = "the GM" if member.is_npc else f"{member.name}'s player or the GM"
            raise RuleError(f"Only {who} can {doing}.")
        return member

    async def _sheet_in(self, session: AsyncSession, member: Member) -> CharacterRecord:
        return await get_character_in(session, member.character_id)

    # ------------------------------------------------------------------ start and read
    async def start(
        self,
        guild_id: int,
        channel_id: int,
        user_id: int,
        kind: ConflictKind,
        participants: list[str],
        first: str,
        zones: list[str],
    ) -> ConflictSnapshot:
        if len(zones) > MAX_ZONES:
            raise RuleError(f"Use at most {MAX_ZONES} zones.")
        if any(len(z) > ZONE_NAME_MAX for z in zones):
            raise RuleError(f"Keep zone names to {ZONE_NAME_MAX} characters.")
        if len({z.casefold() for z in zones}) != len(zones):
            raise RuleError("Two zones have the same name; give each zone its own name.")
        async with self.db.session() as session:
            if await active_encounter_in(session, channel_id, "conflict") is not None:
                raise RuleError(
                    "A conflict is already running here; finish it with `/conflict end` first."
                )
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            members: dict[str, Member] = {}
            for name in participants:
                record = await find_character_in(session, campaign.id, name)
                members[str(record.id)] = member_of(record)
            first_record = await find_character_in(session, campaign.id, first)
            if str(first_record.id) not in members:
                raise RuleError(f"{first_record.name} is not among the participants; list them.")
            scene_zones = await _scene_zones_in(session, channel_id) if not zones else None
            if scene_zones is not None:
                zones = list(scene_zones)
            adjacency = scene_zones or {
                z: [
                    n
                    for n in (
                        zones[i - 1] if i else None,
                        zones[i + 1] if i + 1 < len(zones) else None,
                    )
                    if n
                ]
                for i, z in enumerate(zones)
            }
            combatants = [
                Combatant(
                    id=cid,
                    name=m.name,
                    side="npcs" if m.is_npc else "pcs",
                    is_npc=m.is_npc,
                    zone=zones[0] if zones else None,
                )
                for cid, m in members.items()
            ]
            row = await new_encounter_in(
                session, campaign.id, guild_id, channel_id, "conflict", user_id
            )
            conflict, events = rules.start_conflict(
                str(row.id), kind, combatants, str(first_record.id), adjacency
            )
            state = ConflictState(conflict=conflict, members=members, zones=zones)
            state.add_log(f"A {kind.value} conflict begins; {first_record.name} acts first.")
            row.state_json = state.model_dump_json()
            session.add(row)
            await session.flush()
            return await self._snapshot_in(session, row, state)

    async def get(self, conflict_id: int, *, with_sheets: bool = True) -> ConflictSnapshot:
        """The conflict as it is; without the sheets when only its state is asked about."""
        async with self.db.session() as session:
            row = await load_encounter_in(session, conflict_id, "conflict")
            state = ConflictState.model_validate_json(row.state_json)
            if not with_sheets:
                assert row.id is not None
                return ConflictSnapshot(
                    row.id, row.version, row.channel_id, row.tracker_message_id, state
                )
            return await self._snapshot_in(session, row, state)

    async def in_channel(self, channel_id: int) -> ConflictSnapshot:
        async with self.db.session() as session:
            row = await self._running_in(session, channel_id)
            state = ConflictState.model_validate_json(row.state_json)
            return await self._snapshot_in(session, row, state)

    @staticmethod
    async def _running_in(session: AsyncSession, channel_id: int) -> EncounterRow:
        row = await active_encounter_in(session, channel_id, "conflict")
        if row is None:
            raise RuleError("No conflict is running here; start one with `/conflict start`.")
        return row

    async def _running(self, channel_id: int) -> tuple[int, Conflict]:
        """The id and rules state of the conflict running here, without loading sheets."""
        async with self.db.session() as session:
            row = await self._running_in(session, channel_id)
            assert row.id is not None
            return row.id, ConflictState.model_validate_json(row.state_json).conflict

    async def next_names(self, channel_id: int, typed: str) -> list[str]:
        """For /conflict next autocomplete: who may act next here, matching what is typed (the
        row alone, no sheets: this runs on every keystroke)."""
        try:
            _, conflict = await self._running(channel_id)
        except RuleError:
            return []
        wanted = typed.strip().casefold()
        eligible = rules.eligible_next(conflict)
        return [p.name for p in eligible if wanted in p.name.casefold()][:25]

    async def set_tracker(self, conflict_id: int, message_id: int) -> None:
        async with self.db.session() as session:
            await set_tracker_in(session, conflict_id, message_id)

    # ------------------------------------------------------------------ turn order
    async def pick_next(
        self, conflict_id: int, version: int | None, user_id: int, is_gm: bool, next_id: str
    ) -> ConflictSnapshot:
        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            c = state.conflict
            state.require_no_action()
            if c.phase is Phase.CHOOSING_NEXT:
                if not is_gm:
                    raise RuleError("The GM picks who acts next now.")
                c, events = rules.gm_pick_next(c, next_id)
            else:
                self._require_control(state, c.current, user_id, is_gm, "pick who acts next")
                assert c.current is not None
                c, events = rules.end_turn(c, c.current, next_id)
            state.conflict = c
            state.add_log(*_events_text(state, events))
            return f"{state.name(next_id)} acts next."

        return await self._act(conflict_id, version, step)

    async def pass_turn(
        self, channel_id: int, user_id: int, is_gm: bool, who: str | None
    ) -> ConflictSnapshot:
        """/conflict next: hand the turn to `who` (a name), or to the first eligible character."""
        conflict_id, c = await self._running(channel_id)
        eligible = [p for p in rules.eligible_next(c) if p.id != c.current] or rules.eligible_next(
            c
        )
        if who:
            wanted = " ".join(who.split()).casefold()
            found = next((p for p in c.combatants if p.name.casefold() == wanted), None)
            if found is None:
                raise RuleError(f"'{who[:80]}' is not in this conflict; pick from the suggestions.")
            target = found.id
        elif eligible:
            target = eligible[0].id
        else:
            raise RuleError("Nobody is left to act in this conflict.")
        return await self.pick_next(conflict_id, None, user_id, is_gm, target)

    # ------------------------------------------------------------------ attack and defence
    async def attack(
        self,
        conflict_id: int,
        version: int | None,
        user_id: int,
        is_gm: bool,
        target: str,
        skill: str,
    ) -> ConflictSnapshot:
        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            attacker, actor = self._acting(state, user_id, is_gm, "attack now")
            c = state.conflict
            rules.attack(c, actor, target, 0)  # validate before rolling
            sheet = (await self._sheet_in(session, attacker)).sheet
            name, rating = _resolve_skill(sheet, skill)
            roll, _ = make_roll(
                self.rng_factory(),
                roller_of(attacker),
                skill=name,
                skill_rating=rating,
                action=Action.ATTACK,
            )
            roll = self._scaled(state, roll, actor, [c.combatant(target).side])
            c, events = rules.attack(c, actor, target, roll.effort())
            state.conflict = c
            state.attack_roll, state.defence_roll = roll, None
            line = f"{roll_line(attacker.name, roll)} - attacks {state.name(target)}."
            state.add_log(line)
            return line

        return await self._act(conflict_id, version, step)

    async def defend(
        self, conflict_id: int, version: int | None, user_id: int, is_gm: bool, skill: str
    ) -> ConflictSnapshot:
        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            c = state.conflict
            if c.phase is not Phase.DEFENDING or c.pending is None:
                raise RuleError("There is no attack waiting for a defence.")
            defender = self._require_control(state, c.pending.defender, user_id, is_gm, "defend")
            sheet = (await self._sheet_in(session, defender)).sheet
            name, rating = _resolve_skill(sheet, skill)
            roll, _ = make_roll(
                self.rng_factory(),
                roller_of(defender),
                skill=name,
                skill_rating=rating,
                action=Action.DEFEND,
            )
            roll = self._scaled(
                state, roll, c.pending.defender, [c.combatant(c.pending.attacker).side]
            )
            if state.defence_roll is not None:
                raise RuleError("The defence is already rolled; invoke, or resolve the attack.")
            state.defence_roll = roll
            line = (
                f"{roll_line(defender.name, roll)} - defends against "
                f"{describe(c.pending.attack_effort)}. Invoke, or resolve the attack."
            )
            state.add_log(line)
            return line

        return await self._act(conflict_id, version, step)

    async def resolve(
        self, conflict_id: int, version: int | None, user_id: int, is_gm: bool
    ) -> ConflictSnapshot:
        """Both dice are down and the invokes are in: compare the efforts."""

        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            c = state.conflict
            pending = c.pending
            if c.phase is not Phase.DEFENDING or pending is None or state.defence_roll is None:
                raise RuleError("The defender has not rolled yet; press Defend first.")
            allowed = [
                state.members[x].controlled_by(user_id, is_gm)
                for x in (pending.attacker, pending.defender)
            ]
            if not any(allowed):
                raise RuleError("Only the attacker, the defender or the GM can resolve the attack.")
            state.conflict, events = rules.defend(c, pending.defender, state.defence_roll.effort())
            lines = self._after_resolution(state, events)
            state.add_log(*lines)
            return " ".join(lines)

        return await self._act(conflict_id, version, step)

    def _after_resolution(self, state: ConflictState, events: list[RuleEvent]) -> list[str]:
        """Turn boost events into boost aspects; describe the rest."""
        lines = []
        for event in events:
            if event.kind == "boost" and isinstance(event.data.get("boost_for"), str):
                holder = str(event.data["boost_for"])
                text = (
                    "Opening"
                    if event.text.startswith("A tie")
                    else "Sure footing"
                    if event.text.startswith("Defended")
                    else "Momentum"
                )
                boost = make_boost(
                    state.new_aspect_id(), f"{text} for {state.name(holder)}"[:80], holder
                )
                state.aspects = [*state.aspects, boost]
            if event.kind in ("defence",):
                continue
            lines.append(_events_text(state, [event])[0])
        if state.conflict.phase is not Phase.ABSORBING and state.conflict.pending is None:
            state.attack_roll = state.defence_roll = None
        return lines

    # ------------------------------------------------------------------ invokes
    def _invoker(self, state: ConflictState, user_id: int, is_gm: bool) -> str:
        c = state.conflict
        if state.action is not None:
            who = state.action.actor
            if not state.members[who].controlled_by(user_id, is_gm):
                raise RuleError(f"Only {state.name(who)}'s player or the GM can invoke on it.")
            return who
        pending = c.pending
        if pending is None or c.phase not in (Phase.DEFENDING, Phase.ABSORBING):
            raise RuleError("Invokes here go on a roll in progress; there is none right now.")
        before_defence = c.phase is Phase.DEFENDING and state.defence_roll is None
        sides = [pending.attacker] if before_defence else [pending.attacker, pending.defender]
        mine = [s for s in sides if state.members[s].controlled_by(user_id, is_gm)]
        if not mine:
            if before_defence:
                raise RuleError(
                    "Before the defence only the attacker can invoke; defend first, then invoke."
                )
            raise RuleError("Only the attacker or the defender can invoke on this attack.")
        own_pcs = [
            s for s in mine if not state.members[s].is_npc and state.members[s].owner_id == user_id
        ]
        npcs = [s for s in mine if state.members[s].is_npc]
        return (own_pcs or npcs or mine)[0]

    async def invoke_choices(
        self, conflict_id: int, user_id: int, is_gm: bool
    ) -> tuple[str, list[Choice]]:
        async with self.db.session() as session:
            row = await load_encounter_in(session, conflict_id, "conflict")
            state = ConflictState.model_validate_json(row.state_json)
            who = self._invoker(state, user_id, is_gm)
            member = state.members[who]
            campaign = await resolve_campaign_in(session, row.guild_id, row.channel_id)
            sheet = (await self._sheet_in(session, member)).sheet
            return member.name, await self._choices_in(session, campaign, row, state, who, sheet)

    async def _choices_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        row: EncounterRow,
        state: ConflictState,
        who: str,
        sheet: Character,
    ) -> list[Choice]:
        choices: list[Choice] = []
        for aspect in state.aspects:
            if aspect.hidden:
                continue
            gm_held = state.members[who].is_npc and aspect.invokes_held_by(GM)
            if aspect.invokes_held_by(who) or gm_held:
                choices.append(
                    Choice(f"free|{aspect.id}", f"Free invoke: {aspect.text}"[:100], "no cost")
                )
            if aspect.kind is not AspectKind.BOOST:
                choices.append(
                    Choice(f"fp|{aspect.id}", f"Fate point: {aspect.text}"[:100], "costs 1 FP")
                )
        if "char" not in aspects_in_play.SOURCES:
            for index, own in enumerate(sheet.aspects):
                choices.append(
                    Choice(f"fp|own:{index}", f"Fate point: {own.text}"[:100], "your aspect")
                )
        holder = state.members[who].holder
        others = await aspects_in_play.aspects_in_play(
            session, campaign, row.channel_id, include_hidden=state.members[who].is_npc
        )
        names = {m.name for m in state.members.values()}
        ranked = rank_aspects(others, state.members[who].name, names)
        outside = [a for a in ranked if not a.key.startswith(f"{SOURCE_PREFIX}:")]
        return distinct_labels([*choices, *in_play_choices(outside, holder)])

    async def invoke(
        self, conflict_id: int, version: int | None, user_id: int, is_gm: bool, choice: str
    ) -> ConflictSnapshot:
        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            who = self._invoker(state, user_id, is_gm)
            member = state.members[who]
            record = await self._sheet_in(session, member)
            valid = {
                c.value
                for c in await self._choices_in(session, campaign, row, state, who, record.sheet)
            }
            if choice not in valid:
                raise RuleError(
                    "That aspect cannot be invoked now; open Invoke again and pick one."
                )
            payment, key = choice.split("|", 1)
            aspect_name, owner = await self._pay_invoke_in(
                session, campaign, row, state, who, record, payment, key, user_id
            )
            if owner is not None and payment == "fp" and owner != who:
                if state.conflict.combatant(owner).side != state.conflict.combatant(who).side:
                    state.conflict, _ = rules.hostile_invoke(state.conflict, who, owner)
            return self._apply_bonus(state, who, member, aspect_name, payment, user_id, key)

        return await self._act(conflict_id, version, step)

    async def _pay_invoke_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        row: EncounterRow,
        state: ConflictState,
        who: str,
        record: CharacterRecord,
        payment: str,
        key: str,
        user_id: int,
    ) -> tuple[str, str | None]:
        """Spend the fate point or the free invoke; returns (aspect name, owning combatant)."""
        owner: str | None = None
        if key.startswith("own:"):
            # an NPC's own aspects stay secret in the public log
            name = HIDDEN_NAME if record.is_npc else record.sheet.aspects[int(key[4:])].text
        elif key.startswith(f"{SOURCE_PREFIX}:"):
            aspect = next(a for a in state.aspects if a.id == key)
            name, owner = aspect.text, aspect.owner
            if payment == "free":
                spent, _ = spend_own_invoke(aspect, who if who in aspect.free_invokes else GM)
                state.aspects = without_spent(state.aspects, key, spent)
        else:
            found = await aspects_in_play.find_aspect(session, campaign, row.channel_id, key)
            name = HIDDEN_NAME if found.hidden else found.name  # the log is public
            owner = next((c.id for c in state.conflict.combatants if c.name == found.owner), None)
            if payment == "free":
                await aspects_in_play.spend_free_invoke(
                    session, campaign, row.channel_id, key, state.members[who].holder
                )
        if payment == "fp":
            await pay_invoke_point_in(
                session, campaign, row.channel_id, record, user_id, f"{name} (conflict #{row.id})"
            )
        return name, owner

    def _apply_bonus(
        self,
        state: ConflictState,
        who: str,
        member: Member,
        aspect_name: str,
        payment: str,
        user_id: int,
        key: str,
    ) -> str:
        c = state.conflict

        def invoked(roll: Roll) -> Roll:
            bonus_roll, _ = apply_invoke(
                roll,
                self.rng_factory(),
                invoker_id=user_id,
                invoker_name=member.name,
                aspect_key=key,
                aspect_name=aspect_name,
                mode=InvokeMode.BONUS,
                payment=Payment.FATE_POINT if payment == "fp" else Payment.FREE_INVOKE,
                payer_id=member.character_id,
            )
            return bonus_roll

        if state.action is not None:
            action_roll = invoked(state.action.roll)
            state.put_roll("action", action_roll)
            line = f"{member.name} invokes {aspect_name} for +2: the roll is now "
            line += f"{describe(action_roll.effort())}."
            state.add_log(line)
            return line
        assert c.pending is not None
        is_attacker = who == c.pending.attacker
        roll = state.attack_roll if is_attacker else state.defence_roll
        if roll is not None:
            roll = invoked(roll)
        line = f"{member.name} invokes {aspect_name} for +2."
        if c.phase is Phase.DEFENDING:
            assert roll is not None
            if is_attacker:
                state.attack_roll = roll
                pending = c.pending.model_copy(update={"attack_effort": roll.effort()})
                state.conflict = c.model_copy(update={"pending": pending})
                line += f" The attack is now {describe(roll.effort())}."
            else:
                state.defence_roll = roll
                line += f" The defence is now {describe(roll.effort())}."
            state.add_log(line)
            return line
        if is_attacker:
            state.attack_roll = roll
        else:
            state.defence_roll = roll
        state.conflict, events = rules.invoke_on_attack(c, who, 2)
        lines = [line, *self._after_resolution(state, [e for e in events if e.kind != "invoke"])]
        state.add_log(*lines)
        return " ".join(lines)

    # ------------------------------------------------------------------ stunts, teamwork, scale
    async def stunt_choices(self, conflict_id: int, user_id: int, is_gm: bool) -> list[Choice]:
        async with self.db.session() as session:
            row = await load_encounter_in(session, conflict_id, "conflict")
            state = ConflictState.model_validate_json(row.state_json)
            return await self._stunt_choices_in(session, state, user_id, is_gm)

    async def _stunt_choices_in(
        self, session: AsyncSession, state: ConflictState, user_id: int, is_gm: bool
    ) -> list[Choice]:
        slots = state.open_rolls()
        if not slots:
            raise RuleError("Stunts go on a roll in progress; there is none right now.")
        found: list[Choice] = []
        for slot, roller in slots:
            member = state.members[roller]
            if not member.controlled_by(user_id, is_gm):
                continue
            record = await self._sheet_in(session, member)
            for option in stunt_options(state.roll_in(slot), record):
                found.append(
                    Choice(
                        f"{slot}|{option.index}",
                        f"{option.name} ({option.bonus:+d})"[:100],
                        f"on {member.name}'s {slot} roll"[:100],
                    )
                )
        return found[:25]

    async def add_stunt(
        self, conflict_id: int, version: int | None, user_id: int, is_gm: bool, value: str
    ) -> ConflictSnapshot:
        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            valid = {c.value for c in await self._stunt_choices_in(session, state, user_id, is_gm)}
            if value not in valid:
                raise RuleError(
                    "That stunt does not apply to this roll (or is already on it); "
                    "press Stunt again."
                )
            slot, index = value.split("|", 1)
            roller = dict(state.open_rolls())[slot]
            record = await self._sheet_in(session, state.members[roller])
            stunt = record.sheet.stunts[int(index)]
            roll, _ = add_modifier(state.roll_in(slot), stunt.name, stunt.bonus)
            state.put_roll(slot, roll)
            line = (
                f"{record.name} uses {stunt.name} ({stunt.bonus:+d}): the {slot} roll is now "
                f"{describe(roll.effort())}."
            )
            state.add_log(line)
            return line

        return await self._act(conflict_id, version, step)

    @staticmethod
    def helper_choices(snapshot: ConflictSnapshot, user_id: int, is_gm: bool) -> list[Choice]:
        """Who the user may have help with the roll(s) in progress (teamwork: Average (+1) or
        better in the skill, and an action left this exchange)."""
        state, c = snapshot.state, snapshot.conflict
        if not state.open_rolls():
            raise RuleError("Teamwork goes on a roll in progress; there is none right now.")
        found: list[Choice] = []
        for slot, roller in state.open_rolls():
            roll = state.roll_in(slot)
            helped = {h.helper_id for h in roll.teamwork}
            side = c.combatant(roller).side
            for person in c.active():
                member = state.members[person.id]
                sheet = snapshot.sheets.get(person.id)
                if (
                    person.id == roller
                    or person.side != side
                    or person.id == c.current
                    or person.id in c.acted
                    or member.character_id in helped
                    or not member.controlled_by(user_id, is_gm)
                    or sheet is None
                    or sheet.rating(roll.skill or "") < 1
                ):
                    continue
                choice = Choice(
                    f"{slot}|{person.id}",
                    f"{person.name} helps {state.name(roller)}"[:100],
                    f"+1 to the {slot} roll ({roll.skill})"[:100],
                )
                found.append(choice)
        return found[:25]

    async def teamwork(
        self, conflict_id: int, version: int | None, user_id: int, is_gm: bool, value: str
    ) -> ConflictSnapshot:
        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            slot, _, helper = value.partition("|")
            rollers = dict(state.open_rolls())
            if slot not in rollers:
                raise RuleError("That roll is already resolved; look at the tracker again.")
            roller = rollers[slot]
            member = self._require_control(state, helper, user_id, is_gm, "help with them")
            state.conflict, _ = rules.support(state.conflict, helper, roller)
            roll = state.roll_in(slot)
            sheet = (await self._sheet_in(session, member)).sheet
            roll, events = add_teamwork(
                roll,
                helper_id=member.character_id,
                helper_name=member.name,
                helper_rating=sheet.rating(roll.skill or ""),
            )
            state.put_roll(slot, roll)
            bonus = roll.teamwork[-1].bonus
            added = f"+{bonus}" if bonus else "nothing more (the team is at its cap)"
            line = (
                f"{member.name} helps {state.name(roller)} with {roll.skill}: {added}, and uses "
                f"their action this exchange. The {slot} roll is now {describe(roll.effort())}."
            )
            state.add_log(line)
            return line

        return await self._act(conflict_id, version, step)

    async def set_scale(self, channel_id: int, side: str, level: int) -> ConflictSnapshot:
        """The GM sets a side's scale (Mundane 0 .. Godlike 4); it counts from the next roll."""
        if not ScaleLevel.MUNDANE <= level <= ScaleLevel.GODLIKE:
            raise RuleError("Pick a scale from Mundane to Godlike.")
        conflict_id, _ = await self._running(channel_id)

        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            sides = {p.side for p in state.conflict.combatants}
            if side not in sides:
                raise RuleError("Pick the PCs' or the NPCs' side (one that is in this conflict).")
            state.scale = {**state.scale, side: level}
            label = {"pcs": "The PCs", "npcs": "The NPCs"}.get(side, side)
            line = f"Scale: {label} are {ScaleLevel(level).label}."
            state.add_log(line)
            return line + " It counts from the next roll."

        return await self._act(conflict_id, None, step)

    async def trade_for_boost(
        self, conflict_id: int, version: int | None, user_id: int, is_gm: bool
    ) -> ConflictSnapshot:
        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            pending = state.conflict.pending
            if pending is None:
                raise RuleError("There is no hit waiting to be absorbed.")
            self._require_control(state, pending.attacker, user_id, is_gm, "trade a shift")
            state.conflict, events = rules.trade_shift_for_boost(state.conflict, pending.attacker)
            lines = self._after_resolution(state, events)
            state.add_log(*lines)
            return " ".join(lines)

        return await self._act(conflict_id, version, step)

    # ------------------------------------------------------------------ absorbing
    @staticmethod
    def _options(state: ConflictState, tracks: list[Track]) -> list[AbsorbChoice]:
        pending = state.conflict.pending
        if state.conflict.phase is not Phase.ABSORBING or pending is None:
            raise RuleError("There is no hit waiting to be absorbed.")
        return suggest_absorb_options(tracks, state.conflict.harm, pending.shifts, limit=20)

    async def absorb_options(
        self, conflict_id: int, user_id: int, is_gm: bool
    ) -> tuple[int, int, list[AbsorbOption]]:
        """(version, shifts, options) for the defender's choice."""
        async with self.db.session() as session:
            row = await load_encounter_in(session, conflict_id, "conflict")
            state = ConflictState.model_validate_json(row.state_json)
            pending = state.conflict.pending
            if pending is None or state.conflict.phase is not Phase.ABSORBING:
                raise RuleError("There is no hit waiting to be absorbed.")
            member = self._require_control(state, pending.defender, user_id, is_gm, "take the hit")
            tracks = (await self._sheet_in(session, member)).sheet.tracks
            options = absorb_menu(self._options(state, tracks), tracks)
            return row.version, pending.shifts, options

    async def absorb(
        self,
        conflict_id: int,
        version: int | None,
        user_id: int,
        is_gm: bool,
        index: int,
        texts: list[str],
    ) -> ConflictSnapshot:
        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            pending = state.conflict.pending
            if pending is None or state.conflict.phase is not Phase.ABSORBING:
                raise RuleError("There is no hit waiting to be absorbed.")
            member = self._require_control(state, pending.defender, user_id, is_gm, "take the hit")
            record = await self._sheet_in(session, member)
            options = self._options(state, record.sheet.tracks)
            if not 0 <= index < len(options):
                raise RuleError("That choice is gone; press Take the hit again.")
            option = name_slots(options[index], record.sheet.tracks, texts)
            attacker = pending.attacker
            state.conflict, events, result = rules.absorb(
                state.conflict, record.sheet.tracks, option
            )
            if not result.taken_out:
                await save_character_in(
                    session, record, record.sheet.model_copy(update={"tracks": result.tracks})
                )
            for aspect in result.new_aspects:
                state.aspects = [
                    *state.aspects,
                    aspect.model_copy(
                        update={"id": state.new_aspect_id(), "owner": pending.defender}
                    ),
                ]
            state.attack_roll = state.defence_roll = None
            lines = _events_text(state, events)
            if result.taken_out:
                lines.append(f"{state.name(attacker)} decides how {member.name} is taken out.")
            state.add_log(*lines)
            return " ".join(lines)

        return await self._act(conflict_id, version, step)

    # ------------------------------------------------------------------ other actions
    def _scaled(self, state: ConflictState, roll: Roll, roller: str, against: list[str]) -> Roll:
        """The GM's scale per side: the higher side gets +1 per level before the roll; on a
        roll against a difficulty a higher opposing side raises what is to beat instead."""
        c = state.conflict
        mine = state.scale.get(c.combatant(roller).side, 0)
        theirs = max((state.scale.get(side, 0) for side in against), default=0)
        if mine > theirs or (mine < theirs and roll.opposition() is not None):
            roll, _ = apply_scale(
                roll,
                roller_level=ScaleLevel(mine),
                opposition_level=ScaleLevel(theirs),
                mode=ScaleMode.BEFORE_ROLL,
            )
        return roll

    @staticmethod
    def _other_sides(state: ConflictState, actor: str) -> list[str]:
        mine = state.conflict.combatant(actor).side
        return sorted({p.side for p in state.conflict.active() if p.side != mine})

    async def _action_roll_in(
        self,
        session: AsyncSession,
        state: ConflictState,
        member: Member,
        actor: str,
        skill: str,
        action: Action,
        difficulty: int,
    ) -> Roll:
        sheet = (await self._sheet_in(session, member)).sheet
        name, rating = _resolve_skill(sheet, skill)
        roll, _ = make_roll(
            self.rng_factory(),
            roller_of(member),
            skill=name,
            skill_rating=rating,
            action=action,
            difficulty=difficulty,
        )
        return self._scaled(state, roll, actor, self._other_sides(state, actor))

    async def _start_action_in(
        self,
        session: AsyncSession,
        state: ConflictState,
        actor: str,
        fields: dict[str, str],
        skill: str,
        action: Action,
        difficulty: int,
        what: str,
    ) -> str:
        member = self._member(state, actor)
        roll = await self._action_roll_in(session, state, member, actor, skill, action, difficulty)
        state.action = PendingAction(actor=actor, roll=roll, **fields)
        target = roll.opposition()
        line = (
            f"{roll_line(member.name, roll)} vs {describe(target if target is not None else 0)}"
            f" - {what}. Invoke, add a stunt or teamwork, then press Resolve the roll."
        )
        state.add_log(line)
        return line

    def _acting(
        self, state: ConflictState, user_id: int, is_gm: bool, doing: str
    ) -> tuple[Member, str]:
        c = state.conflict
        state.require_no_action()
        member = self._require_control(state, c.current, user_id, is_gm, doing)
        assert c.current is not None
        return member, c.current

    async def overcome(
        self,
        conflict_id: int,
        version: int | None,
        user_id: int,
        is_gm: bool,
        skill: str,
        difficulty: str,
    ) -> ConflictSnapshot:
        target = parse_difficulty(difficulty)

        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            _, actor = self._acting(state, user_id, is_gm, "act now")
            rules.overcome(state.conflict, actor, 0, target)  # validate before rolling
            return await self._start_action_in(
                session,
                state,
                actor,
                {"kind": "overcome"},
                skill,
                Action.OVERCOME,
                target,
                "overcome",
            )

        return await self._act(conflict_id, version, step)

    async def create_advantage(
        self,
        conflict_id: int,
        version: int | None,
        user_id: int,
        is_gm: bool,
        skill: str,
        difficulty: str,
        aspect_text: str,
        existing: str | None = None,
    ) -> ConflictSnapshot:
        """On a new aspect (`aspect_text`) or, with `existing`, on an aspect already in play
        (a key from `advantage_targets`)."""
        target = parse_difficulty(difficulty)
        text = " ".join(aspect_text.split())
        if existing is None and (not text or len(text) > 80):
            raise RuleError("Name the aspect you want to create (1 to 80 characters).")

        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            _, actor = self._acting(state, user_id, is_gm, "act now")
            rules.create_advantage(state.conflict, actor, OutcomeKind.TIE)  # validate first
            fields = {"kind": "advantage", "aspect_text": text}
            what = f"create an advantage: {text}"
            if existing is not None:
                choices = await self._advantage_targets_in(session, campaign, row, state, is_gm)
                found = next((ch for ch in choices if ch.value == existing), None)
                if found is None or existing == "new":
                    raise RuleError(
                        "That aspect is no longer in play; press Create advantage again."
                    )
                hidden = found.description == HIDDEN_TAG
                name = HIDDEN_NAME if hidden else found.label.removeprefix("Existing: ")
                fields = {"kind": "advantage", "aspect_key": existing, "aspect_name": name}
                what = f"create an advantage on {name}"
            return await self._start_action_in(
                session,
                state,
                actor,
                fields,
                skill,
                Action.CREATE_ADVANTAGE,
                target,
                what,
            )

        return await self._act(conflict_id, version, step)

    async def advantage_targets(self, conflict_id: int, user_id: int, is_gm: bool) -> list[Choice]:
        """'A new aspect' plus the aspects in play an advantage can add invokes to."""
        async with self.db.session() as session:
            row = await load_encounter_in(session, conflict_id, "conflict")
            state = ConflictState.model_validate_json(row.state_json)
            self._acting(state, user_id, is_gm, "act now")
            campaign = await resolve_campaign_in(session, row.guild_id, row.channel_id)
            return await self._advantage_targets_in(session, campaign, row, state, is_gm)

    async def _advantage_targets_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        row: EncounterRow,
        state: ConflictState,
        is_gm: bool,
    ) -> list[Choice]:
        actor = state.conflict.current or ""
        see_hidden = is_gm and actor in state.members and state.members[actor].is_npc
        choices = [Choice("new", "A new aspect", "name it in the next step")]
        for aspect in state.aspects:
            if aspect.kind is AspectKind.BOOST or (aspect.hidden and not see_hidden):
                continue
            where = HIDDEN_TAG if aspect.hidden else "this conflict"
            choices.append(Choice(aspect.id, f"Existing: {aspect.text}"[:100], where))
        found = await aspects_in_play.aspects_in_play(
            session, campaign, row.channel_id, include_hidden=see_hidden
        )
        for other in found:
            if other.is_boost or not other.key.startswith("scene:"):
                continue
            where = HIDDEN_TAG if other.hidden else other.owner[:100]
            choices.append(Choice(other.key, f"Existing: {other.name}"[:100], where))
        return choices[:25]

    async def move(
        self,
        conflict_id: int,
        version: int | None,
        user_id: int,
        is_gm: bool,
        zone: str,
        skill: str | None = None,
        difficulty: str | None = None,
    ) -> ConflictSnapshot:
        """A free move without a skill; with a skill and difficulty, an impeded or long move
        (it takes the action and an overcome roll, resolved like the other rolled actions)."""
        target = parse_difficulty(difficulty) if difficulty else None
        rolled = bool(skill and skill.strip()) and target is not None

        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            _, actor = self._acting(state, user_id, is_gm, "move now")
            c = state.conflict
            if not rolled:
                state.conflict, events = rules.move(c, actor, zone)
                lines = _events_text(state, events)
                if any(e.kind == "moved" for e in events):
                    lines[-1] = lines[-1].rstrip(".") + f" to {zone}."
                state.add_log(*lines)
                return " ".join(lines)
            assert target is not None and skill is not None
            rules.move(c, actor, zone, impeded=True, overcome_effort=0, difficulty=0)  # validate
            return await self._start_action_in(
                session,
                state,
                actor,
                {"kind": "move", "zone": zone},
                skill,
                Action.OVERCOME,
                target,
                f"an overcome to move to {zone}",
            )

        return await self._act(conflict_id, version, step)

    async def resolve_action(
        self, conflict_id: int, version: int | None, user_id: int, is_gm: bool
    ) -> ConflictSnapshot:
        """The rolled overcome / advantage / move is final: apply its outcome."""

        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            pending = state.action
            if pending is None:
                raise RuleError("No roll is waiting to be resolved.")
            member = self._require_control(state, pending.actor, user_id, is_gm, "resolve it")
            roll = pending.roll
            effort = roll.effort()
            target = roll.opposition()
            assert target is not None
            c = state.conflict
            head = f"{roll_line(member.name, roll)} vs {describe(target)}."
            lines = [head]
            if pending.kind == "overcome":
                state.conflict, events = rules.overcome(c, pending.actor, effort, target)
                lines += _events_text(state, events)
            elif pending.kind == "move":
                state.conflict, events = rules.move(
                    c,
                    pending.actor,
                    pending.zone,
                    impeded=True,
                    overcome_effort=effort,
                    difficulty=target,
                )
                moved = _events_text(state, events)
                if any(e.kind == "moved" for e in events) and moved:
                    moved[0] = moved[0].rstrip(".") + f" to {pending.zone}."
                lines += moved
            else:
                outcome = classify(effort, target)
                state.conflict, _ = rules.create_advantage(c, pending.actor, outcome)
                lines += await self._advantage_in(session, campaign, row, state, pending, outcome)
            state.action = None
            state.add_log(*lines[1:])
            return " ".join(lines)

        return await self._act(conflict_id, version, step)

    def _enemy_of(self, state: ConflictState, actor: str) -> str:
        """Who holds the free invoke a failed advantage gives away: the GM for a PC's
        failure, the first PC still standing against an NPC."""
        if not state.members[actor].is_npc:
            return GM
        side = state.conflict.combatant(actor).side
        foes = [p for p in state.conflict.active() if p.side != side and not p.is_npc]
        return foes[0].id if foes else GM

    async def _advantage_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        row: EncounterRow,
        state: ConflictState,
        pending: PendingAction,
        outcome: OutcomeKind,
    ) -> list[str]:
        actor = pending.actor
        if not pending.aspect_key:
            aspect, events = create_advantage_new(
                outcome,
                aspect_id=state.new_aspect_id(),
                text=pending.aspect_text,
                actor=actor,
                fail_choice=FailChoice.NOT_CREATED,
            )
            if aspect is not None:
                state.aspects = [*state.aspects, aspect]
            return _events_text(state, events)
        enemy = self._enemy_of(state, actor)
        if pending.aspect_key.startswith(f"{SOURCE_PREFIX}:"):
            aspect = next((a for a in state.aspects if a.id == pending.aspect_key), None)
            if aspect is None:
                return [VOID_LINE]
            try:
                updated, events = create_advantage_existing(
                    aspect, outcome, actor=actor, enemy=enemy
                )
            except RuleError as error:  # e.g. the aspect holds all the invokes it can
                return [f"{_shown(aspect)}: {error} The action is spent."]
            state.aspects = [updated if a.id == updated.id else a for a in state.aspects]
            return [self._invokes_line(state, _shown(updated), events)]
        # a scene (or game) aspect: its free invokes are held as "char:<id>" or "gm"
        actor_holder = state.members[actor].holder
        enemy_holder = GM if enemy == GM else state.members[enemy].holder
        scene_row = await session.get(SceneRow, row.channel_id)
        scene_ok = (
            scene_row is not None and scene_row.active and scene_row.campaign_id == campaign.id
        )
        scene = scene_of(scene_row) if scene_row is not None and scene_ok else None
        play_row, play = await load_play_in(session, campaign.id)
        found = find_ref(scene, play, pending.aspect_key, row.channel_id)
        if found is None:
            return [VOID_LINE]
        try:
            updated, events = create_advantage_existing(
                found.aspect, outcome, actor=actor_holder, enemy=enemy_holder
            )
        except RuleError as error:  # e.g. the aspect holds all the invokes it can
            return [f"{_shown(found.aspect)}: {error} The action is spent."]
        if found.game:
            kept = [updated if a.id == updated.id else a for a in play.game_aspects]
            await save_play_in(session, play_row, play.model_copy(update={"game_aspects": kept}))
            await touch_board_in(session, row.channel_id)
        else:
            assert scene is not None and scene_row is not None
            scene, _ = put_aspect(scene, updated)
            await save_scene_in(session, scene_row, scene)
        return [self._invokes_line(state, _shown(updated), events)]

    @staticmethod
    def _invokes_line(state: ConflictState, text: str, events: list[RuleEvent]) -> str:
        event = events[0]
        count = event.data.get("invokes", 1)
        who = event.who or GM
        if who == GM:
            holder = "the GM"
        elif who.startswith("char:"):
            holder = next(
                (m.name for m in state.members.values() if f"char:{m.character_id}" == who), who
            )
        else:
            holder = state.name(who)
        return f"{text} gains {count} free invoke(s) for {holder}."

    def actor_now(self, snapshot: ConflictSnapshot, user_id: int, is_gm: bool) -> Member:
        """The character whose turn it is, when the user plays them and they may start an
        action (no rolled action waiting, no attack in progress)."""
        member, _ = self._acting(snapshot.state, user_id, is_gm, "act now")
        if snapshot.conflict.phase is not Phase.ACTING:
            raise RuleError("Finish the attack in progress first.")
        return member

    def defender_now(
        self, snapshot: ConflictSnapshot, user_id: int, is_gm: bool
    ) -> tuple[Member, PendingAttack]:
        """The defender of the attack waiting for a defence, when the user plays them."""
        c = snapshot.conflict
        if c.phase is not Phase.DEFENDING or c.pending is None:
            raise RuleError("There is no attack waiting for a defence.")
        member = self._require_control(snapshot.state, c.pending.defender, user_id, is_gm, "defend")
        return member, c.pending

    @staticmethod
    def attack_targets(snapshot: ConflictSnapshot) -> list[Choice]:
        """Everyone still in the conflict but the actor, the other sides first."""
        c = snapshot.conflict
        own_side = c.combatant(c.current).side if c.current is not None else None
        targets = [
            Choice(p.id, p.name, "NPC" if p.is_npc else "PC")
            for p in c.active()
            if p.id != c.current
        ]
        targets.sort(key=lambda choice: c.combatant(choice.value).side == own_side)
        return targets

    def move_choices(self, snapshot: ConflictSnapshot) -> list[Choice]:
        """The zones the actor may move to: a free move where allowed, else an impeded one
        (value prefixed with IMPEDED: it takes the action and an overcome roll)."""
        c = snapshot.conflict
        here = c.combatant(c.current).zone if c.current is not None else None
        zones = []
        for zone in snapshot.state.zones:
            if zone == here:
                continue
            if self.needs_roll_to_move(snapshot, zone):
                zones.append(Choice(f"{IMPEDED}{zone}", f"{zone} (an overcome roll)"[:100]))
                continue
            zones.append(Choice(zone, zone, "free move"))
            zones.append(
                Choice(
                    f"{IMPEDED}{zone}", f"{zone} - impeded"[:100], "takes your action and a roll"
                )
            )
        if not zones:
            raise RuleError("This conflict has no other zone to move to.")
        return zones

    def needs_roll_to_move(self, snapshot: ConflictSnapshot, zone: str) -> bool:
        """Whether a move to `zone` is more than the free move (the UI then asks for a roll)."""
        c = snapshot.conflict
        if c.current is None or zone not in c.adjacency:
            return False
        here = c.combatant(c.current).zone
        adjacent = here is not None and zone in c.adjacency.get(here, [])
        return not adjacent or c.free_move_used

    async def concede(
        self, conflict_id: int, version: int | None, user_id: int, is_gm: bool, who: str
    ) -> ConflictSnapshot:
        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            self._require_control(state, who, user_id, is_gm, "concede for them")
            if state.action is not None and state.action.actor == who:
                raise RuleError(
                    "The dice are already rolled for this action; concede before your next roll."
                )
            state.conflict, events = rules.concede(state.conflict, who)
            lines = _events_text(state, events)
            state.add_log(*lines)
            return " ".join(lines)

        return await self._act(conflict_id, version, step)

    def concede_choices(
        self, snapshot: ConflictSnapshot, user_id: int, is_gm: bool
    ) -> list[Choice]:
        return [
            Choice(c.id, c.name[:100])
            for c in snapshot.conflict.active()
            if snapshot.state.members[c.id].controlled_by(user_id, is_gm)
        ]

    async def end(self, channel_id: int) -> ConflictSnapshot:
        async with self.db.session() as session:
            row = await active_encounter_in(session, channel_id, "conflict")
            if row is None:
                raise RuleError("No conflict is running here.")
            assert row.id is not None
            conflict_id, version = row.id, row.version

        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            state.action = None  # a roll still waiting is dropped with the conflict
            state.conflict, events = rules.end_conflict(state.conflict)
            state.add_log("The GM ends the conflict.")
            return "The conflict is over."

        return await self._act(conflict_id, version, step)


def _shown(aspect: Aspect) -> str:
    """An aspect's text as the public log may show it."""
    return HIDDEN_NAME.capitalize() if aspect.hidden else aspect.text


async def _scene_zones_in(session: AsyncSession, channel_id: int) -> dict[str, list[str]] | None:
    """The zones (and what touches what) of the channel's running scene, if there is one."""
    from bot.fate.scene import Scene

    row = await session.get(SceneRow, channel_id)
    if row is None or not row.active:
        return None
    scene = Scene.model_validate_json(row.scene_json)
    names = {z.key: z.name for z in scene.zones}
    if not names:
        return None
    return {z.name: [names[k] for k in z.adjacent if k in names] for z in scene.zones[:MAX_ZONES]}


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


class ConflictAspectSource:
    """The conflict's boosts, advantages and consequence invokes, for /roll and other features.

    Holders: a PC's invokes show as "char:<id>", those of NPCs as "gm" (the GM plays them).
    """

    prefix = SOURCE_PREFIX

    async def aspects(
        self, session: AsyncSession, campaign: CampaignInfo, channel_id: int
    ) -> list[aspects_in_play.AspectInPlay]:
        row = await active_encounter_in(session, channel_id, "conflict")
        if row is None or row.campaign_id != campaign.id:
            return []
        state = ConflictState.model_validate_json(row.state_json)
        found = []
        for aspect in state.aspects:
            holders: dict[str, int] = {}
            for holder in aspect.free_invokes:
                key = self._holder(state, holder)
                holders[key] = holders.get(key, 0) + 1
            found.append(
                aspects_in_play.AspectInPlay(
                    key=aspect.id,
                    name=aspect.text,
                    owner=state.name(aspect.owner) if aspect.owner else "conflict",
                    is_boost=aspect.kind is AspectKind.BOOST,
                    hidden=aspect.hidden,
                    free_invokes=holders,
                )
            )
        return found

    @staticmethod
    def _holder(state: ConflictState, combatant_id: str) -> str:
        member = state.members.get(combatant_id)
        return GM if member is None else member.holder

    async def spend_free_invoke(
        self, session: AsyncSession, campaign: CampaignInfo, channel_id: int, key: str, holder: str
    ) -> None:
        row = await active_encounter_in(session, channel_id, "conflict")
        if row is None or row.campaign_id != campaign.id:
            raise RuleError("That aspect is no longer in play; pick another one.")
        state = ConflictState.model_validate_json(row.state_json)
        aspect = next((a for a in state.aspects if a.id == key), None)
        if aspect is None:
            raise RuleError("That aspect is no longer in play; pick another one.")
        who = next((h for h in aspect.free_invokes if self._holder(state, h) == holder), None)
        if who is None:
            raise RuleError(
                f"There is no free invoke of yours left on '{aspect.text}'; pay a fate point."
            )
        spent, _ = spend_own_invoke(aspect, who)
        state.aspects = without_spent(state.aspects, key, spent)
        state.add_log(f"{state.name(who)} uses a free invoke on {aspect.text}.")
        await save_encounter_in(session, row, state.model_dump_json(), active=row.active)


aspects_in_play.register_source(ConflictAspectSource())
