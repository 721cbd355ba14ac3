"""The game table through the fake Discord: lobby, board, hands, full games, restarts, clicks."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
from sqlmodel import col, select

import bot.ui.games
from bot.db.models.games import GameActionLog, GameRow
from bot.games.base import get_engine
from bot.games.dfccg.packs import card_index, load_library
from bot.testing.harness import Reply, Table, iter_components, message_text

JSON = dict[str, Any]


pytestmark = pytest.mark.usefixtures("fast_board")


async def _row(table: Table, game_id: int) -> GameRow:
    assert table.bot is not None
    async with table.bot.db.session() as session:  # type: ignore[attr-defined]
        row = await session.get(GameRow, game_id)
        assert row is not None
        return row


def _game_id(reply: Reply) -> int:
    for component in reply.components():
        custom_id = component.get("custom_id") or ""
        if custom_id.startswith("ftg:"):
            return int(custom_id.split(":")[2])
    raise AssertionError("no game button on the message")


async def _lobby(
    table: Table, joiners: list[int], ai: int = 0, seed: int = 20261130, options: str = ""
) -> tuple[int, int]:
    # A fixed seed makes each test replay the same deal, so game lengths are not left to chance.
    assert table.bot is not None
    table.bot.get_cog("GameTable").games.new_seed = lambda: seed  # type: ignore[union-attr]
    typed = {"options": options} if options else {}
    lobby = await table.slash("game new", user=table.player, game="dfccg", **typed)
    assert not lobby.ephemeral and "lobby" in lobby.text
    game_id = _game_id(lobby)
    for user in joiners:
        joined = await table.click(lobby, "Join", user=user)
        assert not joined.ephemeral
    for _ in range(ai):
        await table.click(lobby, "Add AI seat", user=table.player)
    started = await table.click(lobby, "Start", user=table.player)
    assert "My hand" in started.labels()
    assert lobby.message is not None
    return game_id, int(lobby.message["id"])


def _edited_ephemeral(reply: Reply) -> bool:
    """A move edits the ephemeral hand it was clicked on."""
    return reply.callback_type == 7 and bool((reply.message or {}).get("flags", 0) & 64)


def _all_labels(message: JSON) -> list[str]:
    found = []
    for component in iter_components(message.get("components") or []):
        found.append(component.get("label") or "")
        found.append(component.get("placeholder") or "")
        for option in component.get("options") or []:
            found.append(option.get("label") or "")
    return found


def _publicshown_text(table: Table) -> str:
    parts = []
    for message in table.channel_messages():
        parts.append(message_text(message))
        parts.extend(_all_labels(message))
    return "\n".join(parts)


def _hidden_names(state: Any) -> set[str]:
    """Names of action cards that are in some hand and in no public pile right now."""
    cards = card_index(load_library())
    in_hands = {cards[r.card_id].name for t in state.tableaux for r in t.hand}
    public = {cards[r.card_id].name for t in state.tableaux for r in t.discard}
    return in_hands - public


async def _step(table: Table, game_id: int, board_id: int, rng: random.Random) -> bool:
    """One move chosen by the engine's AI and played by a human through My hand buttons."""
    row = await _row(table, game_id)
    if row.status != "running":
        return False
    engine = get_engine("dfccg")
    state = engine.load_state(row.state or "")
    seat = engine.current_seats(state)[0]
    action = engine.choose_action(state, seat, rng)
    user = int(seat)
    hand = await table.click(table.message(board_id), "My hand", user=user)
    assert hand.ephemeral and "Your move" in hand.text
    custom_id = f"ftg:a:{game_id}:{row.version}:{action.id}"
    message = hand.message
    assert message is not None
    for _ in range(10):
        if any(c.get("custom_id") == custom_id for c in iter_components(message["components"])):
            break
        message = (await table.click(message, "Next ▶", user=user)).message
        assert message is not None
    moved = await table.click(message, custom_id, user=user)
    assert _edited_ephemeral(moved) and "Already done" not in moved.text
    assert (await _row(table, game_id)).version > row.version
    return True


