"""What the character, creation and stunt writer cogs share: who is acting, the bot's character
service and the character-name autocomplete.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.errors import RuleError
from bot.services.character_base import Actor
from bot.services.characters import CharacterService, get_service
from bot.ui.common import clip
from cogs.common.bot_of import as_bot, bot_of
from cogs.common.permissions import member_is_gm

Choice = app_commands.Choice


async def actor_of(bot: discord.Client, interaction: discord.Interaction) -> Actor:
    if interaction.guild_id is None or interaction.channel_id is None:
        raise RuleError("Characters live in a server's campaign; use this in a server channel.")
    return Actor(
        interaction.guild_id,
        interaction.channel_id,
        interaction.user.id,
        await member_is_gm(as_bot(bot), interaction),
    )


def service_of(interaction: discord.Interaction) -> CharacterService:
    """The bot's one CharacterService."""
    return get_service(interaction.client)


CHOICES_MAX = 25


def choices_matching(values: list[str], current: str) -> list[Choice[str]]:
    needle = current.strip().casefold()
    starts = [v for v in values if v.casefold().startswith(needle)]
    inside = [v for v in values if needle in v.casefold() and v not in starts]
    return [Choice(name=clip(v, 100), value=v[:100]) for v in (starts + inside)[:CHOICES_MAX]]


async def character_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[Choice[str]]:
    actor = await actor_of(interaction.client, interaction)
    names = await service_of(interaction).names_cached(actor)
    return choices_matching([n.name for n in names], current)


CHARACTER_HELP = "The character (default: your active one here)."


async def character_list_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[Choice[str]]:
    """A comma-separated list of the campaign's characters, completing the last name typed.
    NPCs are offered to the GM only (a player never learns an NPC's name this way)."""
    if interaction.guild_id is None or interaction.channel_id is None:
        return []
    bot = bot_of(interaction)
    campaign = await bot.campaigns.current(interaction.guild_id, interaction.channel_id)
    names = await bot.campaigns.character_names(campaign.id)
    gm = await member_is_gm(bot, interaction)
    head, _, tail = current.rpartition(",")
    prefix = f"{head.strip()}, " if head.strip() else ""
    wanted = tail.strip().casefold()
    chosen = {n.strip().casefold() for n in head.split(",")}
    found: list[Choice[str]] = []
    for entry in names:
        if entry.is_npc and not gm:
            continue
        if entry.name.casefold() in chosen or wanted not in entry.name.casefold():
            continue
        label = f"{prefix}{entry.name}"
        if len(label) <= 100:
            tag = " (NPC)" if entry.is_npc else ""
            found.append(Choice(name=clip(label + tag, 100), value=label))
        if len(found) >= CHOICES_MAX:
            break
    return found
