"""What the conflict, contest and challenge cogs share: the pinned tracker (post, edit in place with
bursts coalesced, answer a click), its buttons and selects, and the small forms and menus.

Every button and select is a DynamicItem whose custom_id carries the encounter id and the
version it was drawn for (bot/ui/custom_ids.py), so old clicks work after a restart and a double
click applies once. The id's prefix names the kind, and the kind names the cog that handles it.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.bounded import Bounded
from bot.errors import RuleError
from bot.services.challenges import ChallengeSnapshot
from bot.services.clicks import ClickContext
from bot.services.conflict_state import ConflictSnapshot
from bot.services.conflicts import ConflictService
from bot.services.contests import ContestService, ContestSnapshot
from bot.services.encounters import (
    AbsorbOption,
    Choice,
    EncounterService,
    NextUp,
    on_tracker,
    rerolls,
    skill_choices,
)
from bot.ui.common import SELECT_PLACEHOLDER_LIMIT, clip
from bot.ui.components import Components
from bot.ui.conflicts import (
    Controls,
    TrackerAction,
    challenge_controls,
    challenge_tracker,
    conflict_controls,
    conflict_tracker,
    contest_controls,
    contest_tracker,
)
from bot.ui.custom_ids import (
    TRACKER_BUTTON_TEMPLATE,
    TRACKER_KINDS,
    TRACKER_SELECT_TEMPLATE,
    tracker_button_id,
    tracker_select_id,
)
from cogs.common.bot_of import bot_of
from cogs.common.character_lookup import character_list_autocomplete
from cogs.common.coalesce import Coalescer
from cogs.common.edits import edit_message
from cogs.common.errors import SafeModal, guarded
from cogs.common.permissions import member_is_gm
from cogs.common.respond import respond, update
from cogs.common.scope import ScopedItem

if TYPE_CHECKING:
    from bot.client import FateTableBot

log = logging.getLogger(__name__)


# encounter kind -> custom_id prefix
PREFIX = TRACKER_KINDS
KIND_OF = {v: k for k, v in PREFIX.items()}


Snapshot = ConflictSnapshot | ContestSnapshot | ChallengeSnapshot
HARM_CHOICES: list[app_commands.Choice[str]] = [
    app_commands.Choice(name="physical", value="physical"),
    app_commands.Choice(name="mental", value="mental"),
]
# modal fields: (key, label, default, max length)
SKILL_FIELD = ("skill", "Skill", "", 40)
DIFFICULTY_FIELD = ("difficulty", "Difficulty (GM's number or word)", "Fair", 20)
NEW_ASPECT_FIELD = ("aspect", "The aspect to create", "", 80)


COG_OF = {"conflict": "Conflicts", "contest": "Contests", "challenge": "Challenges"}


def _cog(interaction: discord.Interaction, prefix: str) -> TrackerCog:
    """The cog that plays the kind of encounter a custom id's prefix names."""
    cog = bot_of(interaction).get_cog(COG_OF[KIND_OF[prefix]])
    assert isinstance(cog, TrackerCog)
    return cog


def _kind_of(snapshot: Snapshot) -> str:
    if isinstance(snapshot, ConflictSnapshot):
        return "conflict"
    return "contest" if isinstance(snapshot, ContestSnapshot) else "challenge"


def render(snapshot: Snapshot) -> tuple[discord.Embed, Components]:
    if isinstance(snapshot, ConflictSnapshot):
        embed, controls = conflict_tracker(snapshot), conflict_controls(snapshot)
    elif isinstance(snapshot, ContestSnapshot):
        embed, controls = contest_tracker(snapshot), contest_controls(snapshot)
    else:
        embed, controls = challenge_tracker(snapshot), challenge_controls(snapshot)
    return embed, build_view(PREFIX[_kind_of(snapshot)], snapshot.id, snapshot.version, controls)


def build_view(prefix: str, ident: int, version: int, controls: Controls) -> Components:
    view = Components()  # an empty one removes old buttons
    for spec in controls.buttons:
        view.button(spec.label, tracker_button_id(prefix, ident, version, spec.action), spec.style)
    if controls.select_action and controls.options:
        options = select_options(controls.options)
        _add_select(
            view,
            prefix,
            ident,
            version,
            controls.select_action,
            controls.select_placeholder,
            options,
        )
    return view


