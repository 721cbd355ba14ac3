"""GameService on a real database: one live game per channel, optimistic concurrency, idle."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from bot.db.engine import Database
from bot.errors import RuleError
from bot.services.game_info import AlreadyDone, GameInfo, NotSeated
from bot.services.games import GameService

GUILD = 1_234_567_890_123_456_789
CHANNEL = GUILD + 1
HOST = GUILD + 2
GUEST = GUILD + 3


async def _running(service: GameService) -> int:
    info = await service.create_lobby(
        guild_id=GUILD,
        channel_id=CHANNEL,
        host_id=HOST,
        host_name="host",
        engine_key="dfccg",
        options={"difficulty": "apprentice"},
    )
    await service.lobby_action(info.id, GUEST, "guest", "join")
    started = await service.lobby_action(info.id, HOST, "host", "start")
    assert started.status == "running" and started.view is not None
    return info.id


async def _lobby(service: GameService, host_id: int, channel_id: int = CHANNEL) -> GameInfo:
    """A card game's lobby with the default options."""
    return await service.create_lobby(
        guild_id=GUILD,
        channel_id=channel_id,
        host_id=host_id,
        host_name="host" if host_id == HOST else "g",
        engine_key="dfccg",
        options={},
    )


async def test_a_lobby_that_loses_the_race_for_its_channel_is_told_so(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two lobbies that both found the channel free (two processes at once): the unique index
    on a live game's channel refuses the second insert, whatever the driver, and its host hears
    that the channel is taken."""
    from bot.services import games_lobby

    service = GameService(db)
    first = await _lobby(service, HOST)

    # the second one's look at the channel happened before the first one's insert
    async def channel_looks_free(unit: object, channel_id: int) -> None:
        return None

    monkeypatch.setattr(games_lobby, "live_game_in_channel_raw_in", channel_looks_free)
    with pytest.raises(RuleError, match="already has a game"):
        await _lobby(service, GUEST)
    assert (await service.get(first.id)).status == "lobby"


async def test_one_live_game_per_channel(db: Database) -> None:
    service = GameService(db)
    info = await _lobby(service, HOST)
    assert info.seats[0].user_id == HOST and info.status == "lobby"
    with pytest.raises(RuleError, match="already has a game"):
        await _lobby(service, GUEST)
    with pytest.raises(RuleError, match="difficulty"):
        await service.create_lobby(
            guild_id=GUILD,
            channel_id=CHANNEL + 9,
            host_id=GUEST,
            host_name="g",
            engine_key="dfccg",
            options={"difficulty": "godlike"},
        )
    await service.abandon(CHANNEL, HOST, is_gm=False)
    again = await service.create_lobby(
        guild_id=GUILD,
        channel_id=CHANNEL,
        host_id=GUEST,
        host_name="g",
        engine_key="dfccg",
        options={},
    )
    games, total = await service.history(GUILD)
    assert total == 2 and {g.status for g in games} == {"abandoned", "lobby"}
    assert again.id != info.id


async def test_stale_and_concurrent_moves_apply_once(db: Database) -> None:
    service = GameService(db)
    game_id = await _running(service)
    info = await service.get(game_id)
    current_name = info.current_names[0]
    user = HOST if current_name == "host" else GUEST
    hand = await service.hand(game_id, user)
    assert hand.actions
    action = hand.actions[0]
    results = await asyncio.gather(
        service.act(game_id, user, info.version, action.id),
        service.act(game_id, user, info.version, action.id),
        return_exceptions=True,
    )
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert all(isinstance(r, AlreadyDone) for r in results if isinstance(r, BaseException))
    assert (await service.get(game_id)).version == info.version + 1
    assert len(await service.action_log(game_id)) == 1
    with pytest.raises(NotSeated):
        await service.hand(game_id, GUILD + 77)


async def test_idle_warns_once_then_abandons(db: Database) -> None:
    service = GameService(db)
    game_id = await _running(service)
    last = (await service.get(game_id)).last_activity
    assert await service.idle_check(last + timedelta(minutes=5), 60, 240) == []
    warned = await service.idle_check(last + timedelta(minutes=61), 60, 240)
    assert [(n.game.id, n.kind) for n in warned] == [(game_id, "warn")]
    assert await service.idle_check(last + timedelta(minutes=62), 60, 240) == []
    ended = await service.idle_check(last + timedelta(minutes=241), 60, 240)
    assert [(n.game.id, n.kind) for n in ended] == [(game_id, "abandon")]
    assert (await service.get(game_id)).status == "abandoned"
    assert await service.status(CHANNEL) is None


async def test_campaign_lobbies_follow_the_channels_finished_games(db: Database) -> None:
    import json

    from sqlalchemy import update
    from sqlmodel import col

    from bot.db.models.games import GameRow
    from bot.games.base import GameResult

    service = GameService(db)

    async def play(winner: str) -> GameInfo:
        lobby = await service.create_lobby(
            guild_id=GUILD,
            channel_id=CHANNEL,
            host_id=HOST,
            host_name="host",
            engine_key="dfccg",
            options={"book": "campaign"},
        )
        assert lobby.options["book"] == "campaign"
        started = await service.lobby_action(lobby.id, HOST, "host", "start")
        result = GameResult(winner=winner, scores={"players": 1, "game": 1}, summary="done")
        async with db.session() as session:  # the game ends (its moves are tested elsewhere)
            await session.exec(
                update(GameRow)
                .where(col(GameRow.id) == lobby.id)
                .values(status="finished", active_channel_id=None, result=result.model_dump_json())
            )
        return started

    first = await play("players")
    assert first.options == {"book": "storm-front", "campaign": True}
    assert "Campaign: book 1 of 5, Storm Front." in first.public_log
    lost = await play("game")
    assert lost.options == {"book": "fool-moon", "campaign": True}
    again = await play("players")
    assert again.options == {"book": "fool-moon", "campaign": True}
    assert "Campaign: book 2 of 5, Fool Moon (attempt 2)." in again.public_log
    third = await play("players")
    assert third.options["book"] == "grave-peril"
    assert third.view is not None and third.view["book"] == "Grave Peril"
    async with db.session() as session:
        stored = await session.get(GameRow, first.id)
        assert stored is not None and json.loads(stored.options)["campaign"] is True


async def test_move_choices_in_a_channel_without_game_reads_briefly_once(db: Database) -> None:
    from contextlib import asynccontextmanager

    from bot.services.game_info import NO_GAME_TTL

    service = GameService(db)
    now = [100.0]
    service.clock = lambda: now[0]
    reads = [0]
    real_session = db.session

    @asynccontextmanager
    async def counted():  # type: ignore[no-untyped-def]
        reads[0] += 1
        async with real_session() as session:
            yield session

    service.db = type("Counted", (), {"session": staticmethod(counted)})()  # type: ignore[assignment]
    assert await service.move_choices(CHANNEL, HOST) is None
    assert await service.move_choices(CHANNEL, HOST) is None  # answered from memory
    assert reads[0] == 1
    now[0] += NO_GAME_TTL + 1
    assert await service.move_choices(CHANNEL, HOST) is None  # stale: read again
    assert reads[0] == 2
    service.db = db
    await _running(service)  # a game created here is seen at once, within the TTL
    assert await service.move_choices(CHANNEL, HOST) is not None  # (version, HOST's moves)


@pytest.mark.parametrize("minutes", [61, 241])
async def test_idle_notice_is_not_sent_when_a_move_lands_first(db: Database, minutes: int) -> None:
    from contextlib import asynccontextmanager

    from sqlalchemy import update
    from sqlalchemy.sql.dml import Update
    from sqlmodel import col

    from bot.db.models.games import GameRow

    service = GameService(db)
    game_id = await _running(service)
    last = (await service.get(game_id)).last_activity
    real_session = db.session

    @asynccontextmanager
    async def move_lands_first():  # type: ignore[no-untyped-def]
        # Between reading the idle game and writing the notice, a player's move bumps the row.
        async with real_session() as session:
            plain_exec = session.exec
            moved: list[bool] = []

            async def exec_(statement, *args, **kwargs):  # type: ignore[no-untyped-def]
                if isinstance(statement, Update) and not moved:
                    moved.append(True)
                    await plain_exec(
                        update(GameRow)
                        .where(col(GameRow.id) == game_id)
                        .values(version=GameRow.version + 1)
                    )
                return await plain_exec(statement, *args, **kwargs)

            session.exec = exec_  # type: ignore[method-assign]
            yield session

    service.db = type(
        "Racing", (), {"session": staticmethod(move_lands_first), "read": staticmethod(db.read)}
    )()  # type: ignore[assignment]
    assert await service.idle_check(last + timedelta(minutes=minutes), 60, 240) == []
    service.db = db
    assert (await service.get(game_id)).status == "running"


async def test_a_move_returns_the_movers_hand_as_saved(db: Database) -> None:
    service = GameService(db)
    game_id = await _running(service)
    info = await service.get(game_id)
    user = HOST if info.current_names[0] == "host" else GUEST
    action = (await service.hand(game_id, user)).actions[0]
    outcome = await service.act(game_id, user, info.version, action.id)
    read_back = await service.hand(game_id, user)
    assert outcome.hand.seat.user_id == user
    assert outcome.hand.game.version == read_back.game.version == info.version + 1
    assert outcome.hand.private_view == read_back.private_view
    assert [a.id for a in outcome.hand.actions] == [a.id for a in read_back.actions]


async def test_move_choices_follow_a_move_made_by_another_process(db: Database) -> None:
    here, there = GameService(db), GameService(db)  # two bot processes on one database
    game_id = await _running(here)
    info = await here.get(game_id)
    user = HOST if info.current_names[0] == "host" else GUEST
    seen = await here.move_choices(CHANNEL, user)
    assert seen is not None and seen[0] == info.version
    action = seen[1][0]
    await there.act(game_id, user, info.version, action.id)
    now = await here.move_choices(CHANNEL, user)
    stored = (await there.get(game_id)).version
    assert now is None or now[0] == stored, (now, stored)  # never the stale version
    if now is not None:
        assert {a.id for a in now[1]} == {a.id for a in (await there.hand(game_id, user)).actions}


async def test_the_action_log_never_stores_what_a_private_move_names(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A private move's label names a card in someone's hand; the action log keeps only its
    kind, for the AI's moves as for a person's, so no reader of the log can show it."""
    from bot.games.base import Action, get_engine

    engine = get_engine("vampire-empire")
    chosen: list[Action] = []
    choose = engine.choose_action

    def recording(state: Any, seat: str, rng: Any) -> Action:
        action = choose(state, seat, rng)
        chosen.append(action)
        return action

    monkeypatch.setattr(engine, "choose_action", recording)
    service = GameService(db)
    info = await service.create_lobby(
        guild_id=GUILD,
        channel_id=CHANNEL,
        host_id=HOST,
        host_name="host",
        engine_key="vampire-empire",
        options={},
    )
    await service.lobby_action(info.id, HOST, "host", "ai")
    await service.lobby_action(info.id, HOST, "host", "start")
    for _ in range(60):  # the host lets the AI pick its moves too: every move is recorded
        game = await service.get(info.id)
        if game.status != "running":
            break
        await service.act(info.id, HOST, None, "auto")
    logged = await service.action_log(info.id)
    assert len(logged) == len(chosen) > 10
    ai_private = [
        a for a, row in zip(chosen, logged, strict=True) if a.private and row.user_id is None
    ]
    assert ai_private, "the AI made no private move to check"
    for action, row in zip(chosen, logged, strict=True):
        assert row.action_id == action.id[:64]
        assert row.label == (action.kind if action.private else action.label[:100])


async def test_a_lobby_click_on_a_stale_copy_is_decided_again_on_the_stored_lobby(
    db: Database,
) -> None:
    """A process decides a lobby click on the lobby as it last wrote it; when another process
    changed the lobby first, the versioned write is refused and the click is decided again on
    the stored lobby, so both joins count."""
    here, there = GameService(db), GameService(db)  # two bot processes, one database
    lobby = await _lobby(here, HOST)
    await there.lobby_action(lobby.id, GUEST, "guest", "join")
    joined = await here.lobby_action(lobby.id, GUEST + 5, "late", "join")  # stale copy
    assert [s.user_id for s in joined.seats] == [HOST, GUEST, GUEST + 5]
    assert joined.version == 3
    started = await here.lobby_action(lobby.id, HOST, "host", "start")
    assert started.status == "running" and len(started.seats) == 3
    with pytest.raises(AlreadyDone, match="already started"):
        await there.lobby_action(lobby.id, GUEST + 6, "later", "join")


async def test_two_start_clicks_at_once_start_the_game_once(db: Database) -> None:
    """A double click on Start: both clicks are decided on the same lobby, one start is stored
    and the other is told someone acted first (the game is not dealt twice)."""
    from sqlmodel import col, select

    from bot.db.models.games import GameEventLog

    service = GameService(db)
    lobby = await _lobby(service, HOST)
    results = await asyncio.gather(
        service.lobby_action(lobby.id, HOST, "host", "start"),
        service.lobby_action(lobby.id, HOST, "host", "start"),
        return_exceptions=True,
    )
    started = [r for r in results if isinstance(r, GameInfo)]
    refused = [r for r in results if isinstance(r, AlreadyDone)]
    assert len(started) == 1 and len(refused) == 1, results
    assert (await service.get(lobby.id)).version == 2
    async with db.session() as session:
        events = (
            await session.exec(select(GameEventLog).where(col(GameEventLog.game_id) == lobby.id))
        ).all()
    assert sum(e.text.startswith("The game begins") for e in events) == 1


async def test_two_joins_at_once_both_take_a_seat(db: Database) -> None:
    """Two players press Join at the same moment: the second write finds the lobby changed,
    and that join is decided again on the stored lobby, so both are seated."""
    service = GameService(db)
    lobby = await _lobby(service, HOST)
    await asyncio.gather(
        service.lobby_action(lobby.id, GUEST, "guest", "join"),
        service.lobby_action(lobby.id, GUEST + 5, "late", "join"),
    )
    seated = (await service.get(lobby.id)).seats
    assert sorted(s.user_id for s in seated if s.user_id is not None) == [HOST, GUEST, GUEST + 5]


async def test_a_hand_shows_a_move_made_by_another_process(db: Database) -> None:
    """A process answers My hand from the game as it last wrote it only while that is still
    the stored version: after another process's move, the hand shows that move."""
    here, there = GameService(db), GameService(db)
    lobby = await _lobby(here, HOST)
    started = await here.lobby_action(lobby.id, HOST, "host", "start")
    mine = await here.hand(lobby.id, HOST)  # from this process's own copy
    assert mine.game.version == started.version
    first = mine.actions[0].id
    moved = await there.act(lobby.id, HOST, started.version, first)
    again = await here.hand(lobby.id, HOST)
    assert again.game.version == moved.game.version > started.version
    assert again.private_view == (await there.hand(lobby.id, HOST)).private_view
