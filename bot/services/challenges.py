"""Challenges in a channel: the GM lists overcome tasks; players claim and roll them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from pydantic import Field
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.models.conflicts import EncounterRow
from bot.db.repos.encounters import (
    active_encounter_in,
    load_encounter_in,
    new_encounter_in,
    save_encounter_in,
)
from bot.errors import RuleError
from bot.fate import challenge as rules
from bot.fate.challenge import MAX_TASKS, Challenge, ChallengeTask
from bot.fate.ladder import describe
from bot.fate.rolls import Action, Roll, make_roll
from bot.fate.words import plural
from bot.services import aspects_in_play
from bot.services.campaigns import (
    CampaignInfo,
    find_character_in,
    get_character_in,
    require_active_in,
    resolve_campaign_in,
)
from bot.services.character_aspects import owe_hostile_invoke_in
from bot.services.clicks import ClickContext
from bot.services.encounters import (
    HIDDEN_NAME,
    Choice,
    EncounterService,
    EncounterState,
    Member,
    NextUp,
    distinct_labels,
    in_play_choices,
    invoke_for_bonus,
    invoke_mode,
    invoked_how,
    member_of,
    parse_difficulty,
    pay_invoke_point_in,
    rank_aspects,
    roll_line,
    roller_of,
)


class ChallengeState(EncounterState):
    """A challenge's stored state: the tasks, who took them, rolls waiting and the log."""

    challenge: Challenge
    stopped: bool = False
    rolls: dict[str, Roll] = Field(default_factory=dict)  # task id -> a roll taking invokes

    @property
    def complete(self) -> bool:
        return rules.summary(self.challenge).complete

    def waiting_on(self) -> ChallengeTask | None:
        """The next task in the list still to roll, once a task has been rolled (None before
        the first roll, when no assigned task is left, or when the challenge is closed)."""
        tasks = self.challenge.tasks
        if self.stopped or not any(t.result is not None for t in tasks):
            return None
        return next((t for t in tasks if t.result is None and t.assigned_to), None)

    def next_up(self) -> NextUp | None:
        """Who rolls the next task (see `waiting_on`)."""
        task = self.waiting_on()
        if task is None or task.assigned_to is None:
            return None
        return NextUp((task.id,), self.name(task.assigned_to), self.player_of(task.assigned_to))


@dataclass
class ChallengeSnapshot:
    """A challenge as its tracker shows it after a call."""

    id: int
    version: int
    channel_id: int
    tracker_message_id: int | None
    state: ChallengeState
    message: str = ""
    turn_ping: bool | None = None  # the campaign's setting when the unit read it


def parse_tasks(text: str) -> list[tuple[str, int, str]]:
    """Tasks as typed, e.g. `Lore:3, Athletics:Fair:climb the wall`: [(skill, difficulty, text)]."""
    tasks = []
    for part in [p.strip() for p in text.split(",") if p.strip()]:
        pieces = [p.strip() for p in part.split(":")]
        if len(pieces) < 2 or not pieces[0]:
            raise RuleError(
                f"'{part[:60]}' is not skill:difficulty; write tasks like `Lore:3, Athletics:Fair`."
            )
        tasks.append((pieces[0][:40], parse_difficulty(pieces[1]), ":".join(pieces[2:])[:200]))
    if not 1 <= len(tasks) <= MAX_TASKS:
        raise RuleError(f"A challenge has 1 to {MAX_TASKS} tasks.")
    return tasks


def _task_label(number: int, task: ChallengeTask) -> str:
    text = f"{number}. {task.skill} vs {describe(task.difficulty)}"
    return text + (f" - {task.description}" if task.description else "")


Step = Callable[[AsyncSession, EncounterRow, ChallengeState], Awaitable[str]]


