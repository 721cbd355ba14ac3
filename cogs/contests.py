"""/contest: sides race to a number of victories on a pinned tracker (cogs/common/trackers.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.errors import RuleError
from bot.fate.harm import HarmType
from bot.services.contests import ContestService, ContestSnapshot
from bot.services.encounters import Choice
from bot.ui.conflicts import TrackerAction
from cogs.common.permissions import require_gm
from cogs.common.trackers import (
    DIFFICULTY_FIELD,
    HARM_CHOICES,
    NEW_ASPECT_FIELD,
    SKILL_FIELD,
    Click,
    FormModal,
    TrackerCog,
    handler_for,
)

if TYPE_CHECKING:
    from bot.client import FateTableBot

A = TrackerAction


class Contests(TrackerCog):
    def __init__(self, bot: FateTableBot) -> None:
        super().__init__(bot)
        self.contests = self.service = ContestService(bot.db, bot.dice)

    async def on_button(
        self, interaction: discord.Interaction, ident: int, version: int, action: str
    ) -> None:
        svc = self.contests
        buttons: dict[TrackerAction, Callable[[Click, ContestSnapshot], Awaitable[None]]] = {
            A.TWIST: self._twist_form,
            A.ABSORB: self._absorb_menu,
            A.RESOLVE: self.direct(svc.resolve),
            A.FORFEIT: self.direct(partial(svc.settle_failure, forfeit=True)),
            A.GIVE_INVOKE: self.direct(partial(svc.settle_failure, forfeit=False)),
            A.INVOKE: self._invoke_menu,
            A.INVOKE_REROLL: partial(self._invoke_menu, reroll=True),
            A.ROLL: self._roll_menu,
            A.TEAMWORK: self._helper_menu,
            A.CREATE_ADVANTAGE: self._advantage_menu,
        }
        # the sheets only feed the skill menu
        await self.dispatch(
            interaction, ident, version, action, buttons, with_sheets=action == A.ROLL
        )

    async def _twist_form(self, click: Click, _snap: ContestSnapshot) -> None:
        if not click.is_gm:
            raise RuleError("Only the GM adds the twist on a tie.")

        async def twisted(modal_interaction: discord.Interaction, values: dict[str, str]) -> None:
            result = await self.contests.twist(click.ident, click.version, values["aspect"])
            await self.answer(modal_interaction, result)

        await click.interaction.response.send_modal(
            FormModal("A twist on the tie", [("aspect", "Twist aspect", "", 80)], twisted)
        )

    async def _absorb_menu(self, click: Click, _snap: ContestSnapshot) -> None:
        victim, shifts, options = await self.contests.absorb_options(click)
        question = f"{victim} absorbs a {shifts}-shift hit: pick stress boxes and/or consequences."
        await self.absorb_menu(click, self.contests, options, question)

    async def _invoke_menu(
        self, click: Click, _snap: ContestSnapshot, *, reroll: bool = False
    ) -> None:
        name, choices = await self.contests.invoke_choices(click)
        onto = "the side's roll"
        await self.invoke_menu(click, name, choices, onto, self.contests.invoke, reroll=reroll)

    def _members(self, click: Click, snap: ContestSnapshot, *, rolling: bool) -> list[Choice]:
        members = self.contests.members_for(snap, click.user_id, click.is_gm, rolling=rolling)
        if not members:
            raise RuleError("None of your characters is on a side that can act now.")
        return members

    async def _helper_menu(self, click: Click, snap: ContestSnapshot) -> None:
        await self.offer(
            click,
            self._members(click, snap, rolling=False),
            none="None of your characters is on a side that can act now.",
            question="Who gives teamwork (+1 to their side's roll)?",
            action=A.TEAMWORK,
            placeholder="Who helps?",
            only=click.step(self.contests.teamwork),
        )

    async def _advantage_menu(self, click: Click, snap: ContestSnapshot) -> None:
        members = self.contests.advantage_members(snap, click.user_id, click.is_gm)
        if not members:
            raise RuleError("None of your characters is on a side that can act now.")
        if len(members) == 1:
            await self._contest_advantage(click, members[0].value)
            return
        await self.ask(
            click.interaction,
            "Who tries to create an advantage?",
            click.menu(A.WHO_CREATES, "Who acts?", members),
        )

    async def _roll_menu(self, click: Click, snap: ContestSnapshot) -> None:
        members = self._members(click, snap, rolling=True)
        if len(members) == 1:
            await self._contest_skill(click, snap, members[0].value)
            return
        await self.ask(
            click.interaction,
            "Who rolls for the side?",
            click.menu(A.WHO_ROLLS, "Who rolls?", members),
        )

    async def _contest_skill(self, click: Click, snap: ContestSnapshot, member: str) -> None:
        await self.ask_skill(
            click,
            snap,
            member,
            (A.ROLL, member, "Roll which skill?"),
            f"{snap.state.name(member)} rolls for the side: pick a skill.",
            lambda skill: self.contests.roll(click, member, skill),
        )

    async def _contest_advantage(self, click: Click, member: str) -> None:

        async def done(modal_interaction: discord.Interaction, values: dict[str, str]) -> None:
            skill, difficulty, aspect = values["skill"], values["difficulty"], values["aspect"]
            snap = await self.contests.advantage(click, member, skill, difficulty, aspect)
            await self.answer(modal_interaction, snap)

        fields = [SKILL_FIELD, DIFFICULTY_FIELD, NEW_ASPECT_FIELD]
        await click.interaction.response.send_modal(FormModal("Create an advantage", fields, done))

    async def on_select(
        self,
        interaction: discord.Interaction,
        ident: int,
        version: int,
        action: str,
        arg: str | None,
        value: str,
    ) -> None:
        svc = self.contests
        picks: dict[TrackerAction, Callable[[Click, str | None, str], Awaitable[None]]] = {
            A.WHO_ROLLS: self._who_rolls,
            A.WHO_CREATES: lambda click, _arg, member: self._contest_advantage(click, member),
            A.ABSORB: lambda click, _arg, picked: self._absorb_chosen(click, svc, picked),
            A.INVOKE: self.pick(svc.invoke),
            A.TEAMWORK: self.pick(svc.teamwork),
            A.ROLL: self._roll_with,
        }
        click = await self.click(interaction, ident, version)
        await handler_for(picks, action, "menu")(click, arg, value)

    async def _who_rolls(self, click: Click, _arg: str | None, member: str) -> None:
        await self._contest_skill(click, await self.contests.get(click.ident), member)

    async def _roll_with(self, click: Click, member: str | None, skill: str) -> None:
        snap = await self.contests.roll(click, member or "", skill)
        await self.answer(click.interaction, snap)

    contest = app_commands.Group(
        name="contest",
        description="Run a contest: sides race to a number of victories.",
        guild_only=True,
    )

    @contest.command(name="start", description="Start a contest between two or three sides (GM).")
    @app_commands.describe(
        side_a="The first side's characters, separated by commas.",
        side_b="The second side's characters, separated by commas.",
        side_c="An optional third side.",
        victories="Victories needed to win (1 to 5; default 3).",
        intent_a="What the first side wants (optional).",
        intent_b="What the second side wants (optional).",
        intent_c="What the third side wants (optional).",
        harming="Letters of the sides that try to harm the others (e.g. b): losers take hits.",
        harm="What the harming sides' hits strike: physical (default) or mental stress.",
    )
    @app_commands.choices(harm=HARM_CHOICES)
    async def contest_start(
        self,
        interaction: discord.Interaction,
        side_a: app_commands.Range[str, 1, 500],
        side_b: app_commands.Range[str, 1, 500],
        side_c: app_commands.Range[str, 0, 500] = "",
        victories: app_commands.Range[int, 1, 5] = 3,
        intent_a: app_commands.Range[str, 0, 200] = "",
        intent_b: app_commands.Range[str, 0, 200] = "",
        intent_c: app_commands.Range[str, 0, 200] = "",
        harming: app_commands.Range[str, 0, 3] = "",
        harm: str = "physical",
    ) -> None:
        await require_gm(self.bot, interaction, "start a contest")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        sides = [(side_a, intent_a), (side_b, intent_b)]
        if side_c.strip():
            sides.append((side_c, intent_c))
        snap = await self.contests.start(
            interaction.guild_id,
            interaction.channel_id,
            interaction.user.id,
            sides,
            victories,
            harming,
            HarmType(harm if harm in ("physical", "mental") else "physical"),
        )
        await self.publish(interaction, snap)

    for side in ("side_a", "side_b", "side_c"):
        contest_start.autocomplete(side)(TrackerCog._name_list_ac)

    @contest.command(name="tracker", description="Post the tracker again (the old one stops).")
    async def contest_tracker_cmd(self, interaction: discord.Interaction) -> None:
        await self.repost(interaction)

    @contest.command(name="end", description="Stop the contest running here (GM).")
    async def contest_end(self, interaction: discord.Interaction) -> None:
        await require_gm(self.bot, interaction, "end a contest")
        assert interaction.channel_id is not None
        snap = await self.contests.end(interaction.channel_id)
        await self.reply_and_refresh(interaction, snap, "The contest is stopped.", on_tracker=True)


async def setup(bot: FateTableBot) -> None:
    await bot.add_cog(Contests(bot))