def _add_select(
    view: Components,
    prefix: str,
    ident: int,
    version: int,
    action: str,
    placeholder: str,
    options: list[discord.SelectOption],
    arg: str | None = None,
) -> None:
    """A TrackerSelect on a message's components (as the item would be sent)."""
    custom_id = tracker_select_id(prefix, ident, version, action, arg)
    view.select(custom_id, options, placeholder=clip(placeholder, SELECT_PLACEHOLDER_LIMIT))


def select_options(choices: Sequence[Choice]) -> list[discord.SelectOption]:
    return [
        discord.SelectOption(
            label=clip(c.label, 100), value=c.value, description=clip(c.description, 100) or None
        )
        for c in choices[:25]
    ]


def choice_view(
    prefix: str, ident: int, version: int, action: str, placeholder: str, choices: list[Choice]
) -> discord.ui.View:
    view = Components()
    _add_select(view, prefix, ident, version, action, placeholder, select_options(choices))
    return view


def skill_options(
    snap: ConflictSnapshot | ContestSnapshot, member: str
) -> list[discord.SelectOption]:
    """The member's skills, best first, then the campaign's other skills at +0 (Mediocre when
    the sheet is gone)."""
    sheet = snap.sheets.get(member)
    pairs = skill_choices(sheet, snap.skills) if sheet else []
    return [
        discord.SelectOption(label=clip(f"{name} ({rating:+d})", 100), value=name[:100])
        for name, rating in pairs
    ] or [discord.SelectOption(label="Mediocre (+0)", value="Mediocre")]


def absorb_view(
    prefix: str, ident: int, version: int, options: list[AbsorbOption]
) -> discord.ui.View:
    choices = [Choice(str(o.index), o.label) for o in options]
    return choice_view(prefix, ident, version, TrackerAction.ABSORB, "How do you take it?", choices)


class TrackerButton(
    ScopedItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=TRACKER_BUTTON_TEMPLATE,
):
    def __init__(
        self,
        prefix: str,
        ident: int,
        version: int,
        action: str,
        label: str = "...",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=style,
                custom_id=tracker_button_id(prefix, ident, version, action),
            )
        )
        self.prefix, self.ident, self.version, self.action = prefix, ident, version, action

    def scope(self) -> tuple[str, int]:
        return KIND_OF[self.prefix], self.ident

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> TrackerButton:
        return cls(match["p"], int(match["id"]), int(match["v"]), match["act"])

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        await _cog(interaction, self.prefix).on_button(
            interaction, self.ident, self.version, self.action
        )


class TrackerSelect(
    ScopedItem,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=TRACKER_SELECT_TEMPLATE,
):
    def __init__(
        self,
        prefix: str,
        ident: int,
        version: int,
        action: str,
        placeholder: str = "Pick one",
        options: list[discord.SelectOption] | None = None,
        arg: str | None = None,
    ) -> None:
        custom_id = tracker_select_id(prefix, ident, version, action, arg)
        super().__init__(
            discord.ui.Select(
                custom_id=custom_id,
                placeholder=clip(placeholder, SELECT_PLACEHOLDER_LIMIT),
                options=options or [discord.SelectOption(label="-", value="-")],
            )
        )
        self.prefix, self.ident, self.version, self.action, self.arg = (
            prefix,
            ident,
            version,
            action,
            arg,
        )

    def scope(self) -> tuple[str, int]:
        return KIND_OF[self.prefix], self.ident

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> TrackerSelect:
        return cls(match["p"], int(match["id"]), int(match["v"]), match["act"], arg=match["arg"])

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        values = list(self.item.values)
        if not values:
            raise RuleError("Pick one of the options.")
        await _cog(interaction, self.prefix).on_select(
            interaction,
            self.ident,
            self.version,
            self.action,
            self.arg,
            values[0],
        )


class FormModal(SafeModal):
    """A small form whose answers go to `handler` (the modal's data lives in its closure)."""

    def __init__(
        self,
        title: str,
        fields: list[tuple[str, str, str, int]],  # (key, label, default, max length)
        handler: Callable[[discord.Interaction, dict[str, str]], Awaitable[None]],
    ) -> None:
        super().__init__(title=clip(title, 45), timeout=900)
        self.handler = handler
        self.inputs: dict[str, discord.ui.TextInput[Any]] = {}
        for key, label, default, limit in fields[:5]:
            text_input: discord.ui.TextInput[Any] = discord.ui.TextInput(
                label=clip(label, 45), custom_id=key, default=default or None, max_length=limit
            )
            self.inputs[key] = text_input
            self.add_item(text_input)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await self.handler(interaction, {k: str(v.value) for k, v in self.inputs.items()})


