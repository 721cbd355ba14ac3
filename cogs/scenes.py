"""/scene, /aspect and /advantage, plus the pinned scene board edited in place."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import RuleError
from bot.fate.aspects import AspectKind
from bot.fate.rolls import Action
from bot.services.character_base import Actor
from bot.services.characters import get_service
from bot.services.scene_state import board_listeners, split_list
from bot.services.scenes import SceneService
from bot.ui.components import Components
from bot.ui.custom_ids import SCENE_BOARD_TEMPLATE, scene_board_id
from bot.ui.scenes import board_embed, ended_text
from cogs.common.character_lookup import character_list_autocomplete
from cogs.common.coalesce import Coalescer
from cogs.common.edits import edit_message
from cogs.common.errors import guarded
from cogs.common.permissions import member_is_gm, require_gm
from cogs.common.respond import respond
from cogs.common.xcard import BoardButton, XCardButton

log = logging.getLogger(__name__)
BOARD_DELAY = 0.1  # seconds a burst of changes has to pile up before the board is edited


class SceneBoardButton(BoardButton, template=SCENE_BOARD_TEMPLATE):
    """ "Show my view" on the pinned board: the board as this user may see it (GM: hidden too)."""

    scope_kind = "scene"
    label = "Show my view"
    id_for = staticmethod(scene_board_id)

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        cog = interaction.client.get_cog("Scenes")  # type: ignore[attr-defined]
        assert isinstance(cog, Scenes)
        await cog.show_board(
            interaction,
            self.channel_id,
            "That scene has ended. The GM starts a new one with `/scene start`.",
        )


def board_view(channel_id: int) -> discord.ui.View:
    view = Components()
    SceneBoardButton.add_to(view, channel_id)
    XCardButton.add_to(view, channel_id)
    return view


class BoardUpdater:
    """One pinned board per channel; a burst of changes becomes one edit."""

    def __init__(self, bot: Any, service: SceneService) -> None:
        self.bot = bot
        self.service = service
        self._coalescer: Coalescer[int] = Coalescer(
            "scene-board", self.refresh, lambda: BOARD_DELAY
        )
        self._posting: dict[int, asyncio.Lock] = {}

    def posting(self, channel_id: int) -> asyncio.Lock:
        """Held while /scene start posts the channel's board as its answer: a refresh waits
        for it (and then edits that board) instead of posting a second one."""
        return self._posting.setdefault(channel_id, asyncio.Lock())

    def schedule(self, channel_id: int) -> None:
        self._coalescer.poke(channel_id)

    async def refresh(self, channel_id: int) -> None:
        async with self.posting(channel_id):
            await self._refresh(channel_id)

    async def post(self, interaction: discord.Interaction, channel_id: int) -> None:
        """Answer /scene start with the new board itself (one public message, which says all a
        summary line would), then pin it; the caller holds `posting(channel_id)`."""
        data = await self.service.board(channel_id)
        if data is None or not data.active:
            await interaction.response.send_message("The scene starts.")
            return
        await interaction.response.send_message(
            embed=board_embed(data), view=board_view(channel_id)
        )
        sent = await interaction.original_response()
        await self.service.set_board_message(channel_id, sent.id)
        with contextlib.suppress(discord.HTTPException):
            await sent.pin()

    async def _refresh(self, channel_id: int) -> None:
        data = await self.service.board(channel_id)
        if data is None:
            return
        channel = self.bot.get_partial_messageable(channel_id)
        embed = board_embed(data)
        if data.message_id is not None:
            try:
                await edit_message(
                    self.bot,
                    channel_id,
                    data.message_id,
                    embed=embed,
                    view=board_view(channel_id) if data.active else None,
                )
            except discord.NotFound:
                pass
            else:
                if not data.active:
                    with contextlib.suppress(discord.HTTPException):
                        await channel.get_partial_message(data.message_id).unpin()
                    await self.service.set_board_message(channel_id, None)
                return
        if not data.active:
            return
        sent = await channel.send(embed=embed, view=board_view(channel_id))
        with contextlib.suppress(discord.HTTPException):
            await sent.pin()
        await self.service.set_board_message(channel_id, sent.id)

    async def flush(self) -> None:
        """On a graceful stop: the pending board edit is made now, not dropped."""
        await self._coalescer.flush()


async def character_choices(
    bot: Any,
    interaction: discord.Interaction,
    current: str,
    *,
    first: tuple[str, ...] = (),
    here: bool = False,
) -> list[app_commands.Choice[str]]:
    """Character names for autocomplete (after `first`), from memory. A player is not shown
    the GM's NPCs, their very existence stays secret, except (with `here`, for a target) the
    ones taking part in this channel's scene or encounter."""
    assert interaction.guild_id is not None and interaction.channel_id is not None
    actor = Actor(
        interaction.guild_id,
        interaction.channel_id,
        interaction.user.id,
        await member_is_gm(bot, interaction),
    )
    names = [n.name for n in await get_service(bot).names_cached(actor, here=here)]
    needle = current.strip().casefold()
    return [
        app_commands.Choice(name=n[:100], value=n[:100])
        for n in [*first, *names]
        if needle in n.casefold()
    ][:25]


