"""Campaigns, character sheets and mantles through the fake Discord."""

from __future__ import annotations

from bot.testing.harness import Reply, Table

SKILLS: dict[str, str | list[str]] = {
    "great": "Lore",
    "good": "Will, Investigate",
    "fair": "Notice, Rapport, Academics",
    "average": "Physique, Contacts, Empathy, Stealth",
}


async def guided_character(table: Table, user: int, name: str = "Harriet Blackwood") -> Reply:
    """Walk the whole guided flow as `user`, choosing the Clued-In Mortal mantle."""
    start = await table.slash("character create", user=user)
    assert start.ephemeral and "Mantle" in start.text
    grouped = await table.select(start, "Mantle group", ["pure_mortals"], user=user)
    picked = await table.select(grouped, "Mantle", ["clued_in_mortal"], user=user)
    assert "Aspects" in picked.text and "Clued-In Mortal" in picked.text
    opened = await table.click(picked, "Write aspects", user=user)
    aspects = await table.submit(
        opened,
        {"high_concept": "Occult Librarian Who Knows Too Much", "trouble": "Owes the Wrong Fae"},
        user=user,
    )
    assert "Skills" in aspects.text
    opened = await table.click(aspects, "Rate skills", user=user)
    skills = await table.submit(opened, SKILLS, user=user)
    assert "4. Name" in skills.text, skills.text
    opened = await table.click(skills, "Name the character", user=user)
    named = await table.submit(opened, {"name": name}, user=user)
    refreshed = await table.click(named, "Keep refresh 3", user=user)
    opened = await table.click(refreshed, "Write stunts", user=user)
    stunted = await table.submit(
        opened,
        {"stunt1": "Card Catalogue Mind: +2 to Lore when I research in a library."},
        user=user,
    )
    assert "7. Extra stunts" in stunted.text, stunted.text
    extra = await table.click(stunted, "No extra stunts", user=user)
    assert "Stress" in extra.text and "[1]" in extra.text
    stressed = await table.click(extra, "Looks right", user=user)
    later = await table.click(stressed, "Later", user=user)
    return await table.click(later, "Finish", user=user)


async def test_guided_dfc_character(table: Table) -> None:
    done = await guided_character(table, table.player)
    assert "is ready" in done.text
    sheet = await table.slash("character sheet", user=table.player, full=True)
    assert sheet.ephemeral
    text = sheet.text
    assert "Harriet Blackwood — Clued-In Mortal" in text
    assert "Great (+4):** Lore" in text
    assert "Chasing Rumors" in text and "Card Catalogue Mind" in text
    assert "Mental stress** [1][1][1][1][1][1]" in text
    assert "3 / 3" in text
