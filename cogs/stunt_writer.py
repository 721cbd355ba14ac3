"""/stunt write: a form that writes a bonus or rule-changing stunt in the rulebook's shape and adds
it to a sheet. The form survives a restart (its custom id names the template and character).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.fate.stunts import write_bonus_stunt, write_rule_stunt
from bot.services.characters import CharacterService, get_service
from bot.ui.custom_ids import STUNT_WRITER_TEMPLATE, stunt_writer_id
from cogs.character_creation import FORM_TIMEOUT
from cogs.common.bot_of import bot_of
from cogs.common.character_lookup import (
    CHARACTER_HELP,
    Choice,
    actor_of,
    character_autocomplete,
    service_of,
)
from cogs.common.modals import PersistentModal, register_modals
from cogs.common.scope import ScopedItem, where_of

if TYPE_CHECKING:
    from bot.client import FateTableBot


class StuntWriterModal(
    ScopedItem,
    PersistentModal,
    template=STUNT_WRITER_TEMPLATE,
):
    """The stunt writer. Its custom_id names the template and the character (0: the writer's
    active character when the form is sent), so a form opened before a restart still works;
    the nonce (the opening interaction's id) keeps two open writers apart."""

    scope_kind = "character"

    def __init__(self, kind: str, character_id: int, nonce: int) -> None:
        title = "Bonus stunt" if kind == "bonus" else "Rule-changing stunt"
        super().__init__(
            title=title,
            custom_id=stunt_writer_id(kind, character_id, nonce),
            timeout=FORM_TIMEOUT,
        )
        self.kind = kind
        self.character_id = character_id
        self.character = f"#{character_id}" if character_id else None
        self.inputs: dict[str, discord.ui.TextInput[Any]] = {}
        self._add("name", "Stunt name", 80, "Sharp Eyes")
        self._add("because", "Because I ...", 150, "have an eye for detail")
        if kind == "bonus":
            self._add("skill", "I get +2 when I use (skill)", 40, "Notice")
            self._add("action", "Action: overcome, advantage, attack, defend", 30, "overcome")
            self._add("circumstance", "when ...", 150, "I search a room for clues")
        else:
            self._add("feat", "I can ...", 150, "act first in a physical conflict")
            self._add("limitation", "but only ...", 150, "when I have not been hurt yet")

    def _add(self, key: str, label: str, limit: int, placeholder: str) -> None:
        item: discord.ui.TextInput[Any] = discord.ui.TextInput(
            label=label, custom_id=key, max_length=limit, placeholder=placeholder
        )
        self.inputs[key] = item
        self.add_item(item)

    def value(self, key: str) -> str:
        return self.inputs[key].value or ""

    def scope_key(self) -> int | None:
        return self.character_id or None  # 0: the writer's active character, found here

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, match: re.Match[str]
    ) -> StuntWriterModal:
        if int(match["char"]):
            await bot_of(interaction).scope.require(
                "character", int(match["char"]), where_of(interaction)
            )
        return cls(match["kind"], int(match["char"]), int(match["nonce"]))

    async def accept(self, interaction: discord.Interaction) -> None:
        actor = await actor_of(interaction.client, interaction)
        service = service_of(interaction)
        skills = await service.skill_list_cached(actor)
        if self.kind == "bonus":
            stunt = write_bonus_stunt(
                self.value("name"),
                self.value("because"),
                self.value("skill"),
                self.value("action"),
                self.value("circumstance"),
                skills,
            )
        else:
            stunt = write_rule_stunt(
                self.value("name"),
                self.value("because"),
                self.value("feat"),
                self.value("limitation"),
            )
        record = await service.add_stunt(actor, self.character, stunt)
        added = record.sheet.stunt(stunt.name)
        cost = f" It cost 1 refresh (refresh now {record.sheet.refresh})." if added.cost else ""
        await interaction.response.send_message(
            f"Added to **{record.name}**: **{stunt.name}**: {stunt.text}{cost}", ephemeral=True
        )


class StuntWriter(commands.Cog):
    def __init__(self, bot: FateTableBot) -> None:
        self.bot = bot

    @property
    def service(self) -> CharacterService:
        return get_service(self.bot)

    stunt = app_commands.Group(name="stunt", description="Write stunts.", guild_only=True)

    @stunt.command(name="write", description="Write a stunt from a template and add it to a sheet.")
    @app_commands.describe(
        template="Bonus: +2 to a skill in a situation. Rule: bend a rule, with a limit.",
        character=CHARACTER_HELP,
    )
    @app_commands.choices(
        template=[
            Choice(name="bonus (+2 to a skill and action)", value="bonus"),
            Choice(name="rule (do something the rules forbid)", value="rule"),
        ]
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def stunt_write(
        self, interaction: discord.Interaction, template: str, character: str | None = None
    ) -> None:
        character_id = 0
        if character and character.strip():
            actor = await actor_of(interaction.client, interaction)
            _campaign, record = await self.service.view(actor, character)
            character_id = record.id
        await interaction.response.send_modal(
            StuntWriterModal(template, character_id, interaction.id)
        )


async def setup(bot: FateTableBot) -> None:
    register_modals(bot, StuntWriterModal)
    await bot.add_cog(StuntWriter(bot))
