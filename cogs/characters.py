"""/character and /stunt: guided creation, import/export, sheets, edits, NPCs, milestones.

Thin adapters: parse options, build an Actor, call CharacterService, render with bot.ui.sheet.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.dfc.mantles import (
    mantle_data,
    open_additional_stunts,
    take_additional_stunts,
)
from bot.errors import RuleError
from bot.fate.ladder import describe
from bot.fate.sheet import (
    MAX_FREE_ASPECTS,
    MIN_PC_REFRESH,
    NOTES_MAX,
    STARTING_REFRESH,
    AspectKind,
    Character,
    CreationDraft,
    CreationStep,
    NpcKind,
)
from bot.fate.sheet_io import MAX_IMPORT_BYTES
from bot.fate.stunts import Stunt, write_bonus_stunt, write_rule_stunt
from bot.fate.tracks import TrackKind
from bot.services.campaigns import CampaignSettings
from bot.services.characters import (
    Actor,
    CharacterService,
    CustomEntry,
    DraftState,
    build_major_milestone,
    build_minor_change,
    get_service,
    make_stunt,
    mantle_step,
    parse_stunt_line,
    pyramid_ratings,
)
from bot.ui.common import clip
from bot.ui.custom_ids import (
    DRAFT_BUTTON_TEMPLATE,
    DRAFT_MODAL_TEMPLATE,
    DRAFT_SELECT_TEMPLATE,
    MANTLE_STUNT_SELECT_TEMPLATE,
    STUNT_WRITER_TEMPLATE,
    draft_button_id,
    draft_modal_id,
    draft_select_id,
    mantle_stunt_select_id,
    stunt_writer_id,
)
from bot.ui.sheet import (
    character_list_embed,
    draft_embed,
    import_text,
    milestone_log_embed,
    milestone_text,
    sheet_embed,
)
from cogs.common.errors import guarded
from cogs.common.modals import PersistentModal, register_modals
from cogs.common.permissions import member_is_gm

Choice = app_commands.Choice
NO_MANTLE = "none"
CHOICES_MAX = 25
MAX_BOUGHT_STUNTS = STARTING_REFRESH - MIN_PC_REFRESH  # extra stunts cost refresh, never below 1
MODAL_TIMEOUT = 30 * 60.0  # an open form is forgotten after half an hour (the draft is kept)


async def actor_of(bot: Any, interaction: discord.Interaction) -> Actor:
    if interaction.guild_id is None or interaction.channel_id is None:
        raise RuleError("Characters live in a server's campaign; use this in a server channel.")
    return Actor(
        interaction.guild_id,
        interaction.channel_id,
        interaction.user.id,
        await member_is_gm(bot, interaction),
    )


def service_of(interaction: discord.Interaction) -> CharacterService:
    return get_service(interaction.client)


def _choices(values: list[str], current: str) -> list[Choice[str]]:
    needle = current.strip().casefold()
    starts = [v for v in values if v.casefold().startswith(needle)]
    inside = [v for v in values if needle in v.casefold() and v not in starts]
    return [Choice(name=clip(v, 100), value=v[:100]) for v in (starts + inside)[:CHOICES_MAX]]


# ----------------------------------------------------------------------------- autocomplete
async def character_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[Choice[str]]:
    actor = await actor_of(interaction.client, interaction)
    names = await service_of(interaction).names_cached(actor)
    return _choices([n.name for n in names], current)


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
    return _choices([a.text for a in sheet.aspects] if sheet else [], current)


async def stunt_autocomplete(interaction: discord.Interaction, current: str) -> list[Choice[str]]:
    sheet = await _sheet_for(interaction)
    return _choices([s.name for s in sheet.stunts] if sheet else [], current)


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
def _stunt_lines(values: list[str]) -> list[Any]:
    return [parse_stunt_line(v) for v in values if v.strip()]


class DraftModal(PersistentModal, template=DRAFT_MODAL_TEMPLATE):
    """One step of the guided flow as a modal; on submit the draft is updated and the next
    step is shown. The custom_id names the draft and the step (a key of MODALS), so a form
    opened before a restart is rebuilt from the stored draft and its answers are kept."""

    def __init__(self, state: DraftState, step: CreationStep, title: str, key: str) -> None:
        super().__init__(
            title=title, custom_id=draft_modal_id(state.id, key), timeout=MODAL_TIMEOUT
        )
        self.state = state
        self.step = step
        self.inputs: dict[str, discord.ui.TextInput[Any]] = {}

    def field(
        self,
        key: str,
        label: str,
        *,
        default: str = "",
        required: bool = True,
        long: bool = False,
        max_length: int = 100,
        placeholder: str | None = None,
    ) -> None:
        item: discord.ui.TextInput[Any] = discord.ui.TextInput(
            label=label,
            custom_id=key,
            default=default[:max_length] or None,
            required=required,
            style=discord.TextStyle.paragraph if long else discord.TextStyle.short,
            max_length=max_length,
            placeholder=placeholder[:100] if placeholder else None,
        )
        self.inputs[key] = item
        self.add_item(item)

    def value(self, key: str) -> str:
        return self.inputs[key].value or ""

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, match: re.Match[str]
    ) -> DraftModal:
        build = MODALS.get(match["step"])
        if build is None:
            raise RuleError("That form is from an older version; run `/character create`.")
        state = await service_of(interaction).get_draft(int(match["id"]), interaction.user.id)
        return build(state)

    def change(self) -> Callable[[CreationDraft, Any, list[CustomEntry]], CreationDraft]:
        raise NotImplementedError  # every step modal below overrides it

    async def on_submit(self, interaction: discord.Interaction) -> None:
        service = service_of(interaction)
        state = await service.update_draft(self.state.id, interaction.user.id, self.change())
        await send_draft(interaction, state, new_message=True)


class AspectsModal(DraftModal):
    def __init__(self, state: DraftState) -> None:
        super().__init__(state, CreationStep.ASPECTS, "Aspects", "aspects")
        d = state.draft
        frees = d.free_aspects + ["", ""]
        self.field("high_concept", "High concept", default=d.high_concept or "")
        self.field("trouble", "Trouble", default=d.trouble or "")
        self.field("free1", "Another aspect (optional)", default=frees[0], required=False)
        self.field("free2", "One more aspect (optional)", default=frees[1], required=False)

    def change(self) -> Callable[[CreationDraft, Any, list[CustomEntry]], CreationDraft]:
        hc, trouble = self.value("high_concept"), self.value("trouble")
        frees = [self.value("free1"), self.value("free2")]
        return lambda d, _c, _e: d.set_aspects(hc, trouble, frees)


class SkillsModal(DraftModal):
    ROWS = (
        ("great", 4, "Great (+4): one skill"),
        ("good", 3, "Good (+3): two skills"),
        ("fair", 2, "Fair (+2): three skills"),
        ("average", 1, "Average (+1): four skills"),
    )

    def __init__(self, state: DraftState) -> None:
        super().__init__(state, CreationStep.SKILLS, "Skills", "skills")
        d = state.draft
        names = ", ".join(state.campaign.settings.skill_list().names)
        for key, rating, label in self.ROWS:
            current = ", ".join(sorted(k for k, v in d.skills.items() if v == rating))
            self.field(key, label, default=current, max_length=200, placeholder=names)

    def change(self) -> Callable[[CreationDraft, Any, list[CustomEntry]], CreationDraft]:
        rows = {rating: self.value(key) for key, rating, _ in self.ROWS}

        def apply(d: CreationDraft, campaign: Any, _e: list[CustomEntry]) -> CreationDraft:
            return d.set_skills(pyramid_ratings(rows), campaign.settings.skill_list())

        return apply


class NameModal(DraftModal):
    def __init__(self, state: DraftState) -> None:
        super().__init__(state, CreationStep.NAME, "Name", "name")
        self.field("name", "Name", default=state.draft.name or "", max_length=80)
        self.field(
            "description",
            "Description (optional)",
            default=state.draft.description,
            required=False,
            long=True,
            max_length=1000,
        )

    def change(self) -> Callable[[CreationDraft, Any, list[CustomEntry]], CreationDraft]:
        name, description = self.value("name"), self.value("description")
        return lambda d, _c, _e: d.set_name(name, description)


def _stunt_default(stunts: list[Any], index: int) -> str:
    if index >= len(stunts):
        return ""
    stunt = stunts[index]
    return f"{stunt.name}: {stunt.text}" if stunt.text else stunt.name


class StuntsModal(DraftModal):
    def __init__(self, state: DraftState, *, extra: bool) -> None:
        step = CreationStep.EXTRA_STUNTS if extra else CreationStep.STUNTS
        title = "Extra stunts (1 refresh each)" if extra else "Free stunts"
        super().__init__(state, step, title, "extra" if extra else "stunts")
        self.extra = extra
        d = state.draft
        count = 2 if extra else d.free_stunt_count
        existing = d.extra_stunts if extra else d.free_stunts
        for index in range(count):
            self.field(
                f"stunt{index + 1}",
                f"Stunt {index + 1} (Name: what it does)",
                default=_stunt_default(existing, index),
                required=index == 0,
                long=True,
                max_length=480,
                placeholder="Sharp Eyes: +2 to Notice to spot danger when I first enter a place.",
            )

    def change(self) -> Callable[[CreationDraft, Any, list[CustomEntry]], CreationDraft]:
        stunts = _stunt_lines([item.value or "" for item in self.inputs.values()])
        if self.extra:
            return lambda d, _c, _e: d.buy_stunts(stunts)
        return lambda d, _c, _e: d.choose_stunts(stunts)


class RelationshipModal(DraftModal):
    def __init__(self, state: DraftState) -> None:
        super().__init__(state, CreationStep.RELATIONSHIP, "Relationship", "relationship")
        d = state.draft
        self.field(
            "relationship", "Relationship aspect", default=d.relationship or "", required=False
        )
        self.open_slots = MAX_FREE_ASPECTS - len(d.free_aspects)
        for index in range(self.open_slots):
            self.field(f"free{index + 1}", "Another aspect (optional)", required=False)

    def change(self) -> Callable[[CreationDraft, Any, list[CustomEntry]], CreationDraft]:
        relationship = self.value("relationship") or None
        more = [self.value(f"free{i + 1}") for i in range(self.open_slots)]
        return lambda d, _c, _e: d.set_relationship(relationship, more)


MODALS: dict[str, Callable[[DraftState], DraftModal]] = {
    "aspects": AspectsModal,
    "skills": SkillsModal,
    "name": NameModal,
    "stunts": lambda s: StuntsModal(s, extra=False),
    "extra": lambda s: StuntsModal(s, extra=True),
    "relationship": RelationshipModal,
}


DIRECT: dict[str, Callable[[CreationDraft, Any, list[CustomEntry]], CreationDraft]] = {
    "nomantle": mantle_step(None),
    "refresh": lambda d, _c, _e: d.confirm_refresh(),
    "skipstunts": lambda d, _c, _e: d.choose_stunts([]),
    "skipextra": lambda d, _c, _e: d.buy_stunts([]),
    "stress": lambda d, _c, _e: d.confirm_stress(),
    "norelationship": lambda d, _c, _e: d.set_relationship(None),
}


class DraftButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=DRAFT_BUTTON_TEMPLATE,
):
    """A button of the guided flow; the draft id is in the custom_id, so it survives restarts."""

    def __init__(
        self,
        draft_id: int,
        action: str,
        label: str = "",
        style: discord.ButtonStyle = discord.ButtonStyle.primary,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or action, style=style, custom_id=draft_button_id(draft_id, action)
            )
        )
        self.draft_id = draft_id
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DraftButton:
        return cls(int(match["id"]), match["action"])

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        service = service_of(interaction)
        user = interaction.user.id
        if self.action in MODALS:
            state = await service.get_draft(self.draft_id, user)
            await interaction.response.send_modal(MODALS[self.action](state))
            return
        if self.action == "restart":
            state = await service.restart_draft(self.draft_id, user)
        elif self.action == "finish":
            actor = await actor_of(interaction.client, interaction)
            record = await service.finish_draft(self.draft_id, actor)
            await interaction.response.edit_message(
                content=f"**{record.name}** is ready and is now your active character.",
                embed=sheet_embed(record.sheet),
                view=None,
            )
            return
        elif self.action in DIRECT:
            state = await service.update_draft(self.draft_id, user, DIRECT[self.action])
        else:
            raise RuleError("That button is from an older version; run `/character create`.")
        await send_draft(interaction, state, new_message=False)


class DraftSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=DRAFT_SELECT_TEMPLATE,
):
    """Mantle group, then mantle (the group picked is the select's only allowed values)."""

    def __init__(self, draft_id: int, what: str, group: str | None = None) -> None:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=draft_select_id(draft_id, what),
            placeholder="Mantle group" if what == "group" else "Mantle",
        )
        if what == "group":
            select.add_option(label="No mantle (plain Fate Condensed)", value=NO_MANTLE)
            for g in mantle_data().groups:
                select.add_option(label=g.name, value=g.key)
        else:
            for mantle in [m for m in mantle_data().mantles if m.group == group]:
                select.add_option(label=mantle.name, value=mantle.key)
        super().__init__(select)
        self.draft_id = draft_id
        self.what = what

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DraftSelect:
        return cls(int(match["id"]), match["what"])

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        service = service_of(interaction)
        values = self.item.values
        value = str(values[0]) if values else NO_MANTLE
        if self.what == "group":
            if value == NO_MANTLE:
                state = await service.update_draft(
                    self.draft_id, interaction.user.id, mantle_step(None)
                )
                await send_draft(interaction, state, new_message=False)
                return
            state = await service.get_draft(self.draft_id, interaction.user.id)
            if value not in {g.key for g in mantle_data().groups}:
                raise RuleError("Pick one of the listed groups.")
            await interaction.response.edit_message(
                embed=draft_embed(state.draft), view=draft_view(state, group=value)
            )
            return
        state = await service.update_draft(self.draft_id, interaction.user.id, mantle_step(value))
        await send_draft(interaction, state, new_message=False)


class MantleStuntSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=MANTLE_STUNT_SELECT_TEMPLATE,
):
    """The chosen mantle's additional stunts, as an alternative to writing a stunt: the free
    one at the stunts step, bought ones (1 refresh each) at the extra stunts step."""

    def __init__(self, draft_id: int, what: str, stunts: list[Stunt] | None = None) -> None:
        extra = what == "extra"
        offered = (stunts or [])[:CHOICES_MAX]
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=mantle_stunt_select_id(draft_id, what),
            placeholder="Or buy the mantle's stunts" if extra else "Or pick a mantle stunt",
            min_values=1,
            max_values=max(1, min(len(offered), MAX_BOUGHT_STUNTS)) if extra else 1,
        )
        for stunt in offered:
            select.add_option(
                label=clip(stunt.name, 100),
                value=stunt.name[:100],
                description=clip(stunt.text, 100) or None,
            )
        super().__init__(select)
        self.draft_id = draft_id
        self.what = what

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> MantleStuntSelect:
        return cls(int(match["id"]), match["what"])

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        names = [str(v) for v in self.item.values]
        buy = self.what == "extra"

        def apply(d: CreationDraft, _c: Any, _e: list[CustomEntry]) -> CreationDraft:
            return take_additional_stunts(d, names, buy=buy)

        state = await service_of(interaction).update_draft(
            self.draft_id, interaction.user.id, apply
        )
        await send_draft(interaction, state, new_message=False)


