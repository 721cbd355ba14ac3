"""/conflict: a pinned tracker with buttons that survive restarts (cogs/common/trackers.py has
what /conflict, /contest and /challenge share)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.errors import RuleError
from bot.fate.conflict import ConflictKind
from bot.fate.rolls import ScaleLevel
from bot.services.conflict_state import IMPEDED, ConflictSnapshot
from bot.services.conflicts import ConflictService
from bot.services.encounters import parse_names
from bot.ui.common import clip
from cogs.common.trackers import (
    DIFFICULTY_FIELD,
    HARM_CHOICES,
    NEW_ASPECT_FIELD,
    SKILL_FIELD,
    FormModal,
    TrackerButton,
    TrackerCog,
    TrackerSelect,
    absorb_view,
    choice_view,
    log,
    skill_view,
)

if TYPE_CHECKING:
    from bot.client import FateTableBot
from cogs.common.permissions import require_gm

SIDE_CHOICES: list[app_commands.Choice[str]] = [
    app_commands.Choice(name="PCs", value="pcs"),
    app_commands.Choice(name="NPCs", value="npcs"),
]
SCALE_CHOICES: list[app_commands.Choice[int]] = [
    app_commands.Choice(name=level.label, value=int(level)) for level in ScaleLevel
]


class Conflicts(TrackerCog):
    def __init__(self, bot: FateTableBot) -> None:
        super().__init__(bot)
        self.conflicts = self.service = ConflictService(bot.db, bot.dice)

    # ------------------------------------------------------------------ conflict: buttons
    async def on_button(
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
    async def on_select(
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

    # ------------------------------------------------------------------ contests

    # ------------------------------------------------------------------ challenges

    # ------------------------------------------------------------------ autocomplete

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

    # ------------------------------------------------------------------ /challenge

    conflict_start.autocomplete("participants")(TrackerCog._name_list_ac)


async def setup(bot: FateTableBot) -> None:
    bot.add_dynamic_items(TrackerButton, TrackerSelect)
    await bot.add_cog(Conflicts(bot))
