"""/conflict: a pinned tracker with buttons that survive restarts (cogs/common/trackers.py has
what /conflict, /contest and /challenge share)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.errors import RuleError
from bot.fate.conflict import ConflictKind
from bot.fate.rolls import ScaleLevel
from bot.services.conflict_state import DEFENDED, IMPEDED, ConflictSnapshot
from bot.services.conflicts import ConflictService
from bot.services.encounters import parse_names
from bot.ui.common import clip
from bot.ui.conflicts import TrackerAction
from cogs.common.character_lookup import character_list_autocomplete
from cogs.common.permissions import require_gm
from cogs.common.trackers import (
    DIFFICULTY_FIELD,
    HARM_CHOICES,
    NEW_ASPECT_FIELD,
    SKILL_FIELD,
    Click,
    FormModal,
    TrackerButton,
    TrackerCog,
    TrackerSelect,
    handler_for,
)

if TYPE_CHECKING:
    from bot.client import FateTableBot

SIDE_CHOICES: list[app_commands.Choice[str]] = [
    app_commands.Choice(name="PCs", value="pcs"),
    app_commands.Choice(name="NPCs", value="npcs"),
]
SCALE_CHOICES: list[app_commands.Choice[int]] = [
    app_commands.Choice(name=level.label, value=int(level)) for level in ScaleLevel
]


log = logging.getLogger(__name__)
A = TrackerAction


class Conflicts(TrackerCog):
    def __init__(self, bot: FateTableBot) -> None:
        super().__init__(bot)
        self.conflicts = self.service = ConflictService(bot.db, bot.dice)

    # ------------------------------------------------------------------ buttons
    async def on_button(
        self, interaction: discord.Interaction, ident: int, version: int, action: str
    ) -> None:
        # the sheets only feed the teamwork and defence menus
        wanted = action in (A.TEAMWORK, A.DEFEND)
        await self.dispatch(
            interaction, ident, version, action, self._buttons(), with_sheets=wanted
        )

    def _buttons(self) -> dict[TrackerAction, Callable[[Click, ConflictSnapshot], Awaitable[None]]]:
        svc = self.conflicts
        return {
            A.RESOLVE: self.direct(svc.resolve),
            A.BOOST: self.direct(svc.trade_for_boost),
            A.RESOLVE_ACTION: self.direct(svc.resolve_action),
            A.STUNT: self._stunt_menu,
            A.TEAMWORK: self._helper_menu,
            A.CONCEDE: self._concede_menu,
            A.INVOKE: self._invoke_menu,
            A.INVOKE_REROLL: partial(self._invoke_menu, reroll=True),
            A.ABSORB: self._absorb_menu,
            A.DEFEND: self._defence_menu,
            A.ATTACK: self._attack_menu,
            A.MOVE: self._move_menu,
            A.CREATE_ADVANTAGE: self._advantage_menu,
            A.OVERCOME: self._overcome_form,
            A.PASS_BOOST: self._boost_menu,
            A.UNDO_ABSORB: self.direct(svc.undo_absorb),
            A.NOT_CREATED: self.direct(partial(svc.choose_failed_advantage, create=False)),
            A.ENEMY_INVOKE: self.direct(partial(svc.choose_failed_advantage, create=True)),
        }

    async def _stunt_menu(self, click: Click, _snap: ConflictSnapshot) -> None:
        choices = await self.conflicts.stunt_choices(click)
        await self.offer(
            click,
            choices,
            none="No stunt of yours fits this roll (its skill and action must match the "
            "stunt's, and each stunt counts once).",
            question="Add a stunt's bonus to the roll in progress.",
            action=A.STUNT,
            placeholder="Which stunt?",
            only=click.step(self.conflicts.add_stunt),
        )

    async def _helper_menu(self, click: Click, snap: ConflictSnapshot) -> None:
        await self.offer(
            click,
            self.conflicts.helper_choices(snap, click.user_id, click.is_gm),
            none="None of your characters can help: a helper is on the roller's side, has "
            "Average (+1) or better in the skill and has not acted this exchange (the "
            "defender's side helps once the defence is rolled).",
            question="Who helps? Helping uses that character's action for this exchange.",
            action=A.TEAMWORK,
            placeholder="Who helps?",
            only=click.step(self.conflicts.teamwork),
        )

    async def _concede_menu(self, click: Click, snap: ConflictSnapshot) -> None:
        choices = self.conflicts.concede_choices(snap, click.user_id, click.is_gm)
        await self.offer(
            click,
            choices,
            none="None of your characters is still in this conflict.",
            question="Who concedes? They leave the conflict and are paid when it ends.",
            action=A.CONCEDE,
            placeholder="Who concedes?",
            only=click.step(self.conflicts.concede),
        )

    async def _boost_menu(self, click: Click, snap: ConflictSnapshot) -> None:
        choices = self.conflicts.boost_passes(snap, click.user_id, click.is_gm)
        await self.offer(
            click,
            choices,
            none="None of your characters holds a boost an ally could take.",
            question="Pass a boost to an ally on your side (there should be a reason in the story).",
            action=A.PASS_BOOST,
            placeholder="Which boost, to whom?",
            only=click.step(self.conflicts.pass_boost),
        )

    async def _invoke_menu(
        self, click: Click, _snap: ConflictSnapshot, *, reroll: bool = False
    ) -> None:
        name, choices = await self.conflicts.invoke_choices(click)
        onto = "the roll in progress"
        await self.invoke_menu(click, name, choices, onto, self.conflicts.invoke, reroll=reroll)

    async def _absorb_menu(self, click: Click, _snap: ConflictSnapshot) -> None:
        _, shifts, options = await self.conflicts.absorb_options(click)
        question = f"Absorb a {shifts}-shift hit: pick stress boxes and/or consequences."
        await self.absorb_menu(click, self.conflicts, options, question)

    async def _defence_menu(self, click: Click, snap: ConflictSnapshot) -> None:
        member, defender, effort = self.conflicts.defender_now(snap, click.user_id, click.is_gm)
        await self.ask_skill(
            click,
            snap,
            defender,
            (A.DEFEND, None, "Defend with"),
            f"{member.name} defends against {effort:+d}: pick a skill.",
            click.step(self.conflicts.defend),
        )

    async def _attack_menu(self, click: Click, snap: ConflictSnapshot) -> None:
        actor = self.conflicts.actor_now(snap, click.user_id, click.is_gm)
        targets = self.conflicts.attack_targets(snap)
        if len(targets) == 1:  # one possible target: straight to the skill
            await self._attack_skill_menu(click, None, targets[0].value)
            return
        await self.ask(
            click.interaction,
            f"{actor.name} attacks: pick a target.",
            click.menu(A.TARGET, "Attack whom?", targets),
        )

    async def _move_menu(self, click: Click, snap: ConflictSnapshot) -> None:
        actor = self.conflicts.actor_now(snap, click.user_id, click.is_gm)
        zones = self.conflicts.move_choices(snap)
        if len(zones) == 1:  # one way to go: take it
            await self._move_to(click, None, zones[0].value)
            return
        await self.ask(
            click.interaction,
            f"{actor.name} moves: pick a zone.",
            click.menu(A.MOVE, "Move where?", zones),
        )

    async def _overcome_form(self, click: Click, snap: ConflictSnapshot) -> None:
        self.conflicts.actor_now(snap, click.user_id, click.is_gm)  # only the actor overcomes
        await self._action_modal(click, A.OVERCOME)

    async def _advantage_menu(self, click: Click, snap: ConflictSnapshot) -> None:
        actor = self.conflicts.actor_now(snap, click.user_id, click.is_gm)
        targets = await self.conflicts.advantage_targets(click)
        if len(targets) <= 1:
            await self._action_modal(click, A.CREATE_ADVANTAGE)
            return
        await self.ask(
            click.interaction,
            f"{actor.name} creates an advantage: a new aspect (on the scene, or on an opponent, "
            "who defends) or one in play?",
            click.menu(A.ADVANTAGE_ON, "Which aspect?", targets),
        )

    async def _action_modal(
        self, click: Click, action: TrackerAction, existing: str | None = None
    ) -> None:
        """The overcome / create-an-advantage form (a new aspect's name unless `existing`)."""
        svc = self.conflicts

        # aimed at an opponent: they defend, so there is no difficulty to ask for
        defended = existing is not None and existing.startswith(DEFENDED)

        async def done(modal_interaction: discord.Interaction, values: dict[str, str]) -> None:
            skill, difficulty = values["skill"], values.get("difficulty")
            if action is A.OVERCOME:
                snap = await svc.overcome(click, skill, difficulty or "")
            else:
                aspect = values.get("aspect", "")
                snap = await svc.create_advantage(click, skill, difficulty, aspect, existing)
            await self.answer(modal_interaction, snap)

        fields = [SKILL_FIELD] if defended else [SKILL_FIELD, DIFFICULTY_FIELD]
        title = "Overcome" if action is A.OVERCOME else "Create an advantage"
        new_aspect = existing is None or (defended and "|" not in existing)
        if action is A.CREATE_ADVANTAGE and new_aspect:
            fields.append(NEW_ASPECT_FIELD)
        await click.interaction.response.send_modal(FormModal(title, fields, done))

    # ------------------------------------------------------------------ selects
    async def on_select(
        self,
        interaction: discord.Interaction,
        ident: int,
        version: int,
        action: str,
        arg: str | None,
        value: str,
    ) -> None:
        svc = self.conflicts
        picks: dict[TrackerAction, Callable[[Click, str | None, str], Awaitable[None]]] = {
            A.TARGET: self._attack_skill_menu,
            A.ADVANTAGE_ON: self._advantage_on,
            A.MOVE: self._move_to,
            A.ABSORB: lambda click, _arg, picked: self._absorb_chosen(click, svc, picked),
            A.ATTACK: self._attack_with,
            A.DEFEND: self.pick(svc.defend),
            A.INVOKE: self.pick(svc.invoke),
            A.STUNT: self.pick(svc.add_stunt),
            A.TEAMWORK: self.pick(svc.teamwork),
            A.CONCEDE: self.pick(svc.concede),
            A.NEXT: self.pick(svc.pick_next),
            A.PASS_BOOST: self.pick(svc.pass_boost),
        }
        handler = handler_for(picks, action, "menu")
        await handler(await self.click(interaction, ident, version), arg, value)

    async def _attack_with(self, click: Click, arg: str | None, skill: str) -> None:
        snap = await self.conflicts.attack(click, arg or "", skill)
        await self.answer(click.interaction, snap)

    async def _attack_skill_menu(self, click: Click, _arg: str | None, target: str) -> None:
        current = await self.conflicts.get(click.ident)
        actor = current.conflict.current
        if actor is None:
            raise RuleError("Nobody is acting right now.")
        await self.ask_skill(
            click,
            current,
            actor,
            (A.ATTACK, target, "Attack with"),
            f"Attack {current.state.name(target)} with which skill?",
            lambda skill: self.conflicts.attack(click, target, skill),
        )

    async def _advantage_on(self, click: Click, _arg: str | None, value: str) -> None:
        existing = None if value == "new" else value
        await self._action_modal(click, A.CREATE_ADVANTAGE, existing)

    async def _move_to(self, click: Click, _arg: str | None, value: str) -> None:
        svc = self.conflicts
        rolled = value.startswith(IMPEDED)
        zone = value.removeprefix(IMPEDED)
        if not rolled:
            moved = await svc.move(click, zone)
            await self.answer(click.interaction, moved)
            return

        async def done(modal_interaction: discord.Interaction, values: dict[str, str]) -> None:
            skill, difficulty = values["skill"], values["difficulty"]
            moved = await svc.move(click, zone, skill, difficulty)
            await self.answer(modal_interaction, moved)

        fields = [("skill", "Skill", "Athletics", 40), DIFFICULTY_FIELD]
        await click.interaction.response.send_modal(
            FormModal(f"Move to {zone}: an overcome", fields, done)
        )

    # ------------------------------------------------------------------ /conflict
    conflict = app_commands.Group(
        name="conflict", description="Run a conflict with a pinned tracker.", guild_only=True
    )

    @conflict.command(name="start", description="Start a conflict in this channel (GM).")
    @app_commands.describe(
        kind="Physical (harm to the body) or mental (harm to the mind).",
        participants="PCs and NPCs by name, separated by commas.",
        first="Who acts first (one of the participants).",
        zones="Zones in a row, separated by commas (each touches the next); optional.",
    )
    @app_commands.choices(kind=HARM_CHOICES)
    async def conflict_start(
        self,
        interaction: discord.Interaction,
        kind: app_commands.Choice[str],
        participants: app_commands.Range[str, 1, 1000],
        first: app_commands.Range[str, 1, 100],
        zones: app_commands.Range[str, 0, 500] = "",
    ) -> None:
        await require_gm(self.bot, interaction, "start a conflict")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        names = parse_names(participants, "participants")
        zone_list = [z.strip() for z in zones.split(",") if z.strip()] if zones else []
        snap = await self.conflicts.start(
            interaction.guild_id,
            interaction.channel_id,
            interaction.user.id,
            ConflictKind(kind.value),
            names,
            first,
            zone_list,
        )
        await self.publish(interaction, snap)

    @conflict_start.autocomplete("first")
    async def _first_ac(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await character_list_autocomplete(interaction, current.replace(",", " "))

    @conflict.command(name="next", description="End your turn and pick who acts next.")
    @app_commands.describe(who="Who acts next; empty = the first who has not acted this exchange.")
    async def conflict_next(
        self, interaction: discord.Interaction, who: app_commands.Range[str, 0, 100] = ""
    ) -> None:
        assert interaction.channel_id is not None
        snap = await self.conflicts.pass_turn(
            interaction.channel_id, interaction.user.id, await self._is_gm(interaction), who
        )
        # the whose-turn line is the answer; without one (the GM picks next), say it privately
        await self.reply_and_refresh(interaction, snap, snap.message, on_tracker=False)

    @conflict_next.autocomplete("who")
    async def _next_ac(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.channel_id is None:
            return []
        names = await self.conflicts.next_names(interaction.channel_id, current)
        return [app_commands.Choice(name=clip(n, 100), value=clip(n, 100)) for n in names]

    @conflict.command(name="tracker", description="Post the tracker again (the old one stops).")
    async def conflict_tracker_cmd(self, interaction: discord.Interaction) -> None:
        await self.repost(interaction)

    @conflict.command(name="end", description="End the conflict here and pay concessions (GM).")
    async def conflict_end(self, interaction: discord.Interaction) -> None:
        await require_gm(self.bot, interaction, "end a conflict")
        assert interaction.channel_id is not None
        snap = await self.conflicts.end(interaction.channel_id)
        await interaction.response.send_message(
            clip("\n".join(snap.state.log[-3:]) or "The conflict is over.", 2000)
        )
        await self.refresh(snap)

    @conflict.command(
        name="scale", description="Set a side's scale (GM); counts from the next roll."
    )
    @app_commands.describe(
        side="The PCs' side or the NPCs' side.",
        level="Mundane, Supernatural, Otherworldly, Legendary or Godlike.",
        difficulties="Does scale count against set difficulties too (overcome, advantage, move)? "
        "Yes at first.",
    )
    @app_commands.choices(side=SIDE_CHOICES)
    @app_commands.choices(level=SCALE_CHOICES)
    async def conflict_scale(
        self,
        interaction: discord.Interaction,
        side: app_commands.Choice[str],
        level: app_commands.Choice[int],
        difficulties: bool | None = None,
    ) -> None:
        await require_gm(self.bot, interaction, "set the scale")
        assert interaction.channel_id is not None
        snap = await self.conflicts.set_scale(
            interaction.channel_id, side.value, level.value, difficulties
        )
        await self.reply_and_refresh(interaction, snap, snap.message, on_tracker=True)

    conflict_start.autocomplete("participants")(TrackerCog._name_list_ac)


async def setup(bot: FateTableBot) -> None:
    bot.add_dynamic_items(TrackerButton, TrackerSelect)
    await bot.add_cog(Conflicts(bot))
