"""Trackers for conflicts, contests and challenges: state -> embed plus which controls to show.

Pure: no I/O and no rules. The cog turns the control specs into DynamicItems.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import assert_never

import discord

from bot.fate.aspects import AspectKind
from bot.fate.challenge import Challenge
from bot.fate.challenge import summary as challenge_summary
from bot.fate.conflict import Phase, eligible_next, standing
from bot.fate.ladder import describe
from bot.fate.rolls import ScaleLevel
from bot.fate.sheet import Character
from bot.fate.tracks import TrackKind
from bot.fate.words import plural
from bot.services.challenges import ChallengeSnapshot
from bot.services.conflict_state import (
    ConflictSnapshot,
    PendingAdvantage,
    PendingMove,
    PendingOvercome,
)
from bot.services.contests import ContestSnapshot
from bot.services.encounters import Choice
from bot.ui.common import (
    COLOUR,
    FIELD_VALUE_LIMIT,
    MAX_SELECT_OPTIONS,
    clip,
    newest_lines,
    safe_embed,
)

ENDED_COLOUR = discord.Colour.dark_grey()
MAX_TRACKER_FIELDS = 20


class TrackerAction(StrEnum):
    """What a tracker button or select does, in the ui that draws it and the cog that answers it.
    The value is the short code in the component's custom id: keep it stable, or the buttons on
    trackers already posted stop working."""

    ATTACK = "atk"
    DEFEND = "def"
    RESOLVE = "res"
    RESOLVE_ACTION = "ract"
    OVERCOME = "ovc"
    CREATE_ADVANTAGE = "adv"
    ADVANTAGE_ON = "advt"
    MOVE = "mov"
    CONCEDE = "con"
    INVOKE = "inv"
    INVOKE_REROLL = "rer"
    STUNT = "stu"
    TEAMWORK = "help"
    ABSORB = "abs"
    BOOST = "boost"
    NEXT = "next"
    TARGET = "tgt"
    TWIST = "twist"
    GIVE_INVOKE = "give"
    FORFEIT = "forfeit"
    ROLL = "roll"
    WHO_ROLLS = "who"
    WHO_CREATES = "advwho"
    CLAIM = "claim"
    KEEP = "keep"
    PASS_BOOST = "pass"
    UNDO_ABSORB = "unabs"
    NOT_CREATED = "advno"  # a failed advantage: the aspect is not created
    ENEMY_INVOKE = "advfoe"  # a failed advantage: created, the enemy holds its free invoke


@dataclass(frozen=True)
class ButtonSpec:
    action: TrackerAction
    label: str
    style: discord.ButtonStyle = discord.ButtonStyle.secondary


@dataclass(frozen=True)
class Controls:
    buttons: tuple[ButtonSpec, ...] = ()
    select_action: TrackerAction | None = None
    select_placeholder: str = ""
    options: tuple[Choice, ...] = ()


def _harm_lines(sheet: Character | None) -> str:
    if sheet is None:
        return "(sheet missing)"
    lines = []
    for track in sheet.tracks:
        if track.kind is TrackKind.STRESS:
            lines.append(f"{track.label}: {track.render_boxes() or '-'}")
        elif track.kind is TrackKind.CONSEQUENCE:
            if track.aspect:
                lines.append(f"{track.label}: *{clip(track.aspect, 80)}*")
        elif track.kind is TrackKind.CONDITION and not track.is_free:
            lines.append(f"{track.label} (marked)")
    free = [
        t.label.split(" ")[0] for t in sheet.tracks if t.kind is TrackKind.CONSEQUENCE and t.is_free
    ]
    if free:
        lines.append("Free slots: " + ", ".join(free))
    return "\n".join(lines) or "no stress or consequences"


def conflict_tracker(snapshot: ConflictSnapshot) -> discord.Embed:
    state = snapshot.state
    c = state.conflict
    ended = c.phase is Phase.ENDED
    title = f"Conflict #{snapshot.id} ({c.kind.value})"
    title += " - over" if ended else f" - exchange {c.exchange}"
    embed = discord.Embed(title=title, colour=ENDED_COLOUR if ended else COLOUR)
    embed.description = newest_lines(state.log, 2000) or "The conflict begins."
    for combatant in c.combatants[:MAX_TRACKER_FIELDS]:
        mark = standing(c, combatant)
        kind = "NPC" if combatant.is_npc else "PC"
        zone = f" in {combatant.zone}" if combatant.zone else ""
        embed.add_field(
            name=clip(f"{combatant.name} ({kind}){zone} - {mark}", 256),
            value=clip(_harm_lines(snapshot.sheets.get(combatant.id)), FIELD_VALUE_LIMIT),
            inline=True,
        )
    aspects = [a for a in state.aspects if not a.hidden]
    if aspects:
        embed.add_field(
            name="Aspects from this conflict",
            value=clip(
                "\n".join(
                    f"*{a.text}*"
                    + (f" ({a.kind.value})" if a.kind.value == "boost" else "")
                    + (
                        f" on {state.name(a.owner)}"
                        if a.owner in state.members and a.kind is AspectKind.SITUATION
                        else ""
                    )
                    + (
                        f" - free invokes: {', '.join(state.name(h) for h in a.free_invokes)}"
                        if a.free_invokes
                        else ""
                    )
                    for a in aspects
                ),
                FIELD_VALUE_LIMIT,
            ),
            inline=False,
        )
    if state.zones:
        embed.add_field(name="Zones", value=clip(" - ".join(state.zones), 1024), inline=False)
    if any(state.scale.values()):
        sides = {"pcs": "PCs", "npcs": "NPCs"}
        embed.add_field(
            name="Scale",
            value=clip(
                ", ".join(
                    f"{sides.get(side, side)}: {ScaleLevel(level).label}"
                    for side, level in sorted(state.scale.items())
                )
                + ("" if state.scale_difficulties else " (not against set difficulties)"),
                1024,
            ),
            inline=False,
        )
    embed.add_field(name="Now", value=clip(_now_line(snapshot), 1024), inline=False)
    embed.set_footer(text=f"conflict {snapshot.id} · v{snapshot.version}")
    return safe_embed(embed)


def _now_line(snapshot: ConflictSnapshot) -> str:
    state = snapshot.state
    c = state.conflict
    if c.phase is Phase.ENDED:
        winner = {"pcs": "The PCs", "npcs": "The NPCs"}.get(c.winner_side or "", "Nobody")
        return f"{winner} carry the day." if c.winner_side else "The conflict is over."
    if isinstance(state.action, PendingAdvantage) and state.action.defended():
        pending_advantage = state.action
        effort = describe(pending_advantage.roll.effort())
        defender = state.name(pending_advantage.defender)
        if state.defence_roll is None:
            return (
                f"{defender} must defend against {state.name(pending_advantage.actor)}'s "
                f"advantage of {effort} (press Defend; the roller may invoke first)."
            )
        return (
            f"Advantage {effort} against defence {describe(state.defence_roll.effort())}: "
            "invoke, add a stunt or teamwork, then press Resolve the roll."
        )
    if state.action is not None:
        pending = state.action
        match pending:
            case PendingOvercome():
                what = "an overcome"
            case PendingMove(zone=zone):
                what = f"a move to {zone}"
            case PendingAdvantage(aspect_name=name, aspect_text=text):
                what = f"an advantage on {name or text}"
            case _:
                assert_never(pending)
        target = pending.roll.opposition()
        return (
            f"{state.name(pending.actor)} rolled {what}: {describe(pending.roll.effort())} vs "
            f"{describe(target if target is not None else 0)}. Invoke, add a stunt or "
            "teamwork, then press Resolve the roll."
        )
    if c.phase is Phase.DEFENDING and c.pending and state.defence_roll is not None:
        return (
            f"Attack {describe(c.pending.attack_effort)} against defence "
            f"{describe(state.defence_roll.effort())}: invoke, then press Resolve the attack."
        )
    if c.phase is Phase.DEFENDING and c.pending:
        return (
            f"{state.name(c.pending.defender)} must defend against "
            f"{describe(c.pending.attack_effort)} (press Defend; the attacker may invoke first)."
        )
    if c.phase is Phase.ABSORBING and c.pending:
        return (
            f"A {c.pending.shifts}-shift hit on {state.name(c.pending.defender)}: invoke, or "
            "press Take the hit to choose stress and consequences."
        )
    failed = state.failed_advantage
    if failed is not None:
        chooser = (
            "the GM"
            if state.members[failed.actor].is_npc
            else (f"{state.name(failed.actor)}'s player")
        )
        return (
            f"{state.name(failed.actor)}'s advantage failed: {chooser} picks Don't create it, or "
            f"Create it ({state.name(failed.enemy)} gets its free invoke). Anything else done "
            "first leaves it not created."
        )
    if c.phase is Phase.CHOOSING_NEXT:
        return "The GM picks who acts next."
    action = " (action used)" if c.action_used else ""
    return f"{state.name(c.current)} acts{action}; then pick who goes next."


def conflict_controls(snapshot: ConflictSnapshot) -> Controls:
    """The tracker's buttons for the conflict's phase, and Pass a boost while one is held."""
    controls = _phase_controls(snapshot)
    if snapshot.conflict.phase is Phase.ENDED:
        return controls
    extra: list[ButtonSpec] = []
    if any(a.kind is AspectKind.BOOST and a.free_invokes for a in snapshot.state.aspects):
        extra.append(ButtonSpec(TrackerAction.PASS_BOOST, "Pass a boost"))
    if snapshot.state.undoable_absorb(snapshot.version) is not None:
        extra.append(ButtonSpec(TrackerAction.UNDO_ABSORB, "Undo the absorb"))
    return replace(controls, buttons=(*controls.buttons, *extra))


def _phase_controls(snapshot: ConflictSnapshot) -> Controls:
    c = snapshot.conflict
    if c.phase is Phase.ENDED:
        return Controls()
    blue, red = discord.ButtonStyle.primary, discord.ButtonStyle.danger
    buttons: tuple[ButtonSpec, ...]
    bonuses = (
        ButtonSpec(TrackerAction.INVOKE, "Invoke +2"),
        ButtonSpec(TrackerAction.INVOKE_REROLL, "Invoke reroll"),
        ButtonSpec(TrackerAction.STUNT, "Stunt"),
        ButtonSpec(TrackerAction.TEAMWORK, "Teamwork +1"),
    )
    action = snapshot.state.action
    if isinstance(action, PendingAdvantage) and action.defended():
        if snapshot.state.defence_roll is None:  # as an attack: the defender rolls first
            return Controls((ButtonSpec(TrackerAction.DEFEND, "Defend", blue), *bonuses))
    if action is not None:
        return Controls(
            (ButtonSpec(TrackerAction.RESOLVE_ACTION, "Resolve the roll", blue), *bonuses)
        )
    if c.phase is Phase.DEFENDING and snapshot.state.defence_roll is not None:
        return Controls((ButtonSpec(TrackerAction.RESOLVE, "Resolve the attack", blue), *bonuses))
    if c.phase is Phase.DEFENDING:
        return Controls((ButtonSpec(TrackerAction.DEFEND, "Defend", blue), *bonuses))
    if c.phase is Phase.ABSORBING:
        buttons = (
            ButtonSpec(TrackerAction.ABSORB, "Take the hit", blue),
            ButtonSpec(TrackerAction.INVOKE, "Invoke +2"),
            ButtonSpec(TrackerAction.INVOKE_REROLL, "Invoke reroll"),
            ButtonSpec(TrackerAction.BOOST, "Trade a shift for a boost"),
        )
        return Controls(buttons)
    if c.phase is Phase.CHOOSING_NEXT:
        buttons = (ButtonSpec(TrackerAction.CONCEDE, "Concede", red),)
    else:
        buttons = (
            ButtonSpec(TrackerAction.ATTACK, "Attack", blue),
            ButtonSpec(TrackerAction.OVERCOME, "Overcome"),
            ButtonSpec(TrackerAction.CREATE_ADVANTAGE, "Create advantage"),
            ButtonSpec(TrackerAction.MOVE, "Move"),
            ButtonSpec(TrackerAction.CONCEDE, "Concede", red),
        )
    if snapshot.state.failed_advantage is not None:  # the roller's choice comes first
        choice = (
            ButtonSpec(TrackerAction.NOT_CREATED, "Don't create it", blue),
            ButtonSpec(TrackerAction.ENEMY_INVOKE, "Create it — the enemy gets the free invoke"),
        )
        buttons = (*choice, *buttons)
    options = tuple(
        Choice(p.id, clip(p.name, 100), "NPC" if p.is_npc else "PC")
        for p in eligible_next(c)[:MAX_SELECT_OPTIONS]
    )
    return Controls(buttons, TrackerAction.NEXT, "Pick who acts next", options)


# --------------------------------------------------------------------------- contests
def contest_tracker(snapshot: ContestSnapshot) -> discord.Embed:
    state = snapshot.state
    contest = state.contest
    over = contest.winner is not None
    title = f"Contest #{snapshot.id} - to {contest.victories_needed} victories"
    embed = discord.Embed(title=title, colour=ENDED_COLOUR if over else COLOUR)
    embed.description = newest_lines(state.log, 2000) or "The contest begins."
    for side in contest.sides:
        names = ", ".join(state.name(m) for m in side.members)
        rolled = contest.exchange.rolls.get(side.key)
        status = (
            f"rolled {describe(rolled.effort)}"
            if rolled
            else "forfeited its roll"
            if side.key in contest.exchange.forfeited
            else "to roll"
        )
        helpers = contest.exchange.helpers.get(side.key, [])
        helping = f"\nTeamwork: {', '.join(state.name(h) for h in helpers)}" if helpers else ""
        intent = f"\nIntent: {clip(side.intent, 200)}" if side.intent else ""
        if side.harms_others:
            intent += "\nAims to harm: those it beats take hits."
        boxes = "■" * side.victories + "□" * max(0, contest.victories_needed - side.victories)
        embed.add_field(
            name=clip(f"{side.name}: {boxes} ({side.victories})", 256),
            value=clip(f"{names}{intent}\nThis exchange: {status}{helping}", 1024),
            inline=False,
        )
    if contest.twists:
        embed.add_field(
            name="Twists", value=clip("\n".join(f"*{t}*" for t in contest.twists), 1024)
        )
    if state.aspects:
        sides = {s.key: s.name for s in contest.sides}
        embed.add_field(
            name="Aspects from this contest",
            value=clip(
                "\n".join(
                    f"*{a.text}*"
                    + (" (boost)" if a.kind.value == "boost" else "")
                    + (
                        f" - free invokes: {', '.join(sides.get(h, h) for h in a.free_invokes)}"
                        if a.free_invokes
                        else ""
                    )
                    for a in state.aspects
                ),
                1024,
            ),
            inline=False,
        )
    if state.hits and not state.stopped:
        waiting = "\n".join(
            f"{state.name(h.victim)}: a {h.shifts}-shift hit from {state.name(h.attacker)}"
            for h in state.hits
        )
        embed.add_field(
            name="Hits to take",
            value=clip(waiting + "\nPress Take the hit to choose stress or consequences.", 1024),
            inline=False,
        )
    if state.out:
        embed.add_field(
            name="Taken out",
            value=clip(", ".join(state.name(m) for m in state.out), 1024),
            inline=False,
        )
    if over:
        embed.add_field(name="Result", value=f"{contest.side(contest.winner or '').name} wins.")
    elif state.stopped:
        embed.add_field(name="Result", value="The GM stopped the contest.")
    elif not state.hits:
        embed.add_field(name="Now", value=_contest_now(snapshot))
    embed.set_footer(text=f"contest {snapshot.id} · v{snapshot.version}")
    return safe_embed(embed)


def _contest_now(snapshot: ContestSnapshot) -> str:
    state = snapshot.state
    if state.awaiting_twist:
        return "A tie for the highest effort: the GM adds a twist."
    if state.pending_fail:
        return "A failed advantage: that side forfeits its roll or gives a free invoke."
    if state.everyone_rolled():
        return "Every side has rolled: invoke, then press Resolve the exchange."
    return (
        f"Exchange {state.contest.exchange.number}: each side rolls once; others may help "
        "or create advantages first."
    )


def contest_controls(snapshot: ContestSnapshot) -> Controls:
    if snapshot.state.hits and not snapshot.state.stopped:
        return Controls(
            (ButtonSpec(TrackerAction.ABSORB, "Take the hit", discord.ButtonStyle.primary),)
        )
    if snapshot.state.contest.winner is not None or snapshot.state.stopped:
        return Controls()
    if snapshot.state.awaiting_twist:
        return Controls(
            (ButtonSpec(TrackerAction.TWIST, "Add a twist (GM)", discord.ButtonStyle.primary),)
        )
    if snapshot.state.pending_fail:
        return Controls(
            (
                ButtonSpec(TrackerAction.FORFEIT, "Forfeit our roll"),
                ButtonSpec(TrackerAction.GIVE_INVOKE, "Give them a free invoke"),
            )
        )
    if snapshot.state.everyone_rolled():
        return Controls(
            (
                ButtonSpec(
                    TrackerAction.RESOLVE, "Resolve the exchange", discord.ButtonStyle.primary
                ),
                ButtonSpec(TrackerAction.INVOKE, "Invoke +2"),
                ButtonSpec(TrackerAction.INVOKE_REROLL, "Invoke reroll"),
            )
        )
    return Controls(
        (
            ButtonSpec(TrackerAction.ROLL, "Roll for my side", discord.ButtonStyle.primary),
            ButtonSpec(TrackerAction.TEAMWORK, "Teamwork +1"),
            ButtonSpec(TrackerAction.CREATE_ADVANTAGE, "Create advantage"),
            ButtonSpec(TrackerAction.INVOKE, "Invoke +2"),
            ButtonSpec(TrackerAction.INVOKE_REROLL, "Invoke reroll"),
        )
    )


# --------------------------------------------------------------------------- challenges
def challenge_tracker(snapshot: ChallengeSnapshot) -> discord.Embed:
    challenge: Challenge = snapshot.state.challenge
    total = challenge_summary(challenge)
    title = f"Challenge #{snapshot.id}" + (f": {challenge.title}" if challenge.title else "")
    embed = discord.Embed(title=clip(title, 256), colour=ENDED_COLOUR if total.complete else COLOUR)
    lines = []
    for number, task in enumerate(challenge.tasks, start=1):
        who = snapshot.state.name(task.assigned_to) if task.assigned_to else "open"
        line = f"**{number}. {task.skill}** vs {describe(task.difficulty)}"
        if task.description:
            line += f" - {clip(task.description, 100)}"
        waiting = snapshot.state.rolls.get(task.id)
        if task.result is None and waiting is not None:
            line += f" · {who}: rolled {describe(waiting.effort())}, invoke or keep it"
        elif task.result is None:
            line += f" · {who}"
        else:
            outcome = task.result.outcome.value.replace("_", " ")
            line += f" · {who}: {describe(task.result.effort)}, **{outcome}**"
            if task.result.cost:
                line += f" (cost: {clip(task.result.cost, 100)})"
        lines.append(line)
    embed.description = clip("\n".join(lines), 3000)
    if snapshot.state.log:
        embed.add_field(name="Rolls", value=newest_lines(snapshot.state.log, 1024), inline=False)
    embed.add_field(
        name="Summary",
        value=(
            f"{plural(total.successes, 'success')} ({total.with_style} with style), "
            f"{plural(total.ties, 'tie')}, "
            f"{plural(total.failures, 'failure')}, {total.open} open"
            + (" - complete: the GM reads the mix." if total.complete else "")
        ),
        inline=False,
    )
    embed.set_footer(text=f"challenge {snapshot.id} · v{snapshot.version}")
    return safe_embed(embed)


def challenge_controls(snapshot: ChallengeSnapshot) -> Controls:
    if challenge_summary(snapshot.state.challenge).complete or snapshot.state.stopped:
        return Controls()
    buttons = [
        ButtonSpec(TrackerAction.CLAIM, "Claim a task"),
        ButtonSpec(TrackerAction.ROLL, "Roll a task", discord.ButtonStyle.primary),
    ]
    if snapshot.state.rolls:
        buttons += [
            ButtonSpec(TrackerAction.INVOKE, "Invoke +2"),
            ButtonSpec(TrackerAction.INVOKE_REROLL, "Invoke reroll"),
            ButtonSpec(TrackerAction.KEEP, "Keep the roll"),
        ]
    return Controls(tuple(buttons))
