"""Character sheets, lists, mantles, campaigns and the guided creation flow as embeds.

Pure: domain objects in, discord.Embed out; no I/O and no rules. Every embed goes through
`safe_embed`, and every field is clipped here first so that the cut lands where it reads best.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

import discord

from bot.dfc.creation import CreationDraft, CreationStep
from bot.dfc.mantles import Mantle, MantleStunt
from bot.fate.ladder import describe
from bot.fate.sheet import AspectKind, Character
from bot.fate.stunts import Stunt
from bot.fate.tracks import Track, TrackKind
from bot.fate.words import plural
from bot.ui.common import COLOUR, FIELD_VALUE_LIMIT, clip, greedy_pages, safe_embed

ASPECT_LABELS = {
    AspectKind.HIGH_CONCEPT: "High concept",
    AspectKind.TROUBLE: "Trouble",
    AspectKind.RELATIONSHIP: "Relationship",
    AspectKind.FREE: "Aspect",
}
STEP_TITLES = {
    CreationStep.MANTLE: "1. Mantle",
    CreationStep.ASPECTS: "2. Aspects",
    CreationStep.SKILLS: "3. Skills",
    CreationStep.NAME: "4. Name",
    # refresh and stress ask nothing: the guided flow passes them and shows them on the next step
    CreationStep.REFRESH: "Refresh",
    CreationStep.STUNTS: "5. Stunts",
    CreationStep.EXTRA_STUNTS: "6. Extra stunts",
    CreationStep.STRESS: "Stress and conditions",
    CreationStep.RELATIONSHIP: "7. Relationship",
    CreationStep.DONE: "Ready",
}


def _lines(lines: Iterable[str], limit: int = FIELD_VALUE_LIMIT) -> str:
    """Join lines, dropping whole lines (with a count) rather than cutting one in half."""
    kept: list[str] = []
    items = list(lines)
    used = 0
    for index, line in enumerate(items):
        rest = len(items) - index - 1
        tail = f"\n… and {rest} more" if rest else ""
        if used + len(line) + 1 + len(tail) > limit:
            kept.append(f"… and {len(items) - index} more")
            break
        kept.append(line)
        used += len(line) + 1
    return clip("\n".join(kept), limit) or "—"


def invokes_text(count: int) -> str:
    if count <= 0:
        return ""
    return f" ({count} free invoke{'s' if count != 1 else ''})"


def aspect_lines(character: Character) -> list[str]:
    order = [AspectKind.HIGH_CONCEPT, AspectKind.TROUBLE, AspectKind.RELATIONSHIP, AspectKind.FREE]
    lines = []
    for kind in order:
        for item in character.aspects:
            if item.kind is kind:
                label = ASPECT_LABELS[kind]
                lines.append(f"**{label}:** {item.text}{invokes_text(item.free_invokes)}")
    return lines


def skill_lines(character: Character) -> list[str]:
    """'Great (+4): Fight' per rating, highest first (Mediocre skills are left out)."""
    return [f"**{describe(r)}:** {', '.join(names)}" for r, names in character.skill_columns()]


def track_line(track: Track) -> str:
    text = f"**{track.label}** {track.render_boxes()}"
    if track.kind is TrackKind.CONSEQUENCE:
        text = f"**{track.label}** ({track.absorb})"
        if track.aspect:
            text += f": {track.aspect}" + (" *(recovering)*" if track.healing else "")
        else:
            text += ": —"
        return text
    if track.kind is TrackKind.CONDITION:
        kind = track.recovery.value if track.recovery else "condition"
        text += f" *{kind}*"
        if track.absorb > 1:
            text += f", absorbs {track.absorb}"
        if track.aspect:
            text += f": {track.aspect}"
        if track.healing:
            text += " *(recovering)*"
    return text


def stunt_line(stunt: Stunt, *, full: bool) -> str:
    tags = []
    if stunt.core:
        tags.append("core")
    if stunt.cost:
        tags.append(f"{stunt.cost} refresh")
    tag = f" *({', '.join(tags)})*" if tags else ""
    if full and stunt.text:
        return f"**{stunt.name}**{tag}: {stunt.text}"
    return f"**{stunt.name}**{tag}"


def sheet_embed(
    character: Character, *, full: bool = False, owner: str | None = None
) -> discord.Embed:
    """The paper sheet: aspects, skills with ladder words, stunts, boxes, fate points."""
    title = character.name
    if character.mantle:
        title += f" — {character.mantle}"
    if character.npc_kind is not None:
        title += f" ({character.npc_kind.value} NPC)"
    embed = discord.Embed(title=clip(title, 256), colour=COLOUR)
    top = aspect_lines(character) or ["*No aspects yet.*"]
    if full and character.description:
        top = [clip(character.description, 1000), ""] + top
    embed.description = _lines(top, 3000 if full else 1500)
    embed.add_field(
        name="Fate points / refresh",
        value=f"{character.fate_points} / {character.refresh}",
        inline=True,
    )
    if character.skill_points:
        embed.add_field(name="Saved skill steps", value=str(character.skill_points), inline=True)
    embed.add_field(
        name="Skills", value=_lines(skill_lines(character) or ["All Mediocre (+0)"]), inline=False
    )
    if character.stunts:
        embed.add_field(
            name=f"Stunts ({len(character.stunts)})",
            value=_lines(stunt_line(s, full=full) for s in character.stunts),
            inline=False,
        )
    stress = [track_line(t) for t in character.tracks_of(TrackKind.STRESS)]
    if stress:
        embed.add_field(name="Stress", value=_lines(stress), inline=False)
    for kind, heading in (
        (TrackKind.CONSEQUENCE, "Consequences"),
        (TrackKind.CONDITION, "Conditions"),
    ):
        # The short sheet shows only what is marked; the full one shows every slot.
        shown = [track_line(t) for t in character.tracks_of(kind) if full or not t.is_free]
        if shown:
            embed.add_field(name=heading, value=_lines(shown), inline=False)
    if full and character.notes:
        embed.add_field(name="Notes", value=clip(character.notes, FIELD_VALUE_LIMIT), inline=False)
    footer = []
    if owner:
        footer.append(f"Player: {owner}")
    if not full:
        footer.append("Full sheet: /character sheet full:True")
    if footer:
        embed.set_footer(text=" · ".join(footer))
    return safe_embed(embed)


IMPORT_UNMAPPED_SHOWN = 15


def import_text(name: str, source: str, unmapped: Sequence[str]) -> str:
    """What an import says: where the sheet came from and what could not be mapped."""
    origin = "Fari" if source == "fari" else "Fate Table"
    text = f"Imported **{name}** from a {origin} file."
    if unmapped:
        lines = "\n".join(f"• {clip(u, 150)}" for u in unmapped[:IMPORT_UNMAPPED_SHOWN])
        more = len(unmapped) - IMPORT_UNMAPPED_SHOWN
        text += f"\nCould not be mapped:\n{lines}" + (f"\n… and {more} more" if more > 0 else "")
    return clip(text, 2000)


def milestone_text(name: str, changes: Sequence[str]) -> str:
    lines = "\n".join(f"• {c}" for c in changes) or "• Nothing changed."
    return clip(f"Milestone for **{name}**:\n{lines}", 2000)


def character_list_embed(
    campaign_name: str, entries: Sequence[tuple[str, bool, bool, bool]]
) -> discord.Embed:
    """(name, is_npc, is_mine, is_active) per character."""
    lines = []
    for name, is_npc, mine, active in entries:
        marks = []
        if active:
            marks.append("active")
        if mine:
            marks.append("yours")
        if is_npc:
            marks.append("NPC")
        lines.append(f"• {name}" + (f" *({', '.join(marks)})*" if marks else ""))
    embed = discord.Embed(title=clip(f"Characters — {campaign_name}", 256), colour=COLOUR)
    embed.description = _lines(
        lines or ["No characters yet. Make one with `/character create`."], 4000
    )
    return safe_embed(embed)


MILESTONE_LINE_MAX = 400


def milestone_log_embed(
    name: str, entries: Sequence[tuple[str, Sequence[str], datetime]], total: int | None = None
) -> discord.Embed:
    """A character's milestones, newest first: (kind, change lines, when) per milestone.
    `total` counts all of them when only the latest were loaded."""
    lines = []
    for kind, changes, when in entries:
        done = "; ".join(changes) or "nothing changed"
        lines.append(clip(f"**{kind.capitalize()}** · {when:%Y-%m-%d}: {done}", MILESTONE_LINE_MAX))
    embed = discord.Embed(title=clip(f"Milestones — {name}", 256), colour=COLOUR)
    embed.description = _lines(
        lines or ["No milestones yet. Take one with `/character milestone minor` or `major`."],
        4000,
    )
    shown = len(entries)
    if total is not None and total > shown:
        embed.set_footer(text=f"The latest {shown} of {total} milestones.")
    return safe_embed(embed)


def _mantle_stunt_line(stunt: MantleStunt) -> str:
    name = stunt.display_name
    if stunt.renamed_to:
        name += f" (was {stunt.name})"
    return f"**{name}**: {stunt.conversion}"


def mantle_embed(
    mantle: Mantle,
    group: str,
    custom: Sequence[tuple[str, str]] = (),
    *,
    one_point_boxes: bool = True,
    condition_values: dict[str, int] | None = None,
) -> discord.Embed:
    """The seed's conversion notes for one mantle, plus the campaign's custom entries
    as (kind, line)."""
    embed = discord.Embed(title=clip(f"{mantle.name} ({group})", 256), colour=COLOUR)
    intro = []
    if mantle.notes:
        intro.append(mantle.notes)
    if mantle.as_is:
        intro.append("Converts as-is.")
    intro.append(
        "Stress values are halved for one-point boxes."
        if one_point_boxes
        else "Stress values are used as written (escalating boxes)."
    )
    embed.description = clip("\n".join(intro), 2000)
    values = condition_values or {}
    if mantle.conditions:
        lines = []
        for c in mantle.conditions:
            kind = c.kind.value if c.kind else "kind not given: complete it in the editor"
            extra = f", absorbs {values[c.name]}" if c.name in values else ""
            lines.append(f"**{c.name}** *({kind}{extra})*: {c.conversion}")
        embed.add_field(name="Conditions", value=_lines(lines), inline=False)
    if mantle.core_stunts:
        embed.add_field(
            name="Core stunts",
            value=_lines(_mantle_stunt_line(s) for s in mantle.core_stunts),
            inline=False,
        )
    if mantle.additional_stunts:
        embed.add_field(
            name="Additional stunts",
            value=_lines(_mantle_stunt_line(s) for s in mantle.additional_stunts),
            inline=False,
        )
    if custom:
        embed.add_field(
            name="This campaign's entries",
            value=_lines(f"{line} *({kind})*" for kind, line in custom),
            inline=False,
        )
    return safe_embed(embed)


def mantle_list_embed(groups: dict[str, list[Mantle]]) -> discord.Embed:
    embed = discord.Embed(title="Dresden Files Condensed mantles", colour=COLOUR)
    embed.description = "Details: `/mantle show NAME`. Add one to a sheet: `/mantle apply NAME`."
    for group, mantles in groups.items():
        embed.add_field(
            name=group, value=_lines([", ".join(m.name for m in mantles)]), inline=False
        )
    return safe_embed(embed)


def campaign_list_embed(
    entries: Sequence[tuple[str, bool, str, Sequence[int], bool]],
) -> discord.Embed:
    """(name, is_default, stress style, bound channel ids, is here) per campaign."""
    embed = discord.Embed(title="Campaigns on this server", colour=COLOUR)
    lines = []
    for name, default, style, channels, here in entries:
        bits = [f"{style} stress"]
        if default:
            bits.append("default")
        if here:
            bits.append("this channel")
        where = ", ".join(f"<#{c}>" for c in list(channels)[:10])
        line = f"• **{name}** *({', '.join(bits)})*"
        if where:
            line += f" — {where}"
        lines.append(line)
    embed.description = _lines(lines, 4000)
    return safe_embed(embed)


def settings_embed(
    name: str,
    style: str,
    skills: Sequence[str],
    custom_skills: bool,
    gm_channel: int | None,
    turn_ping: bool = True,
) -> discord.Embed:
    embed = discord.Embed(title=clip(f"Settings — {name}", 256), colour=COLOUR)
    embed.add_field(name="Stress style", value=style, inline=True)
    embed.add_field(
        name="GM channel", value=f"<#{gm_channel}>" if gm_channel else "none", inline=True
    )
    ping = "pings that player" if turn_ping else "names them without a ping"
    embed.add_field(name="Whose turn line", value=ping, inline=True)
    label = "Skill list (custom)" if custom_skills else "Skill list (Fate Condensed)"
    embed.add_field(name=label, value=_lines([", ".join(skills)]), inline=False)
    return safe_embed(embed)


# ----- guided creation ---------------------------------------------------------------------


def draft_summary(draft: CreationDraft) -> list[str]:
    lines = [f"**Mantle:** {draft.mantle or '—'}" if draft.step is not CreationStep.MANTLE else ""]
    if draft.high_concept:
        lines.append(f"**High concept:** {draft.high_concept}")
    if draft.trouble:
        lines.append(f"**Trouble:** {draft.trouble}")
    for text in draft.free_aspects:
        lines.append(f"**Aspect:** {text}")
    if draft.skills:
        by_rating: dict[int, list[str]] = {}
        for skill, rating in draft.skills.items():
            by_rating.setdefault(rating, []).append(skill)
        for rating in sorted(by_rating, reverse=True):
            lines.append(f"**{describe(rating)}:** {', '.join(sorted(by_rating[rating]))}")
    if draft.name:
        lines.append(f"**Name:** {draft.name}")
    stunts = draft.mantle_stunts + draft.free_stunts + draft.extra_stunts
    if stunts:
        lines.append("**Stunts:** " + ", ".join(s.name for s in stunts))
    if CreationStep.REFRESH in _done(draft):
        lines.append(f"**Refresh:** {draft.refresh}")
    if draft.relationship:
        lines.append(f"**Relationship:** {draft.relationship}")
    return [line for line in lines if line]


def _done(draft: CreationDraft) -> list[CreationStep]:
    order = list(CreationStep)
    return order[: order.index(draft.step)]


STEP_HELP = {
    CreationStep.MANTLE: (
        "Pick your mantle's group, then the mantle (Dresden Files Condensed), or "
        "**No mantle** for a plain Fate Condensed character."
    ),
    CreationStep.ASPECTS: (
        "Write a high concept and a trouble, and up to two more aspects if you already know them."
    ),
    CreationStep.SKILLS: (
        "Rate your skills: one Great (+4), two Good (+3), three Fair (+2), four Average (+1); "
        "the rest stay Mediocre (+0)."
    ),
    CreationStep.NAME: "Name your character and, if you like, describe them.",
    CreationStep.REFRESH: "You start with refresh 3: that many fate points at each session start.",
    CreationStep.STUNTS: (
        "You start with refresh 3: that many fate points at each session start. "
        "Write your free stunt(s) as `Name: what it does`, pick one of your mantle's "
        "additional stunts from the list (if it has any), or skip for now."
    ),
    CreationStep.EXTRA_STUNTS: (
        "Buy extra stunts at 1 refresh each (refresh never drops below 1): write them, pick "
        "your mantle's from the list, or skip."
    ),
    CreationStep.STRESS: "Check your stress boxes, consequence slots and conditions.",
    CreationStep.RELATIONSHIP: (
        "Write a relationship aspect with another character and any free aspects you left "
        "open, or finish now and add them later with `/character edit aspect`. Your stress boxes, consequence slots and conditions "
        "(Physique and Will set the boxes) are below."
    ),
    CreationStep.DONE: "Everything is in place. Press **Finish** to put the character on the table.",
}


def draft_embed(
    draft: CreationDraft,
    *,
    resumed: bool = False,
    preview: Sequence[Track] = (),
    skill_names: Sequence[str] = (),
    notice: str | None = None,
) -> discord.Embed:
    """The guided flow's message at the draft's step; `notice` (a refused form) comes first."""
    title = f"New character — {STEP_TITLES[draft.step]}"
    embed = discord.Embed(title=title, colour=COLOUR)
    intro = [notice] if notice else []
    if resumed:
        intro.append("*Picking up your saved draft where you left it.*")
    intro.append(STEP_HELP[draft.step])
    if draft.step is CreationStep.STUNTS:
        count = draft.free_stunt_count
        intro.append(f"Free stunts here: {count}.")
    embed.description = "\n".join(intro)
    summary = draft_summary(draft)
    if summary:
        embed.add_field(name="So far", value=_lines(summary), inline=False)
    if skill_names and draft.step is CreationStep.SKILLS:
        embed.add_field(name="Skills to choose from", value=_lines([", ".join(skill_names)]))
    if preview:
        embed.add_field(
            name="Stress and conditions", value=_lines(track_line(t) for t in preview), inline=False
        )
    embed.set_footer(text="Saved as you go: run /character create again to come back here.")
    return safe_embed(embed)


OVERVIEW_TEXT_BUDGET = 5500  # per embed (one message each) of Discord's 6,000


def overview_field(character: Character, owner: str | None) -> tuple[str, str]:
    """One player character at a glance: fate points, aspects with their free invokes, stress,
    and the consequences and conditions that are marked."""
    who = f" ({owner})" if owner else ""
    name = clip(
        f"{character.name}{who}: {plural(character.fate_points, 'fate point')}, "
        f"refresh {character.refresh}",
        256,
    )
    lines = aspect_lines(character)
    for track in character.tracks:
        if track.kind is TrackKind.STRESS:
            lines.append(track_line(track))
        elif track.aspect or track.marked_count:
            lines.append(track_line(track))
    return name, _lines(lines)


def overview_embeds(
    campaign: str, pcs: Sequence[tuple[Character, str | None]], gm_pool: int | None
) -> list[discord.Embed]:
    """Every PC of a campaign for the GM, in as many embeds (one per message) as it takes."""
    pool = (
        f"GM pool in this scene: {plural(gm_pool, 'fate point')}."
        if gm_pool is not None
        else "No scene is running in this channel (`/scene start` sets the GM pool)."
    )
    title = f"Overview of {campaign}"
    if not pcs:
        empty = f"{pool}\nNo player characters yet: players make one with `/character create`."
        return [safe_embed(discord.Embed(title=clip(title, 256), description=empty, colour=COLOUR))]
    pages = greedy_pages(
        [overview_field(character, owner) for character, owner in pcs],
        lambda field: len(field[0]) + len(field[1]),
        OVERVIEW_TEXT_BUDGET,
        most=25,
        first_used=len(title) + len(pool),
        page_used=len(title) + 12,
    )
    embeds = [discord.Embed(title=clip(title, 256), description=pool, colour=COLOUR)]
    embeds += [
        discord.Embed(title=clip(f"{title} (continued)", 256), colour=COLOUR) for _ in pages[1:]
    ]
    for embed, page in zip(embeds, pages, strict=True):
        for name, value in page:
            embed.add_field(name=name, value=value, inline=False)
    return [safe_embed(e) for e in embeds]
