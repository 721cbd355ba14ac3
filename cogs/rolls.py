"""/roll, /roll-log and /rules, and every button and select on a roll message.

Thin: parse, check who clicks, call one RollService method, render with bot.ui.rolls, respond.
The roll's state lives in its database row, so the buttons work after a restart.
"""

from __future__ import annotations

import logging
import random
import re
import time
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import RuleError
from bot.fate.dice_expr import looks_like_dice_expression, roll_dice_expression
from bot.fate.quick_roll import quick_roll
from bot.fate.rolls import Action, InvokeMode, ScaleLevel, ScaleMode
from bot.fate.rules_ref import get_topic, search_topics
from bot.services.roll_base import AdvantageChanged, RollRequest, RollView
from bot.services.rolls import RollService
from bot.ui.common import clip
from bot.ui.custom_ids import (
    ABSTRACT_TEMPLATE,
    ASPECT_SELECT_TEMPLATE,
    DEFEND_SELECT_TEMPLATE,
    PAYMENT_SELECT_TEMPLATE,
    ROLL_BUTTON_TEMPLATE,
    RULES_SHARE_TEMPLATE,
    SCALE_SELECT_TEMPLATE,
    STUNT_SELECT_TEMPLATE,
    mode_from_code,
    rules_share_id,
)
from bot.ui.rolls import (
    NO_SKILL,
    aspect_picker,
    components_of,
    defend_picker,
    expression_text,
    gm_buttons,
    gm_panel,
    ladder_choices,
    log_embed,
    payment_picker,
    quick_roll_embed,
    roll_components,
    roll_embed,
    roll_title,
    rules_embed,
    scale_picker,
    shown_aspect_name,
)
from cogs.common.brief_cache import BriefCache
from cogs.common.edits import edit_message
from cogs.common.errors import NotAllowed, guarded
from cogs.common.installs import anywhere, has_table
from cogs.common.permissions import member_is_gm
from cogs.common.respond import respond, update
from cogs.common.scope import UNSCOPED, ScopedItem

log = logging.getLogger(__name__)

ANYWHERE_ONLY_DICE = (
    "`against`, `action` and `aspect` need a campaign, on a server that added Fate Table. "
    "Here roll dice or a number, with a difficulty and a description."
)
SKILL_CACHE_SECONDS = 15.0  # autocomplete answers from memory between two lookups
ACTIONS = {
    "overcome": Action.OVERCOME,
    "create_advantage": Action.CREATE_ADVANTAGE,
    "attack": Action.ATTACK,
    "defend": Action.DEFEND,
}


# --------------------------------------------------------------------------- plumbing
def _cog(interaction: discord.Interaction) -> Rolls:
    cog = interaction.client.get_cog("Rolls")  # type: ignore[attr-defined]
    assert isinstance(cog, Rolls)
    return cog


def _name(interaction: discord.Interaction) -> str:
    return getattr(interaction.user, "display_name", None) or interaction.user.name


def _select_value(item: discord.ui.Select[Any]) -> str:
    if not item.values:
        raise RuleError("Pick one of the options.")
    return item.values[0]


def _is_step(message: discord.Message | None) -> bool:
    """Whether a clicked message is a private step of the bot's (a menu, the GM's panel)
    rather than a copy of the roll, which always has the roll's embed."""
    return message is not None and message.flags.ephemeral and not message.embeds


async def _step(interaction: discord.Interaction, text: str, items: discord.ui.View) -> None:
    """The next private step: it replaces the step it was clicked from, or starts one."""
    if _is_step(interaction.message):
        await interaction.response.edit_message(content=text, view=items)
    else:
        await interaction.response.send_message(text, view=items, ephemeral=True)


def _private_copy(message: discord.Message | None, view: RollView) -> bool:
    """Whether a hidden roll may be drawn on this message: an ephemeral one or its GM copy."""
    if message is None:
        return False
    return message.flags.ephemeral or message.id == view.gm_message_id