async def _play_out(
    table: Table, game_id: int, board_id: int, *, check_hidden: bool = False, limit: int = 600
) -> int:
    rng = random.Random(7)
    steps = 0
    while await _step(table, game_id, board_id, rng):
        steps += 1
        assert steps < limit, "the game did not end"
        if check_hidden:
            row = await _row(table, game_id)
            state = get_engine("dfccg").load_state(row.state or "")
            text = _publicshown_text(table)
            leaked = [name for name in _hidden_names(state) if name in text]
            assert not leaked, f"hand card(s) {leaked} shown publicly at step {steps}"
    return steps


async def test_start_answers_at_once_and_the_first_picture_follows(table: Table) -> None:
    """The Start click is answered with the board's embed and buttons without waiting for a
    picture worker (busy with other tables' boards, it could keep the answer past Discord's
    three seconds); the board's next edit, moments later, brings the picture."""
    asked = len(table.fake.requests)
    game_id, board_id = await _lobby(table, [])
    made = table.fake.requests[asked:]
    start = next(r for r in reversed(made) if r.path.endswith("/callback"))
    assert start.body["data"]["embeds"] and not start.body["data"].get("attachments")
    later = made[made.index(start) + 1 :]
    assert [r.method for r in later if r.path.endswith(f"/messages/{board_id}")] == ["PATCH"]
    board = table.message(board_id)
    assert [a["filename"] for a in board["attachments"]] == [f"board-{game_id}.png"]
    assert "My hand" in [c.get("label") for c in iter_components(board["components"])]


async def test_full_three_player_game_to_the_score_without_leaks(table: Table) -> None:
    game_id, board_id = await _lobby(table, [table.player2, table.player3])
    board = table.message(board_id)
    assert any(a["filename"] == f"board-{game_id}.png" for a in board["attachments"])
    steps = await _play_out(table, game_id, board_id, check_hidden=True)
    assert steps > 5
    row = await _row(table, game_id)
    assert row.status == "finished" and row.result
    result = json.loads(row.result)
    board_text = message_text(table.message(board_id))
    assert "Game over" in board_text and result["summary"] in board_text
    assert "My hand" not in _all_labels(table.message(board_id))
    assert "Showdown" in board_text
    history = await table.slash("game history", user=table.gm)
    assert history.ephemeral and f"#{game_id}" in history.text and "finished" in history.text
    async with table.bot.db.session() as session:  # type: ignore[union-attr]
        logged = (
            await session.exec(select(GameActionLog).where(col(GameActionLog.game_id) == game_id))
        ).all()
    assert len([e for e in logged if e.user_id is not None]) == steps


async def test_solo_game_with_three_characters_ends_with_a_score(table: Table) -> None:
    game_id, board_id = await _lobby(table, [], options="difficulty=apprentice")
    row = await _row(table, game_id)
    state = get_engine("dfccg").load_state(row.state or "")
    assert len(state.tableaux) == 3 and all(t.seat == str(table.player) for t in state.tableaux)
    await _play_out(table, game_id, board_id)
    text = message_text(table.message(board_id))
    assert "Game over" in text and "Score: players" in text


async def test_ai_seats_play_their_own_turns(table: Table) -> None:
    game_id, board_id = await _lobby(table, [], ai=2)
    row = await _row(table, game_id)
    state = get_engine("dfccg").load_state(row.state or "")
    assert (
        get_engine("dfccg").current_seats(state) == [str(table.player)] or row.status != "running"
    )
    await _play_out(table, game_id, board_id)
    async with table.bot.db.session() as session:  # type: ignore[union-attr]
        logged = (
            await session.exec(select(GameActionLog).where(col(GameActionLog.game_id) == game_id))
        ).all()
    assert any(e.seat.startswith("ai:") for e in logged)


async def test_restart_mid_game_old_buttons_still_work(table: Table) -> None:
    game_id, board_id = await _lobby(table, [table.player2, table.player3])
    rng = random.Random(3)
    for _ in range(4):
        await _step(table, game_id, board_id, rng)
    row = await _row(table, game_id)
    engine = get_engine("dfccg")
    state = engine.load_state(row.state or "")
    user = int(engine.current_seats(state)[0])
    old_hand = await table.click(table.message(board_id), "My hand", user=user)
    old_message = json.loads(json.dumps(old_hand.message))
    await table.restart()
    action = engine.choose_action(state, str(user), rng)
    moved = await table.click(old_message, f"ftg:a:{game_id}:{row.version}:{action.id}", user=user)
    assert _edited_ephemeral(moved) and "Already done" not in moved.text
    assert (await _row(table, game_id)).version == row.version + 1
    await _play_out(table, game_id, board_id)
    assert "Game over" in message_text(table.message(board_id))


