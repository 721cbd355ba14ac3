"""Conflicts in a channel: start, turns, attacks and defences, absorbing, concessions.

One service call = one transaction (`ConflictBase._act_with_campaign`): load the encounter row,
call the pure rules in `bot.fate.conflict` / `bot.fate.harm` / `bot.fate.rolls`, write sheets and
fate points through the campaign spine, and save the row with an optimistic version check (a
double click applies once). Dice come from the `DiceSource` the cog shares with contests and
challenges (SystemRandom in production; tests script it).

The conflict is one service in modules: conflict_state.py (what is stored), conflict_base.py
(the plumbing), conflict_invokes.py (invokes, stunts, teamwork, scale), conflict_actions.py
(overcome, create an advantage, move) and this file; encounters.py has what contests and
challenges share with it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.models.conflicts import EncounterRow
from bot.db.repos.encounters import active_encounter_in, load_encounter_in, new_encounter_in
from bot.errors import RuleError
from bot.fate import conflict as rules
from bot.fate.conflict import Combatant, Conflict, ConflictKind, Phase
from bot.fate.harm import AbsorbChoice, suggest_absorb_options
from bot.fate.ladder import describe
from bot.fate.rolls import Action
from bot.fate.sheet import NpcKind
from bot.fate.tracks import Track
from bot.fate.words import plural
from bot.services.campaigns import (
    CampaignInfo,
    find_character_in,
    resolve_campaign_in,
    save_character_in,
)
from bot.services.clicks import ClickContext
from bot.services.conflict_actions import ConflictActions
from bot.services.conflict_invokes import ConflictInvokes
from bot.services.conflict_state import (
    MAX_ZONES,
    ZONE_NAME_MAX,
    ConflictSnapshot,
    ConflictState,
    PendingAdvantage,
    events_text,
    scene_zones_in,
)
from bot.services.encounters import (
    AbsorbOption,
    Choice,
    Member,
    absorb_menu,
    member_of,
    name_slots,
    roll_line,
)
from bot.services.scene_state import join_scene_in, place_in_scene_in

# --------------------------------------------------------------------------- shared row helpers


# --------------------------------------------------------------------------- conflict state


def zones_in_a_row(zones: list[str]) -> dict[str, list[str]]:
    """Zones given in a row: each touches the one before and the one after it."""
    return {
        zone: [
            z
            for z in (zones[i - 1] if i else None, zones[i + 1] if i + 1 < len(zones) else None)
            if z
        ]
        for i, zone in enumerate(zones)
    }


def check_zones(zones: list[str]) -> None:
    """A conflict's own zones: at most MAX_ZONES, short names, no name twice."""
    if len(zones) > MAX_ZONES:
        raise RuleError(f"Use at most {MAX_ZONES} zones.")
    if any(len(z) > ZONE_NAME_MAX for z in zones):
        raise RuleError(f"Keep zone names to {ZONE_NAME_MAX} characters.")
    if len({z.casefold() for z in zones}) != len(zones):
        raise RuleError("Two zones have the same name; give each zone its own name.")


def start_zone(scene_zone: str | None, zones: list[str]) -> str | None:
    """Where a combatant starts: its zone on the scene when the conflict uses it, else the
    first zone."""
    if scene_zone is not None and scene_zone in zones:
        return scene_zone
    return zones[0] if zones else None


