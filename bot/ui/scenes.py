"""Rendering for scenes: the board, create-an-advantage results, scene start and end."""

from __future__ import annotations

from collections import Counter

import discord

from bot.fate.aspects import Aspect, AspectKind
from bot.fate.compels import CompelState
from bot.fate.ladder import describe, signed
from bot.fate.recovery import MilestoneKind
from bot.fate.words import plural, tally
from bot.services.compels import OfferView
from bot.services.economy import (
    LedgerLine,
    LedgerPage,
    MilestoneReport,
    Movement,
    Refreshed,
    Treatment,
    UndoPreview,
)
from bot.services.scenes import BoardData, SceneEnded
from bot.ui.common import COLOUR, FIELD_VALUE_LIMIT, clip, safe_embed

MAX_LINES = 25


def holders_text(aspect: Aspect, names: dict[str, str]) -> str:
    return tally(
        Counter(aspect.free_invokes), lambda holder: clip(names.get(holder, "someone"), 40)
    )


def aspect_line(aspect: Aspect, names: dict[str, str], *, for_gm: bool) -> str:
    hidden = " 🔒 hidden" if aspect.hidden and for_gm else ""
    if aspect.kind is AspectKind.BOOST:
        holder = holders_text(aspect, names) or "nobody"
        return f"• *{aspect.text}* (boost, {holder}){hidden}"
    invokes = holders_text(aspect, names)
    tail = f" — free invokes: {invokes}" if invokes else ""
    return f"• **{aspect.text}**{tail}{hidden}"


def _lines(lines: list[str], empty: str) -> str:
    if not lines:
        return empty
    shown = lines[:MAX_LINES]
    if len(lines) > MAX_LINES:
        shown.append(f"… and {len(lines) - MAX_LINES} more")
    return clip("\n".join(shown), FIELD_VALUE_LIMIT)


def board_embed(data: BoardData, *, for_gm: bool = False) -> discord.Embed:
    """The scene board. Public boards (for_gm False) never show hidden aspects."""
    scene = data.scene
    title = f"Scene: {scene.title}" if scene.title else "Scene"
    if not data.active:
        return safe_embed(
            discord.Embed(
                title=f"{title} (ended)",
                description="This scene has ended. Stress is cleared; boosts and situation "
                "aspects are gone.",
                colour=discord.Colour.dark_grey(),
            )
        )
    visible = scene.visible_aspects(for_gm)
    situation = [a for a in visible if a.owner is None or a.kind is not AspectKind.ZONE]
    embed = discord.Embed(
        title=title,
        description=_lines(
            [aspect_line(a, data.names, for_gm=for_gm) for a in situation],
            "No situation aspects yet. The GM adds them with `/aspect add`.",
        ),
        colour=COLOUR,
    )
    placed: set[str] = set()
    zone_lines = []
    for zone in scene.zones:
        people = [p.name for p in scene.participants if p.zone == zone.key]
        placed.update(p.id for p in scene.participants if p.zone == zone.key)
        zone_aspects = [
            a.text + (f" ({holders_text(a, data.names)})" if a.free_invokes else "")
            for a in visible
            if a.kind is AspectKind.ZONE and a.owner == zone.key
        ]
        line = f"**{zone.name}**: {', '.join(people) or 'nobody'}"
        if zone_aspects:
            line += f" — *{'; '.join(zone_aspects)}*"
        zone_lines.append(clip(line, 300))
    unplaced = [p.name for p in scene.participants if p.id not in placed]
    if scene.zones:
        embed.add_field(name="Zones", value=_lines(zone_lines, "none"), inline=False)
    if unplaced or not scene.zones:
        embed.add_field(
            name="In the scene" if not scene.zones else "Not in a zone",
            value=_lines(unplaced, "Nobody yet: `/scene join`."),
            inline=False,
        )
    game = [
        aspect_line(a, data.names, for_gm=for_gm)
        for a in data.game_aspects
        if for_gm or not a.hidden
    ]
    if game:
        embed.add_field(name="Game aspects", value=_lines(game, "none"), inline=False)
    points = [f"GM pool: **{scene.gm_pool}**"] + [
        f"{clip(data.names.get(who, 'someone'), 40)}: **{n}**"
        for who, n in data.fate_points.items()
    ]
    embed.add_field(name="Fate points", value=_lines(points, "none"), inline=False)
    embed.set_footer(text="Invoke these aspects with /roll; add some with /advantage.")
    return safe_embed(embed)