KindChoice = Literal["situation", "boost", "game"]
FailPick = Literal["not created", "created, enemy holds the invoke"]


class Scenes(commands.Cog):
    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.service = SceneService(bot.db)
        self.boards = BoardUpdater(bot, self.service)

    async def cog_load(self) -> None:
        board_listeners.append(self.boards.schedule)

    async def cog_unload(self) -> None:
        if self.boards.schedule in board_listeners:
            board_listeners.remove(self.boards.schedule)
        await self.boards.flush()
        self.service.close()

    # ------------------------------------------------------------------ autocomplete
    async def aspect_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        is_gm = await member_is_gm(self.bot, interaction)
        found = await self.service.aspect_choices(
            interaction.guild_id, interaction.channel_id, is_gm=is_gm, typed=current
        )
        return [app_commands.Choice(name=label[:100], value=key) for key, label in found]

    async def zone_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        assert interaction.channel_id is not None
        names = await self.service.zone_choices(interaction.channel_id, current)
        return [app_commands.Choice(name=n, value=n) for n in names]

    async def skill_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        found = await self.service.skill_choices(
            interaction.guild_id, interaction.channel_id, interaction.user.id, current
        )
        return [app_commands.Choice(name=f"{n} ({r:+d})"[:100], value=n[:100]) for n, r in found]

    async def character_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await character_choices(self.bot, interaction, current)

    async def receiver_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """Who may get a passed invoke: GM, the PCs, and the NPCs taking part here."""
        return await character_choices(self.bot, interaction, current, first=("GM",), here=True)

    # ------------------------------------------------------------------ /scene
    scene = app_commands.Group(
        name="scene", description="Scenes: aspects, zones, the GM pool.", guild_only=True
    )

    @scene.command(name="start", description="GM: start a scene here with aspects and zones.")
    @app_commands.describe(
        title="A short name for the scene (up to 60 characters).",
        aspects="Situation aspects, separated by commas (up to 20).",
        zones="Zones, separated by commas (up to 10).",
        characters="Characters in the scene, separated by commas (they fill the GM pool).",
        carried="Extra fate points the GM carries in (0-20), e.g. from a major NPC's concession.",
    )
    @app_commands.autocomplete(characters=character_list_autocomplete)
    async def scene_start(
        self,
        interaction: discord.Interaction,
        title: app_commands.Range[str, 0, 60] = "",
        aspects: app_commands.Range[str, 0, 1500] = "",
        zones: app_commands.Range[str, 0, 600] = "",
        characters: app_commands.Range[str, 0, 1500] = "",
        carried: app_commands.Range[int, 0, 20] = 0,
    ) -> None:
        await require_gm(self.bot, interaction, "start a scene")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        async with self.boards.posting(interaction.channel_id):
            await self.service.start(
                interaction.guild_id,
                interaction.channel_id,
                actor_id=interaction.user.id,
                title=title,
                aspects=split_list(aspects, "aspects"),
                zones=split_list(zones, "zones", 10),
                characters=split_list(characters, "characters", 25),
                carried=carried,
            )
            await self.boards.post(interaction, interaction.channel_id)

    @scene.command(name="end", description="GM: end the scene (stress clears, boosts go).")
    @app_commands.describe(
        keep="Aspects to keep as campaign-long game aspects, separated by commas.",
    )
    async def scene_end(
        self, interaction: discord.Interaction, keep: app_commands.Range[str, 0, 1000] = ""
    ) -> None:
        await require_gm(self.bot, interaction, "end the scene")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        result = await self.service.end(
            interaction.guild_id,
            interaction.channel_id,
            keep=split_list(keep, "aspects"),
            actor_id=interaction.user.id,
        )
        await interaction.response.send_message(ended_text(result))

    @scene.command(name="show", description="The scene board, as you may see it (only for you).")
    async def scene_show(self, interaction: discord.Interaction) -> None:
        assert interaction.channel_id is not None
        await self.show_board(
            interaction,
            interaction.channel_id,
            "No scene is running in this channel. The GM starts one with `/scene start`.",
        )

    async def show_board(
        self, interaction: discord.Interaction, channel_id: int, no_scene: str
    ) -> None:
        """The channel's scene board as this user may see it (GM: hidden aspects too), privately."""
        data = await self.service.board(channel_id)
        if data is None or not data.active:
            await interaction.response.send_message(no_scene, ephemeral=True)
            return
        is_gm = await member_is_gm(self.bot, interaction)
        await interaction.response.send_message(
            embed=board_embed(data, for_gm=is_gm), ephemeral=True
        )

    @scene.command(name="join", description="Put your character (GM: any) into the scene.")
    @app_commands.describe(
        character="Whose character (default: your active one; other people's: GM only).",
        zone="The zone to start in.",
    )
    @app_commands.autocomplete(character=character_autocomplete, zone=zone_autocomplete)
    async def scene_join(
        self,
        interaction: discord.Interaction,
        character: app_commands.Range[str, 1, 80] | None = None,
        zone: app_commands.Range[str, 1, 60] | None = None,
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        name, zone_name = await self.service.join(
            interaction.guild_id,
            interaction.channel_id,
            user_id=interaction.user.id,
            is_gm=await member_is_gm(self.bot, interaction),
            character=character,
            zone=zone,
        )
        where = f" in {zone_name}" if zone_name else ""
        await interaction.response.send_message(f"{name} joins the scene{where}.")

    @scene.command(name="move", description="Move your character (GM: any) to another zone.")
    @app_commands.describe(
        zone="The zone to move to.",
        character="Whose character (default: your active one; other people's: GM only).",
    )
    @app_commands.autocomplete(character=character_autocomplete, zone=zone_autocomplete)
    async def scene_move(
        self,
        interaction: discord.Interaction,
        zone: app_commands.Range[str, 1, 60],
        character: app_commands.Range[str, 1, 80] | None = None,
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        name, zone_name = await self.service.move(
            interaction.guild_id,
            interaction.channel_id,
            user_id=interaction.user.id,
            is_gm=await member_is_gm(self.bot, interaction),
            zone=zone,
            character=character,
        )
        await respond(interaction, f"{name} moves to {zone_name}.")

    # ------------------------------------------------------------------ /aspect
    aspect = app_commands.Group(
        name="aspect", description="Situation, zone and game aspects; boosts.", guild_only=True
    )

    @aspect.command(name="add", description="GM: add a situation, zone, boost or game aspect.")
    @app_commands.describe(
        text="The aspect (up to 80 characters).",
        kind="situation (default), boost (one free invoke, then gone) or game (campaign-long).",
        zone="Tie the aspect to this zone.",
        hidden="Only the GM sees it until /aspect reveal.",
        gm_invokes="Free invokes the GM side holds on it (0-5), e.g. after a failed advantage.",
        boost_for="For a boost: the character who holds it (default: the GM side).",
    )
    @app_commands.autocomplete(zone=zone_autocomplete, boost_for=character_autocomplete)
    async def aspect_add(
        self,
        interaction: discord.Interaction,
        text: app_commands.Range[str, 1, 80],
        kind: KindChoice = "situation",
        zone: app_commands.Range[str, 1, 60] | None = None,
        hidden: bool = False,
        gm_invokes: app_commands.Range[int, 0, 5] = 0,
        boost_for: app_commands.Range[str, 1, 80] | None = None,
    ) -> None:
        await require_gm(self.bot, interaction, "add aspects")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        made = await self.service.add_aspect(
            interaction.guild_id,
            interaction.channel_id,
            text=text,
            kind=AspectKind(kind),
            zone=zone,
            hidden=hidden,
            gm_invokes=gm_invokes,
            boost_for=boost_for,
        )
        if made.hidden:
            await interaction.response.send_message(
                f"Hidden {made.kind.value} aspect **{made.text}** added; only GMs see it until "
                "`/aspect reveal`.",
                ephemeral=True,
            )
        else:
            await interaction.response.send_message(
                f"New {made.kind.value} aspect: **{made.text}**."
            )

    @aspect.command(name="remove", description="GM: remove an aspect from the scene or campaign.")
    @app_commands.describe(aspect="The aspect to remove.")
    @app_commands.autocomplete(aspect=aspect_autocomplete)
    async def aspect_remove(
        self, interaction: discord.Interaction, aspect: app_commands.Range[str, 1, 100]
    ) -> None:
        await require_gm(self.bot, interaction, "remove aspects")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        gone = await self.service.remove_aspect(
            interaction.guild_id, interaction.channel_id, aspect
        )
        await interaction.response.send_message(
            "A hidden aspect was removed." if gone.hidden else f"**{gone.text}** is gone.",
            ephemeral=gone.hidden,
        )

    @aspect.command(name="reveal", description="GM: show a hidden aspect to everyone.")
    @app_commands.describe(aspect="The hidden aspect to reveal.")
    @app_commands.autocomplete(aspect=aspect_autocomplete)
    async def aspect_reveal(
        self, interaction: discord.Interaction, aspect: app_commands.Range[str, 1, 100]
    ) -> None:
        await require_gm(self.bot, interaction, "reveal aspects")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        shown = await self.service.reveal_aspect(
            interaction.guild_id, interaction.channel_id, aspect
        )
        await interaction.response.send_message(f"Revealed: **{shown.text}**.")

    @aspect.command(name="pass", description="Pass one of your free invokes to an ally.")
    @app_commands.describe(
        aspect="The aspect you hold a free invoke on.",
        to="The character who gets it (or GM).",
    )
    @app_commands.autocomplete(aspect=aspect_autocomplete, to=receiver_autocomplete)
    async def aspect_pass(
        self,
        interaction: discord.Interaction,
        aspect: app_commands.Range[str, 1, 100],
        to: app_commands.Range[str, 1, 80],
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        passed, receiver = await self.service.pass_invoke(
            interaction.guild_id,
            interaction.channel_id,
            user_id=interaction.user.id,
            is_gm=await member_is_gm(self.bot, interaction),
            ref=aspect,
            to=to,
        )
        await interaction.response.send_message(
            f"A free invoke on **{passed.text}** passes to {receiver}.", ephemeral=passed.hidden
        )

    # ------------------------------------------------------------------ /advantage
    @app_commands.command(
        name="advantage",
        description="Create an advantage: a roll to make or use an aspect, then Create aspect.",
    )
    @app_commands.guild_only()
    @app_commands.describe(
        skill="The skill you roll (e.g. Notice, Deceive).",
        aspect="A new aspect to create, or one in play to add invokes to.",
        difficulty="The difficulty or the opposing roll (-4 to +12; Fair is 2).",
        zone="For a new aspect: tie it to this zone.",
        character="GM: roll for this character instead of your active one.",
        on_fail="What a failed new aspect does, chosen now (default: you choose if it fails).",
    )
    @app_commands.autocomplete(
        aspect=aspect_autocomplete,
        zone=zone_autocomplete,
        character=character_autocomplete,
        skill=skill_autocomplete,
    )
    async def advantage(
        self,
        interaction: discord.Interaction,
        skill: app_commands.Range[str, 1, 40],
        aspect: app_commands.Range[str, 1, 100],
        difficulty: app_commands.Range[int, -4, 12] = 2,
        zone: app_commands.Range[str, 1, 60] | None = None,
        character: app_commands.Range[str, 1, 80] | None = None,
        on_fail: FailPick | None = None,
    ) -> None:
        rolls = self.bot.get_cog("Rolls")
        if rolls is None:
            raise RuleError("Rolls are switched off on this bot, so advantages cannot be rolled.")
        await rolls.start_roll(
            interaction,
            skill=skill,
            difficulty=str(difficulty),
            action=Action.CREATE_ADVANTAGE,
            advantage_aspect=aspect,
            zone=zone,
            character=character,
            enemy_on_fail=on_fail == "created, enemy holds the invoke",
            not_created_on_fail=on_fail == "not created",
        )


async def setup(bot: Any) -> None:
    bot.add_dynamic_items(SceneBoardButton)
    await bot.add_cog(Scenes(bot))
