"""Sheet rendering: paper-sheet content, compact vs full, and Discord's limits at the edges."""

from __future__ import annotations

from datetime import datetime

import discord

from bot.dfc.creation import CreationDraft
from bot.dfc.mantles import get_mantle, list_mantles, mantle_data, mantles_by_group
from bot.fate.sheet import (
    ASPECT_MAX,
    MAX_STUNTS,
    NOTES_MAX,
    AspectKind,
    Character,
    NpcKind,
    condition_track,
    new_character,
)
from bot.fate.stress import StressStyle
from bot.fate.stunts import STUNT_NAME_MAX, STUNT_TEXT_MAX, Stunt
from bot.fate.tracks import Recovery
from bot.ui.common import EMBED_TOTAL_LIMIT, FIELD_VALUE_LIMIT, MAX_FIELDS
from bot.ui.sheet import (
    campaign_list_embed,
    character_list_embed,
    draft_embed,
    mantle_embed,
    mantle_list_embed,
    milestone_log_embed,
    sheet_embed,
)

PYRAMID = {
    "Fight": 4,
    "Athletics": 3,
    "Physique": 3,
    "Will": 2,
    "Notice": 2,
    "Shoot": 2,
    "Stealth": 1,
    "Provoke": 1,
    "Rapport": 1,
    "Crafts": 1,
}


def text_of(embed: discord.Embed) -> str:
    parts = [embed.title or "", embed.description or ""]
    parts += [f"{f.name}\n{f.value}" for f in embed.fields]
    parts.append(embed.footer.text or "")
    return "\n".join(parts)


def within_limits(embed: discord.Embed) -> None:
    assert len(embed) <= EMBED_TOTAL_LIMIT
    assert len(embed.fields) <= MAX_FIELDS
    assert all(len(f.value or "") <= FIELD_VALUE_LIMIT for f in embed.fields)
    assert len(embed.description or "") <= 4096


def sample() -> Character:
    c = new_character("Ruth Kane", skills=PYRAMID)
    c = c.set_aspect(AspectKind.HIGH_CONCEPT, "Ex-Marine Bodyguard")
    c = c.set_aspect(AspectKind.TROUBLE, "Never Backs Down")
    c = c.set_free_invokes("Never Backs Down", 2)
    c = c.add_stunt(Stunt(name="Brawler", text="+2 to Fight when outnumbered."))
    c = c.mark_box("physical", 2)
    c = c.take_consequence("mild", "Bruised Ribs")
    return c.add_track(condition_track("wounded", "Wounded", Recovery.LASTING, value=2))


def test_compact_sheet_reads_like_paper() -> None:
    embed = sheet_embed(sample())
    text = text_of(embed)
    assert embed.title == "Ruth Kane"
    assert "**High concept:** Ex-Marine Bodyguard" in text
    assert "**Trouble:** Never Backs Down (2 free invokes)" in text
    assert "**Great (+4):** Fight" in text
    assert "**Good (+3):** Athletics, Physique" in text
    assert "**Average (+1):** Crafts, Provoke, Rapport, Stealth" in text
    assert "**Physical stress** [1][x][1][1][1][1]" in text  # Good Physique: six boxes
    assert "**Mental stress** [1][1][1][1]" in text  # Fair Will: four boxes
    assert "**Mild consequence** (2): Bruised Ribs" in text
    assert "Moderate consequence" not in text  # empty slots only in the full view
    assert "Wounded" not in text  # unmarked conditions only in the full view
    assert "+2 to Fight when outnumbered" not in text  # stunt texts only in the full view
    assert "**Brawler**" in text
    assert "3 / 3" in text
    within_limits(embed)


def test_full_sheet_shows_everything() -> None:
    c = sample().set_notes("Owes Marcone a favour.").set_description("Tall, quiet, watchful.")
    text = text_of(sheet_embed(c, full=True, owner="alice"))
    assert "**Brawler**: +2 to Fight when outnumbered." in text
    assert "**Moderate consequence** (4): —" in text
    assert "**Wounded** [2][2] *lasting*, absorbs 2" in text
    assert "Owes Marcone a favour." in text and "Tall, quiet, watchful." in text
    assert "Player: alice" in text


def test_escalating_boxes_show_their_values() -> None:
    c = new_character("Core", skills=PYRAMID, stress_style=StressStyle.ESCALATING)
    text = text_of(sheet_embed(c))
    assert "**Physical stress** [1][2][3][4]" in text
    assert "**Mental stress** [1][2][3]" in text


def test_npc_and_mantle_titles() -> None:
    npc = new_character("Marcone", npc_kind=NpcKind.MAJOR)
    assert sheet_embed(npc).title == "Marcone (major NPC)"
    hunter = sample().model_copy(update={"mantle": "Monster Hunter"})
    assert sheet_embed(hunter).title == "Ruth Kane — Monster Hunter"