def ended_text(result: SceneEnded) -> str:
    lines = ["The scene ends: stress clears, boosts and situation aspects are gone."]
    if result.cleared:
        lines.append(clip("Stress cleared for: " + ", ".join(result.cleared), 600))
    kept = list(result.kept)
    if result.kept_hidden:
        kept.append(plural(result.kept_hidden, "hidden one"))
    if kept:
        lines.append(clip("Kept as game aspects: " + ", ".join(kept), 600))
    if result.recovered:
        lines.append(clip("Recovered: " + "; ".join(result.recovered), 600))
    if result.paid:
        lines.append(clip("Paid for hostile invokes: " + ", ".join(result.paid), 600))
    return "\n".join(lines)


# --------------------------------------------------------------------------- the economy
REASONS = {
    "invoke": "invoke",
    "hostile_invoke": "hostile invoke",
    "compel_accepted": "compel accepted",
    "compel_refused": "compel refused",
    "compel_offered": "paid to compel",
    "compel_withdrawn": "compel withdrawn",
    "concession": "concession",
    "refresh": "refresh",
    "hostile_invoke_payout": "hostile invoke payout",
    "stunt": "stunt",
    "scene_pool": "GM pool at scene start",
    "gm_edit": "GM edit",
    "undo": "undo",
    "void": "roll voided",
}


def ledger_line(line: LedgerLine, *, for_gm: bool = False) -> str:
    """One movement. The GM side's notes may name hidden aspects: only GMs see them."""
    reason = REASONS.get(line.reason, line.reason.replace("_", " "))
    shown = line.note if for_gm or line.who != "GM" else ""
    note = f" — {clip(shown, 60)}" if shown else ""
    struck = "~~" if line.undone else ""
    return (
        f"`#{line.id}` {struck}**{clip(line.who, 40)}** {line.delta:+d} → {line.balance_after} "
        f"({reason}){struck}{note}"
    )


def ledger_embed(page: LedgerPage, *, for_gm: bool = False) -> discord.Embed:
    embed = discord.Embed(
        title="Fate point ledger",
        description=_lines(
            [ledger_line(x, for_gm=for_gm) for x in page.lines],
            "No fate point has moved in this campaign yet.",
        ),
        colour=COLOUR,
    )
    shown = page.page + 1
    if not page.more_pages:
        number = f"{shown} of {page.pages}"
    elif not page.older:  # the oldest page of a ledger longer than the pages counted
        number = f"{shown} of {shown}"
    else:
        number = f"{shown} of {page.pages}+" if shown <= page.pages else str(shown)
    embed.set_footer(
        text=f"Page {number} · newest first · struck = undone · "
        "the GM reverses one with /fp undo entry:<number>"
    )
    return safe_embed(embed)


def undo_text(original: LedgerLine, inverse: LedgerLine) -> str:
    reason = REASONS.get(original.reason, original.reason)
    return (
        f"Undone `#{original.id}` ({reason}, {original.delta:+d} for {clip(original.who, 40)}): "
        f"{clip(inverse.who, 40)} now has {inverse.balance_after}."
    )


def undo_preview_text(preview: UndoPreview) -> str:
    """What the Confirm button of /fp undo will reverse (the GM's notes are the GM's to read)."""
    entry, inverse = preview.entry, preview.inverse
    reason = REASONS.get(entry.reason, entry.reason)
    note = f" — {clip(entry.note, 80)}" if entry.note else ""
    before = inverse.balance_after - inverse.delta
    who = "the GM pool" if inverse.who == "GM" else clip(inverse.who, 40)
    return (
        f"Undo `#{entry.id}` ({reason}, {entry.delta:+d} for {clip(entry.who, 40)}{note})?\n"
        f"This moves {inverse.delta:+d} for {who}: {before} → {inverse.balance_after}. "
        "Press **Confirm undo**, or dismiss this message to keep it."
    )


