"""Dreamwars at the table, through the fake Discord: three people and an AI hero play an Ordeal
to its end, a solo game, a restart in the middle of a hero's turn, a pause kept over a long
idle spell; every public message and every reply a seat got is scanned for Equipment that only
another seat may see."""

from __future__ import annotations

import copy
import io
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from PIL import Image

from bot.db.models.games import GameRow
from bot.games.base import get_engine
from bot.games.dreamwars.state import DwState
from bot.testing.harness import Reply, Table, iter_components, message_text, shown_text

ENGINE = get_engine("dreamwars")
LIB = ENGINE.board.lib  # type: ignore[attr-defined]


def _public_words() -> str:
    """Every name and text the table shows anyway (a card name inside one is no signal)."""
    parts: list[str] = [n.name for n in LIB.nodes.values()]
    parts += [f"{c.name} {c.text}" for c in LIB.adventures.values()]
    parts += [f"{c.name} {c.text}" for c in LIB.events.values()]
    parts += [m.name for m in LIB.markers.values()]
    for hero in LIB.heroes.values():
        parts += [hero.name, hero.title, *(f"{a.name} {a.text}" for a in hero.prestige)]
    for great in LIB.great.values():
        parts += [great.name, great.title, *(s.text for s in great.stars)]
    for ordeal in LIB.ordeals.values():
        parts.append(ordeal.name)
        for sc in ordeal.scenarios:
            parts += [sc.name, sc.text, sc.victory_text, sc.defeat_text]
    return "\n".join(parts)


PUBLIC = _public_words()
SECRET_NAMES = {item.name for item in LIB.items.values() if item.name not in PUBLIC}


pytestmark = pytest.mark.usefixtures("fast_board")


async def _state(table: Table, game_id: int) -> tuple[GameRow, DwState]:
    assert table.bot is not None
    async with table.bot.db.session() as session:  # type: ignore[attr-defined]
        row = await session.get(GameRow, game_id)
        assert row is not None
        return row, ENGINE.load_state(row.state or "{}")


def _held(s: DwState, seat: str | None, mine: bool) -> set[str]:
    """Names of the Equipment carried by the heroes of ``seat`` (mine) or of everyone else."""
    names = set()
    for hero in s.heroes:
        if (hero.seat == seat) != mine:
            continue
        for uid in hero.items + hero.cantici + hero.shards:
            names.add(LIB.items[s.cards[uid]].name)
    chooser = s.heroes[s.active].seat
    if s.decision is not None and mine == (chooser == seat):
        # cards drawn for the active hero's choice are that player's to see
        names |= {LIB.items[s.cards[u]].name for u in s.decision.cards if s.cards[u] in LIB.items}
    return names


def _leaks(text: str, s: DwState, viewer: str | None, before: DwState | None = None) -> list[str]:
    """Equipment of another seat's heroes named in ``text`` (viewer None: the public table).
    A name this seat's own heroes carry (or carried ``before`` the move, e.g. a Cantico just
    intoned), or one any public text uses, proves nothing."""
    own = _held(s, viewer, mine=True) | (_held(before, viewer, True) if before else set())
    hidden = (_held(s, viewer, mine=False) - own) & SECRET_NAMES
    found = []
    for name in sorted(hidden):
        at = text.find(name)
        if at >= 0:
            found.append(f"{name!r} shown: …{text[max(at - 120, 0) : at + 60]}…")
    return found


async def _open(
    table: Table, seed: int, options: str, humans: list[int], ai: int
) -> tuple[int, int, Reply]:
    assert table.bot is not None
    table.bot.get_cog("GameTable").games.new_seed = lambda: seed  # type: ignore[union-attr]
    lobby = await table.slash("game new", user=humans[0], game="dreamwars", options=options)
    assert not lobby.ephemeral and "Dreamwars: lobby" in lobby.text, lobby.text
    game_id = next(
        int(c["custom_id"].split(":")[2])
        for c in lobby.components()
        if (c.get("custom_id") or "").startswith("ftg:")
    )
    for user in humans[1:]:
        await table.click(lobby, "Join", user=user)
    for _ in range(ai):
        await table.click(lobby, "Add AI seat", user=humans[0])
    started = await table.click(lobby, "Start", user=humans[0])
    assert "My hand" in started.labels(), started.text
    assert lobby.message is not None
    return game_id, int(lobby.message["id"]), started


def _scan_public(table: Table, s: DwState) -> None:
    public = "\n".join(shown_text(m) for m in table.channel_messages())
    assert not _leaks(public, s, None), _leaks(public, s, None)


