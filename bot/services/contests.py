"""Contests in a channel: sides, one roll per side per exchange, teamwork, twists on a tie."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from pydantic import BaseModel, Field
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.models.conflicts import EncounterRow
from bot.db.repos.encounters import (
    active_encounter_in,
    load_encounter_in,
    new_encounter_in,
)
from bot.errors import RuleError
from bot.fate import contest as rules
from bot.fate.aspects import (
    Aspect,
    AspectKind,
    FailChoice,
    OutcomeKind,
    classify,
    create_advantage_new,
)
from bot.fate.aspects import spend_free_invoke as spend_own_invoke
from bot.fate.contest import Contest, ContestError, ContestSide, FailedAdvantage
from bot.fate.harm import HarmType, absorb_hit, suggest_absorb_options
from bot.fate.ladder import describe
from bot.fate.rolls import Action, Modifier, Roll, make_roll
from bot.fate.sheet import Character
from bot.services import aspects_in_play
from bot.services.campaigns import (
    CampaignInfo,
    find_character_in,
    get_character_in,
    resolve_campaign_in,
    save_character_in,
)
from bot.services.character_aspects import owe_hostile_invoke_in
from bot.services.clicks import ClickContext
from bot.services.encounters import (
    HIDDEN_NAME,
    AbsorbOption,
    Choice,
    EncounterService,
    EncounterState,
    Member,
    NextUp,
    absorb_menu,
    distinct_labels,
    in_play_choices,
    invoke_for_bonus,
    invoke_mode,
    invoked_how,
    member_of,
    name_slots,
    parse_difficulty,
    parse_names,
    pay_invoke_point_in,
    rank_aspects,
    roll_line,
    roller_of,
    without_spent,
)
from bot.services.scene_state import join_scene_in

MAX_SIDE_MEMBERS = 10
SIDE_NAMES = ("Side A", "Side B", "Side C")


class ContestHit(BaseModel):
    """A hit a harming side dealt at the end of an exchange, waiting for its victim's choice."""

    victim: str
    attacker: str
    shifts: int


class ContestState(EncounterState):
    """A contest's stored state: sides, rolls, hits waiting, boosts and the log."""

    contest: Contest
    members: dict[str, Member]
    awaiting_twist: bool = False
    stopped: bool = False
    rolls: dict[str, Roll] = Field(default_factory=dict)  # side -> this exchange's roll
    aspects: list[Aspect] = Field(default_factory=list)  # advantages and boosts; holders: sides
    pending_fail: dict[str, str] = Field(default_factory=dict)  # side -> failed aspect's text
    next_aspect: int = 1
    harm: HarmType = HarmType.PHYSICAL  # what a harming side's hits strike
    hits: list[ContestHit] = Field(default_factory=list)  # to absorb before the next rolls
    out: list[str] = Field(default_factory=list)  # members taken out by a hit

    @property
    def open(self) -> bool:
        """Still taking clicks: not stopped, and not won unless hits still wait."""
        return not self.stopped and (self.contest.winner is None or bool(self.hits))

    def require_no_hits(self) -> None:
        if self.hits:
            hit = self.hits[0]
            raise RuleError(
                f"First {self.name(hit.victim)} takes the {hit.shifts}-shift hit "
                "(press Take the hit)."
            )

    def new_aspect_id(self) -> str:
        key = f"ct:{self.contest.id}:{self.next_aspect}"
        self.next_aspect += 1
        return key

    def everyone_rolled(self) -> bool:
        draft = self.contest.exchange
        return all(s.key in draft.rolls or s.key in draft.forfeited for s in self.contest.sides)

    def waiting_on(self) -> ContestSide | None:
        """The one side still to roll once another has rolled this exchange (None when no
        side has rolled yet, several still may, hits wait to be taken, or it is over)."""
        draft = self.contest.exchange
        if not self.open or self.hits or not draft.rolls:
            return None
        left = [
            s
            for s in self.contest.sides
            if s.key not in draft.rolls and s.key not in draft.forfeited
        ]
        return left[0] if len(left) == 1 else None

    def next_up(self) -> NextUp | None:
        """The side still to roll (see `waiting_on`): its one character, or the side by name
        when several may roll for it (nobody in particular to tell)."""
        side = self.waiting_on()
        if side is None:
            return None
        key = (self.contest.exchange.number, side.key)
        if len(side.members) != 1:
            return NextUp(key, side.name, None)
        only = side.members[0]
        return NextUp(key, self.name(only), self.player_of(only))

    def team_of(self, member_id: str) -> str:
        return self.side_of(member_id).key

    def side_of(self, member_id: str) -> ContestSide:
        for side in self.contest.sides:
            if member_id in side.members:
                return side
        raise RuleError("That character is not in this contest.")


