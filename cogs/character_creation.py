"""The guided character creation flow (/character create): a draft stored in the database, one
form or menu per step, buttons that survive a restart (their custom ids name the draft).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import discord

from bot.dfc.creation import CreationDraft, CreationStep
from bot.dfc.mantles import mantle_data, open_additional_stunts, take_additional_stunts
from bot.errors import RuleError
from bot.fate.sheet import MAX_FREE_ASPECTS, MIN_PC_REFRESH, STARTING_REFRESH
from bot.fate.stunts import Stunt
from bot.services.characters import (
    CustomEntry,
    DraftState,
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
    draft_button_id,
    draft_modal_id,
    draft_select_id,
    mantle_stunt_select_id,
)
from bot.ui.sheet import draft_embed, sheet_embed
from cogs.common.bot_of import bot_of
from cogs.common.character_lookup import CHOICES_MAX, actor_of, service_of
from cogs.common.errors import guarded
from cogs.common.modals import PersistentModal
from cogs.common.scope import ScopedItem, where_of

NO_MANTLE = "none"
MAX_BOUGHT_STUNTS = STARTING_REFRESH - MIN_PC_REFRESH  # extra stunts cost refresh, never below 1
FORM_TIMEOUT = 30 * 60.0  # an open form is forgotten after half an hour (the draft is kept)


def _stunt_lines(values: list[str]) -> list[Any]:
    return [parse_stunt_line(v) for v in values if v.strip()]


class DraftScoped(ScopedItem):
    """A component of the guided flow: its custom id names a draft of this server."""

    scope_kind = "draft"


class DraftModal(DraftScoped, PersistentModal, template=DRAFT_MODAL_TEMPLATE):
    """One step of the guided flow as a modal; on submit the draft is updated and the next
    step is shown. The custom_id names the draft and the step (a key of MODALS), so a form
    opened before a restart is rebuilt from the stored draft and its answers are kept."""

    def __init__(self, state: DraftState, step: CreationStep, title: str, key: str) -> None:
        super().__init__(title=title, custom_id=draft_modal_id(state.id, key), timeout=FORM_TIMEOUT)
        self.state = state
        self.step = step
        self.inputs: dict[str, discord.ui.TextInput[Any]] = {}

    def scope_key(self) -> int:
        return self.state.id

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
        await bot_of(interaction).scope.require("draft", int(match["id"]), where_of(interaction))
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
    DraftScoped,
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

    def scope_key(self) -> int:
        return self.draft_id

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
    DraftScoped,
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

    def scope_key(self) -> int:
        return self.draft_id

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
    DraftScoped,
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

    def scope_key(self) -> int:
        return self.draft_id

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
