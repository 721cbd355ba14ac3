"""/contest: sides race to a number of victories on a pinned tracker (cogs/common/trackers.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.errors import RuleError
from bot.fate.harm import HarmType
from bot.services.contests import ContestService, ContestSnapshot
from cogs.common.trackers import (
    DIFFICULTY_FIELD,
    HARM_CHOICES,
    NEW_ASPECT_FIELD,
    SKILL_FIELD,
    FormModal,
    TrackerCog,
    absorb_view,
    choice_view,
    skill_view,
)

if TYPE_CHECKING:
    from bot.client import FateTableBot
from cogs.common.permissions import require_gm


class Contests(TrackerCog):
    def __init__(self, bot: FateTableBot) -> None:
        super().__init__(bot)
        self.contests = self.service = ContestService(bot.db, bot.dice)

    async def on_button(
        self, interaction: discord.Interaction, ident: int, version: int, action: str
    ) -> None:
        user, gm = interaction.user.id, await self._is_gm(interaction)
        snap = await self.contests.get(ident, with_sheets=action == "roll")  # for the skill menu
        if snap.version != version:
            raise RuleError("That tracker is out of date; use the newest buttons.")
        if action == "twist":
            if not gm:
                raise RuleError("Only the GM adds the twist on a tie.")

            async def twisted(
                modal_interaction: discord.Interaction, values: dict[str, str]
            ) -> None:
                result = await self.contests.twist(ident, version, values["aspect"])
                await self.answer(modal_interaction, result, result.message)

            await interaction.response.send_modal(
                FormModal("A twist on the tie", [("aspect", "Twist aspect", "", 80)], twisted)
            )
            return
        if action == "abs":
            victim, shifts, options = await self.contests.absorb_options(ident, user, gm)
            await self.ask(
                interaction,
                f"{victim} absorbs a {shifts}-shift hit: pick stress boxes and/or consequences.",
                absorb_view("ct", ident, version, options),
            )
            return
        if action in ("res", "forfeit", "give"):
            if action == "res":
                result = await self.contests.resolve(ident, version, user, gm)
            else:
                result = await self.contests.settle_failure(
                    ident, version, user, gm, forfeit=action == "forfeit"
                )
            await self.answer(interaction, result, result.message)
            return
        if action == "inv":
            name, choices = await self.contests.invoke_choices(ident, user, gm)
            if not choices:
                raise RuleError(f"{name} has no aspect to invoke right now.")
            await self.ask(
                interaction,
                f"Invoke for {name}: +2 on the side's roll.",
                choice_view("ct", ident, version, "inv", "Pick an aspect", choices),
            )
            return
        if action not in ("roll", "help", "adv"):
            raise RuleError("That button is no longer used; look at the tracker again.")
        members = self.contests.members_for(snap, user, gm, rolling=action == "roll")
        if not members:
            raise RuleError("None of your characters is on a side that can act now.")
        if action == "help":
            if len(members) == 1:
                result = await self.contests.teamwork(ident, version, user, gm, members[0].value)
                await self.answer(interaction, result, result.message)
                return
            await self.ask(
                interaction,
                "Who gives teamwork (+1 to their side's roll)?",
                choice_view("ct", ident, version, "help", "Who helps?", members),
            )
            return
        if action == "adv":
            if len(members) == 1:
                await self._contest_advantage(interaction, ident, version, members[0].value)
                return
            await self.ask(
                interaction,
                "Who tries to create an advantage?",
                choice_view("ct", ident, version, "advwho", "Who acts?", members),
            )
            return
        if len(members) == 1:
            await self._contest_skill(interaction, snap, members[0].value)
            return
        await self.ask(
            interaction,
            "Who rolls for the side?",
            choice_view("ct", ident, version, "who", "Who rolls?", members),
        )

    async def _contest_skill(
        self, interaction: discord.Interaction, snap: ContestSnapshot, member: str
    ) -> None:
        await self.ask(
            interaction,
            f"{snap.state.name(member)} rolls for the side: pick a skill.",
            skill_view("ct", snap, member, "roll", member, "Roll which skill?"),
        )

    async def _contest_advantage(
        self, interaction: discord.Interaction, ident: int, version: int, member: str
    ) -> None:
        user, gm = interaction.user.id, await self._is_gm(interaction)

        async def done(modal_interaction: discord.Interaction, values: dict[str, str]) -> None:
            snap = await self.contests.advantage(
                ident,
                version,
                user,
                gm,
                member,
                values["skill"],
                values["difficulty"],
                values["aspect"],
            )
            await self.answer(modal_interaction, snap, snap.message)

        fields = [
            SKILL_FIELD,
            DIFFICULTY_FIELD,
            NEW_ASPECT_FIELD,
        ]
        await interaction.response.send_modal(FormModal("Create an advantage", fields, done))

    async def on_select(
        self,
        interaction: discord.Interaction,
        ident: int,
        version: int,
        action: str,
        arg: str | None,
        value: str,
    ) -> None:
        user, gm = interaction.user.id, await self._is_gm(interaction)
        if action == "who":
            await self._contest_skill(interaction, await self.contests.get(ident), value)
            return
        if action == "advwho":
            await self._contest_advantage(interaction, ident, version, value)
            return
        if action == "abs":
            await self._absorb_chosen(interaction, self.contests, ident, version, value)
            return
        if action == "inv":
            snap = await self.contests.invoke(ident, version, user, gm, value)
        elif action == "help":
            snap = await self.contests.teamwork(ident, version, user, gm, value)
        elif action == "roll":
            snap = await self.contests.roll(ident, version, user, gm, arg or "", value)
        else:
            raise RuleError("That menu is no longer used; look at the tracker again.")
        await self.answer(interaction, snap, snap.message)

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

    @contest.command(name="end", description="Stop the contest running here (GM).")
    async def contest_end(self, interaction: discord.Interaction) -> None:
        await require_gm(self.bot, interaction, "end a contest")
        assert interaction.channel_id is not None
        snap = await self.contests.end(interaction.channel_id)
        await self.reply_and_refresh(interaction, snap, "The contest is stopped.")


async def setup(bot: FateTableBot) -> None:
    await bot.add_cog(Contests(bot))