def draft_view(state: DraftState, group: str | None = None) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    i = state.id
    step = state.draft.step
    grey = discord.ButtonStyle.secondary
    if step is CreationStep.MANTLE:
        view.add_item(DraftSelect(i, "group"))
        if group is not None:
            view.add_item(DraftSelect(i, "mantle", group))
    elif step is CreationStep.ASPECTS:
        view.add_item(DraftButton(i, "aspects", "Write aspects"))
    elif step is CreationStep.SKILLS:
        view.add_item(DraftButton(i, "skills", "Rate skills"))
    elif step is CreationStep.NAME:
        view.add_item(DraftButton(i, "name", "Name the character"))
    elif step is CreationStep.REFRESH:
        view.add_item(DraftButton(i, "refresh", "Keep refresh 3"))
    elif step is CreationStep.STUNTS:
        view.add_item(DraftButton(i, "stunts", "Write stunts"))
        view.add_item(DraftButton(i, "skipstunts", "No stunt for now", grey))
        offered = open_additional_stunts(state.draft)
        if offered:
            view.add_item(MantleStuntSelect(i, "free", offered))
    elif step is CreationStep.EXTRA_STUNTS:
        view.add_item(DraftButton(i, "extra", "Buy extra stunts"))
        view.add_item(DraftButton(i, "skipextra", "No extra stunts", grey))
        offered = open_additional_stunts(state.draft)
        if offered:
            view.add_item(MantleStuntSelect(i, "extra", offered))
    elif step is CreationStep.STRESS:
        view.add_item(DraftButton(i, "stress", "Looks right"))
    elif step is CreationStep.RELATIONSHIP:
        view.add_item(DraftButton(i, "relationship", "Write relationship"))
        view.add_item(DraftButton(i, "norelationship", "Later", grey))
    else:
        view.add_item(DraftButton(i, "finish", "Finish", discord.ButtonStyle.success))
        # Earlier answers stay open to change (a name already taken, a skill list changed).
        view.add_item(DraftButton(i, "aspects", "Change aspects", grey))
        view.add_item(DraftButton(i, "skills", "Change skills", grey))
        view.add_item(DraftButton(i, "name", "Change name", grey))
    view.add_item(DraftButton(i, "restart", "Start over", discord.ButtonStyle.danger))
    return view


