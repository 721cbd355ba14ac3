"""The live web view through the fake Discord: links from the commands, the pages they open,
what each page may show, the refusal page, and the event stream that follows changes."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from bot.testing.harness import Reply, Table
from tests.conftest import make_settings
from tests.e2e.test_characters import imported
from tests.e2e.test_game_table import _hidden_names, _lobby, _row

LINK = re.compile(r"<(http://localhost:\d+/t/[^>\s]+)>")
HOSTILE = "<script>alert(1)</script>"


@pytest.fixture
async def web_table(database_url: str) -> AsyncIterator[Table]:
    """The bot with its web view on a free port of this machine."""
    from bot.client import create_bot

    settings = make_settings(database_url, web_port=0, web_host="127.0.0.1")

    async def factory():  # type: ignore[no-untyped-def]
        return await create_bot(settings, guild_ready_timeout=0.05)

    t = await Table.open(factory)
    try:
        yield t
    finally:
        await t.close()


def link_of(reply: Reply) -> str:
    assert reply.ephemeral, reply.text
    found = LINK.search(reply.text)
    assert found, reply.text
    return found.group(1)


async def fetch(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as client, client.get(url) as response:
        return response.status, await response.text()


async def a_table_in_play(table: Table) -> None:
    """A GM, two players' characters, an NPC, a scene with a hidden and a hostile aspect."""
    await table.slash("settings gm-role", user=table.admin, role=table.gm_role)
    await imported(table, table.player, "Molly")
    await imported(table, table.player2, "Dana")
    await table.slash(
        "character npc",
        user=table.gm,
        kind="minor",
        name="Ghoul",
        aspects="Hungry Ghoul",
        skills="Fight +2",
        stress=2,
    )
    await table.slash(
        "scene start",
        user=table.gm,
        aspects="Pouring Rain",
        zones="Street, Alley",
        characters="Molly, Dana",
    )
    hidden = await table.slash(
        "aspect add", user=table.gm, text="Cultists Wait Upstairs", hidden=True
    )
    assert hidden.ephemeral
    await table.slash("aspect add", user=table.gm, text=HOSTILE, gm_invokes=1)


async def test_gm_page_shows_every_sheet_the_scene_and_what_is_hidden(web_table: Table) -> None:
    table = web_table
    await a_table_in_play(table)
    reply = await table.slash("campaign web", user=table.gm)
    status, page = await fetch(link_of(reply))
    assert status == 200
    for expected in ("Molly", "Dana", "Ghoul", "Pouring Rain", "Cultists Wait Upstairs"):
        assert expected in page, expected
    assert "GM pool" in page and "Never Backs Down" in page  # a PC's trouble
    # The hostile aspect is shown as text, never as markup.
    assert HOSTILE not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count("<script") == 1  # only the page's own script file


async def test_player_page_has_their_sheet_and_the_public_scene_only(web_table: Table) -> None:
    table = web_table
    await a_table_in_play(table)
    reply = await table.slash("character web", user=table.player)
    status, page = await fetch(link_of(reply))
    assert status == 200
    assert "Molly" in page and "Pouring Rain" in page and "Never Backs Down" in page
    assert "Cultists Wait Upstairs" not in page  # hidden
    assert "Ghoul" not in page  # an NPC
    assert page.count('class="card sheet') == 1  # not Dana's sheet
    assert HOSTILE not in page and "&lt;script&gt;" in page


async def test_links_only_for_the_right_people(web_table: Table) -> None:
    table = web_table
    await a_table_in_play(table)
    refused = await table.slash("campaign web", user=table.player)
    assert refused.ephemeral and "GM" in refused.text and not LINK.search(refused.text)
    npc = await table.slash("character web", user=table.gm, character="Ghoul")
    assert npc.ephemeral and "NPC" in npc.text and not LINK.search(npc.text)
    other = await table.slash("character web", user=table.player, character="Dana")
    assert other.ephemeral and "someone else's" in other.text and not LINK.search(other.text)