class ConflictService(ConflictActions, ConflictInvokes):
    """Conflicts in a channel: start, turns, attacks and defences, absorbing, concessions (invokes
    and the other actions come from the two mixins)."""

    # ------------------------------------------------------------------ plumbing

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
        check_zones(zones)
        async with self.db.session() as session:
            if await active_encounter_in(session, channel_id, "conflict") is not None:
                raise RuleError(
                    "A conflict is already running here; finish it with `/conflict end` first."
                )
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            members: dict[str, Member] = {}
            records = []
            for name in participants:
                record = await find_character_in(session, campaign.id, name)
                members[str(record.id)] = member_of(record)
                records.append(record)
            first_record = await find_character_in(session, campaign.id, first)
            if str(first_record.id) not in members:
                raise RuleError(f"{first_record.name} is not among the participants; list them.")
            scene_zones = await scene_zones_in(session, channel_id) if not zones else None
            if scene_zones is not None:
                zones = list(scene_zones)
            adjacency = scene_zones or zones_in_a_row(zones)
            # everyone joins the scene; whoever the scene placed in a zone starts there
            placed = await join_scene_in(session, campaign, channel_id, records, user_id)
            minor = {str(r.id) for r in records if r.sheet.npc_kind is NpcKind.MINOR}
            combatants = [
                Combatant(
                    id=cid,
                    name=m.name,
                    side="npcs" if m.is_npc else "pcs",
                    is_npc=m.is_npc,
                    minor=cid in minor,
                    zone=start_zone(placed.get(m.character_id), zones),
                )
                for cid, m in members.items()
            ]
            # one truth for zones: whoever starts in a zone of the scene stands there on it too
            where = {members[c.id].character_id: c.zone for c in combatants if c.zone}
            await place_in_scene_in(session, campaign, channel_id, where)
            row = await new_encounter_in(
                session, campaign.id, guild_id, channel_id, "conflict", user_id
            )
            conflict, events = rules.start_conflict(
                str(row.id), kind, combatants, str(first_record.id), adjacency
            )
            state = ConflictState(conflict=conflict, members=members, zones=zones)
            state.add_log(f"A {kind.value} conflict begins; {first_record.name} acts first.")
            return await self._begin_in(session, row, state)

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

    # ------------------------------------------------------------------ turn order
    async def pick_next(self, click: ClickContext, next_id: str) -> ConflictSnapshot:
        step = self._next_step(click.user_id, click.is_gm, lambda _c: next_id)
        return await self._act_with_campaign(click.ident, click.version, step)

    def _next_step(
        self, user_id: int, is_gm: bool, next_of: Callable[[Conflict], str]
    ) -> Callable[[AsyncSession, CampaignInfo, EncounterRow, ConflictState], Awaitable[str]]:
        """The step that ends the turn (or, for the GM, picks who starts) with `next_of`'s
        combatant, chosen from the state as loaded for this very step."""
        turn = self._next_turn(user_id, is_gm, next_of)

        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            return turn(state)

        return step

    def _next_turn(
        self, user_id: int, is_gm: bool, next_of: Callable[[Conflict], str]
    ) -> Callable[[ConflictState], str]:
        """`_next_step`'s change of the state alone (it reads and writes nothing else)."""

        def step(state: ConflictState) -> str:
            c = state.conflict
            next_id = next_of(c)
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
            state.add_log(*events_text(state, events))
            return f"{state.name(next_id)} acts next."

        return step

    async def pass_turn(
        self, channel_id: int, user_id: int, is_gm: bool, who: str | None
    ) -> ConflictSnapshot:
        """/conflict next: hand the turn to `who` (a name), or to the first eligible character.
        One unit of work that loads the running conflict once, raw (no ORM) when it can."""

        def target(c: Conflict) -> str:
            eligible = [p for p in rules.eligible_next(c) if p.id != c.current]
            eligible = eligible or rules.eligible_next(c)
            if who:
                wanted = " ".join(who.split()).casefold()
                found = next((p for p in c.combatants if p.name.casefold() == wanted), None)
                if found is None:
                    raise RuleError(
                        f"'{who[:80]}' is not in this conflict; pick from the suggestions."
                    )
                return found.id
            if eligible:
                return eligible[0].id
            raise RuleError("Nobody is left to act in this conflict.")

        snapshot = await self._act_raw(channel_id, self._next_turn(user_id, is_gm, target))
        if snapshot is not None:  # the usual turn: no ORM
            return snapshot
        step = self._next_step(user_id, is_gm, target)
        return await self._act_with_campaign(None, None, step, channel_id=channel_id)

    # ------------------------------------------------------------------ attack and defence
    async def attack(
        self,
        click: ClickContext,
        target: str,
        skill: str,
    ) -> ConflictSnapshot:
        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            attacker, actor = self._acting(state, click.user_id, click.is_gm, "attack now")
            c = state.conflict
            rules.attack(c, actor, target, 0)  # validate before rolling
            against = [c.combatant(target).side]
            roll = await self._skill_roll_in(
                session, state, (attacker, actor), skill, Action.ATTACK, against
            )
            c, events = rules.attack(c, actor, target, roll.effort())
            state.conflict = c
            state.attack_roll, state.defence_roll = roll, None
            return state.logged(f"{roll_line(attacker.name, roll)} - attacks {state.name(target)}.")

        return await self._act_with_campaign(click.ident, click.version, step)

    async def defend(self, click: ClickContext, skill: str) -> ConflictSnapshot:
        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            defender_id, acting, effort = self._defence_waiting(state)
            defender = self._require_control(
                state, defender_id, click.user_id, click.is_gm, "defend"
            )
            if state.defence_roll is not None:
                raise RuleError("The defence is already rolled; invoke, or resolve the roll.")
            against = [state.conflict.combatant(acting).side]
            roll = await self._skill_roll_in(
                session, state, (defender, defender_id), skill, Action.DEFEND, against
            )
            state.defence_roll = roll
            # what to do next is the tracker's "Now" line: the log keeps no stale instruction
            return state.logged(
                f"{roll_line(defender.name, roll)} - defends against {describe(effort)}."
            )

        return await self._act_with_campaign(click.ident, click.version, step)

    async def resolve(self, click: ClickContext) -> ConflictSnapshot:
        """Both dice are down and the invokes are in: compare the efforts."""

        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            c = state.conflict
            pending = c.pending
            if c.phase is not Phase.DEFENDING or pending is None or state.defence_roll is None:
                raise RuleError("The defender has not rolled yet; press Defend first.")
            allowed = [
                state.members[x].controlled_by(click.user_id, click.is_gm)
                for x in (pending.attacker, pending.defender)
            ]
            if not any(allowed):
                raise RuleError("Only the attacker, the defender or the GM can resolve the attack.")
            state.conflict, events = rules.defend(c, pending.defender, state.defence_roll.effort())
            lines = self._after_resolution(state, events)
            return state.logged(*lines)

        return await self._act_with_campaign(click.ident, click.version, step)

    # ------------------------------------------------------------------ invokes

    # ------------------------------------------------------------------ stunts, teamwork, scale

    async def trade_for_boost(self, click: ClickContext) -> ConflictSnapshot:
        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            pending = state.conflict.pending
            if pending is None:
                raise RuleError("There is no hit waiting to be absorbed.")
            self._require_control(
                state, pending.attacker, click.user_id, click.is_gm, "trade a shift"
            )
            state.conflict, events = rules.trade_shift_for_boost(state.conflict, pending.attacker)
            lines = self._after_resolution(state, events)
            return state.logged(*lines)

        return await self._act_with_campaign(click.ident, click.version, step)

    # ------------------------------------------------------------------ absorbing
    @staticmethod
    def _options(state: ConflictState, tracks: list[Track]) -> list[AbsorbChoice]:
        pending = state.conflict.pending
        if state.conflict.phase is not Phase.ABSORBING or pending is None:
            raise RuleError("There is no hit waiting to be absorbed.")
        return suggest_absorb_options(tracks, state.conflict.harm, pending.shifts, limit=20)

    async def absorb_options(self, click: ClickContext) -> tuple[int, int, list[AbsorbOption]]:
        """(version, shifts, options) for the defender's choice."""
        async with self.db.session() as session:
            row = await load_encounter_in(session, click.ident, "conflict")
            state = self._state(row)
            pending = state.conflict.pending
            if pending is None or state.conflict.phase is not Phase.ABSORBING:
                raise RuleError("There is no hit waiting to be absorbed.")
            member = self._require_control(
                state, pending.defender, click.user_id, click.is_gm, "take the hit"
            )
            tracks = (await self._sheet_in(session, member)).sheet.tracks
            options = absorb_menu(self._options(state, tracks), tracks)
            return row.version, pending.shifts, options

    async def absorb(
        self,
        click: ClickContext,
        index: int,
        texts: list[str],
    ) -> ConflictSnapshot:
        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            pending = state.conflict.pending
            if pending is None or state.conflict.phase is not Phase.ABSORBING:
                raise RuleError("There is no hit waiting to be absorbed.")
            member = self._require_control(
                state, pending.defender, click.user_id, click.is_gm, "take the hit"
            )
            record = await self._sheet_in(session, member)
            options = self._options(state, record.sheet.tracks)
            if not 0 <= index < len(options):
                raise RuleError("That choice is gone; press Take the hit again.")
            option = name_slots(options[index], record.sheet.tracks, texts)
            attacker = pending.attacker
            state.remember_absorb(row.version + 1, pending.defender, record.id, record.sheet.tracks)
            state.conflict, events, result = rules.absorb(
                state.conflict, record.sheet.tracks, option
            )
            if not result.taken_out:
                await save_character_in(
                    session, record, record.sheet.model_copy(update={"tracks": result.tracks})
                )
                assert state.last_absorb is not None
                state.last_absorb.after = result.tracks
            for aspect in result.new_aspects:
                state.aspects = [
                    *state.aspects,
                    aspect.model_copy(
                        update={"id": state.new_aspect_id(), "owner": pending.defender}
                    ),
                ]
            state.attack_roll = state.defence_roll = None
            lines = events_text(state, events)
            if result.taken_out:
                lines.append(f"{state.name(attacker)} decides how {member.name} is taken out.")
            return state.logged(*lines)

        return await self._act_with_campaign(click.ident, click.version, step)

    async def undo_absorb(self, click: ClickContext) -> ConflictSnapshot:
        """Put back the last absorb (boxes, consequences, the hit waiting again): the target
        of the hit or the GM, while nobody has acted in the conflict since."""

        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            undo = state.undoable_absorb(row.version)
            if undo is None:
                raise RuleError(
                    "There is no absorb to undo: only the last one can be, before anyone acts "
                    "again in the conflict. The GM can still fix a sheet with `/character edit box` "
                    "or `/character edit consequence`."
                )
            member = self._require_control(
                state, undo.defender, click.user_id, click.is_gm, "undo it"
            )
            record = await self._sheet_in(session, member)
            if undo.after is not None and record.sheet.tracks != undo.after:
                raise RuleError(
                    f"{member.name}'s stress or consequences were changed since the absorb (a "
                    "sheet edit), so undoing it would overwrite that change. Fix the sheet with "
                    "`/character edit box` or `/character edit consequence` instead."
                )
            if record.sheet.tracks != undo.tracks:  # anything else on the sheet is kept
                tracks = {"tracks": undo.tracks}
                await save_character_in(session, record, record.sheet.model_copy(update=tracks))
            state.restore_absorb(undo)
            shifts = state.conflict.pending.shifts if state.conflict.pending else 0
            return state.logged(
                f"{member.name}'s absorb is undone: the hit of {plural(shifts, 'shift')} "
                "waits to be absorbed again."
            )

        return await self._act_with_campaign(click.ident, click.version, step)

    # ------------------------------------------------------------------ other actions

    def actor_now(self, snapshot: ConflictSnapshot, user_id: int, is_gm: bool) -> Member:
        """The character whose turn it is, when the user plays them and they may start an
        action (no rolled action waiting, no attack in progress)."""
        member, _ = self._acting(snapshot.state, user_id, is_gm, "act now")
        if snapshot.conflict.phase is not Phase.ACTING:
            raise RuleError("Finish the attack in progress first.")
        return member

    @staticmethod
    def _defence_waiting(state: ConflictState) -> tuple[str, str, int]:
        """What waits for a defence, an attack or an advantage aimed at an opponent: (the
        defender, who acts against them, the effort to defend against)."""
        c = state.conflict
        action = state.action
        if isinstance(action, PendingAdvantage) and action.defended():
            return action.defender, action.actor, action.roll.effort()
        if c.phase is not Phase.DEFENDING or c.pending is None or action is not None:
            raise RuleError("There is no attack or advantage waiting for a defence.")
        return c.pending.defender, c.pending.attacker, c.pending.attack_effort

    def defender_now(
        self, snapshot: ConflictSnapshot, user_id: int, is_gm: bool
    ) -> tuple[Member, str, int]:
        """The defender of the attack or advantage waiting for a defence, when the user plays
        them: the member, their combatant id and the effort they defend against."""
        defender, _, effort = self._defence_waiting(snapshot.state)
        if snapshot.state.defence_roll is not None:
            raise RuleError("The defence is already rolled; invoke, or resolve the roll.")
        member = self._require_control(snapshot.state, defender, user_id, is_gm, "defend")
        return member, defender, effort

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

    async def concede(self, click: ClickContext, who: str) -> ConflictSnapshot:
        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            self._require_control(state, who, click.user_id, click.is_gm, "concede for them")
            action = state.action
            if action is not None and action.actor == who:
                raise RuleError(
                    "The dice are already rolled for this action; concede before your next roll."
                )
            if isinstance(action, PendingAdvantage) and action.defender == who:
                # the seed: concede before your opponent rolls, not once you have seen the dice
                raise RuleError(
                    f"{state.name(action.actor)} has rolled against {state.name(who)}; concede "
                    "before the dice are rolled, not after."
                )
            state.conflict, events = rules.concede(state.conflict, who)
            lines = events_text(state, events)
            return state.logged(*lines)

        return await self._act_with_campaign(click.ident, click.version, step)

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

        return await self._act_with_campaign(conflict_id, version, step)
