"""/fp (the ledger), /compel (offers answered by buttons), /session and /recovery."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.fate.recovery import MilestoneKind
from bot.services.compels import CompelService
from bot.services.economy import EconomyService, LedgerLine, LedgerPage, MilestoneReport
from bot.ui.common import clip
from bot.ui.custom_ids import (
    COMPEL_BUTTON_TEMPLATE,
    LEDGER_PAGE_TEMPLATE,
    UNDO_CONFIRM_TEMPLATE,
    compel_button_id,
    ledger_page_id,
    undo_confirm_id,
)
from bot.ui.scenes import (
    ledger_embed,
    milestone_text,
    movement_text,
    offer_text,
    offers_list_text,
    refreshed_text,
    treatment_embed,
    undo_choice_label,
    undo_preview_text,
    undo_text,
)
from cogs.common.brief_cache import BriefCache
from cogs.common.errors import guarded
from cogs.common.permissions import member_is_gm, require_gm
from cogs.common.scope import ScopedItem
from cogs.scenes import character_choices

if TYPE_CHECKING:
    from bot.client import FateTableBot


def _who_code(page: LedgerPage) -> str:
    if page.character is None:
        return "a"
    if page.character == "GM":
        return "g"
    return page.character.lstrip("#")


class LedgerPageButton(
    ScopedItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=LEDGER_PAGE_TEMPLATE,
):
    """Older/newer pages of /fp log; everything it needs is in the custom_id."""

    scope_kind = "campaign"

    def __init__(
        self, campaign_id: int, page: int, who: str, direction: str, *, disabled: bool = False
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label="◀ Newer" if direction == "p" else "Older ▶",
                style=discord.ButtonStyle.secondary,
                custom_id=ledger_page_id(campaign_id, page, who, direction),
                disabled=disabled,
            )
        )
        self.campaign_id = campaign_id
        self.page = page
        self.who = who

    def scope_key(self) -> int:
        return self.campaign_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> LedgerPageButton:
        return cls(int(match["campaign"]), int(match["page"]), match["who"], match["dir"])

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        cog = interaction.client.get_cog("Economy")  # type: ignore[attr-defined]
        assert isinstance(cog, Economy)
        who = None if self.who == "a" else "GM" if self.who == "g" else f"#{self.who}"
        is_gm = await member_is_gm(cog.bot, interaction)
        assert interaction.guild_id is not None and interaction.channel_id is not None
        page = await cog.economy.log_page(
            interaction.guild_id,
            interaction.channel_id,
            self.campaign_id,
            self.page,
            who,
            for_gm=is_gm,
        )
        await interaction.response.edit_message(
            embed=ledger_embed(page, for_gm=is_gm), view=ledger_view(page)
        )


def ledger_view(page: LedgerPage) -> discord.ui.View | None:
    if page.page == 0 and not page.older:
        return None
    who = _who_code(page)
    view = discord.ui.View(timeout=None)
    view.add_item(
        LedgerPageButton(page.campaign_id, max(0, page.page - 1), who, "p", disabled=page.page == 0)
    )
    view.add_item(
        LedgerPageButton(page.campaign_id, page.page + 1, who, "n", disabled=not page.older)
    )
    return view


class UndoConfirmButton(
    ScopedItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=UNDO_CONFIRM_TEMPLATE,
):
    """Confirm undo under the preview of /fp undo: reverses that one entry, once."""

    scope_kind = "campaign"

    def __init__(self, campaign_id: int, entry_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Confirm undo",
                style=discord.ButtonStyle.danger,
                custom_id=undo_confirm_id(campaign_id, entry_id),
            )
        )
        self.campaign_id = campaign_id
        self.entry_id = entry_id

    def scope_key(self) -> int:
        return self.campaign_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> UndoConfirmButton:
        return cls(int(match["campaign"]), int(match["entry"]))

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        cog = interaction.client.get_cog("Economy")  # type: ignore[attr-defined]
        assert isinstance(cog, Economy)
        await require_gm(cog.bot, interaction, "undo fate point movements")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        original, inverse = await cog.economy.undo(
            interaction.guild_id,
            interaction.channel_id,
            actor_id=interaction.user.id,
            entry_id=self.entry_id,
            campaign_id=self.campaign_id,  # the preview's campaign: the channel must still play it
        )
        await interaction.response.edit_message(content=f"Undone `#{original.id}`.", view=None)
        # the channel hears of a PC's or the GM pool's reversal; an NPC's stays the GM's
        await interaction.followup.send(undo_text(original, inverse), ephemeral=original.npc)


class CompelButton(
    ScopedItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=COMPEL_BUTTON_TEMPLATE,
):
    """Accept / Refuse (the target only) and Withdraw (the offerer or the GM) on an offer."""

    scope_kind = "compel"
    LABELS = {"a": "Accept (+1 FP)", "r": "Refuse (-1 FP)", "w": "Withdraw"}
    STYLES = {
        "a": discord.ButtonStyle.success,
        "r": discord.ButtonStyle.danger,
        "w": discord.ButtonStyle.secondary,
    }

    def __init__(self, offer_id: int, act: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=self.LABELS[act],
                style=self.STYLES[act],
                custom_id=compel_button_id(offer_id, act),
            )
        )
        self.offer_id = offer_id
        self.act = act

    def scope_key(self) -> int:
        return self.offer_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> CompelButton:
        return cls(int(match["id"]), match["act"])

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        cog = interaction.client.get_cog("Economy")  # type: ignore[attr-defined]
        assert isinstance(cog, Economy)
        is_gm = await member_is_gm(cog.bot, interaction)
        if self.act == "w":
            view = await cog.compels.withdraw(
                self.offer_id, user_id=interaction.user.id, is_gm=is_gm
            )
        else:
            view = await cog.compels.answer(
                self.offer_id, user_id=interaction.user.id, is_gm=is_gm, accept=self.act == "a"
            )
        await interaction.response.edit_message(content=offer_text(view), view=None)


def offer_view(offer_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for act in ("a", "r", "w"):
        view.add_item(CompelButton(offer_id, act))
    return view


class Economy(commands.Cog):
    def __init__(self, bot: FateTableBot) -> None:
        self.bot = bot
        self.economy = EconomyService(bot.db)
        self.compels = CompelService(bot.db)
        self._undo_choices: BriefCache[list[LedgerLine]] = BriefCache()

    async def character_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await character_choices(self.bot, interaction, current, first=("GM",))

    async def target_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """A compel's or a treatment's character: also the NPCs taking part here."""
        return await character_choices(self.bot, interaction, current, here=True)

    async def skill_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        scenes: Any = self.bot.get_cog("Scenes")  # its autocomplete, if the cog is loaded
        if scenes is None:
            return []
        choices: list[app_commands.Choice[str]] = await scenes.skill_autocomplete(
            interaction, current
        )
        return choices

    async def aspect_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        target = getattr(interaction.namespace, "target", None)
        found = await self.compels.aspect_choices(
            interaction.guild_id,
            interaction.channel_id,
            is_gm=await member_is_gm(self.bot, interaction),
            typed=current,
            target=target if isinstance(target, str) else None,
        )
        return [app_commands.Choice(name=label, value=key) for key, label in found]

    # ------------------------------------------------------------------ /fp
    fp = app_commands.Group(name="fp", description="Fate points: the ledger.", guild_only=True)

    @fp.command(name="log", description="Every fate point movement of the campaign, newest first.")
    @app_commands.describe(
        character="Only this character's movements (or GM for the GM pool).",
        page="Which page (1 is the newest).",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def fp_log(
        self,
        interaction: discord.Interaction,
        character: app_commands.Range[str, 1, 80] | None = None,
        page: app_commands.Range[int, 1, 1000] = 1,
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        is_gm = await member_is_gm(self.bot, interaction)
        result = await self.economy.log(
            interaction.guild_id,
            interaction.channel_id,
            page=page - 1,
            character=character,
            for_gm=is_gm,
        )
        view = ledger_view(result)
        embed = ledger_embed(result, for_gm=is_gm)
        if view is None:
            await interaction.response.send_message(embed=embed, ephemeral=True)
        else:
            await interaction.response.send_message(embed=embed, view=view, ephemeral=True)

    @fp.command(name="undo", description="GM: reverse a fate point movement, after a preview.")
    @app_commands.describe(entry="The ledger entry to reverse: its number in /fp log (the newest).")
    async def fp_undo(
        self, interaction: discord.Interaction, entry: app_commands.Range[int, 1] | None = None
    ) -> None:
        await require_gm(self.bot, interaction, "undo fate point movements")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        preview = await self.economy.undo_preview(
            interaction.guild_id,
            interaction.channel_id,
            actor_id=interaction.user.id,
            entry_id=entry,
        )
        view = discord.ui.View(timeout=None)
        view.add_item(UndoConfirmButton(preview.campaign_id, preview.entry.id))
        await interaction.response.send_message(
            undo_preview_text(preview), view=view, ephemeral=True
        )

    @fp_undo.autocomplete("entry")
    async def undo_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        if interaction.guild_id is None or interaction.channel_id is None:
            return []
        if not await member_is_gm(self.bot, interaction):
            return []
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        lines = await self._undo_choices.get(
            (interaction.user.id, guild_id, channel_id),
            lambda: self.economy.undo_choices(guild_id, channel_id),
        )
        needle = current.strip().casefold().lstrip("#")
        return [
            app_commands.Choice(name=undo_choice_label(line), value=line.id)
            for line in lines
            if not needle or needle in undo_choice_label(line).casefold()
        ][:25]

    @fp.command(name="give", description="GM: give fate points to a character or the GM pool.")
    @app_commands.describe(
        character="Who gets them (GM = the GM pool of this scene).",
        amount="How many (1-10).",
        note="Why, for the ledger (up to 100 characters).",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def fp_give(
        self,
        interaction: discord.Interaction,
        character: app_commands.Range[str, 1, 80],
        amount: app_commands.Range[int, 1, 10] = 1,
        note: app_commands.Range[str, 0, 100] = "",
    ) -> None:
        await self._edit(interaction, character, amount, note)

    @fp.command(name="take", description="GM: take fate points from a character or the GM pool.")
    @app_commands.describe(
        character="Who loses them (GM = the GM pool of this scene).",
        amount="How many (1-10).",
        note="Why, for the ledger (up to 100 characters).",
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def fp_take(
        self,
        interaction: discord.Interaction,
        character: app_commands.Range[str, 1, 80],
        amount: app_commands.Range[int, 1, 10] = 1,
        note: app_commands.Range[str, 0, 100] = "",
    ) -> None:
        await self._edit(interaction, character, -amount, note)

    async def _edit(
        self, interaction: discord.Interaction, character: str, delta: int, note: str
    ) -> None:
        await require_gm(self.bot, interaction, "give or take fate points")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        move = await self.economy.edit(
            interaction.guild_id,
            interaction.channel_id,
            actor_id=interaction.user.id,
            target=character,
            delta=delta,
            note=note,
        )
        # the table sees a PC's or the GM pool's fate points move; an NPC's stay the GM's
        await interaction.response.send_message(movement_text(move), ephemeral=move.npc)

    # ------------------------------------------------------------------ /compel
    compel = app_commands.Group(
        name="compel", description="Compels: offer one, answer with the buttons.", guild_only=True
    )

    @compel.command(name="offer", description="Offer a compel (GM: free; players pay 1 FP).")
    @app_commands.describe(
        target="The character the compel is for.",
        aspect="The aspect that causes trouble (theirs or the scene's).",
        complication="What goes wrong (up to 300 characters).",
    )
    @app_commands.autocomplete(target=target_autocomplete, aspect=aspect_autocomplete)
    async def compel_offer(
        self,
        interaction: discord.Interaction,
        target: app_commands.Range[str, 1, 80],
        aspect: app_commands.Range[str, 1, 100],
        complication: app_commands.Range[str, 1, 300],
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        view = await self.compels.offer(
            interaction.guild_id,
            interaction.channel_id,
            user_id=interaction.user.id,
            is_gm=await member_is_gm(self.bot, interaction),
            target=target,
            aspect=aspect,
            complication=complication,
        )
        await interaction.response.send_message(offer_text(view), view=offer_view(view.id))
        message = await interaction.original_response()
        await self.compels.set_message(view.id, message.id)

    @compel.command(name="list", description="Compels still waiting for an answer.")
    async def compel_list(self, interaction: discord.Interaction) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        offers, total = await self.compels.open_offers(
            interaction.guild_id,
            interaction.channel_id,
            user_id=interaction.user.id,
            is_gm=await member_is_gm(self.bot, interaction),
        )
        await interaction.response.send_message(offers_list_text(offers, total), ephemeral=True)

    # ------------------------------------------------------------------ /session
    session = app_commands.Group(
        name="session", description="Sessions, arcs and milestones.", guild_only=True
    )

    @session.command(name="start", description="GM: start a session; PCs below refresh refresh.")
    async def session_start(self, interaction: discord.Interaction) -> None:
        await require_gm(self.bot, interaction, "start a session")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        result = await self.economy.start_session(
            interaction.guild_id, interaction.channel_id, actor_id=interaction.user.id
        )
        await interaction.response.send_message(refreshed_text(result))

    @session.command(
        name="end", description="GM: end the session; everyone earns a minor milestone."
    )
    async def session_end(self, interaction: discord.Interaction) -> None:
        await self._milestones(interaction, "end a session", self.economy.end_session)

    @session.command(
        name="arc-end", description="GM: end the arc; everyone earns a major milestone."
    )
    async def session_arc_end(self, interaction: discord.Interaction) -> None:
        await self._milestones(interaction, "end an arc", self.economy.end_arc)

    async def _milestones(
        self,
        interaction: discord.Interaction,
        doing: str,
        end: Callable[[int, int], Awaitable[MilestoneReport]],
    ) -> None:
        """The GM ends a session or an arc: everyone's milestones, announced."""
        await require_gm(self.bot, interaction, doing)
        assert interaction.guild_id is not None and interaction.channel_id is not None
        report = await end(interaction.guild_id, interaction.channel_id)
        await interaction.response.send_message(milestone_text(report))

    @session.command(name="award", description="GM: give one character a milestone to spend.")
    @app_commands.describe(
        character="Who earns it.", kind="Minor (a sideways change) or major (growth)."
    )
    @app_commands.autocomplete(character=character_autocomplete)
    async def session_award(
        self,
        interaction: discord.Interaction,
        character: app_commands.Range[str, 1, 80],
        kind: Literal["minor", "major"] = "minor",
    ) -> None:
        await require_gm(self.bot, interaction, "award milestones")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        record = await self.economy.award_milestone(
            interaction.guild_id,
            interaction.channel_id,
            character=character,
            kind=MilestoneKind(kind),
        )
        await interaction.response.send_message(
            f"**{clip(record.name, 80)}** earns a {kind} milestone: spend it with "
            f"`/character milestone {kind}`.",
            ephemeral=record.is_npc,  # an NPC's growth is the GM's business
        )

    @session.command(name="use-milestone", description="Mark your character's milestone as used.")
    @app_commands.describe(kind="Which milestone you used (minor or major).")
    async def session_use_milestone(
        self, interaction: discord.Interaction, kind: Literal["minor", "major"] = "minor"
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        name = await self.economy.use_milestone(
            interaction.guild_id,
            interaction.channel_id,
            user_id=interaction.user.id,
            kind=MilestoneKind(kind),
        )
        await interaction.response.send_message(f"{name} has used a {kind} milestone.")

    # ------------------------------------------------------------------ /recovery
    recovery = app_commands.Group(
        name="recovery", description="Recovering from consequences.", guild_only=True
    )

    @recovery.command(name="treat", description="Roll to treat a consequence so it starts healing.")
    @app_commands.describe(
        consequence="The consequence slot (mild, moderate, severe).",
        skill="The skill you treat with (e.g. Academics for the body, Empathy for the mind).",
        healing_name="The consequence's new, healing name (up to 80 characters).",
        patient="Whose consequence (default: your own, two steps harder).",
    )
    @app_commands.autocomplete(patient=target_autocomplete, skill=skill_autocomplete)
    async def recovery_treat(
        self,
        interaction: discord.Interaction,
        consequence: Literal["mild", "moderate", "severe"],
        skill: app_commands.Range[str, 1, 40],
        healing_name: app_commands.Range[str, 1, 80],
        patient: app_commands.Range[str, 1, 80] | None = None,
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        result = await self.economy.treat(
            interaction.guild_id,
            interaction.channel_id,
            user_id=interaction.user.id,
            is_gm=await member_is_gm(self.bot, interaction),
            patient=patient,
            consequence=consequence,
            skill=skill,
            healing_name=healing_name,
        )
        await interaction.response.send_message(embed=treatment_embed(result))


async def setup(bot: FateTableBot) -> None:
    bot.add_dynamic_items(LedgerPageButton, UndoConfirmButton, CompelButton)
    await bot.add_cog(Economy(bot))
