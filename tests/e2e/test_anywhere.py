"""Dice anywhere: Fate Table installed to a user's account, used in a DM or a server without the
bot. The fake Discord sends what Discord sends there (the user's own install as the
authorizing owner, context 2 in a private channel), and only /roll and /rules work."""

from __future__ import annotations

import re

from sqlmodel import func, select

from bot.db.models.rolls import RollRow
from bot.fate.ladder import describe, parse_rating
from bot.fate.outcomes import kind_for_shifts
from bot.fate.quick_roll import NEEDS_A_TABLE
from bot.testing.harness import Reply, Table
from cogs.common.installs import server_only_text
from cogs.rolls import ANYWHERE_ONLY_DICE

EVERYWHERE = {"integration_types": [0, 1], "contexts": [0, 1, 2]}
SERVER_ONLY = {"integration_types": [0], "contexts": [0]}


async def roll_rows(table: Table) -> int:
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        return int((await s.exec(select(func.count()).select_from(RollRow))).one())


def field(reply: Reply, name: str) -> str:
    for embed in reply.embeds:
        for f in embed.get("fields") or []:
            if f["name"] == name:
                return str(f["value"])
    raise AssertionError(f"no field {name!r} in {reply.embeds}")


def check_arithmetic(reply: Reply, modifier: int, difficulty: int) -> None:
    """The message alone carries the roll: dice, modifier, total and outcome agree."""
    dice_total = int(re.search(r"= (-?\d+)", field(reply, "Dice"))[1])  # type: ignore[index]
    total = dice_total + modifier
    assert field(reply, "Total") == f"**{describe(total)}**"
    assert field(reply, "Against") == describe(difficulty)
    assert kind_for_shifts(total - difficulty).label in field(reply, "Outcome")


async def test_only_roll_and_rules_are_offered_to_user_installs(table: Table) -> None:
    synced = {c["name"]: c for c in table.fake.global_commands}
    for name in ("roll", "rules"):
        assert {k: synced[name][k] for k in EVERYWHERE} == EVERYWHERE, name
    for name in ("campaign", "character", "scene", "conflict", "game", "roll-log", "fp"):
        assert {k: synced[name][k] for k in SERVER_ONLY} == SERVER_ONLY, name


async def test_roll_in_a_dm_keeps_its_result_on_the_message_and_no_row(table: Table) -> None:
    reply = await table.slash(
        "roll",
        user=table.player,
        channel=table.dm,
        skill="+2",
        difficulty="Fair",
        description="Climb the wall",
    )
    assert reply.answered and not reply.ephemeral
    assert reply.message is not None and reply.message["channel_id"] == str(table.dm)
    assert "alice rolls 4dF+2" in reply.text and "Climb the wall" in reply.text
    check_arithmetic(reply, modifier=2, difficulty=parse_rating("Fair"))
    assert reply.components() == []  # nothing to click, so nothing to keep
    assert reply.message.get("allowed_mentions") == {"parse": []}
    assert await roll_rows(table) == 0


async def test_roll_in_a_server_without_the_bot(table: Table) -> None:
    reply = await table.slash(
        "roll", user=table.player, channel=table.elsewhere_channel, skill="4dF-1", modifier=3
    )
    assert not reply.ephemeral and "rolls 4dF-1+3" in reply.text
    assert "Against" not in reply.text and "Outcome" not in reply.text
    dice = await table.slash(
        "roll", user=table.player, channel=table.elsewhere_channel, expression="2d6+1"
    )
    assert "rolls 2d6+1" in dice.text and "Total" in dice.text
    hidden = await table.slash(
        "roll", user=table.player, channel=table.dm, skill="1", difficulty="2", hidden=True
    )
    assert hidden.ephemeral and "Outcome" in hidden.text
    assert await roll_rows(table) == 0


async def test_roll_anywhere_explains_what_it_cannot_do(table: Table) -> None:
    skill = await table.slash("roll", user=table.player, channel=table.dm, skill="Athletics")
    assert skill.ephemeral and skill.content == NEEDS_A_TABLE
    against = await table.slash("roll", user=table.player, channel=table.dm, against=3)
    assert against.ephemeral and against.content == ANYWHERE_ONLY_DICE
    word = await table.slash("roll", user=table.player, channel=table.dm, difficulty="Huge")
    assert word.ephemeral and "ladder word" in word.content
    choices = await table.autocomplete(
        "roll", "skill", user=table.player, channel=table.dm, skill="2"
    )
    assert [c["value"] for c in choices] == ["+2"]


async def test_rules_and_the_ladder_anywhere(table: Table) -> None:
    reply = await table.slash("rules", user=table.player, channel=table.dm, topic="ladder")
    assert reply.ephemeral and "Legendary" in reply.text
    shared = await table.click(reply, "Share", user=table.player)
    assert not shared.ephemeral and "Shared by alice" in shared.text
    assert shared.message is not None and shared.message["channel_id"] == str(table.dm)


async def test_server_commands_say_where_they_work(table: Table) -> None:
    """Discord hides them in user installs; a stale client that still sends one gets a sentence."""
    listed = await table.slash("campaign list", user=table.player, channel=table.dm)
    assert listed.ephemeral and listed.content == server_only_text("campaign list")
    scene = await table.slash("scene show", user=table.player, channel=table.elsewhere_channel)
    assert scene.ephemeral and scene.content == server_only_text("scene show")
    # In the server that added the bot, the same commands work as before.
    here = await table.slash("campaign list", user=table.player)
    assert here.ephemeral and "campaign" in here.text.lower()
    assert "works in a server" not in here.text