async def test_web_view_off_says_how_to_turn_it_on(table: Table) -> None:
    await table.slash("settings gm-role", user=table.admin, role=table.gm_role)
    reply = await table.slash("campaign web", user=table.gm)
    assert reply.ephemeral and "WEB_PORT" in reply.text


async def test_revoked_and_tampered_links_get_the_refusal_page(web_table: Table) -> None:
    table = web_table
    await a_table_in_play(table)
    gm_link = link_of(await table.slash("campaign web", user=table.gm))
    player_link = link_of(await table.slash("character web", user=table.player))
    assert (await fetch(gm_link))[0] == 200
    head, _, tail = gm_link.rpartition(".")
    tampered = f"{head}.{'A' if tail[0] != 'A' else 'B'}{tail[1:]}"
    for bad in (tampered, gm_link[:-3], gm_link + "x", gm_link.replace("/t/", "/t/x")):
        status, page = await fetch(bad)
        assert status == 403 and "does not open anything" in page, bad
        assert "Molly" not in page
    again = await table.slash("campaign web", user=table.gm, revoke=True)
    fresh = link_of(again)
    assert "stopped working" in again.text
    for old in (gm_link, player_link):
        status, page = await fetch(old)
        assert status == 403 and "does not open anything" in page
    assert (await fetch(fresh))[0] == 200
    mine = link_of(await table.slash("character web", user=table.player))
    assert (await fetch(mine))[0] == 200
    link_of(await table.slash("character web", user=table.player, revoke=True))
    assert (await fetch(mine))[0] == 403
    assert (await fetch(fresh))[0] == 200  # the GM's link is not the character's


async def next_page(response: aiohttp.ClientResponse, timeout: float) -> dict[str, Any]:
    """The next `page` (or `refused`) event of a stream."""
    event = ""
    async with asyncio.timeout(timeout):
        while True:
            line = (await response.content.readline()).decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event in ("page", "refused"):
                return {"event": event, **json.loads(line[6:])}


async def test_the_stream_follows_a_change_within_a_second(web_table: Table) -> None:
    table = web_table
    await a_table_in_play(table)
    url = link_of(await table.slash("campaign web", user=table.gm))
    async with aiohttp.ClientSession() as client, client.get(url + "/events") as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/event-stream")
        first = await next_page(response, 5)
        assert "Pouring Rain" in first["html"]
        record = await table.fire("aspect add", user=table.gm, text="Sirens in the Distance")
        changed = await next_page(response, 5)
        arrived = time.perf_counter()
        await asyncio.wait_for(record.completed.wait(), 5)
        assert record.completed_at is not None
        # Within a second of the change being answered (its transaction committed before that).
        assert arrived - record.completed_at < 1.0
        await table.settle()
        assert "Sirens in the Distance" in changed["html"]
        assert changed["version"] != first["version"]
        await table.slash("campaign web", user=table.gm, revoke=True)
        gone = await next_page(response, 5)
        assert gone["event"] == "refused" and "Molly" not in gone["html"]


async def test_game_page_shows_the_board_and_no_hand(web_table: Table) -> None:
    table = web_table
    game_id, _board = await _lobby(table, [table.player2])
    status_reply = await table.slash("game status", user=table.player3)
    assert "Spectators" in status_reply.text
    url = link_of(status_reply)
    status, page = await fetch(url)
    assert status == 200 and f"game #{game_id}" in page
    found = re.search(r'<img class="board" src="([^"]+)"', page)
    assert found, page
    async with aiohttp.ClientSession() as client:
        async with client.get(
            url.rsplit("/", 1)[0] + "/" + found.group(1).replace("&amp;", "&")
        ) as png:
            assert png.status == 200 and png.content_type == "image/png"
            assert (await png.read()).startswith(b"\x89PNG")
    from bot.games.base import get_engine

    state = get_engine("dfccg").load_state((await _row(table, game_id)).state or "")
    for secret in _hidden_names(state):
        assert secret not in page, secret