def _tried_already(state: ContestState, keys: list[str]) -> str:
    """The refusal of a second create-an-advantage attempt in one exchange."""
    names = " and ".join(state.name(k) for k in keys)
    return (
        f"{names} already tried to create an advantage this exchange, and each participant "
        "gets one try per exchange: roll for the side or give Teamwork +1 instead, and try "
        "again next exchange."
    )


@dataclass
class ContestSnapshot:
    """A contest as its tracker shows it after a call."""

    id: int
    version: int
    channel_id: int
    tracker_message_id: int | None
    state: ContestState
    sheets: dict[str, Character] = field(default_factory=dict)
    message: str = ""
    skills: tuple[str, ...] = ()  # the campaign's skill list, for the skill menus
    turn_ping: bool | None = None  # the campaign's setting when the unit read it


Step = Callable[[AsyncSession, EncounterRow, ContestState], Awaitable[str]]


class ContestService(EncounterService[ContestState, ContestSnapshot]):
    """Contests in a channel: sides roll, invoke, create advantages and take hits."""

    kind = "contest"
    state_model = ContestState
    snapshot_type = ContestSnapshot

    def _is_open(self, state: ContestState) -> bool:
        return state.open

    async def start(
        self,
        guild_id: int,
        channel_id: int,
        user_id: int,
        sides: list[tuple[str, str]],
        victories: int,
        harming: str = "",
        harm: HarmType = HarmType.PHYSICAL,
    ) -> ContestSnapshot:
        """`harming`: letters of the sides that try to harm the others (e.g. "b" or "ab")."""
        harm_letters = {c for c in harming.casefold() if c.isalpha()}
        if harm_letters - set("abc"[: len(sides)]):
            raise RuleError(
                f"Name harming sides by letter: {', '.join('abc'[: len(sides)])} (e.g. `b`)."
            )
        async with self.db.session() as session:
            if await active_encounter_in(session, channel_id, "contest") is not None:
                raise RuleError("A contest is already running here; `/contest end` stops it.")
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            members: dict[str, Member] = {}
            records = []
            built = []
            for index, (names, intent) in enumerate(sides):
                keys = []
                for name in parse_names(names, "characters of a side", MAX_SIDE_MEMBERS):
                    record = await find_character_in(session, campaign.id, name)
                    key = str(record.id)
                    if key in members:
                        raise RuleError(f"{record.name} is on two sides; put them on one.")
                    members[key] = member_of(record)
                    records.append(record)
                    keys.append(key)
                label = " & ".join(members[k].name for k in keys)
                built.append(
                    ContestSide(
                        key=f"s{index + 1}",
                        name=label[:60] or SIDE_NAMES[index],
                        intent=" ".join(intent.split())[:200],
                        members=keys,
                        harms_others="abc"[index] in harm_letters,
                    )
                )
            await join_scene_in(session, campaign, channel_id, records, user_id)
            row = await new_encounter_in(
                session, campaign.id, guild_id, channel_id, "contest", user_id
            )
            contest, _ = rules.start_contest(str(row.id), built, victories)
            state = ContestState(contest=contest, members=members, harm=harm)
            state.add_log(f"A contest to {victories} victories begins.")
            return await self._begin_in(session, row, state)

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
                if key in snap.state.out:
                    continue
                found.append(Choice(key, member.name, side.name))
        if is_gm and rolling:
            # the GM rolls for NPCs first; players roll their own
            found.sort(key=lambda c: not snap.state.members[c.value].is_npc)
        return found[:25]

    def advantage_members(self, snap: ContestSnapshot, user_id: int, is_gm: bool) -> list[Choice]:
        """`members_for` less those who already tried to create an advantage this exchange;
        when that leaves nobody, the sentence saying so."""
        members = self.members_for(snap, user_id, is_gm, rolling=False)
        tries = snap.state.contest.exchange.advantage_tries
        left = [m for m in members if m.value not in tries]
        if members and not left:
            raise RuleError(_tried_already(snap.state, [m.value for m in members]))
        return left

    def _control(self, state: ContestState, key: str, user_id: int, is_gm: bool) -> Member:
        member = state.members.get(key)
        if member is None:
            raise RuleError("That character is not in this contest.")
        if not member.controlled_by(user_id, is_gm):
            raise RuleError(f"Only {member.name}'s player or the GM can do that.")
        return member

    async def teamwork(self, click: ClickContext, key: str) -> ContestSnapshot:
        async def step(session: AsyncSession, row: EncounterRow, state: ContestState) -> str:
            state.require_no_hits()
            member = self._control(state, key, click.user_id, click.is_gm)
            side = state.side_of(key)
            state.contest, _ = rules.add_teamwork(state.contest, side.key, key)
            return state.logged(
                f"{member.name} helps {side.name} (teamwork, +1 with Average or better)."
            )

        return await self._act(click.ident, click.version, step)

    async def roll(
        self,
        click: ClickContext,
        key: str,
        skill: str,
    ) -> ContestSnapshot:
        async def step(session: AsyncSession, row: EncounterRow, state: ContestState) -> str:
            state.require_no_hits()
            member = self._control(state, key, click.user_id, click.is_gm)
            if key in state.out:
                raise RuleError(f"{member.name} was taken out; someone else rolls for the side.")
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
                self.dice(),
                roller_of(member),
                skill=skill_name,
                skill_rating=rating,
                modifiers=modifiers,
                action=Action.OVERCOME,
            )
            if side.key in state.pending_fail:
                raise RuleError(
                    f"{side.name} must first settle its failed advantage (forfeit the roll "
                    "or give the other side a free invoke)."
                )
            state.contest, _ = rules.roll(state.contest, side.key, key, dice_roll.effort())
            state.rolls = {**state.rolls, side.key: dice_roll}
            teamwork = f" (teamwork +{bonus})" if bonus else ""
            lines = [f"{roll_line(member.name, dice_roll)}{teamwork} for {side.name}."]
            if state.everyone_rolled():
                lines.append("Every side has rolled: invoke, then resolve the exchange.")
            return state.logged(*lines)

        return await self._act(click.ident, click.version, step)

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
        state.rolls = {}
        state.aspects = [a for a in state.aspects if a.kind is not AspectKind.BOOST]
        lines = []
        for event in events:
            if event.kind == "contest_hit" and event.who is not None:
                attacker = str(event.data.get("attacker"))
                shifts = int(event.data.get("shifts") or 0)
                state.hits = [
                    *state.hits,
                    ContestHit(victim=event.who, attacker=attacker, shifts=shifts),
                ]
                # "Hits to take" on the tracker says to press Take the hit
                lines.append(
                    f"{state.name(event.who)} gave teamwork, so takes the same {shifts}-shift "
                    f"hit from {state.name(attacker)}."
                    if event.data.get("helper")
                    else f"{state.name(event.who)} takes a {shifts}-shift hit from "
                    f"{state.name(attacker)}."
                )
            else:
                lines.append(f"Exchange {number}: {event.text}")
        return lines + self._forfeit_fallen(state)

    @staticmethod
    def _forfeit_fallen(state: ContestState) -> list[str]:
        """Sides whose members are all taken out forfeit their rolls from now on."""
        if state.contest.winner is not None:
            return []
        lines: list[str] = []
        for side in state.contest.sides:
            if side.members and all(m in state.out for m in side.members):
                state.contest, events = rules.forfeit_roll(state.contest, side.key)
                lines += [e.text for e in events]
        return lines

    async def resolve(self, click: ClickContext) -> ContestSnapshot:
        async def step(session: AsyncSession, row: EncounterRow, state: ContestState) -> str:
            if not click.is_gm and not any(
                m.controlled_by(click.user_id, click.is_gm) for m in state.members.values()
            ):
                raise RuleError("Only the GM or someone in the contest can resolve the exchange.")
            if state.awaiting_twist:
                raise RuleError("The exchange is a tie: the GM adds a twist.")
            if state.pending_fail:
                raise RuleError("A side must first settle its failed advantage.")
            if not state.everyone_rolled():
                waiting = [
                    s.name
                    for s in state.contest.sides
                    if s.key not in state.contest.exchange.rolls
                    and s.key not in state.contest.exchange.forfeited
                ]
                raise RuleError(f"Waiting for a roll from: {', '.join(waiting)}.")
            lines = self._try_resolve(state)
            return state.logged(*lines)

        return await self._act(click.ident, click.version, step)

    # ------------------------------------------------------------------ advantages
    async def advantage(
        self,
        click: ClickContext,
        key: str,
        skill: str,
        difficulty: str,
        aspect_text: str,
    ) -> ContestSnapshot:
        target = parse_difficulty(difficulty)
        text = " ".join(aspect_text.split())
        if not text or len(text) > 80:
            raise RuleError("Name the aspect you want to create (1 to 80 characters).")

        async def step(session: AsyncSession, row: EncounterRow, state: ContestState) -> str:
            state.require_no_hits()
            member = self._control(state, key, click.user_id, click.is_gm)
            side = state.side_of(key)
            if side.key in state.pending_fail:
                raise RuleError(f"{side.name} must first settle its failed advantage.")
            if key in state.contest.exchange.advantage_tries:  # a second form sent
                raise RuleError(_tried_already(state, [key]))
            sheet = (await get_character_in(session, member.character_id)).sheet
            skill_name = " ".join(skill.split())[:40] or "Mediocre"
            dice_roll, _ = make_roll(
                self.dice(),
                roller_of(member),
                skill=skill_name,
                skill_rating=sheet.rating(skill_name),
                difficulty=target,
                action=Action.CREATE_ADVANTAGE,
            )
            outcome = classify(dice_roll.effort(), target)
            line = f"{roll_line(member.name, dice_roll)} vs {describe(target)} to create {text}: "
            # the attempt counts whatever its outcome; a failure waits for the side's choice
            state.contest, _ = rules.try_advantage(
                state.contest, side.key, key, outcome, on_fail=None
            )
            if outcome is OutcomeKind.FAIL:
                state.pending_fail = {**state.pending_fail, side.key: text}
                line += "failed. Forfeit the side's roll, or give the other side a free invoke?"
                return state.logged(line)
            aspect, events = create_advantage_new(
                outcome, aspect_id=state.new_aspect_id(), text=text, actor=side.key
            )
            if aspect is not None:
                state.aspects = [*state.aspects, aspect]
            line += " ".join(e.text for e in events)
            return state.logged(line)

        return await self._act(click.ident, click.version, step)

    async def settle_failure(self, click: ClickContext, forfeit: bool) -> ContestSnapshot:
        async def step(session: AsyncSession, row: EncounterRow, state: ContestState) -> str:
            mine = [
                side
                for side in state.contest.sides
                if side.key in state.pending_fail
                and any(
                    state.members[m].controlled_by(click.user_id, click.is_gm) for m in side.members
                )
            ]
            if not mine:
                raise RuleError("None of your sides has a failed advantage to settle.")
            side = mine[0]
            text = state.pending_fail[side.key]
            actor = next(
                m
                for m in side.members
                if state.members[m].controlled_by(click.user_id, click.is_gm)
            )
            choice = FailedAdvantage.FORFEIT_ROLL if forfeit else FailedAdvantage.GIVE_FREE_INVOKE
            state.contest, events = rules.settle_failed_advantage(
                state.contest, side.key, actor, choice
            )
            if not forfeit:
                enemy = next(s.key for s in state.contest.sides if s.key != side.key)
                aspect, _ = create_advantage_new(
                    OutcomeKind.FAIL,
                    aspect_id=state.new_aspect_id(),
                    text=text,
                    actor=side.key,
                    enemy=enemy,
                    fail_choice=FailChoice.ENEMY_INVOKE,
                )
                if aspect is not None:
                    state.aspects = [*state.aspects, aspect]
            state.pending_fail = {k: v for k, v in state.pending_fail.items() if k != side.key}
            return state.logged(f"{side.name}: " + " ".join(e.text for e in events))

        return await self._act(click.ident, click.version, step)

    # ------------------------------------------------------------------ invokes
    def _invoker(self, state: ContestState, user_id: int, is_gm: bool) -> tuple[str, str]:
        """(side key, roller) of a side the user plays that rolled this exchange."""
        for side_key, side_roll in state.contest.exchange.rolls.items():
            member = state.members.get(side_roll.roller)
            if member is not None and member.controlled_by(user_id, is_gm):
                if not is_gm or member.is_npc or member.owner_id == user_id:
                    return side_key, side_roll.roller
        for side_key, side_roll in state.contest.exchange.rolls.items():
            member = state.members.get(side_roll.roller)
            if member is not None and member.controlled_by(user_id, is_gm):
                return side_key, side_roll.roller
        raise RuleError("Your side has not rolled this exchange; invoke after your roll.")

    async def invoke_choices(self, click: ClickContext) -> tuple[str, list[Choice]]:
        async with self.db.session() as session:
            row = await load_encounter_in(session, click.ident, "contest")
            state = self._state(row)
            side_key, roller = self._invoker(state, click.user_id, click.is_gm)
            campaign = await resolve_campaign_in(session, row.guild_id, row.channel_id)
            choices = await self._choices_in(session, campaign, row, state, side_key, roller)
            return state.name(roller), choices

    async def _choices_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        row: EncounterRow,
        state: ContestState,
        side_key: str,
        roller: str,
    ) -> list[Choice]:
        choices: list[Choice] = []
        for aspect in state.aspects:
            if aspect.invokes_held_by(side_key):
                choices.append(Choice(f"free|{aspect.id}", f"Free invoke: {aspect.text}"[:100]))
            if aspect.kind is not AspectKind.BOOST:
                choices.append(Choice(f"fp|{aspect.id}", f"Fate point: {aspect.text}"[:100]))
        member = state.members[roller]
        holder = member.holder
        others = await aspects_in_play.aspects_in_play_in(
            session, campaign, row.channel_id, include_hidden=member.is_npc
        )
        names = {m.name for m in state.members.values()}
        ranked = rank_aspects(others, member.name, names)
        outside = [a for a in ranked if not a.key.startswith(("ct:", "cf:"))]
        return distinct_labels([*choices, *in_play_choices(outside, holder, with_owner=False)])

    async def _pay_for_invoke_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        row: EncounterRow,
        state: ContestState,
        invoker: tuple[str, Member],
        key: str,
        payment: str,
        user_id: int,
    ) -> str:
        """Spend the free invoke or the fate point an invoke costs; the aspect's public name."""
        side_key, member = invoker
        if key.startswith("ct:"):
            aspect = next(a for a in state.aspects if a.id == key)
            name = aspect.text
            if payment == "free":
                spent, _ = spend_own_invoke(aspect, side_key)
                state.aspects = without_spent(state.aspects, key, spent)
        else:
            found = await aspects_in_play.find_aspect_in(session, campaign, row.channel_id, key)
            name = HIDDEN_NAME if found.hidden else found.name  # the log is public
            if payment == "free":
                await aspects_in_play.spend_free_invoke_in(
                    session, campaign, row.channel_id, key, member.holder
                )
        if payment == "fp":
            record = await get_character_in(session, member.character_id)
            note = f"{name} (contest #{row.id})"
            await pay_invoke_point_in(session, campaign, row.channel_id, record, user_id, note)
        return name

    async def invoke(self, click: ClickContext, pick: str) -> ContestSnapshot:
        """An invoke's pick from the Invoke (+2) or Invoke reroll menu."""
        mode, choice = invoke_mode(pick)

        async def step(session: AsyncSession, row: EncounterRow, state: ContestState) -> str:
            if state.awaiting_twist:
                raise RuleError("The exchange is already a tie waiting for the GM's twist.")
            side_key, roller = self._invoker(state, click.user_id, click.is_gm)
            campaign = await resolve_campaign_in(session, row.guild_id, row.channel_id)
            valid = {
                c.value
                for c in await self._choices_in(session, campaign, row, state, side_key, roller)
            }
            if choice not in valid:
                raise RuleError("That aspect cannot be invoked now; press Invoke again.")
            payment, key = choice.split("|", 1)
            member = state.members[roller]
            name = await self._pay_for_invoke_in(
                session, campaign, row, state, (side_key, member), key, payment, click.user_id
            )
            before = state.rolls.get(side_key)
            if before is None:
                raise RuleError("Your side's roll is gone; roll again next exchange.")
            side_roll = invoke_for_bonus(
                before, self.dice(), member, click.user_id, (key, name), payment, mode
            )
            state.rolls = {**state.rolls, side_key: side_roll}
            draft = state.contest.exchange
            updated = draft.rolls[side_key].model_copy(update={"effort": side_roll.effort()})
            state.contest = state.contest.model_copy(
                update={
                    "exchange": draft.model_copy(
                        update={"rolls": {**draft.rolls, side_key: updated}}
                    )
                }
            )
            lines = [
                f"{member.name} invokes {name} {invoked_how(mode, before, side_roll)}: "
                f"{state.contest.side(side_key).name} is at {describe(side_roll.effort())}."
            ]
            if payment == "fp":
                lines.append(await owe_hostile_invoke_in(session, state, member, side_key, key))
            return state.logged(*filter(None, lines))

        return await self._act(click.ident, click.version, step)

    # ------------------------------------------------------------------ hits
    @staticmethod
    def _hit_for(state: ContestState, user_id: int, is_gm: bool) -> ContestHit:
        if not state.hits:
            raise RuleError("There is no hit waiting to be absorbed.")
        for hit in state.hits:
            if state.members[hit.victim].controlled_by(user_id, is_gm):
                return hit
        names = ", ".join(state.name(h.victim) for h in state.hits)
        raise RuleError(f"The hits waiting are for {names}; their players or the GM take them.")

    async def absorb_options(self, click: ClickContext) -> tuple[str, int, list[AbsorbOption]]:
        """(victim's name, shifts, options) for the first hit the user can take."""
        async with self.db.session() as session:
            row = await load_encounter_in(session, click.ident, "contest")
            state = self._state(row)
            hit = self._hit_for(state, click.user_id, click.is_gm)
            tracks = (
                await get_character_in(session, state.members[hit.victim].character_id)
            ).sheet.tracks
            choices = suggest_absorb_options(tracks, state.harm, hit.shifts, limit=20)
            return state.name(hit.victim), hit.shifts, absorb_menu(choices, tracks)

    async def absorb(
        self,
        click: ClickContext,
        index: int,
        texts: list[str],
    ) -> ContestSnapshot:
        async def step(session: AsyncSession, row: EncounterRow, state: ContestState) -> str:
            hit = self._hit_for(state, click.user_id, click.is_gm)
            record = await get_character_in(session, state.members[hit.victim].character_id)
            tracks = record.sheet.tracks
            choices = suggest_absorb_options(tracks, state.harm, hit.shifts, limit=20)
            if not 0 <= index < len(choices):
                raise RuleError("That choice is gone; press Take the hit again.")
            option = name_slots(choices[index], tracks, texts)
            result = absorb_hit(
                tracks, state.harm, hit.shifts, option, defender=hit.victim, attacker=hit.attacker
            )
            attacker_side = state.side_of(hit.attacker).key
            if result.taken_out:
                state.out = [*state.out, hit.victim]
            else:
                await save_character_in(
                    session, record, record.sheet.model_copy(update={"tracks": result.tracks})
                )
            for aspect in result.new_aspects:
                state.aspects = [
                    *state.aspects,
                    aspect.model_copy(
                        update={
                            "id": state.new_aspect_id(),
                            "free_invokes": [attacker_side] * len(aspect.free_invokes),
                        }
                    ),
                ]
            state.hits = [h for h in state.hits if h is not hit]
            lines = [f"{record.name}: {e.text}" for e in result.events]
            if result.taken_out:
                lines.append(
                    f"{state.name(hit.attacker)}'s side decides how {record.name} is taken out."
                )
                lines += self._forfeit_fallen(state)
            return state.logged(*lines)

        return await self._act(click.ident, click.version, step)

    async def twist(self, contest_id: int, version: int | None, aspect: str) -> ContestSnapshot:
        async def step(session: AsyncSession, row: EncounterRow, state: ContestState) -> str:
            if not state.awaiting_twist:
                raise RuleError("There is no tie waiting for a twist.")
            text = " ".join(aspect.split())
            if not text or len(text) > 80:
                raise RuleError("Write the twist as an aspect of 1 to 80 characters.")
            lines = self._try_resolve(state, text)
            return state.logged(*lines)

        return await self._act(contest_id, version, step)

    async def end(self, channel_id: int) -> ContestSnapshot:
        """The GM stops the running contest (what its hostile invokes owe is paid)."""

        async def step(session: AsyncSession, row: EncounterRow, state: ContestState) -> str:
            state.add_log("The GM stops the contest.")
            state.stopped = True
            state.hits = []
            return "The contest is stopped."

        return await self._act(None, None, step, channel_id=channel_id)