async def _play(
    table: Table,
    game_id: int,
    users: dict[str, int],
    limit: int = 2000,
    stop: Any = None,
    scan_every: int = 10,
    moves: int | None = None,
) -> DwState:
    """Each human seat plays the AI's choice for it through /game move; each reply is scanned
    for another seat's Equipment, and the public channel every few moves."""
    rng = random.Random(7)
    for step in range(limit):
        row, s = await _state(table, game_id)
        done = moves is not None and step >= moves
        if row.status != "running" or done or (stop is not None and stop(s)):
            await table.settle()
            _scan_public(table, s)
            return s
        seat = ENGINE.current_seats(s)[0]
        action = ENGINE.choose_action(s, seat, rng)
        moved = await table.slash(
            "game move", user=users[seat], action=f"{row.version}:{action.id}"
        )
        assert moved.ephemeral and "Already done" not in moved.text, moved.text
        _row2, after = await _state(table, game_id)
        leaks = _leaks(shown_text(moved), after, seat, before=s)
        assert not leaks, leaks
        if step % scan_every == 0:
            await table.settle()
            _scan_public(table, after)
    raise AssertionError("the game did not end")


def _board_png(table: Table, board_id: int) -> Image.Image:
    message = table.message(board_id)
    attachments = message.get("attachments") or []
    assert attachments, "the board has no map picture"
    attachment_id = int(attachments[-1]["id"])
    name, data = table.fake.attachments[attachment_id]
    assert name.endswith(".png")
    return Image.open(io.BytesIO(data))


async def test_three_people_and_an_ai_hero_play_the_ordeal_to_its_end(table: Table) -> None:
    humans = [table.player, table.player2, table.player3]
    game_id, board_id, started = await _open(table, 21, "", humans, ai=1)
    row, s = await _state(table, game_id)
    assert len(s.heroes) == 4 and s.party == 4
    ai_seat = next(seat for seat in s.seats if seat.startswith("ai:"))
    board = message_text(table.message(board_id))
    assert "Heroes phase" in board and "Turn 1" in board, board
    assert "Nemeses on the map" in board and "Scenario:" in board
    picture = _board_png(table, board_id)
    assert picture.size[0] >= 1000 and picture.size[1] >= 600
    # Each player's hand: their own hero sheet and Equipment, nobody else's.
    for user in humans:
        hand = await table.click(table.message(board_id), "My hand", user=user)
        assert hand.ephemeral and "(your hero)" in hand.text and "Melee" in hand.text
        assert not _leaks(shown_text(hand), s, str(user)), _leaks(shown_text(hand), s, str(user))
    # Somebody watching from the rail sees the board but has no hand.
    outsider = await table.click(table.message(board_id), "My hand", user=table.gm)
    assert outsider.ephemeral and "not playing in this game" in outsider.text
    users = {str(u): u for u in humans}
    final = await _play(table, game_id, users)
    assert final.phase == "over" and final.outcomes
    assert any(h.seat == ai_seat for h in final.heroes)
    board = message_text(table.message(board_id))
    assert "Game over" in board and "turns in all" in board, board
    story = await table.slash("game history", user=table.player3, game=game_id)
    assert story.ephemeral and "the whole log" in story.text and "target " in story.text
    history = await table.slash("game history", user=table.player)
    assert history.ephemeral and f"#{game_id}" in history.text
    assert f"({final.total_turns} turns, {final.deaths} deaths)" in history.text, history.text
    _scan_public(table, final)


async def test_a_solo_game_one_player_runs_two_heroes_beside_an_ai_hero(table: Table) -> None:
    game_id, board_id, _started = await _open(
        table, 4, "party=3 single_scenario=true", [table.player], ai=1
    )
    _row, s = await _state(table, game_id)
    mine = [h for h in s.heroes if h.seat == str(table.player)]
    assert len(s.heroes) == 3 and len(mine) == 2
    hand = await table.click(table.message(board_id), "My hand", user=table.player)
    assert hand.text.count("(your hero)") == 2, hand.text
    final = await _play(table, game_id, {str(table.player): table.player})
    assert final.phase == "over" and len(final.outcomes) == 1
    assert "Game over" in message_text(table.message(board_id))