async def test_encounters_on_both_pages_and_npcs_never_named_to_players(web_table: Table) -> None:
    table = web_table
    await a_table_in_play(table)
    fight = await table.slash(
        "conflict start",
        user=table.gm,
        kind="physical",
        participants="Molly, Dana, Ghoul",
        first="Ghoul",
    )
    assert not fight.ephemeral, fight.text
    race = await table.slash(
        "contest start",
        user=table.gm,
        channel=table.other_channel,
        side_a="Molly",
        side_b="Ghoul",
        intent_b="Catch them",
    )
    assert not race.ephemeral, race.text
    library = table.fake.add_channel(table.guild_id, "library")
    puzzle = await table.slash(
        "challenge start",
        user=table.gm,
        channel=library,
        tasks="Lore:3:read the runes, Athletics:Fair",
        title="Escape the library",
    )
    assert not puzzle.ephemeral, puzzle.text
    await table.slash(
        "scene start", user=table.gm, channel=library, aspects="Dusty Shelves", characters="Dana"
    )
    _, gm_page = await fetch(link_of(await table.slash("campaign web", user=table.gm)))
    for expected in (
        "Conflict #",
        "Ghoul acts",
        "Contest #",
        "0 of 3 victories",
        "Escape the library",
        "read the runes",
        "Dusty Shelves",
        "#side-table",
    ):
        assert expected in gm_page, expected
    _, page = await fetch(link_of(await table.slash("character web", user=table.player)))
    assert "Conflict #" in page and "Contest #" in page
    # A player's page shows only the channels where their character is.
    assert "Escape the library" not in page and "Dusty Shelves" not in page
    _, danas = await fetch(link_of(await table.slash("character web", user=table.player2)))
    assert "Dusty Shelves" in danas and "Escape the library" in danas
    assert "the opposition acts" in page and "the opposition" in page
    assert "Ghoul" not in page and "Catch them" not in page and "Cultists" not in page


async def test_links_keep_working_after_a_restart(web_table: Table) -> None:
    table = web_table
    await a_table_in_play(table)
    token = link_of(await table.slash("campaign web", user=table.gm)).split("/t/")[1]
    await table.restart()
    bot: Any = table.bot  # the restarted bot listens on a new free port; the token is the key
    status, page = await fetch(f"http://localhost:{bot.web_server.port}/t/{token}")
    assert status == 200 and "Cultists Wait Upstairs" in page


async def test_open_pages_per_server_are_limited(
    web_table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.web import server

    table = web_table
    await a_table_in_play(table)
    monkeypatch.setattr(server, "MAX_STREAMS_PER_SERVER", 1)
    url = link_of(await table.slash("campaign web", user=table.gm)) + "/events"
    async with aiohttp.ClientSession() as client, client.get(url) as first:
        await next_page(first, 5)
        async with client.get(url) as second:
            assert second.status == 503
    statuses = []
    for _ in range(20):  # the first page closed: its place is free again at once
        async with aiohttp.ClientSession() as client, client.get(url) as again:
            statuses.append(again.status)
        if statuses[-1] == 200:
            break
        await asyncio.sleep(0.1)
    assert statuses[-1] == 200 and len(statuses) <= 2, statuses


async def test_pages_open_on_one_link_share_a_render_per_change(web_table: Table) -> None:
    table = web_table
    await a_table_in_play(table)
    bot: Any = table.bot
    view = bot.web_server.view
    renders = 0
    original = view._render

    async def counted(token: str) -> Any:
        nonlocal renders
        renders += 1
        return await original(token)

    view._render = counted
    url = link_of(await table.slash("campaign web", user=table.gm)) + "/events"
    async with aiohttp.ClientSession() as client:
        streams = [await client.get(url) for _ in range(4)]
        for stream in streams:
            await next_page(stream, 5)
        before = renders
        await table.slash("aspect add", user=table.gm, text="Sirens in the Distance")
        for stream in streams:
            assert "Sirens in the Distance" in (await next_page(stream, 5))["html"]
        assert renders - before <= 2  # one per change (the command may commit twice), not per page
        for stream in streams:
            stream.close()