async def test_double_click_applies_once_and_strangers_are_refused(table: Table) -> None:
    game_id, board_id = await _lobby(table, [table.player2])
    row = await _row(table, game_id)
    engine = get_engine("dfccg")
    state = engine.load_state(row.state or "")
    user = int(engine.current_seats(state)[0])
    other = table.player2 if user == table.player else table.player
    hand = await table.click(table.message(board_id), "My hand", user=user)
    snapshot = json.loads(json.dumps(hand.message))
    action = engine.legal_actions(state, str(user))[0]
    custom_id = f"ftg:a:{game_id}:{row.version}:{action.id}"

    stranger = table.fake.add_member(table.guild_id, "mallory")
    refused = await table.click(table.message(board_id), "My hand", user=stranger)
    assert refused.ephemeral and "not playing" in refused.text
    refused = await table.click(snapshot, custom_id, user=stranger)
    assert refused.ephemeral and "not playing" in refused.text
    not_yours = await table.click(snapshot, custom_id, user=other)
    assert not_yours.ephemeral and "not your turn" in not_yours.text

    first = await table.click(snapshot, custom_id, user=user)
    assert "Already done" not in first.text
    second = await table.click(snapshot, custom_id, user=user)
    assert second.ephemeral and "Already done" in second.text
    assert (await _row(table, game_id)).version == row.version + 1
    async with table.bot.db.session() as session:  # type: ignore[union-attr]
        logged = (
            await session.exec(
                select(GameActionLog).where(
                    col(GameActionLog.game_id) == game_id, col(GameActionLog.user_id) == user
                )
            )
        ).all()
    assert len(logged) == 1


async def test_lobby_rules_status_abandon_and_one_game_per_channel(table: Table) -> None:
    choices = await table.autocomplete("game new", "game", user=table.player)
    assert any(c["value"] == "dfccg" for c in choices)
    books = await table.autocomplete(
        "game new", "options", user=table.player, game="dfccg", options="book="
    )
    assert {"book=storm-front", "book=side-jobs"} <= {c["value"] for c in books}
    two = await table.autocomplete(
        "game new", "options", user=table.player, game="dfccg", options="book=fool-moon diff"
    )
    assert "book=fool-moon difficulty=merlin" in {c["value"] for c in two}
    wrong = await table.slash("game new", user=table.player, game="dfccg", options="speed=9")
    assert wrong.ephemeral and "not an option" in wrong.text and "difficulty=" in wrong.text
    bad = await table.slash("game new", user=table.player, game="chess")
    assert bad.ephemeral and "no game called" in bad.text
    lobby = await table.slash(
        "game new", user=table.player, game="dfccg", options="difficulty=merlin"
    )
    assert "merlin" in lobby.text
    again = await table.slash("game new", user=table.player2, game="dfccg")
    assert again.ephemeral and "already has a game" in again.text
    not_host = await table.click(lobby, "Start", user=table.player2)
    assert not_host.ephemeral and "Only the host" in not_host.text
    picked = await table.select(
        lobby, "ftg:o:" + str(_game_id(lobby)) + ":difficulty", ["apprentice"], user=table.player
    )
    assert "apprentice" in picked.text
    await table.click(lobby, "Join", user=table.player2)
    twice = await table.click(lobby, "Join", user=table.player2)
    assert twice.ephemeral and "already have a seat" in twice.text
    left = await table.click(lobby, "Leave", user=table.player2)
    assert "bob" not in message_text(left.message)
    status = await table.slash("game status", user=table.player3)
    assert status.ephemeral and "lobby" in status.text
    refused = await table.slash("game abandon", user=table.player3)
    assert refused.ephemeral and "host or a GM" in refused.text
    snapshot = json.loads(json.dumps(lobby.message))
    done = await table.slash("game abandon", user=table.gm)
    assert not done.ephemeral and "abandoned" in done.text
    fresh = await table.slash("game new", user=table.player2, game="dfccg")
    assert not fresh.ephemeral and "lobby" in fresh.text
    assert "abandoned" in message_text(lobby.message)
    late = await table.click(snapshot, "Join", user=table.player3)
    assert late.ephemeral and "already started (or ended)" in late.text


