"""Overcome, create an advantage and move in a conflict: rolled, open to invokes, then resolved."""

from __future__ import annotations

from collections.abc import Callable
from typing import assert_never

from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.models.conflicts import EncounterRow
from bot.db.models.scenes import SceneRow
from bot.db.repos.encounters import load_encounter_in
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
    discover,
)
from bot.fate.aspects import Event as RuleEvent
from bot.fate.ladder import describe
from bot.fate.rolls import Action, Roll
from bot.fate.scene import put_aspect
from bot.fate.words import plural
from bot.services import aspects_in_play
from bot.services.campaign_play import load_play_in, read_play_in, save_play_in
from bot.services.campaigns import CampaignInfo, resolve_campaign_in
from bot.services.clicks import ClickContext
from bot.services.conflict_base import ConflictBase
from bot.services.conflict_state import (
    DEFENDED,
    HIDDEN_TAG,
    IMPEDED,
    SOURCE_PREFIX,
    VOID_LINE,
    ConflictSnapshot,
    ConflictState,
    FailedAdvantage,
    PendingAction,
    PendingAdvantage,
    PendingMove,
    PendingOvercome,
    events_text,
    shown_text,
)
from bot.services.encounters import (
    HIDDEN_NAME,
    Choice,
    Member,
    parse_difficulty,
    roll_line,
)
from bot.services.scene_advantage import same_words
from bot.services.scene_state import (
    find_ref,
    place_in_scene_in,
    save_aspect_in,
    save_scene_in,
    scene_of,
    touch_board_in,
)