def test_biggest_possible_sheet_stays_within_limits() -> None:
    c = new_character("N" * 80, skills={"Fight": 12, "Will": 10, "Physique": 9})
    c = c.set_aspect(AspectKind.HIGH_CONCEPT, "h" * ASPECT_MAX)
    c = c.set_aspect(AspectKind.TROUBLE, "t" * ASPECT_MAX)
    c = c.set_aspect(AspectKind.RELATIONSHIP, "r" * ASPECT_MAX)
    c = c.set_aspect(AspectKind.FREE, "a" * ASPECT_MAX)
    c = c.set_aspect(AspectKind.FREE, "b" * ASPECT_MAX)
    c = c.set_refresh(20)
    stunts = [
        Stunt(name=f"{i:02d}" + "s" * (STUNT_NAME_MAX - 2), text="x" * STUNT_TEXT_MAX)
        for i in range(MAX_STUNTS)
    ]
    c = c.model_copy(update={"stunts": stunts, "free_stunts": 10})
    for i in range(15):
        c = c.add_track(condition_track(f"c{i}", f"{i:02d}" + "c" * 70, Recovery.STICKY))
        c = c.take_condition(f"c{i}", "n" * ASPECT_MAX)
    c = c.set_notes("z" * NOTES_MAX).set_description("d" * 1000)
    for full in (False, True):
        embed = sheet_embed(c, full=full, owner="o" * 32)
        within_limits(embed)
        assert "… and" in text_of(embed)  # whole lines dropped, with a count, rather than lost
        assert "Skills" in text_of(embed)


def test_character_list_marks_and_limits() -> None:
    embed = character_list_embed(
        "Main", [("Ruth", False, True, True), ("Thug", True, False, False)]
    )
    text = text_of(embed)
    assert "• Ruth *(active, yours)*" in text and "• Thug *(NPC)*" in text
    many = [(f"{i:03d}" + "x" * 77, False, False, False) for i in range(200)]
    within_limits(character_list_embed("Big", many))
    assert "No characters yet" in text_of(character_list_embed("Empty", []))


def test_milestone_log_newest_first_and_limits() -> None:
    when = datetime(2026, 11, 30, 9, 0)
    embed = milestone_log_embed(
        "Ruth Kane",
        [("major", ["Fight +4 -> +5", "+1 refresh"], when), ("minor", [], when)],
    )
    text = text_of(embed)
    assert "Milestones — Ruth Kane" in text
    assert "**Major** · 2026-11-30: Fight +4 -> +5; +1 refresh" in text
    assert "**Minor** · 2026-11-30: nothing changed" in text
    assert "No milestones yet" in text_of(milestone_log_embed("Empty", []))
    many = [("major", ["x" * 500, "y" * 500], when) for _ in range(50)]
    big = milestone_log_embed("Busy", many, total=120)
    within_limits(big)
    assert "more" in (big.description or "") and "latest 50 of 120" in text_of(big)


def test_every_mantle_renders_within_limits() -> None:
    for mantle in list_mantles():
        embed = mantle_embed(mantle, mantle_data().group_name(mantle.group))
        within_limits(embed)
        for stunt in mantle.core_stunts:
            assert stunt.display_name in text_of(embed)
    within_limits(mantle_list_embed(mantles_by_group()))
    hunter = get_mantle("Monster Hunter")
    text = text_of(
        mantle_embed(
            hunter,
            "Pure Mortals",
            [("condition", "**In Pursuit** [1]")],
            condition_values={"Wounded": 2},
        )
    )
    assert "Wounded** *(lasting, absorbs 2)*" in text
    assert "In Pursuit** *(kind not given" in text
    assert "This campaign's entries" in text


def test_draft_embed_follows_the_steps() -> None:
    draft = CreationDraft()
    assert "1. Mantle" in (draft_embed(draft).title or "")
    draft = draft.choose_mantle(None).set_aspects("Wizard for Hire", "Broke Again")
    embed = draft_embed(draft, resumed=True)
    text = text_of(embed)
    assert "3. Skills" in text and "Picking up your saved draft" in text
    assert "**High concept:** Wizard for Hire" in text and "**Mantle:** —" in text
    draft = draft.set_skills(PYRAMID).set_name("Harry").confirm_refresh()
    draft = draft.choose_stunts([]).buy_stunts([])
    text = text_of(draft_embed(draft, preview=draft.preview_tracks()))
    assert "Stress and conditions" in text and "**Physical stress** [1][1][1][1][1][1]" in text


def test_campaign_list() -> None:
    embed = campaign_list_embed([("Main campaign", True, "condensed", [5, 6], True)])
    text = text_of(embed)
    assert "**Main campaign** *(condensed stress, default, this channel)* — <#5>, <#6>" in text


def test_import_text_lists_fifteen_unmapped_items_within_a_message() -> None:
    from bot.ui.sheet import import_text

    text = import_text("Ruth", "fari", [f"Skill {n} is not on the list" for n in range(40)])
    assert text.startswith("Imported **Ruth** from a Fari file.")
    assert "Skill 14 is" in text and "Skill 15 is" not in text and text.endswith("… and 25 more")
    long = import_text("Ruth", "fari", [f"Skill {n} " + "x" * 300 for n in range(40)])
    assert len(long) <= 2000
    assert import_text("Ruth", "fate-table", []) == "Imported **Ruth** from a Fate Table file."