S = TypeVar("S")


@dataclass(frozen=True)
class Click(ClickContext):
    """One click on a tracker: the encounter and version it was drawn for and who clicked (a GM
    or not), which is what the services take, plus the interaction and the custom-id prefix."""

    version: int  # a tracker's click always carries the version it was drawn for
    interaction: discord.Interaction
    prefix: str

    def menu(
        self, action: TrackerAction, placeholder: str, choices: list[Choice]
    ) -> discord.ui.View:
        """A private select on this encounter whose pick comes back as `action`."""
        return choice_view(self.prefix, self.ident, self.version, action, placeholder, choices)

    def step(
        self, call: Callable[[ClickContext, str], Awaitable[S]]
    ) -> Callable[[str], Awaitable[S]]:
        """The service step a menu's pick makes, for this click (what `offer` takes at once
        when there is a single choice)."""
        return lambda value: call(self, value)


H = TypeVar("H")


def action_of(code: str, what: str) -> TrackerAction:
    """The action a custom id's code names; a sentence for a code no longer drawn."""
    try:
        return TrackerAction(code)
    except ValueError:
        raise RuleError(f"That {what} is no longer used; look at the tracker again.") from None


def handler_for(table: Mapping[TrackerAction, H], code: str, what: str) -> H:
    """The handler of a custom id's action code; a sentence for a code it does not handle."""
    handler = table.get(action_of(code, what))
    if handler is None:
        raise RuleError(f"That {what} is no longer used; look at the tracker again.")
    return handler


