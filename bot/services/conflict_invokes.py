"""Invokes, stunts, teamwork and scale on the rolls of a conflict that wait to be resolved."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.models.conflicts import EncounterRow
from bot.db.repos.encounters import load_encounter_in
from bot.errors import RuleError
from bot.fate import conflict as rules
from bot.fate.aspects import GM, AspectKind, pass_free_invoke
from bot.fate.aspects import spend_free_invoke as spend_own_invoke
from bot.fate.conflict import Phase
from bot.fate.ladder import describe
from bot.fate.rolls import (
    InvokeMode,
    Roll,
    ScaleLevel,
    add_modifier,
    add_teamwork,
)
from bot.fate.sheet import Character
from bot.services import aspects_in_play
from bot.services.campaigns import CampaignInfo, CharacterRecord, resolve_campaign_in
from bot.services.clicks import ClickContext
from bot.services.conflict_base import ConflictBase
from bot.services.conflict_state import (
    SOURCE_PREFIX,
    ConflictSnapshot,
    ConflictState,
    PendingAdvantage,
    shown_text,
)
from bot.services.encounters import (
    HIDDEN_NAME,
    Choice,
    Member,
    distinct_labels,
    in_play_choices,
    invoke_for_bonus,
    invoke_mode,
    invoked_how,
    pay_invoke_point_in,
    rank_aspects,
    without_spent,
)
from bot.services.roll_base import stunt_options


class ConflictInvokes(ConflictBase):
    """Invokes, stunts, teamwork and scale on the rolls that wait to be resolved."""

    def _invoker(self, state: ConflictState, user_id: int, is_gm: bool) -> str:
        c = state.conflict
        action = state.action
        if action is not None and not (isinstance(action, PendingAdvantage) and action.defended()):
            who = action.actor
            if not state.members[who].controlled_by(user_id, is_gm):
                raise RuleError(f"Only {state.name(who)}'s player or the GM can invoke on it.")
            return who
        what = "attack"
        if isinstance(action, PendingAdvantage):  # an advantage an opponent defends
            before_defence = state.defence_roll is None
            acting, defender, what = action.actor, action.defender, "advantage"
        else:
            pending = c.pending
            if pending is None or c.phase not in (Phase.DEFENDING, Phase.ABSORBING):
                raise RuleError("Invokes here go on a roll in progress; there is none right now.")
            before_defence = c.phase is Phase.DEFENDING and state.defence_roll is None
            acting, defender = pending.attacker, pending.defender
        sides = [acting] if before_defence else [acting, defender]
        mine = [s for s in sides if state.members[s].controlled_by(user_id, is_gm)]
        if not mine:
            if before_defence:
                raise RuleError(
                    f"Before the defence only the {what}'s roller can invoke; defend first, "
                    "then invoke."
                )
            raise RuleError(f"Only the roller or the defender can invoke on this {what}.")
        own_pcs = [
            s for s in mine if not state.members[s].is_npc and state.members[s].owner_id == user_id
        ]
        npcs = [s for s in mine if state.members[s].is_npc]
        return (own_pcs or npcs or mine)[0]

    async def invoke_choices(self, click: ClickContext) -> tuple[str, list[Choice]]:
        async with self.db.session() as session:
            row = await load_encounter_in(session, click.ident, "conflict")
            state = self._state(row)
            who = self._invoker(state, click.user_id, click.is_gm)
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
        others = await aspects_in_play.aspects_in_play_in(
            session, campaign, row.channel_id, include_hidden=state.members[who].is_npc
        )
        names = {m.name for m in state.members.values()}
        ranked = rank_aspects(others, state.members[who].name, names)
        outside = [a for a in ranked if not a.key.startswith(f"{SOURCE_PREFIX}:")]
        return distinct_labels([*choices, *in_play_choices(outside, holder)])

    async def invoke(self, click: ClickContext, pick: str) -> ConflictSnapshot:
        """An invoke's pick from the Invoke (+2) or Invoke reroll menu."""
        mode, choice = invoke_mode(pick)

        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            who = self._invoker(state, click.user_id, click.is_gm)
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
                session, campaign, row, state, who, record, payment, key, click.user_id
            )
            if owner is not None and payment == "fp" and owner != who:
                if state.conflict.combatant(owner).side != state.conflict.combatant(who).side:
                    state.conflict, _ = rules.hostile_invoke(state.conflict, who, owner)
            invoked = (key, aspect_name)
            return self._apply_bonus(state, (who, member), invoked, payment, click.user_id, mode)

        return await self._act_with_campaign(click.ident, click.version, step)

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
            if aspect.kind is AspectKind.SITUATION:
                # an advantage placed on an opponent is a situation aspect, not one of their
                # own (a consequence is): a fate point on it goes to the pool, as on the scene's
                owner = None
            if payment == "free":
                spent, _ = spend_own_invoke(aspect, who if who in aspect.free_invokes else GM)
                state.aspects = without_spent(state.aspects, key, spent)
        else:
            found = await aspects_in_play.find_aspect_in(session, campaign, row.channel_id, key)
            name = HIDDEN_NAME if found.hidden else found.name  # the log is public
            owner = next((c.id for c in state.conflict.combatants if c.name == found.owner), None)
            if payment == "free":
                await aspects_in_play.spend_free_invoke_in(
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
        invoker: tuple[str, Member],
        aspect: tuple[str, str],
        payment: str,
        user_id: int,
        mode: InvokeMode,
    ) -> str:
        """The invoke's +2 (or reroll) on the roll in progress, or on an attack's waiting hit."""
        c = state.conflict
        who, member = invoker
        dice = self.dice()

        def invoked(roll: Roll) -> Roll:
            return invoke_for_bonus(roll, dice, member, user_id, aspect, payment, mode)

        if state.action is not None and who != state.action.actor:  # the advantage's defender
            before = state.defence_roll
            assert before is not None
            defence = invoked(before)
            state.defence_roll = defence
            line = f"{member.name} invokes {aspect[1]} {invoked_how(mode, before, defence)}."
            return state.logged(f"{line} The defence is now {describe(defence.effort())}.")
        if state.action is not None:
            before = state.action.roll
            action_roll = invoked(before)
            state.put_roll("action", action_roll)
            line = f"{member.name} invokes {aspect[1]} {invoked_how(mode, before, action_roll)}: "
            line += f"the roll is now {describe(action_roll.effort())}."
            return state.logged(line)
        assert c.pending is not None
        is_attacker = who == c.pending.attacker
        before_roll = state.attack_roll if is_attacker else state.defence_roll
        roll = invoked(before_roll) if before_roll is not None else None
        how = invoked_how(mode, before_roll, roll) if before_roll and roll else "for +2"
        line = f"{member.name} invokes {aspect[1]} {how}."
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
            return state.logged(line)
        if is_attacker:
            state.attack_roll = roll
        else:
            state.defence_roll = roll
        change = roll.effort() - before_roll.effort() if roll and before_roll else 2
        state.conflict, events = rules.invoke_on_attack(c, who, change)
        lines = [line, *self._after_resolution(state, [e for e in events if e.kind != "invoke"])]
        return state.logged(*lines)

    async def stunt_choices(self, click: ClickContext) -> list[Choice]:
        async with self.db.session() as session:
            row = await load_encounter_in(session, click.ident, "conflict")
            state = self._state(row)
            return await self._stunt_choices_in(session, state, click.user_id, click.is_gm)

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

    async def add_stunt(self, click: ClickContext, value: str) -> ConflictSnapshot:
        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            valid = {
                c.value
                for c in await self._stunt_choices_in(session, state, click.user_id, click.is_gm)
            }
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
            return state.logged(
                f"{record.name} uses {stunt.name} ({stunt.bonus:+d}): the {slot} roll is now "
                f"{describe(roll.effort())}."
            )

        return await self._act_with_campaign(click.ident, click.version, step)

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

    async def teamwork(self, click: ClickContext, value: str) -> ConflictSnapshot:
        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            slot, _, helper = value.partition("|")
            rollers = dict(state.open_rolls())
            if slot not in rollers:
                raise RuleError("That roll is already resolved; look at the tracker again.")
            roller = rollers[slot]
            member = self._require_control(
                state, helper, click.user_id, click.is_gm, "help with them"
            )
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
            return state.logged(
                f"{member.name} helps {state.name(roller)} with {roll.skill}: {added}, and uses "
                f"their action this exchange. The {slot} roll is now {describe(roll.effort())}."
            )

        return await self._act_with_campaign(click.ident, click.version, step)

    async def set_scale(
        self, channel_id: int, side: str, level: int, difficulties: bool | None = None
    ) -> ConflictSnapshot:
        """The GM sets a side's scale (Mundane 0 .. Godlike 4); it counts from the next roll.
        ``difficulties``: whether scale also counts on rolls against a set difficulty (None:
        as it was; at first it does)."""
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
            line = f"Scale: {label} are {ScaleLevel(level).label} from the next roll."
            if difficulties is not None and difficulties != state.scale_difficulties:
                state.scale_difficulties = difficulties
                line += " " + scale_difficulties_text(difficulties) + "."
            # the tracker's log is the GM's only answer now, so it says when the scale applies
            return state.logged(line)

        # the GM's bookkeeping: a roller still choosing about a failed advantage keeps the choice
        return await self._act_with_campaign(conflict_id, None, step, keeps_failed_advantage=True)

    # ------------------------------------------------------------------ passing a boost
    @staticmethod
    def boost_passes(snapshot: ConflictSnapshot, user_id: int, is_gm: bool) -> list[Choice]:
        """Where the user's characters may pass a boost they hold: to an ally still in the
        conflict on the same side (the rules: whoever controls a boost may pass it to an ally)."""
        state, c = snapshot.state, snapshot.conflict
        found: list[Choice] = []
        for aspect in state.aspects:
            if aspect.kind is not AspectKind.BOOST:
                continue
            for giver in dict.fromkeys(aspect.free_invokes):
                member = state.members.get(giver)
                if member is None or not member.controlled_by(user_id, is_gm):
                    continue
                side = c.combatant(giver).side
                for ally in c.active():
                    if ally.id != giver and ally.side == side:
                        label = f"{shown_text(aspect)} to {ally.name}"[:100]
                        value = f"{aspect.id}|{giver}|{ally.id}"
                        found.append(Choice(value, label, f"from {member.name}"[:100]))
        return found[:25]

    async def pass_boost(self, click: ClickContext, value: str) -> ConflictSnapshot:
        """Pass a boost (picked from `boost_passes`) from its holder to an ally."""

        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            assert row.id is not None
            seen = ConflictSnapshot(row.id, row.version, row.channel_id, None, state)
            if value not in {c.value for c in self.boost_passes(seen, click.user_id, click.is_gm)}:
                raise RuleError("That boost cannot be passed any more; press Pass a boost again.")
            key, giver, ally = value.split("|")
            aspect = next(a for a in state.aspects if a.id == key)
            passed, _ = pass_free_invoke(aspect, giver, ally)
            state.aspects = [passed if a.id == key else a for a in state.aspects]
            return state.logged(
                f"{state.name(giver)} passes the boost {shown_text(aspect)} to {state.name(ally)}."
            )

        return await self._act_with_campaign(click.ident, click.version, step)


def scale_difficulties_text(counts: bool) -> str:
    """How scale treats a roll against a set difficulty, in the tracker's words."""
    if counts:
        return "Scale counts against set difficulties too"
    return "Scale counts only between the sides, not against set difficulties"
