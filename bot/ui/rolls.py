"""Rendering rolls: the roll message, its buttons, the invoke picker, /roll log and /rules.

Pure: domain values in, embeds, component specs and the `Components` a message is sent with
out. A click reaches the cog's DynamicItems by its custom id; the custom ids and their regexes
live in bot/ui/custom_ids.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import discord

from bot.fate.dice import fate_symbols
from bot.fate.dice_expr import DiceExpressionResult
from bot.fate.ladder import LADDER, adjective, describe, signed
from bot.fate.outcomes import OutcomeKind
from bot.fate.quick_roll import QuickRoll
from bot.fate.rolls import Action, Invoke, InvokeMode, Payment, Roll, ScaleLevel, ScaleMode, Side
from bot.fate.rules_ref import RulesTopic
from bot.fate.words import plural
from bot.services.aspects_in_play import AspectInPlay
from bot.services.roll_base import PaymentOption, RollView
from bot.ui.common import (
    COLOUR,
    CONTENT_LIMIT,
    FIELD_VALUE_LIMIT,
    MAX_SELECT_OPTIONS,
    SELECT_OPTION_LIMIT,
    clip,
    safe_embed,
)
from bot.ui.components import Components
from bot.ui.custom_ids import (
    aspect_select_id,
    defend_select_id,
    payment_select_id,
    roll_button_id,
    scale_select_id,
    stunt_select_id,
)

OUTCOME_COLOURS = {
    OutcomeKind.FAIL: discord.Colour.red(),
    OutcomeKind.TIE: discord.Colour.light_grey(),
    OutcomeKind.SUCCESS: discord.Colour.green(),
    OutcomeKind.SUCCESS_WITH_STYLE: discord.Colour.gold(),
}
MAX_LISTED_INVOKES = 15
OPTION_LABEL_LIMIT = 100

NO_SKILL = "__none__"


# the roll message ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ButtonSpec:
    label: str
    custom_id: str
    style: discord.ButtonStyle
    disabled: bool = False
    row: int = 0


@dataclass(frozen=True)
class SelectSpec:
    custom_id: str
    placeholder: str
    options: list[discord.SelectOption]
    row: int = 0


def _invoke_line(invoke: Invoke, for_gm: bool) -> str:
    paid = "fate point" if invoke.payment is Payment.FATE_POINT else "free invoke"
    if invoke.is_boost:
        paid = "boost"
    name = clip(shown_aspect_name(invoke, for_gm), 100)
    if invoke.hostile:
        what = f"hostile +2 to the opposition with *{name}*"
    elif invoke.mode is InvokeMode.REROLL:
        before = fate_symbols(invoke.dice_before or [])
        after = fate_symbols(invoke.dice_after or [])
        what = f"reroll with *{name}*: {before} → {after}"
    else:
        what = f"+2 with *{name}*"
    return f"• {clip(invoke.invoker_name, 80)}: {what} ({paid})"


def _breakdown(roll: Roll, effort: int) -> str:
    """The effort's parts (`effort` is the roll's, computed once by the caller)."""
    parts = [f"dice {signed(roll.dice_total)}"]
    if roll.skill is not None:
        parts.insert(0, f"{clip(roll.skill, 40)} {signed(roll.skill_rating)}")
    for modifier in roll.modifiers:
        parts.append(f"{clip(modifier.label, 60)} {signed(modifier.value)}")
    invoked = sum(i.bonus for i in roll.invokes if not i.hostile)
    if invoked:
        parts.append(f"invokes {signed(invoked)}")
    if roll.teamwork_bonus:
        parts.append(f"teamwork {signed(roll.teamwork_bonus)}")
    for adjustment in roll.scale:
        if adjustment.side is Side.ROLLER and adjustment.mode is ScaleMode.BEFORE_ROLL:
            parts.append(f"scale {signed(adjustment.levels)}")
    after = effort - roll.effort_before_scale_success()
    if after:
        parts.append(f"scale after success {signed(after)}")
    return " · ".join(parts)


def _scale_line(roll: Roll) -> str | None:
    if not roll.scale:
        return None
    lines = []
    for adjustment in roll.scale:
        side = "the roller" if adjustment.side is Side.ROLLER else "the opposition"
        how = {
            ScaleMode.BEFORE_ROLL: f"+{adjustment.levels} before the roll",
            ScaleMode.AFTER_SUCCESS: f"+{2 * adjustment.levels} on a success",
            ScaleMode.EXTRA_FREE_INVOKES: (
                f"{plural(adjustment.levels, 'extra free invoke')} on a successful advantage"
            ),
        }[adjustment.mode]
        lines.append(f"{side} is {plural(adjustment.levels, 'level')} higher: {how}")
    extra = roll.extra_free_invokes()
    if extra:
        lines.append(f"extra free invokes earned: {extra}")
    return "\n".join(lines)


def _teamwork_cost(roll: Roll) -> str:
    """Helpers share the costs: on a failure or a tie, name who shares it (the table says what)."""
    result = roll.result()
    if result is None or result.kind not in (OutcomeKind.FAIL, OutcomeKind.TIE):
        return "Helpers share any cost or consequence of this roll."
    helpers = ", ".join(clip(h.helper_name, 80) for h in roll.teamwork[:10])
    if len(roll.teamwork) > 10:
        helpers += f" and {len(roll.teamwork) - 10} more"
    what = "failure" if result.kind is OutcomeKind.FAIL else "success at a cost"
    return (
        f"**Shared cost** ({what}): {helpers} share it with {clip(roll.roller.name, 80)}. "
        "The table decides what it is; nothing is applied automatically."
    )


def _advantage_line(roll: Roll) -> str:
    aim = roll.advantage
    assert aim is not None
    name = clip(aim.text, 100)
    if aim.key is not None:
        line = f"More free invokes on *{name}*."
    else:
        line = f"A new aspect: *{name}*."
        if aim.enemy_on_fail:
            line += " On a failure it is created, and the enemy gets its free invoke."
        elif aim.not_created_on_fail:
            line += " On a failure it is not created."
    if aim.resolved:
        return f"{line}\n**Resolved:** {clip(aim.result, 400)}"
    if roll.result() is None:
        return f"{line}\nNothing to beat yet: it resolves once someone defends."
    if roll.failure_is_rollers_choice():
        first = "" if roll.closed else "invoke first if you like, then "
        return (
            f"{line}\nFailed: {first}the roller chooses "
            f"**{NOT_CREATED_LABEL}**, or **{ENEMY_INVOKE_LABEL}**."
        )
    return f"{line}\nInvoke first if you like, then click **{_resolve_label(roll)}**."


def _resolve_label(roll: Roll) -> str:
    return "Resolve advantage" if roll.advantage and roll.advantage.key else "Create aspect"


def roll_title(roll: Roll) -> str:
    who = clip(roll.roller.name, 80)
    if roll.skill is not None:
        return f"{who} rolls {roll.skill} ({signed(roll.skill_rating)})"
    return f"{who} rolls 4dF"


def shown_aspect_name(invoke: Invoke, for_gm: bool) -> str:
    """The invoked aspect's name; a GM-hidden one's real name only where only GMs look."""
    return (invoke.gm_aspect_name or invoke.aspect_name) if for_gm else invoke.aspect_name


def roll_embed(view: RollView, *, for_gm: bool = False) -> discord.Embed:
    """The roll's embed; `for_gm`: the GM channel's copy of a hidden roll."""
    roll = view.roll
    result = roll.result()  # the derived numbers once: each one sums the whole roll again
    effort = result.effort if result is not None else roll.effort()
    target = result.opposition if result is not None else None
    colour = OUTCOME_COLOURS[result.kind] if result is not None else COLOUR
    embed = discord.Embed(title=roll_title(roll), colour=colour)
    if roll.description:
        embed.description = clip(roll.description, 300)
    embed.add_field(name="Dice", value=f"`{fate_symbols(roll.dice)}` ({signed(roll.dice_total)})")
    embed.add_field(name="Effort", value=f"**{describe(effort)}**")
    if target is not None:
        against = (
            f"roll #{view.opposes_id}: {describe(target)}"
            if roll.opposition_effort is not None and view.opposes_id is not None
            else describe(target)
        )
        embed.add_field(name="Against", value=against)
    if result is not None:
        shifts = f"{result.shifts:+d} shift{'s' if abs(result.shifts) != 1 else ''}"
        embed.add_field(name="Outcome", value=f"**{result.kind.label}** ({shifts})", inline=False)
    embed.add_field(
        name="Total", value=clip(_breakdown(roll, effort), FIELD_VALUE_LIMIT), inline=False
    )
    if roll.invokes:
        lines = [_invoke_line(i, for_gm) for i in roll.invokes[-MAX_LISTED_INVOKES:]]
        if len(roll.invokes) > MAX_LISTED_INVOKES:
            lines.insert(0, f"… {len(roll.invokes) - MAX_LISTED_INVOKES} earlier")
        embed.add_field(
            name="Invokes", value=clip("\n".join(lines), FIELD_VALUE_LIMIT), inline=False
        )
    if roll.teamwork:
        lines = [
            f"• {clip(h.helper_name, 80)} ({signed(h.helper_rating)}): "
            + ("+1" if h.bonus else "no bonus, the cap is reached")
            for h in roll.teamwork
        ]
        lines.append(_teamwork_cost(roll))
        embed.add_field(
            name="Teamwork", value=clip("\n".join(lines), FIELD_VALUE_LIMIT), inline=False
        )
    scale = _scale_line(roll)
    if scale:
        embed.add_field(name="Scale", value=clip(scale, FIELD_VALUE_LIMIT), inline=False)
    if roll.advantage is not None:
        embed.add_field(
            name="Create an advantage",
            value=clip(_advantage_line(roll), FIELD_VALUE_LIMIT),
            inline=False,
        )
    elif roll.action is Action.CREATE_ADVANTAGE and not view.closed:
        embed.add_field(
            name="Create an advantage",
            value="No aspect named, so nothing is created: roll with `aspect:` (or `/advantage`) "
            "to create one or add invokes to one in play.",
            inline=False,
        )
    if roll.voided:
        embed.title = clip(f"VOID · {embed.title}", 256)
        embed.colour = discord.Colour.dark_grey()
        embed.add_field(name="Void", value=clip(roll.void_note or "Void.", 1024), inline=False)
    status = "void" if roll.voided else "closed" if view.closed else "open for invokes"
    hidden = " · hidden roll" if view.hidden else ""
    embed.set_footer(text=f"Roll #{view.id} · {status}{hidden}")
    return safe_embed(embed)


def advantage_buttons(view: RollView) -> list[ButtonSpec]:
    """The resolve button of a create-an-advantage roll, until it is resolved (even once
    closed). A new aspect's failure asks its roller's choice (the seed: not created, or
    created with the enemy's free invoke), unless `/advantage on_fail` made it beforehand."""
    aim = view.roll.advantage
    if aim is None or aim.resolved:
        return []
    success = discord.ButtonStyle.success
    if view.roll.failure_is_rollers_choice():
        return [
            ButtonSpec(NOT_CREATED_LABEL, roll_button_id(view.id, "advno"), success, row=1),
            ButtonSpec(
                ENEMY_INVOKE_LABEL,
                roll_button_id(view.id, "advgm"),
                discord.ButtonStyle.secondary,
                row=1,
            ),
        ]
    return [ButtonSpec(_resolve_label(view.roll), roll_button_id(view.id, "adv"), success, row=1)]


NOT_CREATED_LABEL = "Don't create it"
ENEMY_INVOKE_LABEL = "Create it — the enemy gets the free invoke"


def gm_buttons(view: RollView) -> list[ButtonSpec]:
    """The GM's tools on a roll, shown to the GM alone behind the roll's one "GM" button:
    a hostile invoke and scale while the roll is open."""
    if view.roll.voided:
        return []
    danger = discord.ButtonStyle.danger
    found = []
    if not view.closed:
        found += [
            ButtonSpec("Hostile invoke", roll_button_id(view.id, "hos"), danger),
            ButtonSpec("Scale", roll_button_id(view.id, "scale"), danger),
        ]
    return found


GM_TOOLS = {
    "hos": "**Hostile invoke**: +2 to the opposition, paid from the GM pool or with a free "
    "invoke the GM side holds.",
    "scale": "**Scale**: each side's scale, then what the difference gives.",
}


def gm_panel(view: RollView) -> str:
    """What the GM's private panel of a roll says above its buttons."""
    tools = [GM_TOOLS[spec.custom_id.rsplit(":", 1)[1]] for spec in gm_buttons(view)]
    return "\n".join([f"GM tools for roll #{view.id}:", *tools])


def roll_buttons(view: RollView) -> list[ButtonSpec]:
    """The buttons of an open roll; a closed roll keeps only an unresolved advantage's; a void
    roll has none. The GM's tools wait behind one "GM" button."""
    if view.roll.voided:
        return []
    gm = (
        [ButtonSpec("GM", roll_button_id(view.id, "gm"), discord.ButtonStyle.danger, row=1)]
        if gm_buttons(view)
        else []
    )
    if view.closed:
        return [*advantage_buttons(view), *gm]
    primary, secondary = discord.ButtonStyle.primary, discord.ButtonStyle.secondary
    return [
        ButtonSpec("Invoke +2", roll_button_id(view.id, "inv"), primary),
        ButtonSpec("Invoke reroll", roll_button_id(view.id, "rr"), primary),
        ButtonSpec("Teamwork +1", roll_button_id(view.id, "tw"), secondary),
        ButtonSpec("Defend", roll_button_id(view.id, "def"), secondary),
        ButtonSpec("Close", roll_button_id(view.id, "close"), secondary),
        ButtonSpec("Void roll", roll_button_id(view.id, "void"), secondary, row=1),
        *advantage_buttons(view),
        *gm,
    ]


def stunt_select(view: RollView) -> SelectSpec | None:
    if view.closed or not view.stunts:
        return None
    options = [
        discord.SelectOption(
            label=clip(f"{s.name} ({signed(s.bonus)})", OPTION_LABEL_LIMIT), value=str(s.index)
        )
        for s in view.stunts[:MAX_SELECT_OPTIONS]
    ]
    return SelectSpec(stunt_select_id(view.id), "Add a stunt bonus", options, row=2)


def components_of(buttons: list[ButtonSpec], select: SelectSpec | None = None) -> Components:
    """The buttons, then the select, as a message's components."""
    items = Components()
    for spec in buttons:
        items.button(spec.label, spec.custom_id, spec.style, row=spec.row, disabled=spec.disabled)
    if select is not None:
        items.select(
            select.custom_id, select.options, placeholder=select.placeholder, row=select.row
        )
    return items


def roll_components(view: RollView) -> Components | None:
    """The roll message's components, or None when the roll has none left."""
    buttons = roll_buttons(view)
    stunts = stunt_select(view)
    if not buttons and stunts is None:
        return None
    return components_of(buttons, stunts)


# pickers --------------------------------------------------------------------------------------
def aspect_picker(
    view: RollView, aspects: list[AspectInPlay], mode: InvokeMode, hostile: bool
) -> tuple[str, SelectSpec]:
    what = (
        "a hostile invoke (+2 to the opposition)"
        if hostile
        else ("a reroll" if mode is InvokeMode.REROLL else "+2")
    )
    text = f"Roll #{view.id}: which aspect do you invoke for {what}?"
    options = []
    for aspect in aspects[:MAX_SELECT_OPTIONS]:
        held = sum(aspect.free_invokes.values())
        extra = []
        if aspect.is_boost:
            extra.append("boost")
        if held:
            extra.append(f"{held} free")
        if aspect.hidden:
            extra.append("GM only")
        description = clip(aspect.owner + (" · " + ", ".join(extra) if extra else ""), 100)
        options.append(
            discord.SelectOption(
                label=clip(aspect.name, OPTION_LABEL_LIMIT),
                value=aspect.key,
                description=description,
            )
        )
    return text, SelectSpec(
        aspect_select_id(view.id, view.version, mode, hostile), "Pick an aspect", options
    )


def payment_picker(
    view: RollView,
    aspect: AspectInPlay,
    options: list[PaymentOption],
    mode: InvokeMode,
    hostile: bool,
) -> tuple[str, SelectSpec]:
    text = f"Roll #{view.id}: invoke *{clip(aspect.name, 100)}* — how do you pay?"
    select_options = [
        discord.SelectOption(
            label=clip(o.label, OPTION_LABEL_LIMIT), value=o.value[:SELECT_OPTION_LIMIT]
        )
        for o in options[:MAX_SELECT_OPTIONS]
    ]
    return text, SelectSpec(
        payment_select_id(view.id, view.version, mode, hostile, aspect.key),
        "How do you pay?",
        select_options,
    )


def defend_picker(view: RollView, skills: list[str]) -> tuple[str, SelectSpec]:
    options = [discord.SelectOption(label=clip(s, OPTION_LABEL_LIMIT), value=s) for s in skills]
    options.append(discord.SelectOption(label="No skill (+0)", value=NO_SKILL))
    text = f"Defend against roll #{view.id} ({describe(view.roll.effort())}): roll which skill?"
    return text, SelectSpec(defend_select_id(view.id), "Pick a skill to defend with", options)


def scale_picker(
    view: RollView, roller: int | None, opposition: int | None
) -> tuple[str, SelectSpec]:
    levels = [
        discord.SelectOption(label=level.label, value=str(int(level))) for level in ScaleLevel
    ]
    if roller is None:
        return (
            f"Roll #{view.id}: what is the scale of the roller's side?",
            SelectSpec(scale_select_id(view.id, view.version), "Roller's scale", levels),
        )
    if opposition is None:
        return (
            f"Roll #{view.id}: the roller is {ScaleLevel(roller).label}. "
            "What is the scale of the opposition?",
            SelectSpec(
                scale_select_id(view.id, view.version, roller), "Opposition's scale", levels
            ),
        )
    modes = [
        discord.SelectOption(
            label="+1 per level before the roll", value=ScaleMode.BEFORE_ROLL.value
        ),
        discord.SelectOption(
            label="+2 per level after a success", value=ScaleMode.AFTER_SUCCESS.value
        ),
        discord.SelectOption(
            label="1 extra free invoke per level (successful advantage)",
            value=ScaleMode.EXTRA_FREE_INVOKES.value,
        ),
    ]
    return (
        f"Roll #{view.id}: {ScaleLevel(roller).label} against {ScaleLevel(opposition).label}. "
        "Which benefit does the higher side get?",
        SelectSpec(
            scale_select_id(view.id, view.version, roller, opposition), "Scale benefit", modes
        ),
    )


# log, expressions, rules ---------------------------------------------------------------------
def log_line(view: RollView) -> str:
    roll = view.roll
    line = f"**#{view.id}** {roll_title(roll)}: `{fate_symbols(roll.dice)}` → {describe(roll.effort())}"
    result = roll.result()
    if result is not None:
        line += f" vs {signed(result.opposition)}: {result.kind.label} ({result.shifts:+d})"
    if roll.invokes:
        line += "\n   invokes: " + "; ".join(
            f"{clip(i.invoker_name, 30)} *{clip(i.aspect_name, 40)}*"
            f" {'reroll' if i.mode is InvokeMode.REROLL else '+2'}"
            f" ({'fate point' if i.payment is Payment.FATE_POINT else 'free'})"
            for i in roll.invokes[:5]
        )
        if len(roll.invokes) > 5:
            line += f"; +{len(roll.invokes) - 5} more"
    if view.hidden:
        line += " *(hidden)*"
    if roll.voided:
        line = f"~~{line}~~ **void**"
    return line


def log_embed(views: list[RollView]) -> discord.Embed:
    embed = discord.Embed(title="Last rolls in this channel", colour=COLOUR)
    if not views:
        embed.description = "No rolls here yet. Make one with `/roll`."
    else:
        embed.description = clip("\n".join(log_line(v) for v in views), 4000)
    return safe_embed(embed)


def expression_text(who: str, result: DiceExpressionResult, description: str = "") -> str:
    """A dice roll's line: who rolled (the active character when there is one), the dice, the
    total, and for Fate dice the total's ladder word ("Good (+3)")."""
    head = f"**{clip(who, 80)}** rolls `{result.expression.text()}`"
    if description:
        head += f" — {clip(description, 200)}"
    body = result.breakdown()
    if result.fate_dice_only:
        body += f" · **{describe(result.total)}**"
    return clip(f"{head}\n{body}", CONTENT_LIMIT)


def quick_roll_embed(who: str, roll: QuickRoll, description: str = "") -> discord.Embed:
    """A roll made where the bot keeps no table: the message is its only record, so it says
    everything (dice, modifier, total, difficulty, outcome)."""
    result = roll.result()
    colour = OUTCOME_COLOURS[result.kind] if result is not None else COLOUR
    expression = roll.dice.expression.text()
    if roll.modifier:
        expression += signed(roll.modifier)
    embed = discord.Embed(title=f"{clip(who, 80)} rolls {expression}", colour=colour)
    if description:
        embed.description = clip(description, 300)
    dice = roll.dice.breakdown()
    if roll.modifier:
        dice += f" · modifier {signed(roll.modifier)}"
    embed.add_field(name="Dice", value=clip(dice, FIELD_VALUE_LIMIT), inline=False)
    total = describe(roll.total) if roll.fate_dice_only else str(roll.total)
    embed.add_field(name="Total", value=f"**{total}**")
    if roll.difficulty is not None:
        embed.add_field(name="Against", value=describe(roll.difficulty))
    if result is not None:
        shifts = f"{result.shifts:+d} shift{'s' if abs(result.shifts) != 1 else ''}"
        embed.add_field(name="Outcome", value=f"**{result.kind.label}** ({shifts})", inline=False)
    return safe_embed(embed)


def rules_embed(topic: RulesTopic) -> discord.Embed:
    return safe_embed(discord.Embed(title=topic.title, description=topic.text, colour=COLOUR))


def ladder_choices(current: str) -> list[tuple[str, str]]:
    """(label, value) pairs for the difficulty autocomplete."""
    needle = current.strip().casefold()
    found = []
    for rating in sorted(LADDER, reverse=True):
        label = f"{adjective(rating)} ({signed(rating)})"
        if not needle or needle in label.casefold():
            found.append((label, adjective(rating)))
    return found[:25]