class ChallengeService(EncounterService[ChallengeState, ChallengeSnapshot]):
    """Challenges in a channel: start, claim, assign, roll, invoke, keep, end."""

    kind = "challenge"
    state_model = ChallengeState

    def _is_open(self, state: ChallengeState) -> bool:
        return not (state.complete or state.stopped)

    async def _snapshot_in(
        self,
        session: AsyncSession,
        row: EncounterRow,
        state: ChallengeState,
        message: str = "",
        *,
        with_sheets: bool = True,
        campaign: CampaignInfo | None = None,
    ) -> ChallengeSnapshot:
        return self._snapshot(row, state, message)

    @staticmethod
    def _snapshot(row: EncounterRow, state: ChallengeState, message: str = "") -> ChallengeSnapshot:
        """A challenge's tracker shows no sheets."""
        assert row.id is not None
        return ChallengeSnapshot(
            row.id, row.version, row.channel_id, row.tracker_message_id, state, message
        )

    async def _in_channel(self, channel_id: int, step: Step) -> ChallengeSnapshot:
        async with self.db.session() as session:
            row = await self._running_in(session, channel_id)
            return await self._act_on_in(session, row, None, step)

    async def start(
        self,
        guild_id: int,
        channel_id: int,
        user_id: int,
        tasks: list[tuple[str, int, str]],
        title: str = "",
    ) -> ChallengeSnapshot:
        async with self.db.session() as session:
            if await active_encounter_in(session, channel_id, "challenge") is not None:
                raise RuleError("A challenge is already running here; `/challenge end` closes it.")
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            row = await new_encounter_in(
                session, campaign.id, guild_id, channel_id, "challenge", user_id
            )
            challenge, _ = rules.start_challenge(str(row.id), tasks, " ".join(title.split()))
            state = ChallengeState(challenge=challenge)
            return await self._begin_in(session, row, state)

    def open_tasks(self, snap: ChallengeSnapshot) -> list[Choice]:
        return [
            Choice(task.id, _task_label(n, task)[:100])
            for n, task in enumerate(snap.state.challenge.tasks, start=1)
            if task.result is None and task.assigned_to is None
        ]

    def rollable_tasks(self, snap: ChallengeSnapshot, user_id: int, is_gm: bool) -> list[Choice]:
        found = []
        for n, task in enumerate(snap.state.challenge.tasks, start=1):
            if task.result is not None or task.assigned_to is None or task.id in snap.state.rolls:
                continue
            member = snap.state.members.get(task.assigned_to)
            if member is not None and member.controlled_by(user_id, is_gm):
                found.append(Choice(task.id, _task_label(n, task)[:100], member.name[:100]))
        return found

    async def claim(self, click: ClickContext, task_id: str) -> ChallengeSnapshot:
        async def step(session: AsyncSession, row: EncounterRow, state: ChallengeState) -> str:
            campaign = await resolve_campaign_in(session, row.guild_id, row.channel_id)
            record = await require_active_in(session, campaign, row.channel_id, click.user_id)
            key = str(record.id)
            state.members[key] = member_of(record)
            state.challenge, _ = rules.claim(state.challenge, task_id, key)
            task = state.challenge.task(task_id)
            return state.logged(f"{record.name} takes the {task.skill} task.")

        return await self._act(click.ident, click.version, step)

    @staticmethod
    def _task_at(state: ChallengeState, number: int) -> ChallengeTask:
        if not 1 <= number <= len(state.challenge.tasks):
            raise RuleError(
                f"Pick a task number from 1 to {len(state.challenge.tasks)} (see the tracker)."
            )
        return state.challenge.tasks[number - 1]

    async def assign(self, channel_id: int, number: int, name: str) -> ChallengeSnapshot:
        async def step(session: AsyncSession, row: EncounterRow, state: ChallengeState) -> str:
            task = self._task_at(state, number)
            if task.id in state.rolls:
                raise RuleError(
                    f"The {task.skill} task's roll is waiting; keep it before reassigning the task."
                )
            record = await find_character_in(session, row.campaign_id, name)
            key = str(record.id)
            state.members[key] = member_of(record)
            state.challenge, _ = rules.assign(state.challenge, task.id, key)
            return state.logged(f"The GM gives the {task.skill} task to {record.name}.")

        return await self._in_channel(channel_id, step)

    async def roll(self, click: ClickContext, task_id: str) -> ChallengeSnapshot:
        async def step(session: AsyncSession, row: EncounterRow, state: ChallengeState) -> str:
            task = state.challenge.task(task_id)
            member = state.members.get(task.assigned_to or "")
            if member is None:
                raise RuleError("Claim that task before rolling it.")
            if not member.controlled_by(click.user_id, click.is_gm):
                raise RuleError(f"That task is {member.name}'s; roll one of yours.")
            sheet = (await get_character_in(session, member.character_id)).sheet
            dice_roll, _ = make_roll(
                self.dice(),
                roller_of(member),
                skill=task.skill,
                skill_rating=sheet.rating(task.skill),
                difficulty=task.difficulty,
                action=Action.OVERCOME,
            )
            if task.result is not None:
                raise RuleError(f"The {task.skill} task is already rolled and recorded.")
            if task_id in state.rolls:
                raise RuleError(f"The {task.skill} task is rolled: invoke, or press Keep the roll.")
            state.rolls = {**state.rolls, task_id: dice_roll}
            return state.logged(
                f"{roll_line(member.name, dice_roll)} vs {describe(task.difficulty)} for the "
                f"{task.skill} task."
            )  # the task's line on the tracker says "invoke or keep it" while it waits

        return await self._act(click.ident, click.version, step)

    # ------------------------------------------------------------------ rolls waiting
    @staticmethod
    def waiting_rolls(snap: ChallengeSnapshot, user_id: int, is_gm: bool) -> list[Choice]:
        """Rolled tasks of the user's characters that still take invokes."""
        state = snap.state
        found = []
        for number, task in enumerate(state.challenge.tasks, start=1):
            roll = state.rolls.get(task.id)
            member = state.members.get(task.assigned_to or "")
            if roll is None or member is None or not member.controlled_by(user_id, is_gm):
                continue
            label = f"{_task_label(number, task)}: {describe(roll.effort())}"
            found.append(Choice(task.id, label[:100], member.name[:100]))
        return found[:25]

    def _waiting(self, state: ChallengeState, task_id: str, user_id: int, is_gm: bool) -> Member:
        task = state.challenge.task(task_id)
        member = state.members.get(task.assigned_to or "")
        if task_id not in state.rolls or member is None:
            raise RuleError("That task has no roll waiting; look at the tracker again.")
        if not member.controlled_by(user_id, is_gm):
            raise RuleError(f"That roll is {member.name}'s; their player or the GM decides.")
        return member

    async def keep(self, click: ClickContext, task_id: str) -> ChallengeSnapshot:
        """The roll is final: record its outcome on the task."""

        async def step(session: AsyncSession, row: EncounterRow, state: ChallengeState) -> str:
            member = self._waiting(state, task_id, click.user_id, click.is_gm)
            task = state.challenge.task(task_id)
            dice_roll = state.rolls[task_id]
            state.challenge, events = rules.record_roll(
                state.challenge, task_id, task.assigned_to or "", dice_roll.effort()
            )
            state.rolls = {k: v for k, v in state.rolls.items() if k != task_id}
            line = f"{roll_line(member.name, dice_roll)} vs {describe(task.difficulty)}: "
            line += events[0].text if events else ""
            return state.logged(line)

        return await self._act(click.ident, click.version, step)

    async def invoke_choices(self, click: ClickContext) -> list[Choice]:
        async with self.db.session() as session:
            row = await load_encounter_in(session, click.ident, "challenge")
            state = self._state(row)
            return await self._choices_in(session, row, state, click.user_id, click.is_gm)

    async def _choices_in(
        self,
        session: AsyncSession,
        row: EncounterRow,
        state: ChallengeState,
        user_id: int,
        is_gm: bool,
    ) -> list[Choice]:
        snap = self._snapshot(row, state)
        waiting = self.waiting_rolls(snap, user_id, is_gm)
        if not waiting:
            raise RuleError("You have no task roll waiting; invoke after rolling a task.")
        campaign = await resolve_campaign_in(session, row.guild_id, row.channel_id)
        choices: list[Choice] = []
        names = {m.name for m in state.members.values()}
        for entry in waiting:
            task = state.challenge.task(entry.value)
            member = state.members[task.assigned_to or ""]
            head = f"{task.skill}: " if len(waiting) > 1 else ""
            found = await aspects_in_play.aspects_in_play_in(
                session, campaign, row.channel_id, include_hidden=member.is_npc
            )
            ranked = rank_aspects(found, member.name, names)
            choices += in_play_choices(
                ranked, member.holder, value_head=f"{task.id}|", label_head=head
            )
        return distinct_labels(choices)

    async def invoke(self, click: ClickContext, pick: str) -> ChallengeSnapshot:
        """An invoke's pick from the Invoke (+2) or Invoke reroll menu."""
        mode, value = invoke_mode(pick)

        async def step(session: AsyncSession, row: EncounterRow, state: ChallengeState) -> str:
            valid = {
                c.value
                for c in await self._choices_in(session, row, state, click.user_id, click.is_gm)
            }
            if value not in valid:
                raise RuleError("That aspect cannot be invoked now; press Invoke again.")
            task_id, payment, key = value.split("|", 2)
            member = self._waiting(state, task_id, click.user_id, click.is_gm)
            campaign = await resolve_campaign_in(session, row.guild_id, row.channel_id)
            found = await aspects_in_play.find_aspect_in(session, campaign, row.channel_id, key)
            shown = HIDDEN_NAME if found.hidden else found.name  # the log is public
            record = await get_character_in(session, member.character_id)
            if payment == "free":
                holder = member.holder
                await aspects_in_play.spend_free_invoke_in(
                    session, campaign, row.channel_id, key, holder
                )
            else:
                await pay_invoke_point_in(
                    session,
                    campaign,
                    row.channel_id,
                    record,
                    click.user_id,
                    f"{shown} (challenge #{row.id})",
                )
            before = state.rolls[task_id]
            dice_roll = invoke_for_bonus(
                before, self.dice(), member, click.user_id, (key, shown), payment, mode
            )
            state.rolls = {**state.rolls, task_id: dice_roll}
            task = state.challenge.task(task_id)
            lines = [
                f"{member.name} invokes {shown} {invoked_how(mode, before, dice_roll)}: the "
                f"{task.skill} roll is now "
                f"{describe(dice_roll.effort())} vs {describe(task.difficulty)}."
            ]
            if payment != "free":
                lines.append(await owe_hostile_invoke_in(session, state, member, "", key))
            return state.logged(*filter(None, lines))

        return await self._act(click.ident, click.version, step)

    async def cost(self, channel_id: int, number: int, cost: str) -> ChallengeSnapshot:
        async with self.db.session() as session:
            row = await active_encounter_in(session, channel_id, "challenge")
            if row is None:
                row = await self._latest_in(session, channel_id)
            state = self._state(row)
            task = self._task_at(state, number)
            state.challenge = rules.set_cost(state.challenge, task.id, cost)
            state.add_log(f"Cost of the {task.skill} task: {' '.join(cost.split())[:200]}")
            row.version = await save_encounter_in(
                session, row, state.model_dump_json(), active=row.active
            )
            return self._snapshot(row, state, "Cost noted.")

    async def _latest_in(self, session: AsyncSession, channel_id: int) -> EncounterRow:
        from sqlmodel import col, select

        row = (
            await session.exec(
                select(EncounterRow)
                .where(EncounterRow.channel_id == channel_id, EncounterRow.kind == "challenge")
                .order_by(col(EncounterRow.id).desc())
                .limit(1)
            )
        ).first()
        if row is None:
            raise RuleError("No challenge has run here; start one with `/challenge start`.")
        return row

    async def end(self, channel_id: int) -> ChallengeSnapshot:
        async def step(session: AsyncSession, row: EncounterRow, state: ChallengeState) -> str:
            state.stopped = True
            state.rolls = {}  # rolls nobody kept are not recorded
            total = rules.summary(state.challenge)
            return state.logged(
                f"The GM closes the challenge: {plural(total.successes, 'success')}, "
                f"{plural(total.ties, 'tie')}, "
                f"{plural(total.failures, 'failure')}, {total.open} not rolled."
            )

        return await self._in_channel(channel_id, step)
