"""The guided character creation flow (/character create): a draft stored in the database, one
form or menu per step, buttons that survive a restart (their custom ids name the draft).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Self

import discord

from bot.dfc.creation import CREATION_ORDER, CreationDraft, CreationStep
from bot.dfc.mantles import mantle_data, open_additional_stunts, take_additional_stunts
from bot.errors import RuleError
from bot.fate.sheet import MAX_FREE_ASPECTS, MIN_PC_REFRESH, STARTING_REFRESH
from bot.fate.stunts import Stunt
from bot.services.character_base import CustomEntry, DraftState, parse_stunt_line, pyramid_ratings
from bot.services.character_mantles import mantle_step
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
from cogs.common.modals import REOPEN_HINT, FixButton, PersistentModal
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
        self.key = key
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

    async def accept(self, interaction: discord.Interaction) -> None:
        service = service_of(interaction)
        state = await service.update_draft(self.state.id, interaction.user.id, self.change())
        await send_draft(interaction, state)

    async def refused(
        self, interaction: discord.Interaction, sentence: str, fix: FixButton
    ) -> None:
        """The step's own message says why, and its form button reopens the form filled in."""
        try:
            if interaction.message is None:
                raise LookupError("no message to edit")
            state = await service_of(interaction).get_draft(self.state.id, interaction.user.id)
        except (LookupError, RuleError):
            await super().refused(interaction, sentence, fix)
            return
        notice = f"**Not saved:** {sentence}\n{REOPEN_HINT}"
        await send_draft(interaction, state, notice=notice, fix=(self.key, fix))


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
    "skipstunts": lambda d, _c, _e: d.choose_stunts([]),
    "skipextra": lambda d, _c, _e: d.buy_stunts([]),
    "norelationship": lambda d, _c, _e: d.set_relationship(None),
}
# ("Keep refresh 3" and "Looks right" are gone: those steps ask nothing and are passed.)


def _seen(match: re.Match[str]) -> int | None:
    """The draft version a control was drawn for (None: posted before controls carried it)."""
    return int(match["ver"]) if match["ver"] else None


class DraftControl(DraftScoped):
    """What the guided flow's buttons and menus share: their custom id names the draft, what
    they do (`what`) and the draft version they were drawn for, and they are rebuilt from it."""

    draft_id: int
    what: str
    version: int | None

    def _names(self, draft_id: int, what: str, version: int | None) -> None:
        self.draft_id, self.what, self.version = draft_id, what, version

    def scope_key(self) -> int:
        return self.draft_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Self:
        build: Callable[..., Self] = cls
        return build(int(match["id"]), match["what"], version=_seen(match))


class DraftButton(
    DraftControl,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=DRAFT_BUTTON_TEMPLATE,
):
    """A button of the guided flow; the draft id is in the custom_id, so it survives restarts,
    and so is the version it was drawn for, so a step's buttons stop once the draft moved on."""

    def __init__(
        self,
        draft_id: int,
        action: str,
        label: str = "",
        style: discord.ButtonStyle = discord.ButtonStyle.primary,
        *,
        version: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or action,
                style=style,
                custom_id=draft_button_id(draft_id, action, version),
            )
        )
        self._names(draft_id, action, version)

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        service = service_of(interaction)
        user, seen = interaction.user.id, self.version
        if self.what in MODALS:
            state = await service.get_draft(self.draft_id, user, seen)
            await interaction.response.send_modal(MODALS[self.what](state))
            return
        if self.what == "restart":
            state = await service.restart_draft(self.draft_id, user, seen)
        elif self.what in ("finish", "finishnow"):
            await self._finish(interaction, seen)
            return
        elif self.what in DIRECT:
            state = await service.update_draft(self.draft_id, user, DIRECT[self.what], seen)
        else:
            raise RuleError("That button is from an older version; run `/character create`.")
        await send_draft(interaction, state)

    async def _finish(self, interaction: discord.Interaction, seen: int | None) -> None:
        """Finish (from the last step, or the relationship step leaving it for later)."""
        service = service_of(interaction)
        actor = await actor_of(interaction.client, interaction)
        state = None
        if self.what == "finishnow":
            later = DIRECT["norelationship"]
            state = await service.update_draft(self.draft_id, actor.user_id, later, seen)
            seen = state.version
        try:
            record = await service.finish_draft(self.draft_id, actor, seen)
        except RuleError as error:
            if state is None or not error.offers_retry:
                raise
            await send_draft(interaction, state, notice=f"**Not finished:** {error}")
            return  # the draft waits on its last step, where the sentence is shown
        await interaction.response.edit_message(
            content=f"**{record.name}** is ready and is now your active character.",
            embed=sheet_embed(record.sheet),
            view=None,
        )


