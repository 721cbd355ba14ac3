"""The proof that the table is generic: a game written here, registered, and played through the
fake Discord with no other change to the bot (no display of its own, no CLI entry)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

import bot.ui.games
from bot.__main__ import main
from bot.games import base
from bot.games.base import Action, GameEngine, GameEvent, GameResult, IllegalAction
from bot.testing.harness import Table, message_text


class NimOptions(BaseModel):
    pile: Literal["5", "9"] = Field(default="5", title="Starting pile")
    most: Literal["2", "3"] = Field(default="2", title="Most stones per turn")
    starter: Literal["host", "guest"] = Field(default="host", title="Who starts")
    last_takes_wins: bool = Field(
        default=True, title="Taking the last stone wins", description="No: the last stone loses."
    )
    tell_pile: bool = Field(default=True, title="Tell what is left")


class NimState(BaseModel):
    options: NimOptions
    seats: list[str]
    pile: int
    turn: int = 0
    winner: str | None = None


class NimEngine(GameEngine[NimState, NimOptions]):
    """Two seats take one or two stones in turn from one pile."""

    key = "nim"
    name = "Nim"
    min_players = 2
    max_players = 2
    options_model = NimOptions
    state_model = NimState

    def new_game(self, options: NimOptions, seats: list[str], rng: random.Random) -> NimState:
        first = 0 if options.starter == "host" else 1
        return NimState(options=options, seats=seats, pile=int(options.pile), turn=first)

    def current_seats(self, state: NimState) -> list[str]:
        return [] if state.winner else [state.seats[state.turn % 2]]

    def legal_actions(self, state: NimState, seat: str) -> list[Action]:
        if seat not in self.current_seats(state):
            return []
        return [
            Action(id=f"t{n}", label=f"Take {n}", kind="take")
            for n in range(1, int(state.options.most) + 1)
            if n <= state.pile
        ]

    def apply(
        self, state: NimState, seat: str, action: Action | str, rng: random.Random
    ) -> tuple[NimState, list[GameEvent]]:
        action_id = action.id if isinstance(action, Action) else action
        if action_id not in {a.id for a in self.legal_actions(state, seat)}:
            raise IllegalAction("Not now.")
        taken = int(action_id[1:])
        new = state.model_copy(update={"pile": state.pile - taken, "turn": state.turn + 1})
        if new.pile == 0:
            other = state.seats[(state.turn + 1) % 2]
            new.winner = seat if state.options.last_takes_wins else other
        left = f", {new.pile} left" if state.options.tell_pile else ""
        return new, [GameEvent(text=f"{taken} stone(s) taken{left}.")]

    def public_view(self, state: NimState) -> dict[str, Any]:
        return {"pile": state.pile, "turn": state.turn}

    def private_view(self, state: NimState, seat: str) -> dict[str, Any]:
        return self.public_view(state)

    def is_over(self, state: NimState) -> bool:
        return state.winner is not None

    def result(self, state: NimState) -> GameResult | None:
        if state.winner is None:
            return None
        return GameResult(
            winner=state.winner,
            scores={s: int(s == state.winner) for s in state.seats},
            summary=f"Seat {state.winner} wins.",
        )

    def choose_action(self, state: NimState, seat: str, rng: random.Random) -> Action:
        return self.legal_actions(state, seat)[-1]


@pytest.fixture
def nim(monkeypatch: pytest.MonkeyPatch) -> Iterator[NimEngine]:
    monkeypatch.setattr(bot.ui.games, "BOARD_COALESCE_SECONDS", 0.01)
    engine = NimEngine()
    monkeypatch.setitem(base.ENGINES, engine.key, engine)
    yield engine
    base.DISPLAYS.pop(engine.key, None)


async def test_a_game_defined_in_the_test_plays_through_the_table(
    table: Table, nim: NimEngine
) -> None:
    games = await table.autocomplete("game new", "game", user=table.player, game="ni")
    assert {"name": "Nim", "value": "nim"} in games
    typed = await table.autocomplete(
        "game new", "options", user=table.player, game="nim", options="pile="
    )
    assert {c["value"] for c in typed} == {"pile=5", "pile=9"}
    rules = await table.slash("game rules", user=table.player2, game="nim")
    assert rules.ephemeral and "Starting pile" in rules.text and "Default: **yes**" in rules.text

    lobby = await table.slash("game new", user=table.player, game="nim", options="pile=9")
    assert "Starting pile: **9**" in lobby.text and "Taking the last stone wins" in lobby.text
    assert lobby.message is not None
    game_id = _game_id(lobby)
    picked = await table.select(lobby, f"ftg:o:{game_id}:starter", ["guest"], user=table.player)
    assert "Who starts: **guest**" in picked.text
    # Five options, four menus: the fourth lists the rest and opens one privately.
    menu = await table.select(lobby, f"ftg:m:{game_id}", ["last_takes_wins"], user=table.player)
    assert menu.ephemeral and "No: the last stone loses." in menu.text
    chosen = await table.select(
        menu, f"ftg:o:{game_id}:last_takes_wins", ["false"], user=table.player
    )
    assert "now **no**" in chosen.text
    await table.settle()
    lobby_text = message_text(table.message(lobby.message["id"]))
    assert "Taking the last stone wins: **no**" in lobby_text
    await table.click(lobby, "Join", user=table.player2)
    started = await table.click(lobby, "Start", user=table.player)
    assert "My hand" in started.labels() and not started.message["attachments"]
    board_id = int(lobby.message["id"])
    moves = 0
    while "Game over" not in message_text(table.message(board_id)):
        for user in (table.player, table.player2):
            hand = await table.click(table.message(board_id), "My hand", user=user)
            if "Your move" in hand.text:
                moved = await table.click(hand, "Take 2" if moves % 2 else "Take 1", user=user)
                assert "Already done" not in moved.text
                moves += 1
                await table.settle()
                break
        assert moves < 20
    board = message_text(table.message(board_id))
    assert "stone(s) taken, 0 left" in board and "wins" in board and "Score:" in board
    history = await table.slash("game history", user=table.player)
    assert "Nim (finished)" in history.text


def _game_id(reply: Any) -> int:
    return next(
        int(c["custom_id"].split(":")[2])
        for c in reply.components()
        if (c.get("custom_id") or "").startswith("ftg:")
    )


def test_the_cli_simulates_any_registered_game(
    nim: NimEngine, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    assert main(["simulate", "nim", "--games", "4", "--pile", "9", "--seed", "3"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["game"] == "nim" and line["games"] == 4 and line["players"] == 2
    assert sum(line["winners"].values()) == 4 and line["options"]["pile"] == "9"
    assert line["mean_actions"] == 5  # always two stones but the last: 2+2+2+2+1
    assert main(["simulate", "nim", "--games", "2", "--most", "3", "--pile", "9"]) == 0
    assert json.loads(capsys.readouterr().out)["mean_actions"] == 3  # 3+3+3
    with pytest.raises(SystemExit):
        main(["simulate", "nim", "--pile", "4"])


async def test_any_game_pauses_and_resumes_with_its_hand_kept(table: Table, nim: NimEngine) -> None:
    """Pause and resume belong to the table: the test's own game keeps its board and hands."""
    lobby = await table.slash("game new", user=table.player, game="nim")
    await table.click(lobby, "Join", user=table.player2)
    await table.click(lobby, "Start", user=table.player)
    assert lobby.message is not None
    board_id = int(lobby.message["id"])
    early = await table.slash("game resume", user=table.player)
    assert early.ephemeral and "not paused" in early.text
    paused = await table.slash("game pause", user=table.player2)
    assert not paused.ephemeral and "is paused" in paused.text
    await table.settle()
    assert "Paused." in message_text(table.message(board_id))
    hand = await table.click(table.message(board_id), "My hand", user=table.player)
    assert hand.ephemeral and "This game is paused" in hand.text
    refused = await table.slash("game move", user=table.player, action="auto")
    assert refused.ephemeral and "/game resume" in refused.text
    resumed = await table.slash("game resume", user=table.player)
    assert not resumed.ephemeral and "continues" in resumed.text
    moved = await table.slash("game move", user=table.player, action="auto")
    assert moved.ephemeral and "waiting for bob" in moved.text
    await table.settle()
    assert "stone(s) taken" in message_text(table.message(board_id))