async def test_a_restart_in_the_middle_of_a_heroes_turn(table: Table) -> None:
    humans = [table.player, table.player2]
    game_id, board_id, _started = await _open(table, 8, "", humans, ai=0)
    users = {str(u): u for u in humans}

    def mid_turn(s: DwState) -> bool:
        hero = s.heroes[s.active]
        return s.turn >= 2 and hero.actions == 1 and s.decision is None and not hero.moving

    s = await _play(table, game_id, users, stop=mid_turn)
    row, s = await _state(table, game_id)
    seat = ENGINE.current_seats(s)[0]
    hand = await table.click(table.message(board_id), "My hand", user=users[seat])
    assert hand.message is not None and "Your move" in hand.text
    old = copy.deepcopy(hand.message)  # as it was: the click below edits the message in place
    await table.restart()
    # The state survived: the same hero, the same Action left, the same Equipment.
    row2, again = await _state(table, game_id)
    assert row2.version == row.version and again.model_dump() == s.model_dump()
    action = ENGINE.legal_actions(s, seat)[0]
    custom_id = f"ftg:a:{game_id}:{row.version}:{action.id}"
    moved = await table.click(old, custom_id, user=users[seat])
    assert "Already done" not in moved.text, moved.text
    after_row, _after = await _state(table, game_id)
    assert after_row.version == row.version + 1
    # A double click on the same old button applies once.
    twice = await table.click(old, custom_id, user=users[seat])
    assert "Already done" in twice.text


async def test_pause_keeps_the_game_through_a_long_idle_spell_and_resume_continues(
    table: Table,
) -> None:
    humans = [table.player, table.player2]
    game_id, board_id, _started = await _open(table, 3, "", humans, ai=0)
    users = {str(u): u for u in humans}
    row, s = await _state(table, game_id)
    outsider = await table.slash("game pause", user=table.player3)
    assert outsider.ephemeral and "Only the game's players" in outsider.text
    paused = await table.slash("game pause", user=table.player2)
    assert not paused.ephemeral and "is paused" in paused.text
    again = await table.slash("game pause", user=table.player)
    assert again.ephemeral and "already paused" in again.text
    await table.settle()
    assert "Paused." in message_text(table.message(board_id))
    seat = ENGINE.current_seats(s)[0]
    action = ENGINE.legal_actions(s, seat)[0]
    refused = await table.slash(
        "game move", user=users[seat], action=f"{row.version + 1}:{action.id}"
    )
    assert refused.ephemeral and "paused" in refused.text and "/game resume" in refused.text
    # Days later: the idle check ends idle games, never a paused one.
    cog = table.bot.get_cog("GameTable")  # type: ignore[union-attr]
    await cog.check_idle(datetime.now(UTC) + timedelta(days=5))  # type: ignore[union-attr]
    paused_row, kept = await _state(table, game_id)
    assert paused_row.status == "paused" and kept.model_dump() == s.model_dump()
    await table.restart()
    resumed = await table.slash("game resume", user=table.player)
    assert not resumed.ephemeral and "continues" in resumed.text, resumed.text
    not_paused = await table.slash("game resume", user=table.player)
    assert not_paused.ephemeral and "not paused" in not_paused.text
    later = await _play(table, game_id, users, moves=6)
    # The story so far, from the game's whole log: the set-up and the rolls with their targets.
    story = await table.slash("game history", user=table.player3, game=game_id)
    assert story.ephemeral and "The Great Nemesis is" in story.text, story.text
    assert "Scenario:" in story.text and "Event:" in story.text
    assert not _leaks(story.text, later, None)
    running_row, _s = await _state(table, game_id)
    assert running_row.status in ("running", "finished")
    assert running_row.version > row.version + 6 and later.model_dump() != s.model_dump()


async def test_lobby_menus_rules_and_help_explain_how_to_play(table: Table) -> None:
    lobby = await table.slash(
        "game new", user=table.player, game="dreamwars", options="party=3 single_scenario=true"
    )
    labels = " ".join(
        (c.get("placeholder") or "") + " " + " ".join(o["label"] for o in c.get("options") or [])
        for c in iter_components(lobby.components())
    )
    # The lobby's own menus: how many heroes (1-8, readable), the Great Nemesis, one scenario.
    assert "Choose: Heroes in all" in labels and "1 hero" in labels and "8 heroes" in labels
    assert "Choose: Great Nemesis" in labels and "Choose: One scenario only" in labels
    assert "More options…" in labels
    assert (
        "Heroes in all: **3 heroes**" in lobby.text and "One scenario only: **yes**" in lobby.text
    )
    busy = await table.slash("game new", user=table.player2, game="dreamwars")
    assert busy.ephemeral and "already has a game" in busy.text
    wrong = await table.slash(
        "game new",
        user=table.player2,
        channel=table.other_channel,
        game="dreamwars",
        options="party=9",
    )
    assert wrong.ephemeral and "Heroes in all" in wrong.text and "choose one of" in wrong.text
    rules = await table.slash("game rules", user=table.player3, game="dreamwars")
    assert rules.ephemeral and "1 to 8 players" in rules.text
    assert "My hand" in rules.text and "Add AI seat" in rules.text.replace(
        "AI seats", "Add AI seat"
    )
    assert "/game pause" in rules.text and "Heroes in all" in rules.text
    helped = await table.slash("help", user=table.player3)
    assert helped.ephemeral and "Dreamwars" in helped.text