def _group_mantles(group: str | None) -> list[Any]:
    return [m for m in mantle_data().mantles if m.group == group]


class DraftSelect(
    DraftControl,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=DRAFT_SELECT_TEMPLATE,
):
    """The mantle: one menu of them all while they fit in one (CHOICES_MAX options), else a
    group, then a mantle of it (a group of one mantle takes it at once)."""

    def __init__(
        self, draft_id: int, what: str, group: str | None = None, *, version: int | None = None
    ) -> None:
        every = what == "mantle" and group is None  # all mantles in one menu
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=draft_select_id(draft_id, what, version),
            placeholder="Mantle group" if what == "group" else "Mantle",
        )
        if what == "group" or every:
            select.add_option(label="No mantle (plain Fate Condensed)", value=NO_MANTLE)
        if what == "group":
            for g in mantle_data().groups:
                select.add_option(label=g.name, value=g.key)
        else:
            groups = {g.key: g.name for g in mantle_data().groups}
            for mantle in mantle_data().mantles if every else _group_mantles(group):
                described = groups.get(mantle.group) if every else None
                select.add_option(label=mantle.name, value=mantle.key, description=described)
        super().__init__(select)
        self._names(draft_id, what, version)

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        service = service_of(interaction)
        user, seen = interaction.user.id, self.version
        values = self.item.values
        value = str(values[0]) if values else NO_MANTLE
        if self.what == "group" and value != NO_MANTLE:
            if value not in {g.key for g in mantle_data().groups}:
                raise RuleError("Pick one of the listed groups.")
            mantles = _group_mantles(value)
            if len(mantles) != 1:  # a menu of one mantle is skipped: it is taken at once
                state = await service.get_draft(self.draft_id, user, seen)
                await interaction.response.edit_message(
                    embed=draft_embed(state.draft), view=draft_view(state, group=value)
                )
                return
            value = mantles[0].key
        chosen = None if value == NO_MANTLE else value
        state = await service.update_draft(self.draft_id, user, mantle_step(chosen), seen)
        await send_draft(interaction, state)


class MantleStuntSelect(
    DraftControl,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=MANTLE_STUNT_SELECT_TEMPLATE,
):
    """The chosen mantle's additional stunts, as an alternative to writing a stunt: the free
    one at the stunts step, bought ones (1 refresh each) at the extra stunts step."""

    def __init__(
        self,
        draft_id: int,
        what: str,
        stunts: list[Stunt] | None = None,
        *,
        version: int | None = None,
    ) -> None:
        extra = what == "extra"
        offered = (stunts or [])[:CHOICES_MAX]
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=mantle_stunt_select_id(draft_id, what, version),
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
        self._names(draft_id, what, version)

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        names = [str(v) for v in self.item.values]
        buy = self.what == "extra"

        def apply(d: CreationDraft, _c: Any, _e: list[CustomEntry]) -> CreationDraft:
            return take_additional_stunts(d, names, buy=buy)

        state = await service_of(interaction).update_draft(
            self.draft_id, interaction.user.id, apply, self.version
        )
        await send_draft(interaction, state)


