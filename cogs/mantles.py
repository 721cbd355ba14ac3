"""/mantle: Dresden Files Condensed mantles, applying them, and the campaign's custom entries."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.dfc.mantles import mantle_data, mantles_by_group, search_mantles
from bot.fate.tracks import Recovery
from bot.services.character_base import make_stunt
from bot.services.characters import get_service
from bot.ui.common import clip
from bot.ui.sheet import mantle_embed, mantle_list_embed, sheet_embed, stunt_line, track_line
from cogs.characters import actor_of, character_autocomplete

if TYPE_CHECKING:
    from bot.client import FateTableBot

Choice = app_commands.Choice


async def mantle_autocomplete(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    return [Choice(name=m.name, value=m.name) for m in search_mantles(current)]


async def custom_entry_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[Choice[str]]:
    mantle = getattr(interaction.namespace, "mantle", None)
    if not isinstance(mantle, str) or not mantle:
        return []
    actor = await actor_of(interaction.client, interaction)
    try:
        names = await get_service(interaction.client).custom_entry_names_cached(actor, mantle)
    except ValueError:  # not a mantle (yet): nothing to suggest
        return []
    needle = current.strip().casefold()
    return [Choice(name=clip(n, 100), value=n[:100]) for n in names if needle in n.casefold()][:25]


class Mantles(commands.Cog):
    def __init__(self, bot: FateTableBot) -> None:
        self.bot = bot

    mantle = app_commands.Group(
        name="mantle", description="Dresden Files Condensed mantles.", guild_only=True
    )

    @mantle.command(name="list", description="Every mantle, by group.")
    async def list_(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            embed=mantle_list_embed(mantles_by_group()), ephemeral=True
        )

    @mantle.command(
        name="show", description="A mantle's conversion notes and this campaign's entries."
    )
    @app_commands.describe(name="The mantle.")
    @app_commands.autocomplete(name=mantle_autocomplete)
    async def show(self, interaction: discord.Interaction, name: str) -> None:
        actor = await actor_of(self.bot, interaction)
        view = await get_service(self.bot).mantle_view(actor, name)
        custom: list[tuple[str, str]] = []
        for entry in view.custom:
            if entry.stunt is not None:
                custom.append((entry.kind, stunt_line(entry.stunt, full=True)))
            elif entry.track is not None:
                custom.append((entry.kind, track_line(entry.track)))
        group = mantle_data().group_name(view.mantle.group)
        await interaction.response.send_message(
            embed=mantle_embed(
                view.mantle,
                group,
                custom,
                one_point_boxes=view.one_point_boxes,
                condition_values=view.condition_values,
            ),
            ephemeral=True,
        )

    @mantle.command(
        name="apply", description="Give a character a mantle's core stunts and conditions."
    )
    @app_commands.describe(
        name="The mantle.", character="The character (default: your active one here)."
    )
    @app_commands.autocomplete(name=mantle_autocomplete, character=character_autocomplete)
    async def apply(
        self, interaction: discord.Interaction, name: str, character: str | None = None
    ) -> None:
        actor = await actor_of(self.bot, interaction)
        record, missing = await get_service(self.bot).apply_mantle(actor, character, name)
        text = f"**{record.name}** now carries the **{record.sheet.mantle}** mantle."
        if record.sheet.npc_kind is None:
            left = record.sheet.free_stunt_slots_left()
            text += (
                f" Free stunts left beside its core stunts: {left} (DFC gives one); "
                "each more costs 1 refresh."
            )
        if missing:
            text += (
                "\nThe seed only names these conditions; the GM can complete them with "
                "`/mantle condition`: " + ", ".join(missing) + "."
            )
        await interaction.response.send_message(
            clip(text, 2000), embed=sheet_embed(record.sheet, full=True), ephemeral=True
        )

    @mantle.command(
        name="stunt", description="GM: write or replace a mantle stunt for this campaign."
    )
    @app_commands.describe(
        mantle="The mantle.",
        name="The stunt's name (the same name as a listed stunt replaces it).",
        text="What it does, in your words (up to 400 characters).",
    )
    @app_commands.autocomplete(mantle=mantle_autocomplete)
    async def custom_stunt(
        self,
        interaction: discord.Interaction,
        mantle: str,
        name: app_commands.Range[str, 1, 80],
        text: app_commands.Range[str, 1, 500],
    ) -> None:
        actor = await actor_of(self.bot, interaction)
        found, entry = await get_service(self.bot).add_custom_stunt(
            actor, mantle, make_stunt(name, text)
        )
        await interaction.response.send_message(
            f"Saved the stunt **{entry.name}** for the {found.name} mantle in this campaign.",
            ephemeral=True,
        )

    @mantle.command(name="condition", description="GM: write or complete a mantle condition.")
    @app_commands.describe(
        mantle="The mantle.",
        name="The condition's name (the same name as a listed one completes it).",
        kind="Fleeting clears after the scene, sticky when fixed, lasting needs recovery.",
        stress="Shifts it absorbs as written in DFA (halved for one-point boxes).",
        boxes="How many boxes (lasting conditions always have two).",
    )
    @app_commands.choices(kind=[Choice(name=r.value, value=r.value) for r in Recovery])
    @app_commands.autocomplete(mantle=mantle_autocomplete)
    async def custom_condition(
        self,
        interaction: discord.Interaction,
        mantle: str,
        name: app_commands.Range[str, 1, 60],
        kind: str,
        stress: app_commands.Range[int, 1, 20] = 1,
        boxes: app_commands.Range[int, 1, 10] | None = None,
    ) -> None:
        actor = await actor_of(self.bot, interaction)
        found, entry = await get_service(self.bot).add_custom_condition(
            actor, mantle, name, Recovery(kind), boxes, stress
        )
        assert entry.track is not None
        await interaction.response.send_message(
            f"Saved for the {found.name} mantle: {track_line(entry.track)}", ephemeral=True
        )

    @mantle.command(name="remove", description="GM: remove one of this campaign's mantle entries.")
    @app_commands.describe(mantle="The mantle.", entry="The custom stunt or condition to remove.")
    @app_commands.autocomplete(mantle=mantle_autocomplete, entry=custom_entry_autocomplete)
    async def remove(self, interaction: discord.Interaction, mantle: str, entry: str) -> None:
        actor = await actor_of(self.bot, interaction)
        found = await get_service(self.bot).remove_custom(actor, mantle, entry)
        await interaction.response.send_message(
            f"Removed **{clip(entry, 80)}** from this campaign's {found.name} mantle.",
            ephemeral=True,
        )


async def setup(bot: FateTableBot) -> None:
    get_service(bot)
    await bot.add_cog(Mantles(bot))