def undo_choice_label(line: LedgerLine) -> str:
    """One autocomplete suggestion of /fp undo."""
    reason = REASONS.get(line.reason, line.reason)
    note = f" — {line.note}" if line.note else ""
    return clip(f"#{line.id} {line.who} {line.delta:+d} ({reason}){note}", 100)


def movement_text(move: Movement) -> str:
    verb = "gains" if move.delta > 0 else "loses"
    return f"{clip(move.who, 40)} {verb} {plural(abs(move.delta), 'fate point')}: now {move.balance_after}."


def refreshed_text(result: Refreshed) -> str:
    lines = [f"**Session {result.session_number} starts.** Fate points refresh."]
    for move in result.raised:
        lines.append(f"• {clip(move.who, 40)}: +{move.delta} → {move.balance_after}")
    if result.kept:
        lines.append(clip("Already at or above refresh (kept): " + ", ".join(result.kept), 600))
    return clip("\n".join(lines), 1900)


def milestone_text(report: MilestoneReport) -> str:
    if report.kind is MilestoneKind.MINOR:
        head = f"**Session {report.number} ends.** Everyone earns a minor milestone."
    else:
        head = f"**Arc {report.number} ends.** Everyone earns a major milestone."
    lines = [head]
    if report.unused:
        lines.append(clip("May still use a milestone: " + ", ".join(report.unused), 900))
        lines.append(
            "Spend one with `/character milestone minor` (or `major`): the change shows here."
        )
    if report.recovered:
        lines.append(clip("Recovered: " + "; ".join(report.recovered), 600))
    return clip("\n".join(lines), 1900)


def treatment_embed(result: Treatment) -> discord.Embed:
    embed = discord.Embed(
        title=clip(f"{result.healer} treats {result.patient}", 256),
        description=(
            f"{result.dice_text} {signed(sum(result.dice))} + {result.skill} "
            f"{signed(result.rating)} = **{describe(result.effort)}** "
            f"against {describe(result.difficulty)}: **{result.outcome.label}**"
        ),
        colour=COLOUR,
    )
    embed.add_field(
        name="Recovery", value=clip("\n".join(e.text for e in result.events), FIELD_VALUE_LIMIT)
    )
    return safe_embed(embed)


# --------------------------------------------------------------------------- compels
STATE_TEXT = {
    CompelState.OFFERED: "Waiting for an answer.",
    CompelState.ACCEPTED: "**Accepted**: +1 fate point.",
    CompelState.REFUSED: "**Refused**: it cost a fate point.",
    CompelState.WITHDRAWN: "**Withdrawn.**",
}


def offer_text(offer: OfferView) -> str:
    lines = [
        f"**Compel #{offer.id}** on **{clip(offer.target, 60)}**, by {clip(offer.offered_by, 60)}",
        f"Aspect: *{clip(offer.aspect, 100)}*",
        f"Complication: {clip(offer.complication, 300)}",
    ]
    if offer.state is CompelState.OFFERED:
        lines.append(
            f"{clip(offer.target, 60)}: accept for +1 fate point, or refuse for one point."
        )
    else:
        lines.append(STATE_TEXT[offer.state])
    if offer.points_note:
        lines.append(offer.points_note)
    return clip("\n".join(lines), 1900)


def offers_list_text(offers: list[OfferView], total: int | None = None) -> str:
    """Open compels, as many as fit; past that (or past the listed ones) "and N more"."""
    if not offers:
        return "No compel is waiting for an answer. Offer one with `/compel offer`."
    total = max(total or 0, len(offers))
    lines: list[str] = []
    size = len("Open compels:") + 40
    for o in offers:
        line = (
            f"• #{o.id} on **{clip(o.target, 40)}** (*{clip(o.aspect, 60)}*) by "
            f"{clip(o.offered_by, 40)} in <#{o.channel_id}>"
        )
        if size + len(line) + 1 > 1900:
            break
        lines.append(line)
        size += len(line) + 1
    if total > len(lines):
        lines.append(f"… and {total - len(lines)} more.")
    return "Open compels:\n" + "\n".join(lines)