async def test_idle_games_warn_then_time_out(table: Table) -> None:
    from datetime import timedelta

    game_id, board_id = await _lobby(table, [table.player2])
    cog = table.bot.get_cog("GameTable")  # type: ignore[union-attr]
    assert cog is not None
    row = await _row(table, game_id)
    last = row.last_activity
    settings = table.bot.settings  # type: ignore[union-attr]
    await cog.check_idle(last + timedelta(minutes=settings.game_idle_warn_minutes + 1))
    await table.settle()
    assert any("idle" in (m.get("content") or "") for m in table.channel_messages())
    await cog.check_idle(last + timedelta(minutes=settings.game_idle_timeout_minutes + 1))
    await table.settle()
    assert (await _row(table, game_id)).status == "abandoned"
    assert "abandoned" in message_text(table.message(board_id))
    assert any("has been abandoned" in (m.get("content") or "") for m in table.channel_messages())
    loop = [t for t in __import__("asyncio").all_tasks() if t.get_name() == "fatetable-idle"]
    assert loop and not loop[0].done()


async def test_move_command_with_autocomplete_and_auto(table: Table) -> None:
    game_id, board_id = await _lobby(table, [])
    choices = await table.autocomplete("game move", "action", user=table.player)
    row = await _row(table, game_id)
    assert choices and all(
        c["value"].startswith(f"{row.version}:") or c["value"] == "auto" for c in choices
    )
    assert await table.autocomplete("game move", "action", user=table.player2) == []
    first = next(c for c in choices if c["value"] != "auto")
    moved = await table.slash("game move", user=table.player, action=first["value"])
    assert moved.ephemeral and "Your hand" in moved.text
    stale = await table.slash("game move", user=table.player, action=first["value"])
    assert stale.ephemeral and "Already done" in stale.text
    auto = await table.slash("game move", user=table.player, action="auto")
    assert auto.ephemeral and (await _row(table, game_id)).version == row.version + 2
    nonsense = await table.slash("game move", user=table.player, action="fly away")
    assert nonsense.ephemeral and "suggestions" in nonsense.text
    elsewhere = await table.slash(
        "game move", user=table.player, channel=table.other_channel, action="auto"
    )
    assert elsewhere.ephemeral and "no game in this channel" in elsewhere.text


def test_hand_pages_and_board_image_respect_limits() -> None:
    from bot.games.base import Action
    from bot.games.dfccg.picture import render_board
    from bot.ui.games import ACTIONS_PER_PAGE, action_page

    actions = [Action(id=f"d:c{i}", label="X" * 80, kind="discard") for i in range(47)]
    seen = []
    for page in range(3):
        specs, shown, pages = action_page(actions, page)
        assert pages == 3 and shown == page and len(specs) <= ACTIONS_PER_PAGE
        assert all(s.row < 4 and len(s.label) <= 80 for s in specs)
        seen += [s.action_id for s in specs]
    assert seen == [a.id for a in actions]
    assert action_page(actions, 99)[1] == 2
    engine = get_engine("dfccg")
    state = engine.new_game(engine.parse_options({}), ["1", "2", "3"], random.Random(1))
    png = render_board(engine.public_view(state))
    assert png.startswith(b"\x89PNG")
    assert render_board({}).startswith(b"\x89PNG")