GREY = discord.ButtonStyle.secondary
CHANGES = [
    ("aspects", "Change aspects", GREY),
    ("skills", "Change skills", GREY),
    ("name", "Change name", GREY),
]
# Each step's buttons: (action, label, style). The stunt steps also offer the mantle's stunts.
STEP_BUTTONS: dict[CreationStep, list[tuple[str, str, discord.ButtonStyle]]] = {
    CreationStep.ASPECTS: [("aspects", "Write aspects", discord.ButtonStyle.primary)],
    CreationStep.SKILLS: [("skills", "Rate skills", discord.ButtonStyle.primary)],
    CreationStep.NAME: [("name", "Name the character", discord.ButtonStyle.primary)],
    CreationStep.STUNTS: [
        ("stunts", "Write stunts", discord.ButtonStyle.primary),
        ("skipstunts", "No stunt for now", GREY),
    ],
    CreationStep.EXTRA_STUNTS: [
        ("extra", "Buy extra stunts", discord.ButtonStyle.primary),
        ("skipextra", "No extra stunts", GREY),
    ],
    # The last step can finish at once, leaving the relationship for later. Earlier answers
    # stay open to change there (a name already taken, a skill list changed).
    CreationStep.RELATIONSHIP: [
        ("relationship", "Write relationship", discord.ButtonStyle.primary),
        ("finishnow", "Finish (relationship later)", discord.ButtonStyle.success),
        *CHANGES,
    ],
    CreationStep.DONE: [("finish", "Finish", discord.ButtonStyle.success), *CHANGES],
}
ONE_MANTLE_MENU = 1 + len(mantle_data().mantles) <= CHOICES_MAX  # "no mantle" and every mantle
MANTLE_STUNT_STEPS = {CreationStep.STUNTS: "free", CreationStep.EXTRA_STUNTS: "extra"}
Fix = tuple[str, discord.ui.Item[Any]]  # a refused form's key and its "Fix what I typed"


def draft_view(
    state: DraftState, group: str | None = None, fix: Fix | None = None
) -> discord.ui.View:
    """The controls of the draft's step, drawn for its version. `fix` takes the place of the
    button that opens the refused form (or comes first when this step has none)."""
    view = discord.ui.View(timeout=None)
    i, v, step = state.id, state.version, state.draft.step
    buttons = STEP_BUTTONS.get(step, [])
    if fix is not None and fix[0] not in {action for action, _, _ in buttons}:
        view.add_item(fix[1])
    if step is CreationStep.MANTLE and group is None and ONE_MANTLE_MENU:
        view.add_item(DraftSelect(i, "mantle", version=v))
    elif step is CreationStep.MANTLE:
        view.add_item(DraftSelect(i, "group", version=v))
        if group is not None:
            view.add_item(DraftSelect(i, "mantle", group, version=v))
    for action, label, style in buttons:
        if fix is not None and fix[0] == action:
            view.add_item(fix[1])
        else:
            view.add_item(DraftButton(i, action, label, style, version=v))
    offered = open_additional_stunts(state.draft) if step in MANTLE_STUNT_STEPS else []
    if offered:
        view.add_item(MantleStuntSelect(i, MANTLE_STUNT_STEPS[step], offered, version=v))
    view.add_item(DraftButton(i, "restart", "Start over", discord.ButtonStyle.danger, version=v))
    return view


def _in_place(interaction: discord.Interaction) -> bool:
    """A click, or a form opened from a message: the flow's one message is edited."""
    if interaction.type is discord.InteractionType.component:
        return True
    return interaction.type is discord.InteractionType.modal_submit and (
        interaction.message is not None
    )


async def send_draft(
    interaction: discord.Interaction,
    state: DraftState,
    *,
    notice: str | None = None,
    fix: Fix | None = None,
) -> None:
    """The draft's step: a new private message for `/character create`, else the flow's one
    message edited in place. `notice` comes first (why something was refused); `fix` reopens
    a refused form filled in."""
    shown = CREATION_ORDER.index(state.draft.step) >= CREATION_ORDER.index(CreationStep.STRESS)
    embed = draft_embed(
        state.draft,
        resumed=state.resumed,
        preview=state.draft.preview_tracks() if shown else [],
        skill_names=state.campaign.settings.skill_list().names,
        notice=notice,
    )
    view = draft_view(state, fix=fix)
    if _in_place(interaction):
        await interaction.response.edit_message(embed=embed, view=view)
    else:
        await interaction.response.send_message(embed=embed, view=view, ephemeral=True)
