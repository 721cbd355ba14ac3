"""Contests in a channel: sides, one roll per side per exchange, teamwork, twists on a tie."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from pydantic import BaseModel, Field
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.engine import Database
from bot.db.models.conflicts import EncounterRow
from bot.errors import RuleError
from bot.fate import contest as rules
from bot.fate.contest import Contest, ContestError, ContestSide
from bot.fate.rolls import Action, Modifier, Roller, make_roll
from bot.fate.sheet import Character
from bot.services.campaigns import find_character_in, get_character_in, resolve_campaign_in
from bot.services.conflicts import (
    LOG_KEEP,
    Choice,
    ConflictService,
    Member,
    active_encounter_in,
    check_version,
    load_encounter_in,
    member_of,
    parse_names,
    roll_line,
    save_encounter_in,
    set_tracker_in,
)

MAX_SIDE_MEMBERS = 10
SIDE_NAMES = ("Side A", "Side B", "Side C")


class ContestState(BaseModel):
    contest: Contest
    members: dict[str, Member]
    log: list[str] = Field(default_factory=list)
    awaiting_twist: bool = False
    stopped: bool = False

    def name(self, member_id: str | None) -> str:
        member = self.members.get(member_id or "")
        return member.name if member else str(member_id)

    def add_log(self, *lines: str) -> None:
        self.log = [*self.log, *[line for line in lines if line]][-LOG_KEEP:]

    def side_of(self, member_id: str) -> ContestSide:
        for side in self.contest.sides:
            if member_id in side.members:
                return side
        raise RuleError("That character is not in this contest.")


@dataclass
class ContestSnapshot:
    id: int
    version: int
    channel_id: int
    tracker_message_id: int | None
    state: ContestState
    sheets: dict[str, Character] = field(default_factory=dict)
    message: str = ""


Step = Callable[[AsyncSession, EncounterRow, ContestState], Awaitable[str]]


class ContestService:
    def __init__(self, db: Database, conflicts: ConflictService) -> None:
        self.db = db
        self.conflicts = conflicts  # shares its dice (rng_factory)

    async def _snapshot_in(
        self, session: AsyncSession, row: EncounterRow, state: ContestState, message: str = ""
    ) -> ContestSnapshot:
        sheets = {}
        for key, member in state.members.items():
            try:
                sheets[key] = (await get_character_in(session, member.character_id)).sheet
            except RuleError:
                continue
        assert row.id is not None
        return ContestSnapshot(
            row.id, row.version, row.channel_id, row.tracker_message_id, state, sheets, message
        )

    async def _act(self, contest_id: int, version: int | None, step: Step) -> ContestSnapshot:
        async with self.db.session() as session:
            row = await load_encounter_in(session, contest_id, "contest")
            check_version(row, version)
            if not row.active:
                raise RuleError("This contest is over; start a new one with `/contest start`.")
            state = ContestState.model_validate_json(row.state_json)
            message = await step(session, row, state)
            row.version = await save_encounter_in(
                session, row, state.model_dump_json(), active=state.contest.winner is None
            )
            return await self._snapshot_in(session, row, state, message)

    async def start(
        self,
        guild_id: int,
        channel_id: int,
        user_id: int,
        sides: list[tuple[str, str]],
        victories: int,
    ) -> ContestSnapshot:
        async with self.db.session() as session:
            if await active_encounter_in(session, channel_id, "contest") is not None:
                raise RuleError("A contest is already running here; `/contest end` stops it.")
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            members: dict[str, Member] = {}
            built = []
            for index, (names, intent) in enumerate(sides):
                keys = []
                for name in parse_names(names, "characters of a side", MAX_SIDE_MEMBERS):
                    record = await find_character_in(session, campaign.id, name)
                    key = str(record.id)
                    if key in members:
                        raise RuleError(f"{record.name} is on two sides; put them on one.")
                    members[key] = member_of(record)
                    keys.append(key)
                label = " & ".join(members[k].name for k in keys)
                built.append(
                    ContestSide(
                        key=f"s{index + 1}",
                        name=label[:60] or SIDE_NAMES[index],
                        intent=" ".join(intent.split())[:200],
                        members=keys,
                    )
                )
            row = EncounterRow(
                campaign_id=campaign.id,
                guild_id=guild_id,
                channel_id=channel_id,
                kind="contest",
                state_json="{}",
                created_by=user_id,
            )
            session.add(row)
            await session.flush()
            contest, _ = rules.start_contest(str(row.id), built, victories)
            state = ContestState(contest=contest, members=members)
            state.add_log(f"A contest to {victories} victories begins.")
            row.state_json = state.model_dump_json()
            session.add(row)
            await session.flush()
            return await self._snapshot_in(session, row, state)

    async def get(self, contest_id: int) -> ContestSnapshot:
        async with self.db.session() as session:
            row = await load_encounter_in(session, contest_id, "contest")
            state = ContestState.model_validate_json(row.state_json)
            return await self._snapshot_in(session, row, state)

    async def set_tracker(self, contest_id: int, message_id: int) -> None:
        async with self.db.session() as session:
            await set_tracker_in(session, contest_id, message_id)

    def members_for(
        self, snap: ContestSnapshot, user_id: int, is_gm: bool, *, rolling: bool
    ) -> list[Choice]:
        """Characters the user may roll (or help) with on sides still to roll this exchange."""
        draft = snap.state.contest.exchange
        found = []
        for side in snap.state.contest.sides:
            if side.key in draft.rolls or side.key in draft.forfeited:
                continue
            helpers = draft.helpers.get(side.key, [])
            for key in side.members:
                member = snap.state.members[key]
                if not member.controlled_by(user_id, is_gm) or key in helpers:
                    continue
                found.append(Choice(key, member.name, side.name))
        if is_gm and rolling:
            # the GM rolls for NPCs first; players roll their own
            found.sort(key=lambda c: not snap.state.members[c.value].is_npc)
        return found[:25]

    def _control(self, state: ContestState, key: str, user_id: int, is_gm: bool) -> Member:
        member = state.members.get(key)
        if member is None:
            raise RuleError("That character is not in this contest.")
        if not member.controlled_by(user_id, is_gm):
            raise RuleError(f"Only {member.name}'s player or the GM can do that.")
        return member

    async def teamwork(
        self, contest_id: int, version: int | None, user_id: int, is_gm: bool, key: str
    ) -> ContestSnapshot:
        async def step(session: AsyncSession, row: EncounterRow, state: ContestState) -> str:
            member = self._control(state, key, user_id, is_gm)
            side = state.side_of(key)
            state.contest, _ = rules.add_teamwork(state.contest, side.key, key)
            line = f"{member.name} helps {side.name} (teamwork, +1 with Average or better)."
            state.add_log(line)
            return line

        return await self._act(contest_id, version, step)

    async def roll(
        self,
        contest_id: int,
        version: int | None,
        user_id: int,
        is_gm: bool,
        key: str,
        skill: str,
    ) -> ContestSnapshot:
        async def step(session: AsyncSession, row: EncounterRow, state: ContestState) -> str:
            member = self._control(state, key, user_id, is_gm)
            side = state.side_of(key)
            sheet = (await get_character_in(session, member.character_id)).sheet
            skill_name = " ".join(skill.split())[:40] or "Mediocre"
            rating = sheet.rating(skill_name)
            helpers = state.contest.exchange.helpers.get(side.key, [])
            helping = 0
            for helper in helpers:
                helper_sheet = (
                    await get_character_in(session, state.members[helper].character_id)
                ).sheet
                helping += 1 if helper_sheet.rating(skill_name) >= 1 else 0
            bonus = rules.teamwork_bonus(helping, rating)
            modifiers = [Modifier(label="Teamwork", value=bonus)] if bonus else []
            dice_roll, _ = make_roll(
                self.conflicts.rng_factory(),
                _roller(member),
                skill=skill_name,
                skill_rating=rating,
                modifiers=modifiers,
                action=Action.OVERCOME,
            )
            state.contest, _ = rules.roll(state.contest, side.key, key, dice_roll.effort())
            teamwork = f" (teamwork +{bonus})" if bonus else ""
            lines = [f"{roll_line(member.name, dice_roll)}{teamwork} for {side.name}."]
            lines += self._try_resolve(state)
            state.add_log(*lines)
            return " ".join(lines)

        return await self._act(contest_id, version, step)

    def _try_resolve(self, state: ContestState, twist: str | None = None) -> list[str]:
        draft = state.contest.exchange
        waiting = [
            s
            for s in state.contest.sides
            if s.key not in draft.rolls and s.key not in draft.forfeited
        ]
        if waiting:
            return []
        number = draft.number
        try:
            state.contest, events = rules.resolve_exchange(state.contest, twist)
        except ContestError:
            if twist is not None:
                raise
            state.awaiting_twist = True
            return [f"Exchange {number}: a tie for the highest effort; the GM adds a twist."]
        state.awaiting_twist = False
        return [f"Exchange {number}: {e.text}" for e in events]

    async def twist(self, contest_id: int, version: int | None, aspect: str) -> ContestSnapshot:
        async def step(session: AsyncSession, row: EncounterRow, state: ContestState) -> str:
            if not state.awaiting_twist:
                raise RuleError("There is no tie waiting for a twist.")
            text = " ".join(aspect.split())
            if not text or len(text) > 80:
                raise RuleError("Write the twist as an aspect of 1 to 80 characters.")
            lines = self._try_resolve(state, text)
            state.add_log(*lines)
            return " ".join(lines)

        return await self._act(contest_id, version, step)

    async def end(self, channel_id: int) -> ContestSnapshot:
        async with self.db.session() as session:
            row = await active_encounter_in(session, channel_id, "contest")
            if row is None:
                raise RuleError("No contest is running here.")
            state = ContestState.model_validate_json(row.state_json)
            state.add_log("The GM stops the contest.")
            state.stopped = True
            row.version = await save_encounter_in(
                session, row, state.model_dump_json(), active=False
            )
            return await self._snapshot_in(session, row, state, "The contest is stopped.")


def _roller(member: Member) -> Roller:
    return Roller(character_id=member.character_id, user_id=member.owner_id, name=member.name)
