"""/challenge: several overcome tasks on a pinned tracker (cogs/common/trackers.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.services.challenges import ChallengeService, ChallengeSnapshot, parse_tasks
from bot.services.encounters import rerolls
from bot.ui.conflicts import TrackerAction
from cogs.common.character_lookup import character_list_autocomplete
from cogs.common.permissions import require_gm
from cogs.common.trackers import Click, TrackerCog, handler_for

if TYPE_CHECKING:
    from bot.client import FateTableBot

A = TrackerAction


class Challenges(TrackerCog):
    def __init__(self, bot: FateTableBot) -> None:
        super().__init__(bot)
        self.challenges = self.service = ChallengeService(bot.db, bot.dice)

    async def on_button(
        self, interaction: discord.Interaction, ident: int, version: int, action: str
    ) -> None:
        buttons: dict[TrackerAction, Callable[[Click, ChallengeSnapshot], Awaitable[None]]] = {
            A.CLAIM: self._claim_menu,
            A.ROLL: self._roll_menu,
            A.INVOKE: self._invoke_menu,
            A.INVOKE_REROLL: partial(self._invoke_menu, reroll=True),
            A.KEEP: self._keep_menu,
        }
        await self.dispatch(interaction, ident, version, action, buttons, with_sheets=True)

    async def _claim_menu(self, click: Click, snap: ChallengeSnapshot) -> None:
        tasks = self.challenges.open_tasks(snap)
        await self.offer(
            click,
            tasks,
            none="Every task is taken; the GM can reassign with `/challenge assign`.",
            question="Claim a task for your active character.",
            action=A.CLAIM,
            placeholder="Which task?",
            only=click.step(self.challenges.claim),
        )

    async def _roll_menu(self, click: Click, snap: ChallengeSnapshot) -> None:
        tasks = self.challenges.rollable_tasks(snap, click.user_id, click.is_gm)
        await self.offer(
            click,
            tasks,
            none="You have no task to roll: claim one first (or the GM assigns one to you).",
            question="Roll a task: the skill and difficulty come from the task.",
            action=A.ROLL,
            placeholder="Which task?",
            only=click.step(self.challenges.roll),
        )

    async def _invoke_menu(
        self, click: Click, _snap: ChallengeSnapshot, *, reroll: bool = False
    ) -> None:
        choices = await self.challenges.invoke_choices(click)
        what = "to reroll the dice of" if reroll else "for +2 on"
        await self.offer(
            click,
            rerolls(choices) if reroll else choices,
            none="There is no aspect you can invoke on that roll right now.",
            question=f"Invoke {what} a task roll before it is kept.",
            action=A.INVOKE,
            placeholder="Pick an aspect",
            only=click.step(self.challenges.invoke),
        )

    async def _keep_menu(self, click: Click, snap: ChallengeSnapshot) -> None:
        await self.offer(
            click,
            self.challenges.waiting_rolls(snap, click.user_id, click.is_gm),
            none="You have no task roll waiting; roll a task first.",
            question="Which roll is final?",
            action=A.KEEP,
            placeholder="Which roll?",
            only=click.step(self.challenges.keep),
        )

    async def on_select(
        self,
        interaction: discord.Interaction,
        ident: int,
        version: int,
        action: str,
        arg: str | None,
        value: str,
    ) -> None:
        svc = self.challenges
        picks: dict[TrackerAction, Callable[[Click, str | None, str], Awaitable[None]]] = {
            A.CLAIM: self.pick(svc.claim),
            A.ROLL: self.pick(svc.roll),
            A.INVOKE: self.pick(svc.invoke),
            A.KEEP: self.pick(svc.keep),
        }
        click = await self.click(interaction, ident, version)
        await handler_for(picks, action, "menu")(click, arg, value)

    challenge = app_commands.Group(
        name="challenge", description="Run a challenge: several overcome tasks.", guild_only=True
    )

    @challenge.command(name="start", description="Start a challenge of overcome tasks (GM).")
    @app_commands.describe(
        tasks="Tasks as skill:difficulty, separated by commas (e.g. Lore:3, Athletics:Fair).",
        title="What the challenge is about (optional).",
    )
    async def challenge_start(
        self,
        interaction: discord.Interaction,
        tasks: app_commands.Range[str, 1, 1000],
        title: app_commands.Range[str, 0, 200] = "",
    ) -> None:
        await require_gm(self.bot, interaction, "start a challenge")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        snap = await self.challenges.start(
            interaction.guild_id,
            interaction.channel_id,
            interaction.user.id,
            parse_tasks(tasks),
            title,
        )
        await self.publish(interaction, snap)

    @challenge.command(name="assign", description="Give a task to a character (GM).")
    @app_commands.describe(
        task="The task's number on the tracker.", character="Who takes the task."
    )
    async def challenge_assign(
        self,
        interaction: discord.Interaction,
        task: app_commands.Range[int, 1, 10],
        character: app_commands.Range[str, 1, 100],
    ) -> None:
        await require_gm(self.bot, interaction, "assign challenge tasks")
        assert interaction.channel_id is not None
        snap = await self.challenges.assign(interaction.channel_id, task, character)
        await self.reply_and_refresh(interaction, snap, snap.message, on_tracker=True)

    @challenge_assign.autocomplete("character")
    async def _assign_ac(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await character_list_autocomplete(interaction, current.replace(",", " "))

    @challenge.command(name="cost", description="Write down the cost of a rolled task (GM).")
    @app_commands.describe(task="The task's number on the tracker.", cost="What it cost them.")
    async def challenge_cost(
        self,
        interaction: discord.Interaction,
        task: app_commands.Range[int, 1, 10],
        cost: app_commands.Range[str, 1, 200],
    ) -> None:
        await require_gm(self.bot, interaction, "note a task's cost")
        assert interaction.channel_id is not None
        snap = await self.challenges.cost(interaction.channel_id, task, cost)
        await self.reply_and_refresh(interaction, snap, snap.message, on_tracker=True)

    @challenge.command(name="tracker", description="Post the tracker again (the old one stops).")
    async def challenge_tracker_cmd(self, interaction: discord.Interaction) -> None:
        await self.repost(interaction)

    @challenge.command(name="end", description="Close the challenge running here (GM).")
    async def challenge_end(self, interaction: discord.Interaction) -> None:
        await require_gm(self.bot, interaction, "end a challenge")
        assert interaction.channel_id is not None
        snap = await self.challenges.end(interaction.channel_id)
        await self.reply_and_refresh(interaction, snap, snap.message, on_tracker=True)


async def setup(bot: FateTableBot) -> None:
    await bot.add_cog(Challenges(bot))