def new_roll_message(view: RollView) -> dict[str, Any]:
    """A new roll message's embed, plus its components while the roll is open."""
    items = roll_components(view)
    parts: dict[str, Any] = {"embed": roll_embed(view)}
    if items is not None:
        parts["view"] = items
    return parts


# --------------------------------------------------------------------------- roll message items
class RollButton(
    ScopedItem, discord.ui.DynamicItem[discord.ui.Button[Any]], template=ROLL_BUTTON_TEMPLATE
):
    scope_kind = "roll"

    def __init__(
        self,
        roll_id: int,
        act: str,
        *,
        label: str = "…",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        row: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"roll:{roll_id}:{act}", row=row)
        )
        self.roll_id = roll_id
        self.act = act

    def scope_key(self) -> int:
        return self.roll_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> RollButton:
        return cls(int(match["id"]), match["act"])

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        await _cog(interaction).on_roll_button(interaction, self.roll_id, self.act)


class PickerSelect(
    ScopedItem, discord.ui.DynamicItem[discord.ui.Select[Any]], template=ABSTRACT_TEMPLATE
):
    """A select whose whole state is its custom id (a roll id, a version, earlier choices)."""

    scope_kind = "roll"

    def __init__(
        self,
        custom_id: str,
        match: re.Match[str] | None = None,
        *,
        placeholder: str | None = None,
        options: list[discord.SelectOption] | None = None,
        row: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=custom_id,
                placeholder=placeholder,
                options=options or [discord.SelectOption(label="-", value="-")],
                row=row,
            )
        )
        self.match = match

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PickerSelect:
        return cls(match.string, match)

    def group(self, name: str) -> str:
        if self.match is None:
            match = re.fullmatch(self.__discord_ui_compiled_template__, self.custom_id)
            assert match is not None
            self.match = match
        return str(self.match[name] or "")

    def scope_key(self) -> int:
        return int(self.group("id"))


class StuntSelect(PickerSelect, template=STUNT_SELECT_TEMPLATE):
    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        value = _select_value(self.item)
        if not value.isdigit():
            raise RuleError("Pick one of the stunts in the list.")
        await _cog(interaction).on_stunt(interaction, int(self.group("id")), int(value))


class AspectSelect(PickerSelect, template=ASPECT_SELECT_TEMPLATE):
    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        await _cog(interaction).on_aspect_chosen(
            interaction,
            int(self.group("id")),
            mode_from_code(self.group("mode")),
            self.group("hostile") == "1",
            _select_value(self.item),
        )


class PaymentSelect(PickerSelect, template=PAYMENT_SELECT_TEMPLATE):
    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        await _cog(interaction).on_payment_chosen(
            interaction,
            int(self.group("id")),
            int(self.group("ver")),
            mode_from_code(self.group("mode")),
            self.group("hostile") == "1",
            self.group("key"),
            _select_value(self.item),
        )


class DefendSelect(PickerSelect, template=DEFEND_SELECT_TEMPLATE):
    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        value = _select_value(self.item)
        await _cog(interaction).on_defend(
            interaction, int(self.group("id")), None if value == NO_SKILL else value
        )


class ScaleSelect(PickerSelect, template=SCALE_SELECT_TEMPLATE):
    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        roller, opposition = self.group("r"), self.group("o")
        await _cog(interaction).on_scale_step(
            interaction,
            int(self.group("id")),
            int(self.group("ver")),
            int(roller) if roller else None,
            int(opposition) if opposition else None,
            _select_value(self.item),
        )


class RulesShareButton(
    ScopedItem, discord.ui.DynamicItem[discord.ui.Button[Any]], template=RULES_SHARE_TEMPLATE
):
    scope_kind = UNSCOPED  # a rules topic belongs to no server

    def __init__(self, key: str) -> None:
        super().__init__(
            discord.ui.Button(
                label="Share", style=discord.ButtonStyle.primary, custom_id=rules_share_id(key)
            )
        )
        self.key = key

    def scope_key(self) -> None:
        return None

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> RulesShareButton:
        return cls(match["key"])

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        topic = get_topic(self.key)
        embed = rules_embed(topic)
        embed.set_footer(text=f"Shared by {clip(_name(interaction), 80)} · /rules {topic.key}")
        await interaction.response.send_message(embed=embed)