class TrackerCog(commands.Cog):
    """A cog that plays one kind of encounter on a pinned tracker. Subclasses set `service` and
    answer the tracker's clicks in `on_button` and `on_select`."""

    service: EncounterService[Any, Any]

    def __init__(self, bot: FateTableBot) -> None:
        self.bot = bot
        # tracker message id -> newest snapshot waiting to be drawn / version drawn
        self._pending: dict[int, Snapshot] = {}
        self._shown: dict[int, int] = Bounded()
        self._trackers: Coalescer[int] = Coalescer("tracker", self._draw, lambda: 0.0)
        self._turns: dict[int, tuple[int, tuple[Any, ...]]] = Bounded()  # id -> (version, key)

    async def cog_unload(self) -> None:
        await self._trackers.flush()  # a stop draws the burst's last edit instead of dropping it

    def next_up(self, snapshot: Snapshot) -> NextUp | None:
        """Who acts next, as the encounter's state decides (None: no line to post)."""
        return snapshot.state.next_up()

    async def announce_turn(
        self,
        snapshot: Snapshot,
        interaction: discord.Interaction | None = None,
        *,
        only_to_ping: bool = False,
    ) -> str | None:
        """One short public line when the turn passes to someone new; it pings that one
        player unless the campaign turned it off, and nothing else it posts ever pings.
        With `interaction` (a slash command not yet answered) the line is its answer.
        With `only_to_ping` (a tracker just posted, which says whose turn it is) the line is
        posted only when it pings someone: the turn is noted either way.
        Returns what it said (without the markup), None when it said nothing."""
        up = self.next_up(snapshot)
        seen = self._turns.get(snapshot.id)
        if up is None or (seen is not None and (seen[0] >= snapshot.version or seen[1] == up.key)):
            return None
        self._turns[snapshot.id] = (snapshot.version, up.key)
        channel = self.bot.get_channel(snapshot.channel_id)
        guild_id = getattr(getattr(channel, "guild", None), "id", None)
        ping = False
        if up.user_id is not None and guild_id is not None:
            known = snapshot.turn_ping  # what the service's unit read, else a unit of its own
            if known is None:
                campaign = await self.bot.campaigns.current(guild_id, snapshot.channel_id)
                known = campaign.settings.turn_ping
            ping = known
        if only_to_ping and not ping:
            return None
        text = f"**{clip(up.name, 100)}** acts next." + (f" <@{up.user_id}>" if ping else "")
        mentions = (
            discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(up.user_id)])
            if ping and up.user_id is not None
            else discord.AllowedMentions.none()
        )
        if interaction is not None:
            await respond(interaction, text, allowed_mentions=mentions)
            return f"{up.name} acts next."
        try:
            await self.bot.get_partial_messageable(snapshot.channel_id).send(
                text, allowed_mentions=mentions
            )
        except discord.HTTPException:
            log.info("could not post whose turn it is in %s", snapshot.channel_id)
            return None
        return f"{up.name} acts next."

    async def _is_gm(self, interaction: discord.Interaction) -> bool:
        return await member_is_gm(self.bot, interaction)

    async def click(self, interaction: discord.Interaction, ident: int, version: int) -> Click:
        prefix = PREFIX[self.service.kind]
        gm = await self._is_gm(interaction)
        return Click(ident, version, interaction.user.id, gm, interaction, prefix)

    async def publish(self, interaction: discord.Interaction, snapshot: Snapshot) -> None:
        """Post a new pinned tracker as the public answer to a slash command."""
        embed, view = render(snapshot)
        await interaction.response.send_message(embed=embed, view=view)
        message = await interaction.original_response()
        kind = _kind_of(snapshot)
        await self.service.set_tracker(snapshot.id, message.id)
        snapshot.tracker_message_id = message.id
        self._shown[message.id] = snapshot.version
        await self.announce_turn(snapshot, only_to_ping=True)  # the tracker says whose turn
        try:
            await message.pin(reason=f"Fate Table {kind} tracker")
        except discord.HTTPException:
            await interaction.followup.send(
                "I could not pin the tracker (I need the Pin Messages permission); "
                "it works unpinned too.",
                ephemeral=True,
            )

    async def retire(self, channel_id: int, message_id: int) -> None:
        """An old copy of a tracker: its buttons stop and it points at the new one."""
        message = self.bot.get_partial_messageable(channel_id).get_partial_message(message_id)
        try:
            await message.edit(content="This tracker moved: use the newest one below.", view=None)
            await message.unpin(reason="a newer tracker is pinned")
        except discord.HTTPException:
            log.info("could not retire the old tracker %s", message_id)

    async def refresh(self, snapshot: Snapshot) -> None:
        """Edit the tracker message in place, coalescing bursts: while one edit is in flight,
        newer snapshots replace each other and only the newest is written next."""
        key = snapshot.tracker_message_id
        if key is None or snapshot.version <= self._shown.get(key, 0):
            return
        waiting = self._pending.get(key)
        if waiting is None or waiting.version < snapshot.version:
            self._pending[key] = snapshot
        self._trackers.poke(key)
        await self.announce_turn(snapshot)

    async def drawn(self, snapshot: Snapshot) -> bool:
        """Bring the tracker up to date and wait for its edit: whether it now shows `snapshot`
        (or a newer state). False when there is no tracker or its message could not be edited
        (someone deleted it)."""
        await self.refresh(snapshot)
        key = snapshot.tracker_message_id
        if key is None:
            return False
        task = self._trackers.tasks.get(key)
        if task is not None:
            await asyncio.shield(task)
        return self._shown.get(key, 0) >= snapshot.version

    def undrawn_note(self, snapshot: Snapshot) -> str:
        """What a GM is told when the change is saved but the tracker could not show it."""
        note = "The change is saved, but I could not update the tracker (was it deleted?)."
        if self.service.is_open(snapshot.state):
            note += f" Type `/{self.service.kind} tracker` to post it again."
        return note

    async def repost(self, interaction: discord.Interaction) -> None:
        """Post the tracker of the encounter running here again; the old copy stops."""
        assert interaction.channel_id is not None
        snap = await self.service.in_channel(interaction.channel_id)
        old = snap.tracker_message_id
        await self.publish(interaction, snap)
        if old is not None and old != snap.tracker_message_id:
            await self.retire(snap.channel_id, old)

    async def _draw(self, key: int) -> None:
        snapshot = self._pending.pop(key, None)
        if snapshot is None or snapshot.version <= self._shown.get(key, 0):
            return
        embed, view = render(snapshot)
        try:
            await edit_message(self.bot, snapshot.channel_id, key, embed=embed, view=view)
            self._shown[key] = snapshot.version
        except discord.HTTPException:
            log.warning("could not edit tracker %s", key)

    async def reply_and_refresh(
        self,
        interaction: discord.Interaction,
        snapshot: Snapshot,
        text: str,
        *,
        on_tracker: bool,
    ) -> None:
        """Answer a slash command and bring the tracker up to date. When the turn passes, the
        public whose-turn line is the answer (no private copy of it). When `on_tracker` (the
        caller says the command's change is what the tracker's edit shows), that edit is the
        answer: Discord needs a response, so a private "thinking" one is made and deleted once
        the tracker shows the change, and nothing stays. Else (or with no tracker to edit, or
        when the edit fails) `text` is said privately."""
        said = await self.announce_turn(snapshot, interaction)
        shown = on_tracker and snapshot.tracker_message_id is not None
        if said is None and shown:
            await interaction.response.defer(ephemeral=True, thinking=True)
            if not await self.drawn(snapshot):
                await interaction.edit_original_response(
                    content=clip(f"{text}\n{self.undrawn_note(snapshot)}", 2000)
                )
                return
            try:
                await interaction.delete_original_response()
            except discord.HTTPException:
                log.info("could not delete the empty answer to a tracker command")
            return
        if said is None:
            await interaction.response.send_message(clip(text, 2000), ephemeral=True)
        elif text != said and not shown:
            await interaction.followup.send(clip(text, 2000), ephemeral=True)
        elif shown and not await self.drawn(snapshot):  # the turn line answered; say the rest
            note = f"{text}\n{self.undrawn_note(snapshot)}"
            await interaction.followup.send(clip(note, 2000), ephemeral=True)
            return
        await self.refresh(snapshot)

    async def answer(self, interaction: discord.Interaction, snapshot: Snapshot) -> None:
        """Answer a click or a form with the service's `snapshot.message`. From the tracker:
        edit it in place, and say the message privately only when the service did not put it
        on the tracker (`on_tracker`). From a private step: that step becomes the answer."""
        text = snapshot.message
        message = interaction.message
        from_message = message is not None and interaction.type in (
            discord.InteractionType.component,
            discord.InteractionType.modal_submit,
        )
        if from_message and message is not None and message.id == snapshot.tracker_message_id:
            key = snapshot.tracker_message_id or 0
            embed, view = render(snapshot)
            if snapshot.version < self._shown.get(key, 0):
                await interaction.response.defer()  # a newer state is already on the tracker
            else:
                await update(interaction, embed=embed, view=view)
                self._shown[key] = snapshot.version
            posted = await self.announce_turn(snapshot)
            if text and not on_tracker(text) and text != posted:
                await interaction.followup.send(clip(text, 2000), ephemeral=True)
            return
        if from_message and message is not None and message.flags.ephemeral:
            await interaction.response.edit_message(content=clip(text or "Done.", 2000), view=None)
        else:
            await interaction.response.send_message(clip(text or "Done.", 2000), ephemeral=True)
        await self.refresh(snapshot)

    async def offer(
        self,
        click: Click,
        choices: Sequence[Choice],
        *,
        none: str,
        question: str,
        action: TrackerAction,
        placeholder: str,
        only: Callable[[str], Awaitable[Snapshot]],
    ) -> None:
        """Ask which of ``choices`` (the sentence ``none`` when there is none); a single one
        is taken at once with the ``only`` step rather than offered as a menu of one."""
        if not choices:
            raise RuleError(none)
        if len(choices) == 1:
            result = await only(choices[0].value)
            await self.answer(click.interaction, result)
            return
        await self.ask(click.interaction, question, click.menu(action, placeholder, list(choices)))

    async def ask_skill(
        self,
        click: Click,
        snap: ConflictSnapshot | ContestSnapshot,
        member: str,
        menu: tuple[str, str | None, str],  # the select's action, its arg and placeholder
        question: str,
        step: Callable[[str], Awaitable[Snapshot]],
    ) -> None:
        """Which skill `member` rolls: a menu of them, or the only one rolled at once."""
        options = skill_options(snap, member)
        if len(options) == 1:
            result = await step(options[0].value)
            await self.answer(click.interaction, result)
            return
        action, arg, placeholder = menu
        view = Components()
        _add_select(view, click.prefix, snap.id, snap.version, action, placeholder, options, arg)
        await self.ask(click.interaction, question, view)

    async def absorb_menu(
        self,
        click: Click,
        service: ConflictService | ContestService,
        options: list[AbsorbOption],
        question: str,
    ) -> None:
        """Take the hit: the ways to absorb it, or the one way taken at once."""
        if len(options) == 1:
            await self._absorb_chosen(click, service, str(options[0].index))
            return
        await self.ask(
            click.interaction,
            question,
            absorb_view(click.prefix, click.ident, click.version, options),
        )

    async def ask(
        self,
        interaction: discord.Interaction,
        text: str,
        view: discord.ui.View,
    ) -> None:
        """A private follow-up question (a select), replacing the previous private step."""
        message = interaction.message
        if (
            message is not None
            and message.flags.ephemeral
            and interaction.type is discord.InteractionType.component
        ):
            await interaction.response.edit_message(content=clip(text, 2000), view=view)
        else:
            await interaction.response.send_message(clip(text, 2000), view=view, ephemeral=True)

    def direct(
        self, call: Callable[[ClickContext], Awaitable[Snapshot]]
    ) -> Callable[[Click, Any], Awaitable[None]]:
        """A button handler that acts at once: the service call, then the tracker's answer."""

        async def act(click: Click, _snap: Any) -> None:
            snap = await call(click)
            await self.answer(click.interaction, snap)

        return act

    def pick(
        self, call: Callable[[ClickContext, str], Awaitable[Snapshot]]
    ) -> Callable[[Click, str | None, str], Awaitable[None]]:
        """A select handler whose pick goes straight to the service."""

        async def act(click: Click, _arg: str | None, value: str) -> None:
            snap = await call(click, value)
            await self.answer(click.interaction, snap)

        return act

    async def on_button(
        self, interaction: discord.Interaction, ident: int, version: int, action: str
    ) -> None:
        """A click on one of this cog's tracker buttons."""
        raise NotImplementedError(f"{type(self).__name__} must answer its buttons")

    async def dispatch(
        self,
        interaction: discord.Interaction,
        ident: int,
        version: int,
        action: str,
        buttons: Mapping[TrackerAction, Callable[[Click, Any], Awaitable[None]]],
        *,
        with_sheets: bool = False,
    ) -> None:
        """Answer a tracker button from its cog's table: the encounter as the clicker saw it
        (the sheets only for the menus that need them), then the button's handler."""
        handler = handler_for(buttons, action, "button")
        click = await self.click(interaction, ident, version)
        snap = await self.service.get(ident, with_sheets=with_sheets)
        if snap.version != version:
            raise RuleError(
                "That tracker is out of date (someone acted first); use the newest buttons."
            )
        await handler(click, snap)

    async def invoke_menu(
        self,
        click: Click,
        name: str,
        choices: Sequence[Choice],
        onto: str,
        step: Callable[[ClickContext, str], Awaitable[Snapshot]],
        *,
        reroll: bool = False,
    ) -> None:
        """Invoke for `name`: +2 `onto` a roll (or, `reroll`, its dice rolled again), with the
        aspects they may invoke."""
        what = f"reroll the dice of {onto}" if reroll else f"+2 on {onto}"
        await self.offer(
            click,
            rerolls(choices) if reroll else choices,
            none=f"{name} has no aspect to invoke right now.",
            question=f"Invoke for {name}: {what}.",
            action=TrackerAction.INVOKE,
            placeholder="Pick an aspect",
            only=click.step(step),
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
        """A pick in one of this cog's tracker selects (`arg`: what the select was drawn for)."""
        raise NotImplementedError(f"{type(self).__name__} must answer its selects")

    async def _absorb_chosen(
        self, click: Click, service: ConflictService | ContestService, value: str
    ) -> None:
        """Apply the picked way to take a hit, first asking for the consequences' names."""
        _, _, options = await service.absorb_options(click)
        index = int(value) if value.isdigit() else -1
        option = next((o for o in options if o.index == index), None)
        if option is None:
            raise RuleError("That choice is gone; press Take the hit again.")
        needing = option.slots_needing_text
        if not needing:
            snap = await service.absorb(click, index, [])
            await self.answer(click.interaction, snap)
            return

        async def absorbed(modal_interaction: discord.Interaction, values: dict[str, str]) -> None:
            texts = [values[f"c{i}"] for i in range(len(needing))]
            result = await service.absorb(click, index, texts)
            await self.answer(modal_interaction, result)

        fields = [(f"c{i}", label, "", 80) for i, label in enumerate(needing)]
        await click.interaction.response.send_modal(
            FormModal("Name the consequence", fields, absorbed)
        )

    async def _name_list_ac(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """Autocomplete for a comma-separated list of character names."""
        return await character_list_autocomplete(interaction, current)
