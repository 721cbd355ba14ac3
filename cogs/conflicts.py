"""/conflict, /contest and /challenge: pinned trackers with buttons that survive restarts.

Every button and select is a DynamicItem whose custom_id carries the encounter id and the
version it was drawn for, so old clicks work after a restart and a double click applies once.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import RuleError
from bot.fate.conflict import ConflictKind
from bot.fate.harm import HarmType
from bot.fate.rolls import ScaleLevel
from bot.services.challenges import ChallengeService, ChallengeSnapshot, parse_tasks
from bot.services.conflict_state import IMPEDED, ConflictSnapshot
from bot.services.conflicts import ConflictService
from bot.services.contests import ContestService, ContestSnapshot
from bot.services.encounters import AbsorbOption, Choice, DiceSource, parse_names, skill_choices
from bot.ui.common import clip
from bot.ui.conflicts import (
    Controls,
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
from cogs.common.coalesce import Coalescer
from cogs.common.errors import SafeModal, guarded
from cogs.common.permissions import member_is_gm, require_gm

log = logging.getLogger(__name__)

# encounter kind -> custom_id prefix
PREFIX = TRACKER_KINDS
KIND_OF = {v: k for k, v in PREFIX.items()}
Snapshot = ConflictSnapshot | ContestSnapshot | ChallengeSnapshot
HARM_CHOICES: list[app_commands.Choice[str]] = [
    app_commands.Choice(name="physical", value="physical"),
    app_commands.Choice(name="mental", value="mental"),
]
SIDE_CHOICES: list[app_commands.Choice[str]] = [
    app_commands.Choice(name="PCs", value="pcs"),
    app_commands.Choice(name="NPCs", value="npcs"),
]
# modal fields: (key, label, default, max length)
SKILL_FIELD = ("skill", "Skill", "", 40)
DIFFICULTY_FIELD = ("difficulty", "Difficulty (GM's number or word)", "Fair", 20)
NEW_ASPECT_FIELD = ("aspect", "The aspect to create", "", 80)
SCALE_CHOICES: list[app_commands.Choice[int]] = [
    app_commands.Choice(name=level.label, value=int(level)) for level in ScaleLevel
]


def _cog(interaction: discord.Interaction) -> Conflicts:
    cog = interaction.client.get_cog("Conflicts")  # type: ignore[attr-defined]
    assert isinstance(cog, Conflicts)
    return cog


def _kind_of(snapshot: Snapshot) -> str:
    if isinstance(snapshot, ConflictSnapshot):
        return "conflict"
    return "contest" if isinstance(snapshot, ContestSnapshot) else "challenge"


def render(snapshot: Snapshot) -> tuple[discord.Embed, discord.ui.View]:
    if isinstance(snapshot, ConflictSnapshot):
        embed, controls = conflict_tracker(snapshot), conflict_controls(snapshot)
    elif isinstance(snapshot, ContestSnapshot):
        embed, controls = contest_tracker(snapshot), contest_controls(snapshot)
    else:
        embed, controls = challenge_tracker(snapshot), challenge_controls(snapshot)
    return embed, build_view(PREFIX[_kind_of(snapshot)], snapshot.id, snapshot.version, controls)


def build_view(prefix: str, ident: int, version: int, controls: Controls) -> discord.ui.View:
    view = discord.ui.View(timeout=None)  # an empty view removes old buttons
    for spec in controls.buttons:
        view.add_item(TrackerButton(prefix, ident, version, spec.action, spec.label, spec.style))
    if controls.select_action and controls.options:
        options = select_options(controls.options)
        view.add_item(
            TrackerSelect(
                prefix, ident, version, controls.select_action, controls.select_placeholder, options
            )
        )
    return view


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
    view = discord.ui.View(timeout=None)
    view.add_item(
        TrackerSelect(prefix, ident, version, action, placeholder, select_options(choices))
    )
    return view


def skill_view(
    prefix: str,
    snap: ConflictSnapshot | ContestSnapshot,
    member: str,
    action: str,
    arg: str | None,
    placeholder: str,
) -> discord.ui.View:
    """A select of the member's skills, best first (Mediocre when the sheet is gone)."""
    sheet = snap.sheets.get(member)
    pairs = skill_choices(sheet) if sheet else []
    options = [
        discord.SelectOption(label=clip(f"{name} ({rating:+d})", 100), value=name[:100])
        for name, rating in pairs
    ] or [discord.SelectOption(label="Mediocre (+0)", value="Mediocre")]
    view = discord.ui.View(timeout=None)
    view.add_item(TrackerSelect(prefix, snap.id, snap.version, action, placeholder, options, arg))
    return view