# --------------------------------------------------------------------------- the cog
class Rolls(commands.Cog):
    def __init__(self, bot: Any, rng: random.Random | None = None) -> None:
        self.bot = bot
        self.service = RollService(bot.db, rng)
        self.rng = rng or random.SystemRandom()
        self._skills: dict[tuple[int, int, int], tuple[float, list[tuple[str, int]]]] = {}
        self._void_choices: BriefCache[list[RollView]] = BriefCache()

    async def cog_unload(self) -> None:
        await self.service.flush()  # the new rolls' message ids still waiting to be written

    async def _skills_for(
        self, guild_id: int, channel_id: int, user_id: int
    ) -> list[tuple[str, int]]:
        key = (guild_id, channel_id, user_id)
        hit = self._skills.get(key)
        if hit is not None and time.monotonic() - hit[0] < SKILL_CACHE_SECONDS:
            return hit[1]
        skills = await self.service.skills_for(guild_id, channel_id, user_id)
        if len(self._skills) > 5000:
            self._skills.clear()
        self._skills[key] = (time.monotonic(), skills)
        return skills

    async def _is_dice(self, interaction: discord.Interaction, text: str) -> bool:
        """Whether /roll's `skill` is dice; a skill of the roller's named like dice stays a skill."""
        if not looks_like_dice_expression(text):
            return False
        assert interaction.guild_id is not None and interaction.channel_id is not None
        skills = await self._skills_for(
            interaction.guild_id, interaction.channel_id, interaction.user.id
        )
        return looks_like_dice_expression(text, [name for name, _ in skills])

    # ----------------------------------------------------------------- drawing
    async def _redraw(self, view: RollView, *, skip: int | None = None) -> None:
        """Edit every copy of a roll's message (public and GM channel) except `skip`."""
        targets = []
        if view.message_id is not None and not view.hidden:
            targets.append((view.channel_id, view.message_id))
        if view.gm_channel_id is not None and view.gm_message_id is not None:
            targets.append((view.gm_channel_id, view.gm_message_id))
        for channel_id, message_id in targets:
            if message_id == skip:
                continue
            try:
                await edit_message(
                    self.bot,
                    channel_id,
                    message_id,
                    embed=roll_embed(view, for_gm=message_id == view.gm_message_id),
                    view=roll_components(view),
                )
            except discord.HTTPException as error:
                log.info("could not redraw roll %s message %s: %s", view.id, message_id, error)

    async def _redraw_all(self, views: list[RollView], *, skip: int | None = None) -> None:
        for view in views:
            await self._redraw(view, skip=skip)

    async def _post(self, interaction: discord.Interaction, view: RollView) -> None:
        """Answer a /roll: publicly, or for a hidden roll ephemerally plus the GM's copy."""
        if view.hidden:
            await respond(interaction, ephemeral=True, **new_roll_message(view))
            await self._post_gm_copy(view)
            return
        message_id = await respond(interaction, **new_roll_message(view))
        if message_id is None:
            message_id = (await interaction.original_response()).id
        await self.service.set_messages(view.id, message_id=message_id, guild_id=view.guild_id)

    async def _post_gm_copy(self, view: RollView) -> None:
        """A new hidden roll's copy in the campaign's GM channel (when there is one)."""
        if view.gm_channel_id is None or view.gm_channel_id == view.channel_id:
            return  # no copy to remember: the new row has no message ids yet
        channel = self.bot.get_partial_messageable(view.gm_channel_id)
        try:
            copy = await channel.send(**new_roll_message(view))
        except discord.HTTPException as error:
            log.info("could not post hidden roll %s to the GM channel: %s", view.id, error)
            return
        await self.service.set_messages(
            view.id, message_id=None, gm_message_id=copy.id, guild_id=view.guild_id
        )

    # ----------------------------------------------------------------- /roll
    @app_commands.command(name="roll", description="Roll 4dF (+ a skill) on the ladder, or dice.")
    @anywhere
    @app_commands.describe(
        skill="A skill of your active character, or a plain number like +2.",
        modifier="An extra bonus or penalty (-20 to +20).",
        difficulty="What to beat: a number or a ladder word (Mediocre +0 is fine).",
        description="What you are doing (shown on the roll).",
        hidden="A secret roll: only you and the GM channel see it.",
        against="A pending roll to oppose (active opposition).",
        expression="General dice instead of 4dF, e.g. 2d6+1, 4dF-1, 1d20.",
        action="Which of the four actions this roll is.",
        aspect="Create an advantage: a new aspect to create, or one in play to add invokes to.",
    )
    @app_commands.choices(
        action=[
            app_commands.Choice(name="Overcome", value="overcome"),
            app_commands.Choice(name="Create an advantage", value="create_advantage"),
            app_commands.Choice(name="Attack", value="attack"),
            app_commands.Choice(name="Defend", value="defend"),
        ]
    )
    async def roll(
        self,
        interaction: discord.Interaction,
        skill: app_commands.Range[str, 1, 60] | None = None,
        modifier: app_commands.Range[int, -20, 20] = 0,
        difficulty: app_commands.Range[str, 1, 40] | None = None,
        description: app_commands.Range[str, 1, 200] | None = None,
        hidden: bool = False,
        against: int | None = None,
        expression: app_commands.Range[str, 1, 100] | None = None,
        action: app_commands.Choice[str] | None = None,
        aspect: app_commands.Range[str, 1, 100] | None = None,
    ) -> None:
        if not has_table(interaction):
            if against is not None or action is not None or aspect is not None:
                raise RuleError(ANYWHERE_ONLY_DICE)
            await self._roll_anywhere(
                interaction, skill, expression, modifier, difficulty, description, hidden
            )
            return
        if expression is None and skill is not None and await self._is_dice(interaction, skill):
            expression, skill = skill, None
        if expression is not None:
            if aspect is not None:
                raise RuleError("An aspect goes with a 4dF skill roll, not a dice expression.")
            await self._roll_expression(interaction, expression, skill, description, hidden)
            return
        await self.start_roll(
            interaction,
            skill=skill,
            modifier=modifier,
            difficulty=difficulty,
            description=description,
            hidden=hidden,
            against=against,
            action=ACTIONS[action.value] if action is not None else None,
            advantage_aspect=aspect,
        )

    async def start_roll(self, interaction: discord.Interaction, **options: Any) -> RollView:
        """Make a roll and post its message: the one path for /roll and /advantage."""
        assert interaction.guild is not None and interaction.channel_id is not None
        is_gm = await member_is_gm(self.bot, interaction)
        change = await self.service.start(
            RollRequest(
                guild_id=interaction.guild.id,
                channel_id=interaction.channel_id,
                user_id=interaction.user.id,
                user_name=_name(interaction),
                is_gm=is_gm,
                **options,
            )
        )
        await self._post(interaction, change.view)
        await self._redraw_all(change.others)
        if change.note:  # a conflict is running: say how to act in it, to the roller only
            await interaction.followup.send(change.note, ephemeral=True)
        return change.view

    async def _roll_anywhere(
        self,
        interaction: discord.Interaction,
        skill: str | None,
        expression: str | None,
        modifier: int,
        difficulty: str | None,
        description: str | None,
        hidden: bool,
    ) -> None:
        """A roll with no table behind it: the message is the whole record, no row is kept."""
        result = quick_roll(
            self.rng, skill=skill, expression=expression, modifier=modifier, difficulty=difficulty
        )
        embed = quick_roll_embed(_name(interaction), result, description or "")
        await interaction.response.send_message(embed=embed, ephemeral=hidden)

    async def _roll_expression(
        self,
        interaction: discord.Interaction,
        expression: str,
        skill: str | None,
        description: str | None,
        hidden: bool,
    ) -> None:
        if skill is not None:
            raise RuleError("Give either a skill or a dice expression, not both.")
        result = roll_dice_expression(expression, self.rng)
        assert interaction.guild_id is not None and interaction.channel_id is not None
        who = await self.service.roller_name(
            interaction.guild_id, interaction.channel_id, interaction.user.id
        )
        text = expression_text(who or _name(interaction), result, description or "")
        await interaction.response.send_message(text, ephemeral=hidden)
        if hidden:
            campaign = await self.bot.campaigns.current(
                interaction.guild_id, interaction.channel_id
            )
            gm_channel = campaign.settings.gm_channel_id
            if gm_channel is not None and gm_channel != interaction.channel_id:
                try:
                    await self.bot.get_partial_messageable(gm_channel).send(f"Hidden roll:\n{text}")
                except discord.HTTPException as error:
                    log.info("could not post a hidden expression to the GM channel: %s", error)

    @roll.autocomplete("skill")
    async def skill_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        text = current.strip()
        try:
            number = int(text)
        except ValueError:
            number = None
        choices: list[app_commands.Choice[str]] = []
        if number is not None:
            choices.append(app_commands.Choice(name=f"plain 4dF {number:+d}", value=f"{number:+d}"))
        if not has_table(interaction) or interaction.guild_id is None:
            return choices  # no characters where the bot has no table
        assert interaction.channel_id is not None
        skills = await self._skills_for(
            interaction.guild_id, interaction.channel_id, interaction.user.id
        )
        needle = text.casefold()
        for name, rating in skills:
            if needle in name.casefold():
                choices.append(app_commands.Choice(name=f"{name} ({rating:+d})", value=name))
        return choices[:25]

    @roll.autocomplete("aspect")
    async def aspect_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        scenes = self.bot.get_cog("Scenes")
        if scenes is None or not has_table(interaction):
            return []
        found: list[app_commands.Choice[str]] = await scenes.aspect_autocomplete(
            interaction, current
        )
        return found

    @roll.autocomplete("difficulty")
    async def difficulty_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [
            app_commands.Choice(name=label, value=value) for label, value in ladder_choices(current)
        ]

    @roll.autocomplete("against")
    async def against_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        if interaction.channel_id is None or not has_table(interaction):
            return []
        is_gm = await member_is_gm(self.bot, interaction)
        pending = await self.service.pending(interaction.channel_id, is_gm=is_gm)
        needle = current.strip().casefold()
        choices = []
        for view in pending:
            roll = view.roll
            label = f"#{view.id} {roll.roller.name}: {roll.skill or '4dF'} → {roll.effort():+d}"
            if needle and needle not in label.casefold():
                continue
            choices.append(app_commands.Choice(name=clip(label, 100), value=view.id))
        return choices[:25]

    # ----------------------------------------------------------------- /roll-log and /rules
    @app_commands.command(name="roll-log", description="The last rolls of this channel.")
    @app_commands.guild_only()
    async def roll_log(self, interaction: discord.Interaction) -> None:
        assert interaction.channel_id is not None
        is_gm = await member_is_gm(self.bot, interaction)
        views = await self.service.log(interaction.channel_id, is_gm=is_gm)
        await interaction.response.send_message(embed=log_embed(views), ephemeral=True)

    @app_commands.command(
        name="roll-void", description="Take back a mistaken roll: what was paid on it comes back."
    )
    @app_commands.guild_only()
    @app_commands.describe(roll="The roll to void: its number in /roll-log.")
    async def roll_void(self, interaction: discord.Interaction, roll: int) -> None:
        assert interaction.channel_id is not None
        is_gm = await member_is_gm(self.bot, interaction)
        change = await self.service.void(
            roll, user_id=interaction.user.id, is_gm=is_gm, channel_id=interaction.channel_id
        )
        await interaction.response.send_message(
            f"Roll #{change.view.id} is void. {change.note}", ephemeral=change.view.hidden
        )
        await self._redraw(change.view)

    @roll_void.autocomplete("roll")
    async def void_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        if interaction.channel_id is None:
            return []
        is_gm = await member_is_gm(self.bot, interaction)
        channel_id = interaction.channel_id
        views = await self._void_choices.get(
            (interaction.user.id, channel_id, is_gm),
            lambda: self.service.log(channel_id, is_gm=is_gm),
        )
        needle = current.strip().casefold()
        choices = []
        for view in views:
            label = f"#{view.id} {roll_title(view.roll)} → {view.roll.effort():+d}"
            if view.roll.voided or (needle and needle not in label.casefold()):
                continue
            choices.append(app_commands.Choice(name=clip(label, 100), value=view.id))
        return choices[:25]

    @app_commands.command(name="rules", description="A short rules reference topic.")
    @anywhere
    @app_commands.describe(topic="The topic: the ladder, actions, invoking, scale, teamwork ...")
    async def rules(self, interaction: discord.Interaction, topic: str) -> None:
        found = get_topic(topic)
        items = discord.ui.View(timeout=None)
        items.add_item(RulesShareButton(found.key))
        await interaction.response.send_message(
            embed=rules_embed(found), view=items, ephemeral=True
        )

    @rules.autocomplete("topic")
    async def topic_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=t.title, value=t.key) for t in search_topics(current)]

    # ----------------------------------------------------------------- roll buttons
    async def on_roll_button(
        self, interaction: discord.Interaction, roll_id: int, act: str
    ) -> None:
        is_gm = await member_is_gm(self.bot, interaction)
        user = interaction.user.id
        if act in ("gm", "hos", "scale") and not is_gm:
            raise NotAllowed(
                "Only the GM has these tools (hostile invoke, scale). "
                "Yours are on the roll: Invoke +2, Invoke reroll, Teamwork +1, Defend."
            )
        if act in ("inv", "rr", "hos"):
            hostile = act == "hos"
            mode = InvokeMode.REROLL if act == "rr" else InvokeMode.BONUS
            picker = await self.service.invoke_picker(
                roll_id, user_id=user, is_gm=is_gm, hostile=hostile
            )
            if len(picker.aspects) == 1:  # one aspect to invoke: no menu of one
                key = picker.aspects[0].key
                await self.on_aspect_chosen(interaction, roll_id, mode, hostile, key)
                return
            text, spec = aspect_picker(picker.view, picker.aspects, mode, hostile)
            await _step(interaction, text, components_of([], spec))
        elif act == "gm":
            view = await self.service.get(roll_id)
            await _step(interaction, gm_panel(view), components_of(gm_buttons(view)))
        elif act == "tw":
            change = await self.service.teamwork(roll_id, user_id=user, is_gm=is_gm)
            await self._update_clicked(interaction, change.view, others=change.others)
            if change.note:
                await interaction.followup.send(change.note, ephemeral=True)
        elif act in ("adv", "advgm", "advno"):
            await self._resolve_advantage(interaction, roll_id, act, user, is_gm)
        elif act == "close":
            change = await self.service.close(roll_id, user_id=user, is_gm=is_gm)
            await self._update_clicked(interaction, change.view)
        elif act == "void":
            change = await self.service.void(roll_id, user_id=user, is_gm=is_gm)
            await self._update_clicked(interaction, change.view)
        elif act == "def":
            view, skills = await self.service.defend_skills(roll_id, user_id=user, is_gm=is_gm)
            text, spec = defend_picker(view, skills)
            await interaction.response.send_message(
                text, view=components_of([], spec), ephemeral=True
            )
        elif act == "scale":
            view = await self.service.scalable(roll_id, is_gm=is_gm)
            text, spec = scale_picker(view, None, None)
            await _step(interaction, text, components_of([], spec))

    async def _update_clicked(
        self,
        interaction: discord.Interaction,
        view: RollView,
        content: str | None = None,
        others: list[RollView] | None = None,
    ) -> None:
        """Redraw the message that was clicked in place, then its other copies. A hidden roll
        is drawn only on a private copy (the roller's ephemeral one or the GM channel's): from
        any other message the clicker gets it privately and the message stays as it was."""
        clicked = interaction.message
        gm_copy = clicked is not None and clicked.id == view.gm_message_id
        embed = roll_embed(view, for_gm=gm_copy)
        parts: dict[str, Any] = {"embed": embed, "view": roll_components(view)}
        if content is not None:
            parts["content"] = content
        drawn = None  # the clicked message, once this answer has redrawn it
        try:
            if view.hidden and not _private_copy(clicked, view):
                if parts["view"] is None:
                    del parts["view"]
                await interaction.response.send_message(ephemeral=True, **parts)
            else:
                await update(interaction, **parts)
                drawn = clicked.id if clicked is not None else None
        finally:  # the change is stored: its copies show it even when the answer failed
            await self._redraw(view, skip=drawn)
            await self._redraw_all(others or [])

    async def on_stunt(self, interaction: discord.Interaction, roll_id: int, index: int) -> None:
        is_gm = await member_is_gm(self.bot, interaction)
        change = await self.service.add_stunt(
            roll_id, user_id=interaction.user.id, is_gm=is_gm, stunt_index=index
        )
        await self._update_clicked(interaction, change.view, others=change.others)

    # ----------------------------------------------------------------- pickers
    async def on_aspect_chosen(
        self,
        interaction: discord.Interaction,
        roll_id: int,
        mode: InvokeMode,
        hostile: bool,
        key: str,
    ) -> None:
        is_gm = await member_is_gm(self.bot, interaction)
        view, aspect, options = await self.service.payment_options(
            roll_id, user_id=interaction.user.id, is_gm=is_gm, aspect_key=key, hostile=hostile
        )
        if len(options) == 1:  # one way to pay: no menu to click through
            await self.on_payment_chosen(
                interaction, roll_id, view.version, mode, hostile, key, options[0].value
            )
            return
        text, spec = payment_picker(view, aspect, options, mode, hostile)
        await _step(interaction, text, components_of([], spec))

    async def on_payment_chosen(
        self,
        interaction: discord.Interaction,
        roll_id: int,
        version: int,
        mode: InvokeMode,
        hostile: bool,
        key: str,
        payment: str,
    ) -> None:
        is_gm = await member_is_gm(self.bot, interaction)
        change = await self.service.invoke(
            roll_id,
            version=version,
            user_id=interaction.user.id,
            user_name=_name(interaction),
            is_gm=is_gm,
            aspect_key=key,
            mode=mode,
            hostile=hostile,
            payment=payment,
        )
        last = change.view.roll.invokes[-1]  # `done` is the invoker's own to read
        name = shown_aspect_name(last, for_gm=is_gm)
        done = f"Invoked *{clip(name, 100)}* on roll #{change.view.id}."
        await self._answer(interaction, change.view, done, change.others)

    async def _resolve_advantage(
        self, interaction: discord.Interaction, roll_id: int, act: str, user: int, is_gm: bool
    ) -> None:
        """Create aspect / Resolve advantage, or a failed new aspect's choice."""
        try:
            change = await self.service.resolve_advantage(
                roll_id,
                user_id=user,
                is_gm=is_gm,
                enemy_on_fail=act == "advgm",
                declined=act == "advno",
            )
        except AdvantageChanged as changed:  # clicked on a copy from before the change
            if _is_step(interaction.message):
                raise
            await self._update_clicked(interaction, await self.service.get(roll_id))
            await interaction.followup.send(str(changed), ephemeral=True)
            return
        done = f"Roll #{roll_id}: the advantage is resolved."
        await self._answer(interaction, change.view, done)

    async def _answer(
        self,
        interaction: discord.Interaction,
        view: RollView,
        done: str,
        others: list[RollView] | None = None,
    ) -> None:
        """The end of a step: a private step (a menu, the GM's panel) becomes `done` and the
        roll's copies show the change; clicked on the roll itself, the roll is redrawn in place
        (a hidden roll's private copy says `done` too: the roller has no other)."""
        if view.hidden or not _is_step(interaction.message):
            await self._update_clicked(interaction, view, done if view.hidden else None, others)
            return
        try:
            await interaction.response.edit_message(content=done, view=None)
        finally:  # the change is stored: the roll shows it whatever became of the answer
            await self._redraw(view)
            await self._redraw_all(others or [])

    async def on_defend(
        self, interaction: discord.Interaction, roll_id: int, skill: str | None
    ) -> None:
        assert interaction.guild is not None
        is_gm = await member_is_gm(self.bot, interaction)
        change = await self.service.defend(
            roll_id,
            guild_id=interaction.guild.id,
            user_id=interaction.user.id,
            user_name=_name(interaction),
            skill=skill,
            is_gm=is_gm,
        )
        view = change.view
        if view.hidden:  # only the defender (and the GM channel) see it
            done = f"You defend in secret against roll #{roll_id}:"
            try:
                await self._update_clicked(interaction, view, done, change.others)
            finally:
                await self._post_gm_copy(view)
            return
        try:
            await interaction.response.edit_message(
                content=f"You defend against roll #{roll_id}: see roll #{view.id}.", view=None
            )
        finally:  # the defence is stored: it is posted whatever became of the answer
            channel = self.bot.get_partial_messageable(view.channel_id)
            message = await channel.send(**new_roll_message(view))
            await self.service.set_messages(view.id, message_id=message.id, guild_id=view.guild_id)
            await self._redraw_all(change.others)

    async def on_scale_step(
        self,
        interaction: discord.Interaction,
        roll_id: int,
        version: int,
        roller: int | None,
        opposition: int | None,
        value: str,
    ) -> None:
        is_gm = await member_is_gm(self.bot, interaction)
        if not is_gm:
            raise NotAllowed("Only the GM sets scale.")
        view = await self.service.get(roll_id)
        if view.version != version:
            raise RuleError("The roll changed since you opened this; click Scale again.")
        if roller is None or opposition is None:
            if not value.isdigit() or int(value) not in {int(level) for level in ScaleLevel}:
                raise RuleError("Pick one of the scale levels.")
            if roller is None:
                roller = int(value)
            else:
                opposition = int(value)
            if opposition is None or roller != opposition:
                text, spec = scale_picker(view, roller, opposition)
                await interaction.response.edit_message(content=text, view=components_of([], spec))
                return
            mode = ScaleMode.BEFORE_ROLL  # equal scale: nothing to add, clears earlier scale
        else:
            try:
                mode = ScaleMode(value)
            except ValueError:
                raise RuleError("Pick one of the scale benefits.") from None
        change = await self.service.scale(
            roll_id,
            version=version,
            is_gm=is_gm,
            roller_level=ScaleLevel(roller),
            opposition_level=ScaleLevel(opposition),
            mode=mode,
        )
        await interaction.response.edit_message(
            content=f"Scale set on roll #{roll_id}: {ScaleLevel(roller).label} against "
            f"{ScaleLevel(opposition).label}.",
            view=None,
        )
        await self._redraw(change.view)
        await self._redraw_all(change.others)


async def setup(bot: Any) -> None:
    bot.add_dynamic_items(
        RollButton,
        StuntSelect,
        AspectSelect,
        PaymentSelect,
        DefendSelect,
        ScaleSelect,
        RulesShareButton,
    )
    await bot.add_cog(Rolls(bot))