async def send_draft(
    interaction: discord.Interaction, state: DraftState, *, new_message: bool
) -> None:
    preview = state.draft.preview_tracks() if state.draft.step is CreationStep.STRESS else []
    embed = draft_embed(
        state.draft,
        resumed=state.resumed,
        preview=preview,
        skill_names=state.campaign.settings.skill_list().names,
    )
    view = draft_view(state)
    if new_message:
        await interaction.response.send_message(embed=embed, view=view, ephemeral=True)
    else:
        await interaction.response.edit_message(embed=embed, view=view)


# ----------------------------------------------------------------------------- stunt writer
class StuntWriterModal(
    PersistentModal,
    template=STUNT_WRITER_TEMPLATE,
):
    """The stunt writer. Its custom_id names the template and the character (0: the writer's
    active character when the form is sent), so a form opened before a restart still works;
    the nonce (the opening interaction's id) keeps two open writers apart."""

    def __init__(self, kind: str, character_id: int, nonce: int) -> None:
        title = "Bonus stunt" if kind == "bonus" else "Rule-changing stunt"
        super().__init__(
            title=title,
            custom_id=stunt_writer_id(kind, character_id, nonce),
            timeout=MODAL_TIMEOUT,
        )
        self.kind = kind
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

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, match: re.Match[str]
    ) -> StuntWriterModal:
        return cls(match["kind"], int(match["char"]), int(match["nonce"]))

    async def on_submit(self, interaction: discord.Interaction) -> None:
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
CHARACTER_HELP = "The character (default: your active one here)."
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
    def __init__(self, bot: Any) -> None:
        self.bot = bot

    character = app_commands.Group(
        name="character", description="Character sheets: create, view, edit.", guild_only=True
    )
    edit = app_commands.Group(name="edit", description="Change a sheet.", parent=character)
    milestone = app_commands.Group(
        name="milestone", description="Advance a character.", parent=character
    )
    stunt = app_commands.Group(name="stunt", description="Write stunts.", guild_only=True)

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
        done: str,
    ) -> None:
        actor = await self._actor(interaction)
        record = await self.service.edit(actor, character, change)
        await interaction.response.send_message(f"**{record.name}**: {done}", ephemeral=True)

    # ----- create / import / export -----

    @character.command(
        name="create", description="Build a character step by step (resumes a saved draft)."
    )
    async def create(self, interaction: discord.Interaction) -> None:
        actor = await self._actor(interaction)
        state = await self.service.open_draft(actor)
        await send_draft(interaction, state, new_message=True)

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
        await interaction.followup.send(
            import_text(result.record.name, result.source, result.unmapped),
            embed=sheet_embed(result.record.sheet),
            ephemeral=True,
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
        await interaction.response.send_message(
            embed=sheet_embed(record.sheet, full=full, owner=owner), ephemeral=not share
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
        record = await self.service.edit(
            actor, character, self.service.skill_edit(actor, skill, rating)
        )
        value = record.sheet.rating(skill)
        await interaction.response.send_message(
            f"**{record.name}**: {skill.strip()} is now {describe(value)}.", ephemeral=True
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
        await interaction.response.send_message(
            f"**{record.name}**: {value} fate points (in the fate point log).", ephemeral=True
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

        actor = await self._actor(interaction)
        record = await self.service.edit(actor, character, change)
        shown = record.sheet.track(track)
        await interaction.response.send_message(
            f"**{record.name}**: {shown.label} {shown.render_boxes()}", ephemeral=True
        )

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
        actor = await self._actor(interaction)
        minor = build_minor_change(change, old, new, text)
        result = await self.service.milestone(actor, character, minor, None)
        await self._milestone_reply(interaction, result.record.name, result.milestone.changes)

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
        actor = await self._actor(interaction)
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
        result = await self.service.milestone(actor, character, None, choice)
        await self._milestone_reply(interaction, result.record.name, result.milestone.changes)

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

    async def _milestone_reply(
        self, interaction: discord.Interaction, name: str, changes: list[str]
    ) -> None:
        await interaction.response.send_message(milestone_text(name, changes), ephemeral=True)

    # ----- stunt writer -----

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


async def setup(bot: Any) -> None:
    get_service(bot)
    bot.add_dynamic_items(DraftButton, DraftSelect, MantleStuntSelect)
    register_modals(bot, DraftModal, StuntWriterModal)
    await bot.add_cog(Characters(bot))