def absorb_view(
    prefix: str, ident: int, version: int, options: list[AbsorbOption]
) -> discord.ui.View:
    choices = [Choice(str(o.index), o.label) for o in options]
    return choice_view(prefix, ident, version, "abs", "How do you take it?", choices)


class TrackerButton(
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

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> TrackerButton:
        return cls(match["p"], int(match["id"]), int(match["v"]), match["act"])

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        await _cog(interaction).on_button(
            interaction, KIND_OF[self.prefix], self.ident, self.version, self.action
        )


class TrackerSelect(
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
                placeholder=clip(placeholder, 150),
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
        await _cog(interaction).on_select(
            interaction,
            KIND_OF[self.prefix],
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


class Conflicts(commands.Cog):
    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.dice = DiceSource()  # the three share it; tests script it
        self.conflicts = ConflictService(bot.db, self.dice)
        self.contests = ContestService(bot.db, self.dice)
        self.challenges = ChallengeService(bot.db, self.dice)
        self.services: dict[str, ConflictService | ContestService | ChallengeService] = {
            "conflict": self.conflicts,
            "contest": self.contests,
            "challenge": self.challenges,
        }
        # tracker message id -> newest snapshot waiting to be drawn / version drawn
        self._pending: dict[int, Snapshot] = {}
        self._shown: dict[int, int] = {}
        self._trackers: Coalescer[int] = Coalescer("tracker", self._draw, lambda: 0.0)

    # ------------------------------------------------------------------ helpers
    async def _is_gm(self, interaction: discord.Interaction) -> bool:
        return await member_is_gm(self.bot, interaction)

    async def publish(self, interaction: discord.Interaction, snapshot: Snapshot) -> None:
        """Post a new pinned tracker as the public answer to a slash command."""
        embed, view = render(snapshot)
        await interaction.response.send_message(embed=embed, view=view)
        message = await interaction.original_response()
        kind = _kind_of(snapshot)
        await self.services[kind].set_tracker(snapshot.id, message.id)
        snapshot.tracker_message_id = message.id
        self._shown[message.id] = snapshot.version
        try:
            await message.pin(reason=f"Fate Table {kind} tracker")
        except discord.HTTPException:
            await interaction.followup.send(
                "I could not pin the tracker (I need the Pin Messages permission); "
                "it works unpinned too.",
                ephemeral=True,
            )

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

    async def _draw(self, key: int) -> None:
        snapshot = self._pending.pop(key, None)
        if snapshot is None or snapshot.version <= self._shown.get(key, 0):
            return
        embed, view = render(snapshot)
        channel = self.bot.get_partial_messageable(snapshot.channel_id)
        try:
            await channel.get_partial_message(key).edit(embed=embed, view=view)
            self._shown[key] = snapshot.version
        except discord.HTTPException:
            log.warning("could not edit tracker %s", key)

    async def reply_and_refresh(
        self, interaction: discord.Interaction, snapshot: Snapshot, text: str
    ) -> None:
        """Answer a slash command privately and bring the tracker up to date."""
        await interaction.response.send_message(text, ephemeral=True)
        await self.refresh(snapshot)

    async def answer(self, interaction: discord.Interaction, snapshot: Snapshot, text: str) -> None:
        """Answer a component/modal: edit the tracker if it was clicked, else reply privately."""
        message = interaction.message
        on_tracker = message is not None and message.id == snapshot.tracker_message_id
        if on_tracker and interaction.type is discord.InteractionType.component:
            key = snapshot.tracker_message_id or 0
            if snapshot.version < self._shown.get(key, 0):
                await interaction.response.defer()  # a newer state is already on the tracker
            else:
                embed, view = render(snapshot)
                await interaction.response.edit_message(embed=embed, view=view)
                self._shown[key] = snapshot.version
            if text:
                await interaction.followup.send(clip(text, 2000), ephemeral=True)
            return
        if (
            message is not None
            and interaction.type is discord.InteractionType.component
            and message.flags.ephemeral
        ):
            await interaction.response.edit_message(content=clip(text or "Done.", 2000), view=None)
        else:
            await interaction.response.send_message(clip(text or "Done.", 2000), ephemeral=True)
        await self.refresh(snapshot)

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

    # ------------------------------------------------------------------ dispatch
    async def on_button(
        self, interaction: discord.Interaction, kind: str, ident: int, version: int, action: str
    ) -> None:
        handler = {
            "conflict": self.conflict_button,
            "contest": self.contest_button,
            "challenge": self.challenge_button,
        }[kind]
        await handler(interaction, ident, version, action)

    async def on_select(
        self,
        interaction: discord.Interaction,
        kind: str,
        ident: int,
        version: int,
        action: str,
        arg: str | None,
        value: str,
    ) -> None:
        handler = {
            "conflict": self.conflict_select,
            "contest": self.contest_select,
            "challenge": self.challenge_select,
        }[kind]
        await handler(interaction, ident, version, action, arg, value)

    # ------------------------------------------------------------------ conflict: buttons
    async def conflict_button(
        self, interaction: discord.Interaction, ident: int, version: int, action: str
    ) -> None:
        user, gm = interaction.user.id, await self._is_gm(interaction)
        svc = self.conflicts
        # the sheets only feed the teamwork and defence menus
        snap = await svc.get(ident, with_sheets=action in ("help", "def"))
        if snap.version != version:
            raise RuleError(
                "That tracker is out of date (someone acted first); use the newest buttons."
            )
        if action == "res":
            snap = await svc.resolve(ident, version, user, gm)
            await self.answer(interaction, snap, snap.message)
            return
        if action == "boost":
            snap = await svc.trade_for_boost(ident, version, user, gm)
            await self.answer(interaction, snap, snap.message)
            return
        if action == "ract":
            snap = await svc.resolve_action(ident, version, user, gm)
            await self.answer(interaction, snap, snap.message)
            return
        if action == "stu":
            choices = await svc.stunt_choices(ident, user, gm)
            if not choices:
                raise RuleError(
                    "No stunt of yours fits this roll (its skill and action must match the "
                    "stunt's, and each stunt counts once)."
                )
            await self.ask(
                interaction,
                "Add a stunt's bonus to the roll in progress.",
                choice_view("cf", ident, version, "stu", "Which stunt?", choices),
            )
            return
        if action == "help":
            choices = svc.helper_choices(snap, user, gm)
            if not choices:
                raise RuleError(
                    "None of your characters can help: a helper is on the roller's side, has "
                    "Average (+1) or better in the skill and has not acted this exchange (the "
                    "defender's side helps once the defence is rolled)."
                )
            if len(choices) == 1:
                snap = await svc.teamwork(ident, version, user, gm, choices[0].value)
                await self.answer(interaction, snap, snap.message)
                return
            await self.ask(
                interaction,
                "Who helps? Helping uses that character's action for this exchange.",
                choice_view("cf", ident, version, "help", "Who helps?", choices),
            )
            return
        if action == "con":
            choices = svc.concede_choices(snap, user, gm)
            if not choices:
                raise RuleError("None of your characters is still in this conflict.")
            await self.ask(
                interaction,
                "Who concedes? They leave the conflict and are paid when it ends.",
                choice_view("cf", ident, version, "con", "Who concedes?", choices),
            )
            return
        if action == "inv":
            name, choices = await svc.invoke_choices(ident, user, gm)
            if not choices:
                raise RuleError(f"{name} has no aspect to invoke right now.")
            await self.ask(
                interaction,
                f"Invoke for {name}: +2 on the roll in progress.",
                choice_view("cf", ident, version, "inv", "Pick an aspect", choices),
            )
            return
        if action == "abs":
            _, shifts, options = await svc.absorb_options(ident, user, gm)
            await self.ask(
                interaction,
                f"Absorb a {shifts}-shift hit: pick stress boxes and/or consequences.",
                absorb_view("cf", ident, version, options),
            )
            return
        if action == "def":
            member, pending = svc.defender_now(snap, user, gm)
            await self.ask(
                interaction,
                f"{member.name} defends against {pending.attack_effort:+d}: pick a skill.",
                skill_view("cf", snap, pending.defender, "def", None, "Defend with"),
            )
            return
        # the acting character's own actions
        actor = svc.actor_now(snap, user, gm)
        if action == "atk":
            await self.ask(
                interaction,
                f"{actor.name} attacks: pick a target.",
                choice_view("cf", ident, version, "tgt", "Attack whom?", svc.attack_targets(snap)),
            )
        elif action == "mov":
            await self.ask(
                interaction,
                f"{actor.name} moves: pick a zone.",
                choice_view("cf", ident, version, "mov", "Move where?", svc.move_choices(snap)),
            )
        elif action == "adv":
            targets = await svc.advantage_targets(ident, user, gm)
            if len(targets) <= 1:
                await self._action_modal(interaction, ident, version, action)
                return
            await self.ask(
                interaction,
                f"{actor.name} creates an advantage: on a new aspect or on one in play?",
                choice_view("cf", ident, version, "advt", "Which aspect?", targets),
            )
        elif action == "ovc":
            await self._action_modal(interaction, ident, version, action)
        else:
            raise RuleError("That button is no longer used; look at the tracker again.")

    async def _action_modal(
        self,
        interaction: discord.Interaction,
        ident: int,
        version: int,
        action: str,
        existing: str | None = None,
    ) -> None:
        user, gm = interaction.user.id, await self._is_gm(interaction)

        async def done(modal_interaction: discord.Interaction, values: dict[str, str]) -> None:
            if action == "ovc":
                snap = await self.conflicts.overcome(
                    ident, version, user, gm, values["skill"], values["difficulty"]
                )
            else:
                snap = await self.conflicts.create_advantage(
                    ident,
                    version,
                    user,
                    gm,
                    values["skill"],
                    values["difficulty"],
                    values.get("aspect", ""),
                    existing,
                )
            await self.answer(modal_interaction, snap, snap.message)

        fields = [
            SKILL_FIELD,
            DIFFICULTY_FIELD,
        ]
        title = "Overcome" if action == "ovc" else "Create an advantage"
        if action == "adv" and existing is None:
            fields.append(NEW_ASPECT_FIELD)
        await interaction.response.send_modal(FormModal(title, fields, done))

    # ------------------------------------------------------------------ conflict: selects
    async def conflict_select(
        self,
        interaction: discord.Interaction,
        ident: int,
        version: int,
        action: str,
        arg: str | None,
        value: str,
    ) -> None:
        user, gm = interaction.user.id, await self._is_gm(interaction)
        svc = self.conflicts
        snap: ConflictSnapshot
        if action == "tgt":
            current = await svc.get(ident)
            actor = current.conflict.current
            if actor is None:
                raise RuleError("Nobody is acting right now.")
            await self.ask(
                interaction,
                f"Attack {current.state.name(value)} with which skill?",
                skill_view("cf", current, actor, "atk", value, "Attack with"),
            )
            return
        if action == "advt":
            await self._action_modal(
                interaction, ident, version, "adv", None if value == "new" else value
            )
            return
        if action == "mov":
            rolled = value.startswith(IMPEDED)
            value = value.removeprefix(IMPEDED)
            current = await svc.get(ident, with_sheets=False)
            if rolled or svc.needs_roll_to_move(current, value):

                async def done(
                    modal_interaction: discord.Interaction, values: dict[str, str]
                ) -> None:
                    moved = await svc.move(
                        ident, version, user, gm, value, values["skill"], values["difficulty"]
                    )
                    await self.answer(modal_interaction, moved, moved.message)

                await interaction.response.send_modal(
                    FormModal(
                        f"Move to {value}: an overcome",
                        [
                            ("skill", "Skill", "Athletics", 40),
                            DIFFICULTY_FIELD,
                        ],
                        done,
                    )
                )
                return
            snap = await svc.move(ident, version, user, gm, value)
        elif action == "abs":
            await self._absorb_chosen(interaction, svc, ident, version, value)
            return
        elif action == "atk":
            snap = await svc.attack(ident, version, user, gm, arg or "", value)
        elif action == "def":
            snap = await svc.defend(ident, version, user, gm, value)
        elif action == "inv":
            snap = await svc.invoke(ident, version, user, gm, value)
        elif action == "stu":
            snap = await svc.add_stunt(ident, version, user, gm, value)
        elif action == "help":
            snap = await svc.teamwork(ident, version, user, gm, value)
        elif action == "con":
            snap = await svc.concede(ident, version, user, gm, value)
        elif action == "next":
            snap = await svc.pick_next(ident, version, user, gm, value)
        else:
            raise RuleError("That menu is no longer used; look at the tracker again.")
        await self.answer(interaction, snap, snap.message)

    async def _absorb_chosen(
        self,
        interaction: discord.Interaction,
        service: ConflictService | ContestService,
        ident: int,
        version: int,
        value: str,
    ) -> None:
        """Apply the picked way to take a hit, first asking for the consequences' names."""
        user, gm = interaction.user.id, await self._is_gm(interaction)
        _, _, options = await service.absorb_options(ident, user, gm)
        index = int(value) if value.isdigit() else -1
        option = next((o for o in options if o.index == index), None)
        if option is None:
            raise RuleError("That choice is gone; press Take the hit again.")
        needing = option.slots_needing_text
        if not needing:
            snap = await service.absorb(ident, version, user, gm, index, [])
            await self.answer(interaction, snap, snap.message)
            return

        async def absorbed(modal_interaction: discord.Interaction, values: dict[str, str]) -> None:
            texts = [values[f"c{i}"] for i in range(len(needing))]
            result = await service.absorb(ident, version, user, gm, index, texts)
            await self.answer(modal_interaction, result, result.message)

        fields = [(f"c{i}", label, "", 80) for i, label in enumerate(needing)]
        await interaction.response.send_modal(FormModal("Name the consequence", fields, absorbed))

    # ------------------------------------------------------------------ contests
    async def contest_button(
        self, interaction: discord.Interaction, ident: int, version: int, action: str
    ) -> None:
        user, gm = interaction.user.id, await self._is_gm(interaction)
        snap = await self.contests.get(ident, with_sheets=action == "roll")  # for the skill menu
        if snap.version != version:
            raise RuleError("That tracker is out of date; use the newest buttons.")
        if action == "twist":
            if not gm:
                raise RuleError("Only the GM adds the twist on a tie.")

            async def twisted(
                modal_interaction: discord.Interaction, values: dict[str, str]
            ) -> None:
                result = await self.contests.twist(ident, version, values["aspect"])
                await self.answer(modal_interaction, result, result.message)

            await interaction.response.send_modal(
                FormModal("A twist on the tie", [("aspect", "Twist aspect", "", 80)], twisted)
            )
            return
        if action == "abs":
            victim, shifts, options = await self.contests.absorb_options(ident, user, gm)
            await self.ask(
                interaction,
                f"{victim} absorbs a {shifts}-shift hit: pick stress boxes and/or consequences.",
                absorb_view("ct", ident, version, options),
            )
            return
        if action in ("res", "forfeit", "give"):
            if action == "res":
                result = await self.contests.resolve(ident, version, user, gm)
            else:
                result = await self.contests.settle_failure(
                    ident, version, user, gm, forfeit=action == "forfeit"
                )
            await self.answer(interaction, result, result.message)
            return
        if action == "inv":
            name, choices = await self.contests.invoke_choices(ident, user, gm)
            if not choices:
                raise RuleError(f"{name} has no aspect to invoke right now.")
            await self.ask(
                interaction,
                f"Invoke for {name}: +2 on the side's roll.",
                choice_view("ct", ident, version, "inv", "Pick an aspect", choices),
            )
            return
        if action not in ("roll", "help", "adv"):
            raise RuleError("That button is no longer used; look at the tracker again.")
        members = self.contests.members_for(snap, user, gm, rolling=action == "roll")
        if not members:
            raise RuleError("None of your characters is on a side that can act now.")
        if action == "help":
            if len(members) == 1:
                result = await self.contests.teamwork(ident, version, user, gm, members[0].value)
                await self.answer(interaction, result, result.message)
                return
            await self.ask(
                interaction,
                "Who gives teamwork (+1 to their side's roll)?",
                choice_view("ct", ident, version, "help", "Who helps?", members),
            )
            return
        if action == "adv":
            if len(members) == 1:
                await self._contest_advantage(interaction, ident, version, members[0].value)
                return
            await self.ask(
                interaction,
                "Who tries to create an advantage?",
                choice_view("ct", ident, version, "advwho", "Who acts?", members),
            )
            return
        if len(members) == 1:
            await self._contest_skill(interaction, snap, members[0].value)
            return
        await self.ask(
            interaction,
            "Who rolls for the side?",
            choice_view("ct", ident, version, "who", "Who rolls?", members),
        )

    async def _contest_skill(
        self, interaction: discord.Interaction, snap: ContestSnapshot, member: str
    ) -> None:
        await self.ask(
            interaction,
            f"{snap.state.name(member)} rolls for the side: pick a skill.",
            skill_view("ct", snap, member, "roll", member, "Roll which skill?"),
        )

    async def _contest_advantage(
        self, interaction: discord.Interaction, ident: int, version: int, member: str
    ) -> None:
        user, gm = interaction.user.id, await self._is_gm(interaction)

        async def done(modal_interaction: discord.Interaction, values: dict[str, str]) -> None:
            snap = await self.contests.advantage(
                ident,
                version,
                user,
                gm,
                member,
                values["skill"],
                values["difficulty"],
                values["aspect"],
            )
            await self.answer(modal_interaction, snap, snap.message)

        fields = [
            SKILL_FIELD,
            DIFFICULTY_FIELD,
            NEW_ASPECT_FIELD,
        ]
        await interaction.response.send_modal(FormModal("Create an advantage", fields, done))

    async def contest_select(
        self,
        interaction: discord.Interaction,
        ident: int,
        version: int,
        action: str,
        arg: str | None,
        value: str,
    ) -> None:
        user, gm = interaction.user.id, await self._is_gm(interaction)
        if action == "who":
            await self._contest_skill(interaction, await self.contests.get(ident), value)
            return
        if action == "advwho":
            await self._contest_advantage(interaction, ident, version, value)
            return
        if action == "abs":
            await self._absorb_chosen(interaction, self.contests, ident, version, value)
            return
        if action == "inv":
            snap = await self.contests.invoke(ident, version, user, gm, value)
        elif action == "help":
            snap = await self.contests.teamwork(ident, version, user, gm, value)
        elif action == "roll":
            snap = await self.contests.roll(ident, version, user, gm, arg or "", value)
        else:
            raise RuleError("That menu is no longer used; look at the tracker again.")
        await self.answer(interaction, snap, snap.message)

    # ------------------------------------------------------------------ challenges
    async def challenge_button(
        self, interaction: discord.Interaction, ident: int, version: int, action: str
    ) -> None:
        user, gm = interaction.user.id, await self._is_gm(interaction)
        snap = await self.challenges.get(ident)
        if snap.version != version:
            raise RuleError("That tracker is out of date; use the newest buttons.")
        if action == "claim":
            tasks = self.challenges.open_tasks(snap)
            if not tasks:
                raise RuleError(
                    "Every task is taken; the GM can reassign with `/challenge assign`."
                )
            await self.ask(
                interaction,
                "Claim a task for your active character.",
                choice_view("ch", ident, version, "claim", "Which task?", tasks),
            )
        elif action == "roll":
            tasks = self.challenges.rollable_tasks(snap, user, gm)
            if not tasks:
                raise RuleError(
                    "You have no task to roll: claim one first (or the GM assigns one to you)."
                )
            await self.ask(
                interaction,
                "Roll a task: the skill and difficulty come from the task.",
                choice_view("ch", ident, version, "roll", "Which task?", tasks),
            )
        elif action == "inv":
            choices = await self.challenges.invoke_choices(ident, user, gm)
            if not choices:
                raise RuleError("There is no aspect you can invoke on that roll right now.")
            await self.ask(
                interaction,
                "Invoke for +2 on a task roll before it is kept.",
                choice_view("ch", ident, version, "inv", "Pick an aspect", choices),
            )
        elif action == "keep":
            waiting = self.challenges.waiting_rolls(snap, user, gm)
            if not waiting:
                raise RuleError("You have no task roll waiting; roll a task first.")
            if len(waiting) == 1:
                kept = await self.challenges.keep(ident, version, user, gm, waiting[0].value)
                await self.answer(interaction, kept, kept.message)
                return
            await self.ask(
                interaction,
                "Which roll is final?",
                choice_view("ch", ident, version, "keep", "Which roll?", waiting),
            )
        else:
            raise RuleError("That button is no longer used; look at the tracker again.")

    async def challenge_select(
        self,
        interaction: discord.Interaction,
        ident: int,
        version: int,
        action: str,
        arg: str | None,
        value: str,
    ) -> None:
        user, gm = interaction.user.id, await self._is_gm(interaction)
        if action == "claim":
            snap = await self.challenges.claim(
                ident, version, interaction.guild_id or 0, user, value
            )
        elif action == "roll":
            snap = await self.challenges.roll(ident, version, user, gm, value)
        elif action == "inv":
            snap = await self.challenges.invoke(ident, version, user, gm, value)
        elif action == "keep":
            snap = await self.challenges.keep(ident, version, user, gm, value)
        else:
            raise RuleError("That menu is no longer used; look at the tracker again.")
        await self.answer(interaction, snap, snap.message)

    # ------------------------------------------------------------------ autocomplete
    async def _names(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.guild_id is None or interaction.channel_id is None:
            return []
        campaign = await self.bot.campaigns.current(interaction.guild_id, interaction.channel_id)
        names = await self.bot.campaigns.character_names(campaign.id)
        head, _, tail = current.rpartition(",")
        prefix = f"{head.strip()}, " if head.strip() else ""
        wanted = tail.strip().casefold()
        chosen = {n.strip().casefold() for n in head.split(",")}
        found = []
        for entry in names:
            if entry.name.casefold() in chosen or wanted not in entry.name.casefold():
                continue
            label = f"{prefix}{entry.name}"
            if len(label) <= 100:
                tag = " (NPC)" if entry.is_npc else ""
                found.append(app_commands.Choice(name=clip(label + tag, 100), value=label))
            if len(found) >= 25:
                break
        return found

    # ------------------------------------------------------------------ /conflict
    conflict = app_commands.Group(
        name="conflict", description="Run a conflict with a pinned tracker.", guild_only=True
    )

    @conflict.command(name="start", description="Start a conflict in this channel (GM).")
    @app_commands.describe(
        kind="Physical (harm to the body) or mental (harm to the mind).",
        participants="PCs and NPCs by name, separated by commas.",
        first="Who acts first (one of the participants).",
        zones="Zones in a row, separated by commas (each touches the next); optional.",
    )
    @app_commands.choices(kind=HARM_CHOICES)
    async def conflict_start(
        self,
        interaction: discord.Interaction,
        kind: app_commands.Choice[str],
        participants: app_commands.Range[str, 1, 1000],
        first: app_commands.Range[str, 1, 100],
        zones: app_commands.Range[str, 0, 500] = "",
    ) -> None:
        await require_gm(self.bot, interaction, "start a conflict")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        names = parse_names(participants, "participants")
        zone_list = [z.strip() for z in zones.split(",") if z.strip()] if zones else []
        snap = await self.conflicts.start(
            interaction.guild_id,
            interaction.channel_id,
            interaction.user.id,
            ConflictKind(kind.value),
            names,
            first,
            zone_list,
        )
        await self.publish(interaction, snap)

    @conflict_start.autocomplete("first")
    async def _first_ac(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await self._names(interaction, current.replace(",", " "))

    @conflict.command(name="next", description="End your turn and pick who acts next.")
    @app_commands.describe(who="Who acts next; empty = the first who has not acted this exchange.")
    async def conflict_next(
        self, interaction: discord.Interaction, who: app_commands.Range[str, 0, 100] = ""
    ) -> None:
        assert interaction.channel_id is not None
        snap = await self.conflicts.pass_turn(
            interaction.channel_id, interaction.user.id, await self._is_gm(interaction), who
        )
        await self.reply_and_refresh(interaction, snap, snap.message)

    @conflict_next.autocomplete("who")
    async def _next_ac(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.channel_id is None:
            return []
        names = await self.conflicts.next_names(interaction.channel_id, current)
        return [app_commands.Choice(name=clip(n, 100), value=clip(n, 100)) for n in names]

    @conflict.command(name="tracker", description="Post the tracker again (the old one stops).")
    async def conflict_tracker_cmd(self, interaction: discord.Interaction) -> None:
        assert interaction.channel_id is not None
        snap = await self.conflicts.in_channel(interaction.channel_id)
        old = snap.tracker_message_id
        await self.publish(interaction, snap)
        if old is not None and old != snap.tracker_message_id:
            channel = self.bot.get_partial_messageable(snap.channel_id)
            try:
                await channel.get_partial_message(old).unpin(reason="a newer tracker is pinned")
            except discord.HTTPException:
                log.info("could not unpin the old tracker %s", old)

    @conflict.command(name="end", description="End the conflict here and pay concessions (GM).")
    async def conflict_end(self, interaction: discord.Interaction) -> None:
        await require_gm(self.bot, interaction, "end a conflict")
        assert interaction.channel_id is not None
        snap = await self.conflicts.end(interaction.channel_id)
        await interaction.response.send_message(
            clip("\n".join(snap.state.log[-3:]) or "The conflict is over.", 2000)
        )
        await self.refresh(snap)

    @conflict.command(
        name="scale", description="Set a side's scale (GM); counts from the next roll."
    )
    @app_commands.describe(
        side="The PCs' side or the NPCs' side.",
        level="Mundane, Supernatural, Otherworldly, Legendary or Godlike.",
    )
    @app_commands.choices(side=SIDE_CHOICES)
    @app_commands.choices(level=SCALE_CHOICES)
    async def conflict_scale(
        self,
        interaction: discord.Interaction,
        side: app_commands.Choice[str],
        level: app_commands.Choice[int],
    ) -> None:
        await require_gm(self.bot, interaction, "set the scale")
        assert interaction.channel_id is not None
        snap = await self.conflicts.set_scale(interaction.channel_id, side.value, level.value)
        await self.reply_and_refresh(interaction, snap, snap.message)

    # ------------------------------------------------------------------ /contest
    contest = app_commands.Group(
        name="contest",
        description="Run a contest: sides race to a number of victories.",
        guild_only=True,
    )

    @contest.command(name="start", description="Start a contest between two or three sides (GM).")
    @app_commands.describe(
        side_a="The first side's characters, separated by commas.",
        side_b="The second side's characters, separated by commas.",
        side_c="An optional third side.",
        victories="Victories needed to win (1 to 5; default 3).",
        intent_a="What the first side wants (optional).",
        intent_b="What the second side wants (optional).",
        intent_c="What the third side wants (optional).",
        harming="Letters of the sides that try to harm the others (e.g. b): losers take hits.",
        harm="What the harming sides' hits strike: physical (default) or mental stress.",
    )
    @app_commands.choices(harm=HARM_CHOICES)
    async def contest_start(
        self,
        interaction: discord.Interaction,
        side_a: app_commands.Range[str, 1, 500],
        side_b: app_commands.Range[str, 1, 500],
        side_c: app_commands.Range[str, 0, 500] = "",
        victories: app_commands.Range[int, 1, 5] = 3,
        intent_a: app_commands.Range[str, 0, 200] = "",
        intent_b: app_commands.Range[str, 0, 200] = "",
        intent_c: app_commands.Range[str, 0, 200] = "",
        harming: app_commands.Range[str, 0, 3] = "",
        harm: str = "physical",
    ) -> None:
        await require_gm(self.bot, interaction, "start a contest")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        sides = [(side_a, intent_a), (side_b, intent_b)]
        if side_c.strip():
            sides.append((side_c, intent_c))
        snap = await self.contests.start(
            interaction.guild_id,
            interaction.channel_id,
            interaction.user.id,
            sides,
            victories,
            harming,
            HarmType(harm if harm in ("physical", "mental") else "physical"),
        )
        await self.publish(interaction, snap)

    @conflict_start.autocomplete("participants")
    @contest_start.autocomplete("side_a")
    @contest_start.autocomplete("side_b")
    @contest_start.autocomplete("side_c")
    async def _name_list_ac(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await self._names(interaction, current)

    @contest.command(name="end", description="Stop the contest running here (GM).")
    async def contest_end(self, interaction: discord.Interaction) -> None:
        await require_gm(self.bot, interaction, "end a contest")
        assert interaction.channel_id is not None
        snap = await self.contests.end(interaction.channel_id)
        await self.reply_and_refresh(interaction, snap, "The contest is stopped.")

    # ------------------------------------------------------------------ /challenge
    challenge = app_commands.Group(
        name="challenge", description="Run a challenge: several overcome tasks.", guild_only=True
    )

    @challenge.command(name="start", description="Start a challenge of overcome tasks (GM).")
    @app_commands.describe(
        tasks="Tasks as skill:difficulty, separated by commas (e.g. Lore:3, Athletics:Fair).",
        title="What the challenge is about (optional).",
    )
    async def challenge_start(
        self,
        interaction: discord.Interaction,
        tasks: app_commands.Range[str, 1, 1000],
        title: app_commands.Range[str, 0, 200] = "",
    ) -> None:
        await require_gm(self.bot, interaction, "start a challenge")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        snap = await self.challenges.start(
            interaction.guild_id,
            interaction.channel_id,
            interaction.user.id,
            parse_tasks(tasks),
            title,
        )
        await self.publish(interaction, snap)

    @challenge.command(name="assign", description="Give a task to a character (GM).")
    @app_commands.describe(
        task="The task's number on the tracker.", character="Who takes the task."
    )
    async def challenge_assign(
        self,
        interaction: discord.Interaction,
        task: app_commands.Range[int, 1, 10],
        character: app_commands.Range[str, 1, 100],
    ) -> None:
        await require_gm(self.bot, interaction, "assign challenge tasks")
        assert interaction.channel_id is not None
        snap = await self.challenges.assign(interaction.channel_id, task, character)
        await self.reply_and_refresh(interaction, snap, snap.message)

    @challenge_assign.autocomplete("character")
    async def _assign_ac(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await self._names(interaction, current.replace(",", " "))

    @challenge.command(name="cost", description="Write down the cost of a rolled task (GM).")
    @app_commands.describe(task="The task's number on the tracker.", cost="What it cost them.")
    async def challenge_cost(
        self,
        interaction: discord.Interaction,
        task: app_commands.Range[int, 1, 10],
        cost: app_commands.Range[str, 1, 200],
    ) -> None:
        await require_gm(self.bot, interaction, "note a task's cost")
        assert interaction.channel_id is not None
        snap = await self.challenges.cost(interaction.channel_id, task, cost)
        await self.reply_and_refresh(interaction, snap, snap.message)

    @challenge.command(name="end", description="Close the challenge running here (GM).")
    async def challenge_end(self, interaction: discord.Interaction) -> None:
        await require_gm(self.bot, interaction, "end a challenge")
        assert interaction.channel_id is not None
        snap = await self.challenges.end(interaction.channel_id)
        await self.reply_and_refresh(interaction, snap, snap.message)


async def setup(bot: Any) -> None:
    bot.add_dynamic_items(TrackerButton, TrackerSelect)
    await bot.add_cog(Conflicts(bot))
