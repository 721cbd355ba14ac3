"""The README's "first evening", command for command, through the fake Discord."""

from __future__ import annotations

from bot.testing.harness import Table, message_text
from tests.e2e.test_characters import imported


async def test_first_session_tour(table: Table) -> None:
    # 1. An admin says who the GMs are.
    gm_role = await table.slash("settings gm-role", user=table.admin, role=table.gm_role)
    assert gm_role.ephemeral and "GM role set" in gm_role.text

    # 2. Players bring characters; the GM makes a ghoul.
    await imported(table, table.player, "Harry")
    await imported(table, table.player2, "Molly")
    sheet = await table.slash("character sheet", user=table.player)
    assert "Harry" in sheet.text and "Good (+3)" in sheet.text
    ghoul = await table.slash(
        "character npc",
        user=table.gm,
        kind="minor",
        name="Ghoul",
        aspects="Hungry Ghoul",
        skills="Fight +2",
        stress=2,
    )
    assert ghoul.ephemeral and "Ghoul" in ghoul.text

    # 3. The GM starts the session and opens a scene with a pinned board.
    started = await table.slash("session start", user=table.gm)
    assert started.answered
    scene = await table.slash(
        "scene start",
        user=table.gm,
        aspects="Pouring Rain, Dark Alley",
        zones="Street, Alley",
        characters="Harry, Molly",
    )
    assert scene.answered
    pinned = [m for m in table.channel_messages() if m.get("pinned")]
    assert len(pinned) == 1 and "Pouring Rain" in message_text(pinned[0])

    # 4. A roll with invoke buttons; an advantage; a compel offer.
    roll = await table.slash("roll", user=table.player, skill="Notice", difficulty="Fair")
    assert not roll.ephemeral and "Invoke +2" in roll.labels()
    advantage = await table.slash(
        "advantage", user=table.player2, skill="Notice", aspect="Slick Cobbles"
    )
    assert advantage.answered and "Slick Cobbles" in advantage.text
    compel = await table.slash(
        "compel offer",
        user=table.gm,
        target="Harry",
        aspect="Never Backs Down",
        complication="You square up to the ghoul instead of running",
    )
    accepted = await table.click(compel, "Accept", user=table.player)
    assert accepted.answered

    # 5. A fight on a pinned tracker.
    fight = await table.slash(
        "conflict start",
        user=table.gm,
        kind="physical",
        participants="Harry, Molly, Ghoul",
        first="Harry",
    )
    assert fight.answered
    pinned = [m for m in table.channel_messages() if m.get("pinned")]
    assert any("Attack" in fight.labels(m) for m in pinned)
    await table.slash("conflict end", user=table.gm)

    # 6. Wrapping up.
    ended = await table.slash("scene end", user=table.gm)
    assert ended.answered
    session = await table.slash("session end", user=table.gm)
    assert "minor" in session.text.lower()
    log = await table.slash("fp log", user=table.player)
    assert log.ephemeral and "Harry" in log.text and "compel" in log.text.lower()
    undo = await table.slash("fp undo", user=table.gm)
    assert undo.answered and "undo" in undo.text.lower()
