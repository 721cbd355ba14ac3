"""/character and /stunt: guided creation, import/export, sheets, edits, NPCs, milestones.

Thin adapters: parse options, build an Actor, call CharacterService, render with bot.ui.sheet.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import RuleError
from bot.fate.ladder import describe
from bot.fate.milestones import MajorMilestone, MinorChange
from bot.fate.sheet import NOTES_MAX, AspectKind, Character, NpcKind
from bot.fate.sheet_io import MAX_IMPORT_BYTES
from bot.fate.tracks import TrackKind
from bot.services.campaigns import CampaignSettings
from bot.services.character_base import Actor, build_major_milestone, build_minor_change, make_stunt
from bot.services.characters import CharacterService, get_service
from bot.ui.common import clip
from bot.ui.sheet import (
    character_list_embed,
    import_text,
    milestone_log_embed,
    milestone_text,
    sheet_embed,
)
from cogs.character_creation import (
    DraftButton,
    DraftModal,
    DraftSelect,
    MantleStuntSelect,
    send_draft,
)
from cogs.common.character_lookup import (
    CHARACTER_HELP,
    CHOICES_MAX,
    Choice,
    actor_of,
    character_autocomplete,
    choices_matching,
    service_of,
)
from cogs.common.modals import register_modals
from cogs.common.respond import respond
from cogs.common.web import answer_with_link, web_service

if TYPE_CHECKING:
    from bot.client import FateTableBot

# ----------------------------------------------------------------------------- autocomplete


async def _sheet_for(interaction: discord.Interaction) -> Character | None:
    actor = await actor_of(interaction.client, interaction)
    name = getattr(interaction.namespace, "character", None)
    return await service_of(interaction).sheet_cached(
        actor, name if isinstance(name, str) else None
    )


async def skill_autocomplete(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    actor = await actor_of(interaction.client, interaction)
    skills = await service_of(interaction).skill_list_cached(actor)
    return [Choice(name=n, value=n) for n in skills.suggestions(current)]


async def aspect_autocomplete(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    sheet = await _sheet_for(interaction)
    return choices_matching([a.text for a in sheet.aspects] if sheet else [], current)


async def stunt_autocomplete(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    sheet = await _sheet_for(interaction)
    return choices_matching([s.name for s in sheet.stunts] if sheet else [], current)


def _track_autocomplete(kind: TrackKind) -> Callable[..., Any]:
    async def complete(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        sheet = await _sheet_for(interaction)
        tracks = sheet.tracks_of(kind) if sheet else []
        needle = current.strip().casefold()
        return [
            Choice(name=clip(f"{t.label} {t.render_boxes()}", 100), value=t.key[:100])
            for t in tracks
            if needle in t.label.casefold() or needle in t.key.casefold()
        ][:CHOICES_MAX]

    return complete


async def milestone_old_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[Choice[str]]:
    """What `old` names depends on the change: a skill, a stunt or an aspect."""
    change = getattr(interaction.namespace, "change", None)
    if change in ("swap_skills", "replace_average_skill"):
        return await skill_autocomplete(interaction, current)
    if change == "rewrite_stunt":
        return await stunt_autocomplete(interaction, current)
    return await aspect_autocomplete(interaction, current)


async def milestone_new_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[Choice[str]]:
    change = getattr(interaction.namespace, "change", None)
    if change in ("swap_skills", "replace_average_skill"):
        return await skill_autocomplete(interaction, current)
    return []


# ----------------------------------------------------------------------------- guided creation


# ----------------------------------------------------------------------------- stunt writer


# ----------------------------------------------------------------------------- the cog
ASPECT_KINDS = [
    Choice(name="high concept", value=AspectKind.HIGH_CONCEPT.value),
    Choice(name="trouble", value=AspectKind.TROUBLE.value),
    Choice(name="relationship", value=AspectKind.RELATIONSHIP.value),
    Choice(name="free aspect", value=AspectKind.FREE.value),
]
MINOR_CHANGES = [
    Choice(name="swap two skills", value="swap_skills"),
    Choice(name="replace an Average skill", value="replace_average_skill"),
    Choice(name="rewrite a stunt", value="rewrite_stunt"),
    Choice(name="buy a stunt", value="buy_stunt"),
    Choice(name="rewrite an aspect (not the high concept)", value="rewrite_aspect"),
]
SheetChange = Callable[[Character], Character]


def _track_edit(
    *,
    clear: bool,
    recover: bool,
    recover_option: str,
    on_clear: SheetChange,
    on_recover: SheetChange,
    on_take: SheetChange,
) -> Callable[[Character, CampaignSettings], Character]:
    """A consequence or condition edit: clear it, start its recovery, or else take it."""
    if clear and recover:
        raise RuleError(f"Give `{recover_option}` or `clear`, not both.")
    chosen = on_clear if clear else on_recover if recover else on_take
    return lambda c, _s: chosen(c)


class Characters(commands.Cog):
    def __init__(self, bot: FateTableBot) -> None:
        self.bot = bot

    character = app_commands.Group(
        name="character", description="Character sheets: create, view, edit.", guild_only=True
    )
    edit = app_commands.Group(name="edit", description="Change a sheet.", parent=character)
    milestone = app_commands.Group(
        name="milestone", description="Advance a character.", parent=character
    )

    async def _actor(self, interaction: discord.Interaction) -> Actor:
        return await actor_of(self.bot, interaction)

    @property
    def service(self) -> CharacterService:
        return get_service(self.bot)

    async def _edited(
        self,
        interaction: discord.Interaction,
        character: str | None,
        change: Callable[[Character, CampaignSettings], Character],
        done: str | Callable[[Character], str],
        actor: Actor | None = None,
    ) -> None:
        """Make one change to a sheet and say privately what it is now (`done` may read the
        changed sheet). `actor`: the one asking, when the change needed it already."""
        actor = actor or await self._actor(interaction)
        record = await self.service.edit(actor, character, change)
        said = done if isinstance(done, str) else done(record.sheet)
        await interaction.response.send_message(f"**{record.name}**: {said}", ephemeral=True)

    # ----- create / import / export -----

    @character.command(
        name="create", description="Build a character step by step (resumes a saved draft)."
    )
    async def create(self, interaction: discord.Interaction) -> None:
        actor = await self._actor(interaction)
        state = await self.service.open_draft(actor)
        await send_draft(interaction, state)

    @character.command(name="import", description="Import a Fate Table or Fari character file.")
    @app_commands.describe(file="A .json file exported by Fate Table or by Fari (up to 256 KiB).")
    async def import_(self, interaction: discord.Interaction, file: discord.Attachment) -> None:
        actor = await self._actor(interaction)
        if file.size > MAX_IMPORT_BYTES:
            raise RuleError(
                f"{clip(file.filename, 60)} is {file.size // 1024} KiB; character files are "
                f"limited to {MAX_IMPORT_BYTES // 1024} KiB."
            )
        await interaction.response.defer(ephemeral=True, thinking=True)
        data = await file.read()
        result = await self.service.import_file(actor, data, file.filename)
        # The answer takes the place of "thinking…": one private message, not two.
        await interaction.edit_original_response(
            content=import_text(result.record.name, result.source, result.unmapped),
            embed=sheet_embed(result.record.sheet),
        )

    @character.command(name="export", description="Download a character as a JSON file.")
    @app_commands.describe(character=CHARACTER_HELP)
    @app_commands.autocomplete(character=character_autocomplete)
    async def export(self, interaction: discord.Interaction, character: str | None = None) -> None:
        actor = await self._actor(interaction)
        record, text = await self.service.export(actor, character)
        safe = re.sub(r"[^A-Za-z0-9_-]+", "_", record.name).strip("_") or "character"
        await interaction.response.send_message(
            f"**{record.name}** as a Fate Table file; `/character import` reads it back.",
            file=discord.File(io.BytesIO(text.encode("utf-8")), filename=f"{safe[:60]}.json"),
            ephemeral=True,
        )

    # ----- reading -----

    @character.command(name="sheet", description="Show a character sheet.")
    @app_commands.describe(
        character=CHARACTER_HELP,
        full="Show everything: stunt texts, empty slots, conditions, notes.",
        share="Post it in the channel for everyone (player characters only).",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def sheet(
        self,
        interaction: discord.Interaction,
        character: str | None = None,
        full: bool = False,
        share: bool = False,
    ) -> None:
        actor = await self._actor(interaction)
        _, record = await self.service.view(actor, character)
        if share and record.is_npc:
            raise RuleError("NPC sheets stay private; leave `share` off.")
        owner = None
        if interaction.guild is not None:
            member = interaction.guild.get_member(record.owner_id)
            owner = member.display_name if member else None
        await respond(
            interaction,
            embed=sheet_embed(record.sheet, full=full, owner=owner),
            ephemeral=not share,
        )

    @character.command(
        name="web", description="A private link to a live web page of your character's sheet."
    )
    @app_commands.describe(
        character="Which of your characters (default: the one you play here).",
        revoke="First end every web link made for this character so far.",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def web(
        self, interaction: discord.Interaction, character: str | None = None, revoke: bool = False
    ) -> None:
        actor = await self._actor(interaction)
        link = await web_service(self.bot).character_link(
            actor.guild_id, actor.channel_id, actor.user_id, character, revoke=revoke
        )
        await answer_with_link(
            interaction,
            link,
            revoked="Every earlier link to this character stopped working." if revoke else None,
            what=f"A live page of **{link.title}**: your sheet and the scene as the table sees "
            "it. Anyone with the link can read it.",
            command="/character web",
        )

    @character.command(name="list", description="The characters of this campaign.")
    async def list_(self, interaction: discord.Interaction) -> None:
        actor = await self._actor(interaction)
        campaign, names, active = await self.service.listing(actor)
        entries = [(n.name, n.is_npc, n.owner_id == actor.user_id, n.id in active) for n in names]
        await interaction.response.send_message(
            embed=character_list_embed(campaign.name, entries), ephemeral=True
        )

    @character.command(name="switch", description="Choose which character you play here.")
    @app_commands.describe(
        character="The character to play.",
        server_wide="Use it in every channel of the campaign, not only this one.",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def switch(
        self, interaction: discord.Interaction, character: str, server_wide: bool = False
    ) -> None:
        actor = await self._actor(interaction)
        record = await self.service.switch(actor, character, server_wide=server_wide)
        where = "everywhere in this campaign" if server_wide else "in this channel"
        await interaction.response.send_message(
            f"You now play **{record.name}** {where}.", ephemeral=True
        )

    @character.command(name="delete", description="Delete a character for good.")
    @app_commands.describe(character="The character to delete (type its full name).")
    @app_commands.autocomplete(character=character_autocomplete)
    async def delete(self, interaction: discord.Interaction, character: str) -> None:
        actor = await self._actor(interaction)
        name = await self.service.delete(actor, character)
        await interaction.response.send_message(f"Deleted **{name}**.", ephemeral=True)

    @character.command(name="npc", description="GM: make a minor or major NPC, or a monster.")
    @app_commands.describe(
        kind="Minor: 1-2 aspects and skills, 0-3 boxes. Major: a full sheet. Monster: anything.",
        name="The NPC's name.",
        aspects="Aspects separated by | (e.g. Bouncer at the Pit | Loyal to a Fault).",
        skills="Skills with ratings, e.g. Fight +2, Notice +1.",
        stress="Stress boxes for minor NPCs and monsters (0-3 for minor).",
    )
    @app_commands.choices(kind=[Choice(name=k.value, value=k.value) for k in NpcKind])
    async def npc(
        self,
        interaction: discord.Interaction,
        kind: str,
        name: app_commands.Range[str, 1, 80],
        aspects: app_commands.Range[str, 1, 1000],
        skills: app_commands.Range[str, 0, 1000] = "",
        stress: app_commands.Range[int, 0, 10] = 0,
    ) -> None:
        actor = await self._actor(interaction)
        parts = [a for a in aspects.split("|") if a.strip()]
        record = await self.service.create_npc(actor, NpcKind(kind), name, parts, skills, stress)
        await interaction.response.send_message(
            f"NPC **{record.name}** is ready.",
            embed=sheet_embed(record.sheet, full=True),
            ephemeral=True,
        )

    # ----- edits -----

    @edit.command(name="aspect", description="Write, rewrite or remove an aspect.")
    @app_commands.describe(
        kind="Which aspect: high concept, trouble, relationship or a free one.",
        text="The aspect's words (up to 100 characters).",
        slot="For free aspects: which one to rewrite (1 or 2); empty adds one.",
        remove="Remove the aspect written in `text` instead.",
        character=CHARACTER_HELP,
    )
    @app_commands.choices(kind=ASPECT_KINDS)
    @app_commands.autocomplete(character=character_autocomplete, text=aspect_autocomplete)
    async def edit_aspect(
        self,
        interaction: discord.Interaction,
        kind: str,
        text: str,
        slot: app_commands.Range[int, 1, 2] | None = None,
        remove: bool = False,
        character: str | None = None,
    ) -> None:
        aspect_kind = AspectKind(kind)
        if slot is not None and aspect_kind is not AspectKind.FREE:
            raise RuleError("`slot` is only for free aspects; leave it empty for this kind.")
        if remove:
            await self._edited(
                interaction, character, lambda c, _s: c.remove_aspect(text), "aspect removed."
            )
            return
        await self._edited(
            interaction,
            character,
            lambda c, _s: c.set_aspect(aspect_kind, text, slot),
            f"{aspect_kind.value} aspect set.",
        )

    @edit.command(name="skill", description="Set a skill's rating.")
    @app_commands.describe(
        skill="The skill.",
        rating="A number (+3) or ladder word (Good); 0 = Mediocre.",
        character=CHARACTER_HELP,
    )
    @app_commands.autocomplete(skill=skill_autocomplete, character=character_autocomplete)
    async def edit_skill(
        self,
        interaction: discord.Interaction,
        skill: app_commands.Range[str, 1, 40],
        rating: app_commands.Range[str, 1, 20],
        character: str | None = None,
    ) -> None:
        actor = await self._actor(interaction)
        await self._edited(
            interaction,
            character,
            self.service.skill_edit(actor, skill, rating),
            lambda sheet: f"{skill.strip()} is now {describe(sheet.rating(skill))}.",
            actor,
        )

    @edit.command(name="stunt", description="Add, rewrite or remove a stunt.")
    @app_commands.describe(
        name="The stunt's name (an existing one is rewritten).",
        text="What it does (up to 400 characters).",
        remove="Remove this stunt (its refresh comes back).",
        character=CHARACTER_HELP,
    )
    @app_commands.autocomplete(name=stunt_autocomplete, character=character_autocomplete)
    async def edit_stunt(
        self,
        interaction: discord.Interaction,
        name: app_commands.Range[str, 1, 100],
        text: app_commands.Range[str, 0, 500] = "",
        remove: bool = False,
        character: str | None = None,
    ) -> None:
        if remove:
            await self._edited(
                interaction, character, lambda c, _s: c.remove_stunt(name), "stunt removed."
            )
            return
        new = make_stunt(name, text)
        await self._edited(
            interaction, character, lambda c, _s: c.save_stunt(new), f"stunt **{new.name}** saved."
        )

    @edit.command(name="refresh", description="Set refresh (never below 1 for a player character).")
    @app_commands.describe(value="The new refresh.", character=CHARACTER_HELP)
    @app_commands.autocomplete(character=character_autocomplete)
    async def edit_refresh(
        self,
        interaction: discord.Interaction,
        value: app_commands.Range[int, -5, 30],
        character: str | None = None,
    ) -> None:
        await self._edited(
            interaction, character, lambda c, _s: c.set_refresh(value), f"refresh is {value}."
        )

    @edit.command(name="fate-points", description="GM: set current fate points (logged).")
    @app_commands.describe(
        value="How many fate points the character holds.", character=CHARACTER_HELP
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def edit_fate_points(
        self,
        interaction: discord.Interaction,
        value: app_commands.Range[int, 0, 99],
        character: str | None = None,
    ) -> None:
        actor = await self._actor(interaction)
        record = await self.service.set_fate_points(actor, character, value)
        await respond(
            interaction,
            f"**{record.name}**: {value} fate points (in the fate point log).",
            ephemeral=True,
        )

    @edit.command(name="notes", description="Replace the sheet's notes.")
    @app_commands.describe(
        text=f"The notes (up to {NOTES_MAX} characters); empty clears them.",
        character=CHARACTER_HELP,
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def edit_notes(
        self,
        interaction: discord.Interaction,
        text: app_commands.Range[str, 0, 4000] = "",
        character: str | None = None,
    ) -> None:
        await self._edited(interaction, character, lambda c, _s: c.set_notes(text), "notes saved.")

    @edit.command(name="box", description="Mark or clear a stress box.")
    @app_commands.describe(
        track="The stress track.",
        box="Box number, from 1.",
        clear="Clear it instead of marking it.",
        character=CHARACTER_HELP,
    )
    @app_commands.autocomplete(
        track=_track_autocomplete(TrackKind.STRESS), character=character_autocomplete
    )
    async def edit_box(
        self,
        interaction: discord.Interaction,
        track: app_commands.Range[str, 1, 100],
        box: app_commands.Range[int, 1, 20],
        clear: bool = False,
        character: str | None = None,
    ) -> None:
        def change(c: Character, _s: CampaignSettings) -> Character:
            return c.clear_box(track, box) if clear else c.mark_box(track, box)

        def shown(sheet: Character) -> str:
            marked = sheet.track(track)
            return f"{marked.label} {marked.render_boxes()}"

        await self._edited(interaction, character, change, shown)

    @edit.command(
        name="consequence", description="Take, rename (recovering) or clear a consequence."
    )
    @app_commands.describe(
        slot="The consequence slot (mild, moderate, severe ...).",
        aspect="The consequence's aspect; with `recovering` its new name.",
        recovering="Recovery has started: rename the consequence.",
        clear="Clear the slot.",
        character=CHARACTER_HELP,
    )
    @app_commands.autocomplete(
        slot=_track_autocomplete(TrackKind.CONSEQUENCE), character=character_autocomplete
    )
    async def edit_consequence(
        self,
        interaction: discord.Interaction,
        slot: app_commands.Range[str, 1, 100],
        aspect: app_commands.Range[str, 0, 200] = "",
        recovering: bool = False,
        clear: bool = False,
        character: str | None = None,
    ) -> None:
        change = _track_edit(
            clear=clear,
            recover=recovering,
            recover_option="recovering",
            on_clear=lambda c: c.clear_consequence(slot),
            on_recover=lambda c: c.rename_consequence(slot, aspect),
            on_take=lambda c: c.take_consequence(slot, aspect),
        )
        await self._edited(interaction, character, change, "consequence updated.")

    @edit.command(name="condition", description="Mark, start recovering or clear a condition.")
    @app_commands.describe(
        condition="The condition.",
        note="What happened (optional, written on the condition).",
        recover="A lasting condition starts to recover (one box clears).",
        clear="Clear the condition.",
        character=CHARACTER_HELP,
    )
    @app_commands.autocomplete(
        condition=_track_autocomplete(TrackKind.CONDITION), character=character_autocomplete
    )
    async def edit_condition(
        self,
        interaction: discord.Interaction,
        condition: app_commands.Range[str, 1, 100],
        note: app_commands.Range[str, 0, 200] | None = None,
        recover: bool = False,
        clear: bool = False,
        character: str | None = None,
    ) -> None:
        change = _track_edit(
            clear=clear,
            recover=recover,
            recover_option="recover",
            on_clear=lambda c: c.clear_condition(condition),
            on_recover=lambda c: c.begin_condition_recovery(condition),
            on_take=lambda c: c.take_condition(condition, note),
        )
        await self._edited(interaction, character, change, "condition updated.")

    # ----- milestones -----

    @milestone.command(name="minor", description="One sideways change.")
    @app_commands.describe(
        change="What changes.",
        old="The skill, stunt or aspect that changes.",
        new="The other skill, the new aspect words, or the (new) stunt name.",
        text="The stunt's text (for stunts).",
        character=CHARACTER_HELP,
    )
    @app_commands.choices(change=MINOR_CHANGES)
    @app_commands.autocomplete(
        old=milestone_old_autocomplete,
        new=milestone_new_autocomplete,
        character=character_autocomplete,
    )
    async def milestone_minor(
        self,
        interaction: discord.Interaction,
        change: str,
        old: app_commands.Range[str, 0, 100] | None = None,
        new: app_commands.Range[str, 0, 200] | None = None,
        text: app_commands.Range[str, 0, 500] | None = None,
        character: str | None = None,
    ) -> None:
        await self._milestone(interaction, character, build_minor_change(change, old, new, text))

    @milestone.command(
        name="major", description="Growth: a skill step and more (GM grants extras)."
    )
    @app_commands.describe(
        raise_skill="The skill to raise one step (column rule applies).",
        raise_second="GM grant: a second skill to raise (needs second_step).",
        high_concept="A new high concept.",
        recover_slot="A moderate or severe consequence that starts recovering.",
        recover_as="Its new name while recovering.",
        finish_slot="A recovering consequence to clear.",
        change="Also make one minor-milestone change.",
        old="For the minor change: the skill, stunt or aspect that changes.",
        new="For the minor change: the other skill, new aspect words or stunt name.",
        text="For the minor change: the stunt's text.",
        bank="Save an unused skill step for later.",
        refresh="GM only: +1 refresh.",
        second_step="GM only: a second skill step.",
        character=CHARACTER_HELP,
    )
    @app_commands.choices(change=MINOR_CHANGES)
    @app_commands.autocomplete(
        raise_skill=skill_autocomplete,
        raise_second=skill_autocomplete,
        recover_slot=_track_autocomplete(TrackKind.CONSEQUENCE),
        finish_slot=_track_autocomplete(TrackKind.CONSEQUENCE),
        old=milestone_old_autocomplete,
        new=milestone_new_autocomplete,
        character=character_autocomplete,
    )
    async def milestone_major(
        self,
        interaction: discord.Interaction,
        raise_skill: app_commands.Range[str, 0, 40] | None = None,
        raise_second: app_commands.Range[str, 0, 40] | None = None,
        high_concept: app_commands.Range[str, 0, 200] | None = None,
        recover_slot: app_commands.Range[str, 0, 100] | None = None,
        recover_as: app_commands.Range[str, 0, 200] | None = None,
        finish_slot: app_commands.Range[str, 0, 100] | None = None,
        change: str | None = None,
        old: app_commands.Range[str, 0, 100] | None = None,
        new: app_commands.Range[str, 0, 200] | None = None,
        text: app_commands.Range[str, 0, 500] | None = None,
        bank: bool = False,
        refresh: bool = False,
        second_step: bool = False,
        character: str | None = None,
    ) -> None:
        choice = build_major_milestone(
            raise_skills=[raise_skill, raise_second],
            high_concept=high_concept,
            recover_slot=recover_slot,
            recover_as=recover_as,
            finish_slot=finish_slot,
            change=change,
            old=old,
            new=new,
            text=text,
            bank=bank,
            gm_refresh=refresh,
            gm_second_step=second_step,
        )
        await self._milestone(interaction, character, None, choice)

    @milestone.command(name="log", description="The milestones a character has taken.")
    @app_commands.describe(character=CHARACTER_HELP)
    @app_commands.autocomplete(character=character_autocomplete)
    async def milestone_log(
        self, interaction: discord.Interaction, character: str | None = None
    ) -> None:
        actor = await self._actor(interaction)
        record, entries, total = await self.service.milestone_log(actor, character)
        rows = [(e.kind, e.changes, e.at) for e in entries]
        await interaction.response.send_message(
            embed=milestone_log_embed(record.name, rows, total), ephemeral=True
        )

    async def _milestone(
        self,
        interaction: discord.Interaction,
        character: str | None,
        minor: MinorChange | None,
        major: MajorMilestone | None = None,
    ) -> None:
        """Spend a milestone. The table sees a PC's when it is made; an NPC's stays the GM's."""
        actor = await self._actor(interaction)
        result = await self.service.milestone(actor, character, minor, major)
        text = milestone_text(result.record.name, result.milestone.changes)
        await interaction.response.send_message(text, ephemeral=result.record.is_npc)

    # ----- stunt writer -----


async def setup(bot: FateTableBot) -> None:
    get_service(bot)
    bot.add_dynamic_items(DraftButton, DraftSelect, MantleStuntSelect)
    register_modals(bot, DraftModal)
    await bot.add_cog(Characters(bot))
