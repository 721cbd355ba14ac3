"""/campaign overview: the GM sees every player character at once (RoleByPost users' wish);
players are refused, NPCs are not listed, and big tables continue in further messages."""

from __future__ import annotations

import json

from bot.fate.sheet import AspectKind, new_character
from bot.fate.sheet_io import export_character
from bot.testing.harness import Table, message_text


async def _import(
    table: Table, user: int, name: str, extra: tuple[str, ...] = (), **changes: object
) -> None:
    sheet = new_character(name, skills={"Fight": 2, "Lore": 3})
    sheet = sheet.set_aspect(AspectKind.HIGH_CONCEPT, f"{name} the Bold")
    sheet = sheet.set_aspect(AspectKind.TROUBLE, "Owes the Wrong People")
    for text in extra:
        sheet = sheet.set_aspect(AspectKind.FREE, text)
    sheet = sheet.model_copy(update=changes)
    upload = table.fake.add_attachment(f"{name}.json", export_character(sheet))
    made = await table.slash("character import", user=user, file=upload)
    assert f"Imported **{name}**" in made.text, made.text


async def test_the_gm_sees_every_pc_and_the_pool_players_are_refused(table: Table) -> None:
    await _import(table, table.player, "Harriet", fate_points=1)
    await _import(table, table.player2, "Bram")
    marked = await table.slash("character edit box", user=table.player2, track="Physical", box=1)
    assert marked.ephemeral, marked.text
    await table.slash(
        "character npc",
        user=table.gm,
        kind="minor",
        name="Ghoul",
        aspects="Hungry",
        skills="Fight +2",
    )
    refused = await table.slash("campaign overview", user=table.player)
    assert refused.ephemeral and "Only the GM" in refused.text and "Harriet" not in refused.text

    quiet = await table.slash("campaign overview", user=table.gm)
    assert quiet.ephemeral and "No scene is running" in quiet.text
    await table.slash("scene start", user=table.gm, aspects="Pouring Rain")
    shown = await table.slash("campaign overview", user=table.gm)
    text = shown.text
    assert shown.ephemeral and "GM pool in this scene" in text
    assert "Harriet" in text and "1 fate point, refresh 3" in text
    assert "Bram" in text and "Harriet the Bold" in text and "Owes the Wrong People" in text
    assert "Ghoul" not in text  # NPCs are not player characters
    bram = text[text.index("Bram") :]
    assert "**Physical** [x]" in bram or "[x]" in bram  # the marked box shows
    assert not shown.message or shown.message.get("allowed_mentions", {}).get("parse") in (
        None,
        [],
    )


async def test_a_big_table_continues_in_more_messages(table: Table) -> None:
    long_aspects = tuple(f"{word} " * 20 for word in ("Haunted", "Hunted"))
    heroes = [f"Hero {n:02d}" for n in range(16)]
    for n, name in enumerate(heroes):
        user = table.fake.add_member(table.guild_id, f"p{n}")
        await _import(table, user, name, extra=tuple(a[:100] for a in long_aspects))
    shown = await table.slash("campaign overview", user=table.gm)
    messages = [m for m in [shown.message, *shown.followups] if m]
    assert len(messages) >= 2, "one message cannot hold sixteen long sheets"
    assert all(m.get("flags", 0) & 64 for m in messages)  # every part is ephemeral
    everything = "\n".join(message_text(m) for m in messages)
    assert all(name in everything for name in heroes)
    assert all(len(json.dumps(m["embeds"])) < 7000 for m in messages)