class ConflictActions(ConflictBase):
    """Overcome, create an advantage and move: rolled, open to invokes, then resolved."""

    @staticmethod
    def _opponents(state: ConflictState, actor: str) -> list[rules.Combatant]:
        """Who an advantage may be aimed at (they defend): the other sides, still in it."""
        if actor not in state.members:
            return []
        mine = state.conflict.combatant(actor).side
        return [p for p in state.conflict.active() if p.side != mine]

    @staticmethod
    def _other_sides(state: ConflictState, actor: str) -> list[str]:
        mine = state.conflict.combatant(actor).side
        return sorted({p.side for p in state.conflict.active() if p.side != mine})

    async def _start_action_in(
        self,
        session: AsyncSession,
        state: ConflictState,
        actor: str,
        pending: Callable[[Roll], PendingAction],
        skill: str,
        action: Action,
        difficulty: int | None,
        what: str,
        defender: str = "",
    ) -> str:
        """Roll the actor's action and keep it waiting as `pending(roll)` for invokes; against
        `difficulty`, or (None) against the defence `defender` is to roll."""
        member = self._member(state, actor)
        if defender:
            against = [state.conflict.combatant(defender).side]
        else:
            against = self._other_sides(state, actor)
        roll = await self._skill_roll_in(
            session, state, (member, actor), skill, action, against, difficulty
        )
        state.action = pending(roll)
        target = roll.opposition()
        if target is None:
            return state.logged(f"{roll_line(member.name, roll)} - {what}.")
        return state.logged(
            f"{roll_line(member.name, roll)} vs {describe(target)} - {what}."
        )  # what to do next is the tracker's "Now" line: the log keeps no stale instruction

    async def overcome(
        self,
        click: ClickContext,
        skill: str,
        difficulty: str,
    ) -> ConflictSnapshot:
        target = parse_difficulty(difficulty)

        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            _, actor = self._acting(state, click.user_id, click.is_gm, "act now")
            rules.overcome(state.conflict, actor, 0, target)  # validate before rolling
            return await self._start_action_in(
                session,
                state,
                actor,
                lambda roll: PendingOvercome(actor=actor, roll=roll),
                skill,
                Action.OVERCOME,
                target,
                "overcome",
            )

        return await self._act_with_campaign(click.ident, click.version, step)

    async def create_advantage(
        self,
        click: ClickContext,
        skill: str,
        difficulty: str | None,
        aspect_text: str,
        existing: str | None = None,
    ) -> ConflictSnapshot:
        """On a new aspect (`aspect_text`) or, with `existing`, on an aspect already in play
        (a key from `advantage_targets`). Aimed at an opponent (`existing` "on:<combatant>" for
        a new aspect on them, or one of their aspects), the opponent defends instead of a
        difficulty (`difficulty` is not asked then)."""
        text = " ".join(aspect_text.split())
        aimed = existing is not None and existing.startswith(DEFENDED)
        new_on = aimed and "|" not in (existing or "")
        if (existing is None or new_on) and (not text or len(text) > 80):
            raise RuleError("Name the aspect you want to create (1 to 80 characters).")
        target = None if aimed else parse_difficulty(difficulty or "")

        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            _, actor = self._acting(state, click.user_id, click.is_gm, "act now")
            rules.create_advantage(state.conflict, actor, OutcomeKind.TIE)  # validate first
            aim = await self._aim_in(session, campaign, row, state, click.is_gm, existing, text)
            aim_text, aim_key, aim_name, defender, what = aim
            return await self._start_action_in(
                session,
                state,
                actor,
                lambda roll: PendingAdvantage(
                    actor=actor,
                    roll=roll,
                    aspect_text=aim_text,
                    aspect_key=aim_key,
                    aspect_name=aim_name,
                    defender=defender,
                ),
                skill,
                Action.CREATE_ADVANTAGE,
                target,
                what,
                defender,
            )

        return await self._act_with_campaign(click.ident, click.version, step)

    async def _aim_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        row: EncounterRow,
        state: ConflictState,
        is_gm: bool,
        existing: str | None,
        text: str,
    ) -> tuple[str, str, str, str, str]:
        """What an advantage aims at, checked against the menu it was picked from: (new
        aspect's text, key in play, name shown, the defending opponent or "", log words)."""
        if existing is None:
            return text, "", "", "", f"create an advantage: {text}"
        choices = await self._advantage_targets_in(session, campaign, row, state, is_gm)
        found = next((ch for ch in choices if ch.value == existing), None)
        if found is None or existing == "new":
            raise RuleError(
                "That aspect is no longer in play, or its character left the conflict; "
                "press Create advantage again."
            )
        defender, key = "", existing
        if existing.startswith(DEFENDED):
            defender, _, key = existing.removeprefix(DEFENDED).partition("|")
        defends = f"; {state.name(defender)} defends" if defender else ""
        if not key:
            on = f"create an advantage on {state.name(defender)}: {text}"
            return text, "", "", defender, on + defends
        hidden = found.description == HIDDEN_TAG
        name = HIDDEN_NAME if hidden else found.label.removeprefix("Existing: ")
        return "", key, name, defender, f"create an advantage on {name}{defends}"

    async def advantage_targets(self, click: ClickContext) -> list[Choice]:
        """'A new aspect' plus the aspects in play an advantage can add invokes to."""
        async with self.db.session() as session:
            row = await load_encounter_in(session, click.ident, "conflict")
            state = self._state(row)
            self._acting(state, click.user_id, click.is_gm, "act now")
            campaign = await resolve_campaign_in(session, row.guild_id, row.channel_id)
            return await self._advantage_targets_in(session, campaign, row, state, click.is_gm)

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
        opponents = {p.id: p for p in self._opponents(state, actor)}
        for person in opponents.values():
            label = f"A new aspect on {person.name}"[:100]
            choices.append(Choice(f"{DEFENDED}{person.id}", label, f"{person.name} defends"[:100]))
        for aspect in state.aspects:
            if aspect.kind is AspectKind.BOOST or (aspect.hidden and not see_hidden):
                continue
            where = HIDDEN_TAG if aspect.hidden else "this conflict"
            value = aspect.id
            if aspect.owner in opponents:  # one of an opponent's: they defend
                value = f"{DEFENDED}{aspect.owner}|{aspect.id}"
                if not aspect.hidden:
                    where = f"on {state.name(aspect.owner)}, who defends"[:100]
            choices.append(Choice(value, f"Existing: {aspect.text}"[:100], where))
        found = await aspects_in_play.aspects_in_play_in(
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
        click: ClickContext,
        zone: str,
        skill: str | None = None,
        difficulty: str | None = None,
    ) -> ConflictSnapshot:
        """Without a skill the free move, or a long one that takes the action; with a skill and
        difficulty an impeded move (the action and an overcome roll, resolved like the other
        rolled actions)."""
        target = parse_difficulty(difficulty) if difficulty else None
        rolled = bool(skill and skill.strip()) and target is not None

        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            _, actor = self._acting(state, click.user_id, click.is_gm, "move now")
            c = state.conflict
            if not rolled:
                state.conflict, events = rules.move(c, actor, zone)
                lines = events_text(state, events)
                if any(e.kind == "moved" for e in events):
                    mover = f"{state.name(actor)} moves"
                    lines[-1] = lines[-1].replace(mover, f"{mover} to {zone}", 1)
                    await self._on_the_scene_in(session, campaign, row, state, actor, zone)
                return state.logged(*lines)
            assert target is not None and skill is not None
            rules.move(c, actor, zone, impeded=True, overcome_effort=0, difficulty=0)  # validate
            return await self._start_action_in(
                session,
                state,
                actor,
                lambda roll: PendingMove(actor=actor, roll=roll, zone=zone),
                skill,
                Action.OVERCOME,
                target,
                f"an overcome to move to {zone}",
            )

        return await self._act_with_campaign(click.ident, click.version, step)

    async def resolve_action(self, click: ClickContext) -> ConflictSnapshot:
        """The rolled overcome / advantage / move is final: apply its outcome."""

        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            pending = state.action
            if pending is None:
                raise RuleError("No roll is waiting to be resolved.")
            member = self._resolver(state, pending, click.user_id, click.is_gm)
            roll = pending.roll
            effort = roll.effort()
            target = state.defence_roll.effort() if state.defence_roll else roll.opposition()
            assert target is not None
            c = state.conflict
            head = f"{roll_line(member.name, roll)} vs {describe(target)}."
            lines = [head]
            match pending:
                case PendingOvercome():
                    state.conflict, events = rules.overcome(c, pending.actor, effort, target)
                    lines += self._after_resolution(state, events)
                case PendingMove(zone=zone):
                    state.conflict, events = rules.move(
                        c,
                        pending.actor,
                        zone,
                        impeded=True,
                        overcome_effort=effort,
                        difficulty=target,
                    )
                    moved = self._after_resolution(state, events)  # with style: a boost
                    if any(e.kind == "moved" for e in events) and moved:
                        moved[0] = moved[0].rstrip(".") + f" to {zone}."
                        await self._on_the_scene_in(
                            session, campaign, row, state, pending.actor, zone
                        )
                    lines += moved
                case PendingAdvantage():
                    outcome = classify(effort, target)
                    state.conflict, _ = rules.create_advantage(c, pending.actor, outcome)
                    if pending.defended() and target - effort >= 3:  # defended with style
                        boost = rules.defended_with_style(pending.defender)
                        lines += self._after_resolution(state, [boost])
                    lines += await self._advantage_in(
                        session, campaign, row, state, pending, outcome
                    )
                case _:
                    assert_never(pending)
            state.action = None
            state.defence_roll = None
            state.add_log(*lines[1:])
            return " ".join(lines)

        return await self._act_with_campaign(click.ident, click.version, step)

    def _resolver(
        self, state: ConflictState, pending: PendingAction, user_id: int, is_gm: bool
    ) -> Member:
        """The roller (named in the resolution's head line), when the user may resolve: the
        roller's player or the GM; for an advantage an opponent defends, once the defence is
        rolled, the defender's player too."""
        if not isinstance(pending, PendingAdvantage) or not pending.defended():
            return self._require_control(state, pending.actor, user_id, is_gm, "resolve it")
        if state.defence_roll is None:
            raise RuleError(
                f"{state.name(pending.defender)} has not defended yet; press Defend first."
            )
        sides = (pending.actor, pending.defender)
        if not any(state.members[x].controlled_by(user_id, is_gm) for x in sides):
            raise RuleError("Only the roller, the defender or the GM can resolve this advantage.")
        return self._member(state, pending.actor)

    async def _on_the_scene_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        row: EncounterRow,
        state: ConflictState,
        actor: str,
        zone: str,
    ) -> None:
        """A move in the conflict is a move on the channel's scene too (its board shows it)."""
        character = state.members[actor].character_id
        await place_in_scene_in(session, campaign, row.channel_id, {character: zone})

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
        pending: PendingAdvantage,
        outcome: OutcomeKind,
    ) -> list[str]:
        actor = pending.actor
        enemy = pending.defender or self._enemy_of(state, actor)
        if not pending.aspect_key:
            owner = pending.defender or None
            if outcome is OutcomeKind.FAIL:  # the roller's choice (or anything else: not made)
                state.failed_advantage = FailedAdvantage(
                    actor=actor, aspect_text=pending.aspect_text, owner=owner, enemy=enemy
                )
                # who chooses, and how, is the Now line's and the buttons': the log keeps no
                # instruction that is stale once chosen
                return [f"{state.name(actor)} fails to create {pending.aspect_text}."]
            return await self._new_aspect_in(
                session, campaign, row, state, (actor, pending.aspect_text, owner), outcome
            )
        if pending.aspect_key.startswith(f"{SOURCE_PREFIX}:"):
            aspect = next((a for a in state.aspects if a.id == pending.aspect_key), None)
            if aspect is None:
                return [VOID_LINE]
            try:
                updated, events = create_advantage_existing(
                    aspect, outcome, actor=actor, enemy=enemy
                )
            except RuleError as error:  # e.g. the aspect holds all the invokes it can
                return [f"{shown_text(aspect)}: {error} The action is spent."]
            state.aspects = [updated if a.id == updated.id else a for a in state.aspects]
            return [self._invokes_line(state, shown_text(updated), events)]
        return await self._scene_advantage_in(session, campaign, row, state, pending, outcome)

    async def _new_aspect_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        row: EncounterRow,
        state: ConflictState,
        made: tuple[str, str, str | None],
        outcome: OutcomeKind,
        enemy: str | None = None,
    ) -> list[str]:
        """A new aspect's outcome (`made`: the roller, the text, the opponent it goes on); with
        `enemy` a failure creates it with that one's free invoke (success at a cost)."""
        actor, text, owner = made
        aspect, events = create_advantage_new(
            outcome,
            aspect_id=state.new_aspect_id(),
            text=text,
            actor=actor,
            enemy=enemy or GM,
            owner=owner,
            fail_choice=FailChoice.NOT_CREATED if enemy is None else FailChoice.ENEMY_INVOKE,
        )
        if aspect is not None and aspect.kind is not AspectKind.BOOST:
            discovered = await self._discovered_in(session, campaign, row, state, aspect)
            if discovered is not None:
                return discovered
        if aspect is None:
            return events_text(state, events)
        state.aspects = [*state.aspects, aspect]
        if enemy is not None:
            on = f" on {state.name(owner)}" if owner else ""
            return [f"{aspect.text} is created{on}, but {state.name(enemy)} holds its free invoke."]
        if owner is not None and aspect.kind is not AspectKind.BOOST:
            count = len(aspect.free_invokes)
            return [
                f"{state.name(actor)}: {aspect.text} is created on {state.name(owner)} with "
                f"{plural(count, 'free invoke')}."
            ]
        return events_text(state, events)

    async def choose_failed_advantage(self, click: ClickContext, create: bool) -> ConflictSnapshot:
        """The roller's choice after a failed advantage on a new aspect: not created, or
        (`create`) created with its free invoke for the enemy (success at a cost)."""

        async def step(
            session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
        ) -> str:
            failed = state.failed_advantage
            if failed is None:
                raise RuleError("No failed advantage is waiting for a choice any more.")
            self._require_control(
                state, failed.actor, click.user_id, click.is_gm, "choose what it does"
            )
            state.failed_advantage = None
            if not create:
                return state.logged(
                    f"{state.name(failed.actor)}: {failed.aspect_text} is not created."
                )
            made = (failed.actor, failed.aspect_text, failed.owner)
            lines = await self._new_aspect_in(
                session, campaign, row, state, made, OutcomeKind.FAIL, failed.enemy
            )
            return state.logged(*lines)

        return await self._act_with_campaign(
            click.ident, click.version, step, keeps_failed_advantage=True
        )

    async def _discovered_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        row: EncounterRow,
        state: ConflictState,
        made: Aspect,
    ) -> list[str] | None:
        """A new aspect made under the very words of a hidden one (the conflict's, the scene's
        or a game aspect): it was there all along and is revealed with the new one's invokes,
        as `/advantage` does (None: there is none; make the new one)."""
        own = next((a for a in state.aspects if _hidden_under(a, made.text)), None)
        if own is not None:
            found, events = discover(own, made)
            state.aspects = [found if a.id == found.id else a for a in state.aspects]
            return events_text(state, events)
        scene_row = await session.get(SceneRow, row.channel_id)
        live = scene_row is not None and scene_row.active and scene_row.campaign_id == campaign.id
        scene = scene_of(scene_row) if scene_row is not None and live else None
        ref = find_ref(scene, await read_play_in(session, campaign.id), made.text, row.channel_id)
        if ref is None or not _hidden_under(ref.aspect, made.text):
            return None
        # the scene's invokes are held by characters ("char:<id>") or the GM, not by seats
        holders = [state.members[h].holder if h in state.members else h for h in made.free_invokes]
        found, events = discover(ref.aspect, made.model_copy(update={"free_invokes": holders}))
        await save_aspect_in(session, campaign, row.channel_id, (scene_row, scene), ref, found)
        return [f"{state.name(made.free_invokes[0])}: {e.text}" for e in events]

    async def _scene_advantage_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        row: EncounterRow,
        state: ConflictState,
        pending: PendingAdvantage,
        outcome: OutcomeKind,
    ) -> list[str]:
        """An advantage on a scene (or game) aspect: its invokes are held as "char:<id>" or "gm"."""
        actor = pending.actor
        enemy = self._enemy_of(state, actor)
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
            return [f"{shown_text(found.aspect)}: {error} The action is spent."]
        if found.game:
            kept = [updated if a.id == updated.id else a for a in play.game_aspects]
            await save_play_in(session, play_row, play.model_copy(update={"game_aspects": kept}))
            await touch_board_in(session, row.channel_id)
        else:
            assert scene is not None and scene_row is not None
            scene, _ = put_aspect(scene, updated)
            await save_scene_in(session, scene_row, scene)
        return [self._invokes_line(state, shown_text(updated), events)]

    @staticmethod
    def _invokes_line(state: ConflictState, text: str, events: list[RuleEvent]) -> str:
        event = events[0]
        count = int(event.data.get("invokes") or 1)
        who = event.who or GM
        if who == GM:
            holder = "the GM"
        elif who.startswith("char:"):
            holder = next(
                (m.name for m in state.members.values() if f"char:{m.character_id}" == who), who
            )
        else:
            holder = state.name(who)
        return f"{text} gains {plural(count, 'free invoke')} for {holder}."

    def move_choices(self, snapshot: ConflictSnapshot) -> list[Choice]:
        """The zones the actor may move to: the free move where allowed, else one that takes
        the action; each also impeded (value prefixed with IMPEDED: the action and an overcome
        roll, for when something stands in the way)."""
        c = snapshot.conflict
        here = c.combatant(c.current).zone if c.current is not None else None
        zones = []
        for zone in snapshot.state.zones:
            if zone == here:
                continue
            free = not self.takes_the_action(snapshot, zone)
            zones.append(Choice(zone, zone, "free move" if free else "takes your action"))
            zones.append(
                Choice(
                    f"{IMPEDED}{zone}", f"{zone} - impeded"[:100], "takes your action and a roll"
                )
            )
        if not zones:
            raise RuleError("This conflict has no other zone to move to.")
        return zones

    def takes_the_action(self, snapshot: ConflictSnapshot, zone: str) -> bool:
        """Whether a move to `zone` is more than the free move (a long or a second move)."""
        c = snapshot.conflict
        if c.current is None or zone not in c.adjacency:
            return False
        here = c.combatant(c.current).zone
        adjacent = here is not None and zone in c.adjacency.get(here, [])
        return not adjacent or c.free_move_used


def _hidden_under(aspect: Aspect, text: str) -> bool:
    """Whether `aspect` is a hidden one (never a boost) with the very words `text`."""
    return aspect.hidden and aspect.kind is not AspectKind.BOOST and same_words(aspect.text, text)