async def test_a_burst_of_moves_edits_the_board_only_once_or_twice(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, board_id = await _lobby(table, [], options="difficulty=apprentice")
    await table.settle()
    monkeypatch.setattr(bot.ui.games, "BOARD_COALESCE_SECONDS", 0.3)
    cog = table.bot.get_cog("GameTable")  # type: ignore[union-attr]
    assert cog is not None
    before = len(table.fake.requests)
    row = await _row(table, game_id)
    for _ in range(8):  # eight moves in a row by the solo player, as fast as they come
        if (await _row(table, game_id)).status != "running":
            break
        await cog.games.act(game_id, table.player, None, "auto")
        cog.schedule_board(game_id)
    moves = (await _row(table, game_id)).version - row.version
    assert moves >= 3
    await table.settle()
    edits = [
        r
        for r in table.fake.requests[before:]
        if r.method == "PATCH" and r.path.endswith(f"/messages/{board_id}")
    ]
    assert 1 <= len(edits) <= 2, f"{moves} moves made {len(edits)} board edits"
    info = await cog.games.get(game_id)  # the one edit shows the latest state
    text = message_text(table.message(board_id))
    assert info.view is not None
    assert (
        (f"Turn {info.view['turn']}" in text) if info.status == "running" else "Game over" in text
    )
    # Fifty refresh requests in one go share one pending worker and make exactly one edit.
    before = len(table.fake.requests)
    for _ in range(50):
        cog.schedule_board(game_id)
    assert len([t for t in cog._board_tasks.values() if not t.done()]) == 1
    await table.settle()
    board_calls = [
        r.method for r in table.fake.requests[before:] if r.path.endswith(f"/messages/{board_id}")
    ]
    assert board_calls == ["PATCH"]


async def test_lobby_sets_the_start_and_each_player_chooses_a_deck(table: Table) -> None:
    lobby = await table.slash("game new", user=table.player, game="dfccg")
    game_id = _game_id(lobby)
    start = f"ftg:o:{game_id}:start"
    consent = f"ftg:o:{game_id}:showdown_consent"
    picked = await table.select(lobby, start, ["choose-variant"], user=table.player)
    assert "Set-up: **Players choose, variant start**" in picked.text
    assert "start:" not in picked.text
    host = await table.select(lobby, consent, ["host"], user=table.player)
    assert "The host confirms a Showdown" in host.text
    reset = await table.select(lobby, consent, ["everyone"], user=table.player)
    assert json.loads((await _row(table, game_id)).options).get("showdown_consent") == "everyone"
    assert "Every seat confirms" in reset.text
    stranger = await table.select(lobby, start, ["random"], user=table.player2)
    assert stranger.ephemeral and "Only the host" in stranger.text
    await table.select(lobby, start, ["choose"], user=table.player)
    snapshot = json.loads(json.dumps(lobby.message))
    started = await table.click(lobby, "Start", user=table.player)
    assert "My hand" in started.labels()
    assert lobby.message is not None
    # Solo: the player chooses three characters; Harry is the only choice left for the last.
    for name in ("Susan Rodriguez", "Michael Carpenter", "Harry Dresden"):
        hand = await table.click(
            table.message(int(lobby.message["id"])), "My hand", user=table.player
        )
        assert hand.ephemeral and name in hand.labels()
        if name == "Harry Dresden":
            assert "Karrin Murphy" not in hand.labels()
        await table.click(hand, name, user=table.player)
    state = get_engine("dfccg").load_state((await _row(table, game_id)).state or "")
    assert sorted(k for t in state.tableaux for k in t.characters) == ["harry", "michael", "susan"]
    assert state.decision is not None and state.decision.kind == "first_player"
    late = await table.select(snapshot, start, ["random"], user=table.player)
    assert late.ephemeral and "only change in the lobby" in late.text


async def test_move_autocomplete_answers_from_memory_until_the_game_changes(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, _board_id = await _lobby(table, [table.player2])
    cog = table.bot.get_cog("GameTable")  # type: ignore[union-attr]
    assert cog is not None
    opened = []
    real_session = cog.games.db.session

    def counting_session() -> Any:
        opened.append(1)
        return real_session()

    monkeypatch.setattr(cog.games.db, "session", counting_session)
    row = await _row(table, game_id)
    state = get_engine("dfccg").load_state(row.state or "")
    mover = int(get_engine("dfccg").current_seats(state)[0])
    waiting = table.player2 if mover == table.player else table.player
    before = len(opened)
    typed = [await table.autocomplete("game move", "action", user=mover, action=t) for t in "dis"]
    assert typed[0] and all(c["value"].startswith(f"{row.version}:") for c in typed[0])
    assert await table.autocomplete("game move", "action", user=waiting) == []
    assert len(opened) == before  # keystrokes were answered without touching the database
    first = next(c for c in typed[0] if c["value"] != "auto")
    moved = await table.slash("game move", user=mover, action=first["value"])
    assert moved.ephemeral and "Already done" not in moved.text
    newer = (await _row(table, game_id)).version
    after_move = len(opened)
    again = await table.autocomplete("game move", "action", user=table.player)
    again += await table.autocomplete("game move", "action", user=table.player2)
    assert again and all(
        c["value"].startswith(f"{newer}:") or c["value"] == "auto" for c in again
    )  # the cache followed the move: no stale version is offered
    assert len(opened) == after_move


async def test_a_deleted_board_comes_back_and_the_old_one_stops(table: Table) -> None:
    game_id, board_id = await _lobby(table, [table.player2])
    old = json.loads(json.dumps(table.message(board_id)))  # the board as a client still shows it
    del table.fake.messages[board_id]  # someone deleted the board: "My hand" is out of reach
    status = await table.slash("game status", user=table.player)
    assert status.ephemeral
    boards = [
        m
        for m in table.channel_messages()
        if any(
            (c.get("custom_id") or "").startswith(f"ftg:h:{game_id}")
            for c in iter_components(m.get("components") or [])
        )
    ]
    assert len(boards) == 1 and int(boards[0]["id"]) != board_id, boards
    assert (await _row(table, game_id)).board_message_id == int(boards[0]["id"])
    hand = await table.click(boards[0], "My hand", user=table.player2)
    assert hand.ephemeral and "incident" not in hand.text
    old["id"] = str(board_id)
    table.fake.messages[board_id] = old  # a copy of the old board that still shows its buttons
    stale = await table.click(old, "My hand", user=table.player2)
    assert stale.ephemeral and "newest board" in stale.text, stale.text


async def test_a_games_history_pages_from_another_channel_of_the_server(table: Table) -> None:
    from bot.ui.custom_ids import log_button_id

    game_id, _ = await _lobby(table, [table.player2])
    shown = await table.slash(
        "game history", user=table.player, channel=table.other_channel, game=game_id
    )
    assert shown.ephemeral and "incident" not in shown.text, shown.text
    # its page buttons sit on that reply, in the other channel
    page = await table.forge(
        log_button_id(game_id, 0, "p"),
        user=table.player,
        channel=table.other_channel,
        ephemeral=True,
    )
    assert (page.message or {}).get("flags", 0) & 64, "the page is edited in the private reply"
    assert "no longer exists" not in page.text, page.text
    assert "the whole log" in page.text and "the whole log" in shown.text


async def test_the_board_edit_after_a_move_shows_the_move_without_reading_the_game(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, board_id = await _lobby(table, [], options="difficulty=apprentice")
    await table.settle()
    cog = table.bot.get_cog("GameTable")  # type: ignore[union-attr]
    assert cog is not None
    reads = []
    real_get = cog.games.get

    async def counting_get(game: int) -> Any:
        reads.append(game)
        return await real_get(game)

    monkeypatch.setattr(cog.games, "get", counting_get)
    before = len(table.fake.requests)
    moved = await table.slash("game move", user=table.player, action="auto")
    assert moved.ephemeral and "Your hand" in moved.text
    edits = [
        r
        for r in table.fake.requests[before:]
        if r.method == "PATCH" and r.path.endswith(f"/messages/{board_id}")
    ]
    assert edits and reads == []  # the move's own outcome was drawn
    row = await _row(table, game_id)
    info = await real_get(game_id)
    assert info.version == row.version and info.view is not None
    assert info.public_log[-1] in message_text(table.message(board_id))
    # A redraw nobody's move asked for (the picture catching up) reads the game as before.
    cog.schedule_board(game_id)
    await table.settle()
    assert reads == [game_id]


async def test_a_move_starts_from_the_game_in_memory_and_a_move_made_elsewhere_still_wins(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.services.games import GameService

    game_id, board_id = await _lobby(table, [table.player2])
    cog = table.bot.get_cog("GameTable")  # type: ignore[union-attr]
    assert cog is not None
    engine = get_engine("dfccg")
    row = await _row(table, game_id)
    mover = int(engine.current_seats(engine.load_state(row.state or ""))[0])
    opened: list[str] = []
    real_read = cog.games.db.read

    def counting_read(*args: Any, **kwargs: Any) -> Any:
        opened.append("read")
        return real_read(*args, **kwargs)

    monkeypatch.setattr(cog.games.db, "read", counting_read)
    first = await cog.games.act(game_id, mover, row.version, "auto")
    assert first.game.version == row.version + 1 and opened == []  # no read before it
    monkeypatch.undo()
    now = await _row(table, game_id)
    next_seat = int(engine.current_seats(engine.load_state(now.state or ""))[0])
    hand = await table.click(table.message(board_id), "My hand", user=next_seat)
    button = next(
        str(c["custom_id"])
        for c in iter_components((hand.message or {}).get("components") or [])
        if str(c.get("custom_id", "")).startswith(f"ftg:a:{game_id}:{now.version}:")
    )
    # Another process (its own service, the same database) makes that move first; this
    # process's memory still holds the version the hand shows, so the click starts from it,
    # its versioned write finds the game moved, and the answer is a sentence, not a move.
    await GameService(cog.games.db).act(game_id, next_seat, now.version, "auto")
    stale = await table.click(hand, button, user=next_seat)
    assert stale.ephemeral and "Already done" in stale.text
    after = await _row(table, game_id)
    assert after.version == row.version + 2
    # "Whatever is current" from the stale memory: the game is read again and moves once.
    mover_now = int(engine.current_seats(engine.load_state(after.state or ""))[0])
    auto = await cog.games.act(game_id, mover_now, None, "auto")
    assert auto.game.version == row.version + 3 == (await _row(table, game_id)).version
    async with table.bot.db.session() as session:  # type: ignore[union-attr]
        logged = (
            await session.exec(
                select(GameActionLog.version).where(
                    col(GameActionLog.game_id) == game_id, col(GameActionLog.user_id).isnot(None)
                )
            )
        ).all()
    assert sorted(logged)[-3:] == [row.version + 1, row.version + 2, row.version + 3]


async def test_a_move_and_its_board_edit_are_one_write_of_three_statements(table: Table) -> None:
    """From the game in memory: no read before the move, then one raw unit of work (no ORM):
    the versioned UPDATE and one INSERT per log, one commit; the board edit reads nothing."""
    import asyncio

    from sqlalchemy import event

    game_id, board_id = await _lobby(table, [], options="difficulty=apprentice")
    await table.settle()
    assert table.bot is not None
    db = table.bot.db  # type: ignore[attr-defined]
    statements: list[str] = []
    commits: list[int] = []
    raw: list[str] = []

    def seen(_conn: Any, _cursor: Any, sql: str, *_args: Any) -> None:
        statements.append(sql.split()[0].upper())

    def committed(_conn: Any) -> None:
        commits.append(1)

    engines = {db.engine.sync_engine, db._read_engine.sync_engine}
    for engine in engines:
        event.listen(engine, "before_cursor_execute", seen)
        event.listen(engine, "commit", committed)
    db.raw_trace = lambda sql: raw.append(sql.split()[0].upper())
    try:
        before = len(table.fake.requests)
        record = await table.fire("game move", user=table.player, action="auto")
        await asyncio.wait_for(record.completed.wait(), 10)
        await table.settle()
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", seen)
            event.remove(engine, "commit", committed)
        db.raw_trace = None
    assert "Your hand" in Reply(table.fake, record).text
    assert any(
        r.method == "PATCH" and r.path.endswith(f"/messages/{board_id}")
        for r in table.fake.requests[before:]
    )
    assert statements == [] and commits == [], statements  # nothing through the ORM
    assert raw[0] == "UPDATE" and raw[-1] == "COMMIT", raw
    assert set(raw[1:-1]) <= {"INSERT"} and len(raw) <= 4, raw


async def test_moves_start_from_the_state_the_last_move_made(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move keeps the state it made for the game's next move (no JSON parsed again), and
    the game played that way is the game played from the stored rows."""
    game_id, _board_id = await _lobby(table, [], options="difficulty=apprentice")
    cog = table.bot.get_cog("GameTable")  # type: ignore[union-attr]
    assert cog is not None
    engine = get_engine("dfccg")
    parsed: list[str] = []
    load_state = engine.load_state
    monkeypatch.setattr(engine, "load_state", lambda text: parsed.append(text) or load_state(text))
    moves = 0
    for _ in range(6):
        if (await _row(table, game_id)).status != "running":
            break
        outcome = await cog.games.act(game_id, table.player, None, "auto")
        stored = await _row(table, game_id)
        assert outcome.game.view == engine.public_view(load_state(stored.state or "{}"))
        moves += 1
    assert moves >= 3
    assert len(parsed) <= 1  # the first move's (the row as started)


async def test_a_stop_draws_the_held_back_board_and_its_picture(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A graceful stop (a deploy) while the live-edit throttle holds the board's last edit and
    the picture throttle its picture: the bot draws both on its way out."""
    import cogs.common.coalesce

    game_id, board_id = await _lobby(table, [], options="difficulty=apprentice")
    await table.settle()
    monkeypatch.setattr(cogs.common.coalesce, "LIVE_EDIT_INTERVAL", 30.0)
    monkeypatch.setattr(bot.ui.games, "PICTURE_EVERY_SECONDS", 30.0)
    cog = table.bot.get_cog("GameTable")  # type: ignore[union-attr]
    assert cog is not None
    for _ in range(2):  # the board was drawn at the start: both moves' edits wait
        await cog.games.act(game_id, table.player, None, "auto")
        cog.schedule_board(game_id)
        await asyncio.sleep(0.2)
    info = await cog.games.get(game_id)
    assert info.status == "running"
    latest = info.public_log[-1]
    assert latest not in message_text(table.message(board_id))  # held back
    pictures = len(table.fake.attachments)
    await asyncio.wait_for(table.stop_bot(), 10)  # well within both intervals
    assert latest in message_text(table.message(board_id))
    assert len(table.fake.attachments) == pictures + 1  # and a new picture with it
    await table.start_bot()


async def test_a_double_click_on_start_starts_the_game_once(table: Table) -> None:
    """Start pressed twice at once: the lobby becomes the board once, and the second press is
    told privately that the game has started (or that someone acted first)."""
    lobby = await table.slash("game new", user=table.player, game="dfccg")
    await table.click(lobby, "Join", user=table.player2)
    assert lobby.message is not None
    first = await table.fire_click(lobby.message, "Start", user=table.player)
    second = await table.fire_click(lobby.message, "Start", user=table.player)
    await asyncio.gather(first.completed.wait(), second.completed.wait())
    await table.settle()
    replies = [Reply(table.fake, first), Reply(table.fake, second)]
    boards = [r for r in replies if "My hand" in r.labels()]
    refused = [r for r in replies if r.ephemeral]
    assert len(boards) == 1 and len(refused) == 1, [r.text for r in replies]
    # decided after the start (already started) or on the same lobby (refused at the write)
    assert any(words in refused[0].text for words in ("already started", "acted first"))
    row = await _row(table, _game_id(lobby))
    assert row.status == "running" and row.version == 3  # lobby, the join, one start


async def test_a_lobby_starts_the_picture_workers_before_its_board_needs_them(
    table: Table,
) -> None:
    """The first board's picture is drawn by the workers, not in a thread of the bot's own
    process while they start (that would hold the GIL the event loop needs)."""
    assert table.bot is not None
    pictures = table.bot.pictures  # type: ignore[attr-defined]
    assert not pictures.ready
    lobby = await table.slash("game new", user=table.player, game="vampire-empire")
    await pictures.wait_ready()  # the seconds a host takes to fill the lobby
    assert pictures.ready and pictures.drawn_in_threads == 0
    await table.click(lobby, "Add AI seat", user=table.player)
    board = await table.click(lobby, "Start", user=table.player)
    assert board.message is not None and board.message.get("attachments")
    assert pictures.drawn_in_workers >= 1 and pictures.drawn_in_threads == 0


async def test_a_game_in_a_channel_one_may_not_view_is_not_in_ones_history(
    table: Table,
) -> None:
    """A game's log shows what its board showed in its channel: someone who may not view that
    channel (a private table) neither finds the game in `/game history` nor reads its log."""
    game_id, _ = await _lobby(table, [], ai=1)
    channel = table.fake.channels[table.channel]
    view_channel = 1 << 10
    channel["permission_overwrites"] = [
        {"id": str(table.player3), "type": 1, "allow": "0", "deny": str(view_channel)}
    ]
    await table.fake.dispatch("CHANNEL_UPDATE", channel, guild_id=table.guild_id)
    await table.settle()

    listed = await table.slash("game history", user=table.player3, channel=table.other_channel)
    assert listed.ephemeral and f"#{game_id}" not in listed.text, listed.text
    log = await table.slash(
        "game history", user=table.player3, channel=table.other_channel, game=game_id
    )
    assert log.ephemeral and f"There is no game #{game_id}" in log.text, log.text
    for user in (table.player, table.gm):  # who may view it, and the GM
        seen = await table.slash("game history", user=user, channel=table.other_channel)
        assert f"#{game_id}" in seen.text, seen.text
