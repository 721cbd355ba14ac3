"""The Dresden card game through the fake Discord: texts, logs, a proposed Showdown."""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

import pytest

import bot.services.games_play as games_play
from bot.games.base import get_engine
from bot.games.dfccg.cards import ActionCard, BookCard
from bot.games.dfccg.packs import card_index, load_library
from bot.games.dfccg.texts import action_text, book_text
from bot.testing.harness import Table, message_text
from tests.e2e.test_game_table import _all_labels, _lobby, _row, _step

pytestmark = pytest.mark.usefixtures("fast_board")  # the board is edited at once

JSON = dict[str, Any]
CARDS = card_index(load_library())
CHARACTERS = load_library().characters


def _within_limits(message: JSON) -> None:
    """What Discord would refuse: more than 6000 embed characters, a field over 1024."""
    total = 0
    for embed in message.get("embeds") or []:
        total += len(embed.get("title") or "") + len(embed.get("description") or "")
        total += len((embed.get("footer") or {}).get("text") or "")
        for field in embed.get("fields") or []:
            assert len(field["value"]) <= 1024 and len(field["name"]) <= 256
            total += len(field["name"]) + len(field["value"])
        assert len(embed.get("fields") or []) <= 25
    assert total <= 6000


def _book_texts(state: Any) -> list[str]:
    texts = []
    for row in state.rows:
        for slot in row:
            card = CARDS[slot.card_id]
            assert isinstance(card, BookCard)
            if book_text(card):
                texts.append(book_text(card))
    return texts


def _specials(keys: list[str]) -> list[str]:
    return [t for k in keys for t in (CHARACTERS[k].talent.text, CHARACTERS[k].stunt.text)]


async def _all_pages(table: Table, reply: Any, user: int) -> str:
    """The text of every page of a paged reply (bounded)."""
    texts = [reply.text]
    message = reply.message
    for _ in range(10):
        buttons = {b.get("label"): b for b in reply.buttons(message)}
        step = buttons.get("Next ▶")
        if step is None or step.get("disabled"):
            break
        reply = await table.click(message, "Next ▶", user=user)
        message = reply.message
        texts.append(reply.text)
    return "\n".join(texts)


async def test_two_players_read_every_card_text_on_the_board_and_in_their_hands(
    table: Table,
) -> None:
    game_id, board_id = await _lobby(table, [table.player2])
    engine = get_engine("dfccg")
    state = engine.load_state((await _row(table, game_id)).state or "")
    board = table.message(board_id)
    _within_limits(board)
    board_text = message_text(board)
    missing = [t for t in _book_texts(state) if t not in board_text]
    assert not missing, f"Book card texts missing from the board: {missing}"
    assert "blocked: cannot receive Hits until Who is the Shadowman? is solved" in board_text
    assert "link A: affected by Who is the Shadowman?" in board_text
    assert "Showdown: The Storm Breaks" in board_text

    for tableau in state.tableaux:
        user = int(tableau.seat)
        hand = await table.click(board, "My hand", user=user)
        assert hand.ephemeral
        assert hand.message is not None
        _within_limits(hand.message)
        hand_cards = [CARDS[r.card_id] for r in tableau.hand]
        expected = [action_text(c) for c in hand_cards if isinstance(c, ActionCard)]
        expected += _specials(tableau.characters)
        missing = [t for t in expected if t not in hand.text]
        assert not missing, f"texts missing from {tableau.seat}'s hand: {missing}"
        others = [
            CARDS[r.card_id].name for t in state.tableaux if t.seat != tableau.seat for r in t.hand
        ]
        mine = {c.name for c in hand_cards}
        assert not [n for n in others if n not in mine and f"**{n}**" in hand.text]
        if "harry" in tableau.characters:  # Police Suspicion: Harry's player's Investigate +1
            for card in hand_cards:
                if isinstance(card, ActionCard) and card.type == "investigate":
                    assert f"cost {card.cost.base + 1} (printed {card.cost}: +1 from Police" in (
                        hand.text
                    )
        assert "Card texts" in hand.labels()

    # Card texts: everyone's Talents and Stunts, the Book cards, and the clicker's own hand.
    every_special = _specials([k for t in state.tableaux for k in t.characters])
    texts = await table.click(board, "Card texts", user=table.player2)
    assert texts.ephemeral
    read = await _all_pages(table, texts, table.player2)
    missing = [t for t in [*every_special, *_book_texts(state)] if t not in read]
    assert not missing, f"Card texts lacks {missing}"
    bob = next(t for t in state.tableaux if t.seat == str(table.player2))
    assert all(CARDS[r.card_id].name in read for r in bob.hand)

    stranger = table.fake.add_member(table.guild_id, "mallory")
    public = await _all_pages(
        table, await table.click(board, "Card texts", user=stranger), stranger
    )
    assert all(t in public for t in every_special)
    hidden = {CARDS[r.card_id].name for t in state.tableaux for r in t.hand}
    assert not [n for n in hidden if f"**{n}**" in public], "a hand card shown to a stranger"


async def test_the_whole_log_is_paged_from_the_board_and_from_history(table: Table) -> None:
    game_id, board_id = await _lobby(table, [table.player2])
    rng = random.Random(5)
    for _ in range(12):
        await _step(table, game_id, board_id, rng)
    board = table.message(board_id)
    assert "Game log" in _all_labels(board)
    log = await table.click(board, "Game log", user=table.player3)  # anyone may read it
    assert log.ephemeral and "the whole log" in log.text and "1. The game begins" in log.text
    whole = await _all_pages(table, log, table.player3)
    cog = table.bot.get_cog("GameTable")  # type: ignore[union-attr]
    latest = (await cog.games.get(game_id)).public_log  # type: ignore[union-attr]
    assert all(line in whole for line in latest)  # the board's latest lines are in the log
    assert "no legal target" not in whole
    same = await table.slash("game history", user=table.player, game=game_id)
    assert same.ephemeral and "1. The game begins" in same.text
    missing = await table.slash("game history", user=table.player, game=game_id + 999)
    assert missing.ephemeral and f"no game #{game_id + 999} on this server" in missing.text
    listing = await table.slash("game history", user=table.player)
    assert f"#{game_id}" in listing.text and "game:<number>" in listing.text


class _BlankDice(random.Random):
    """Every Fate die comes up blank (shuffles and picks stay random)."""

    def choice(self, seq):  # type: ignore[no-untyped-def, override]
        return 0 if tuple(seq) == (-1, 0, 1) else super().choice(seq)


async def _play_until(table: Table, game_id: int, board_id: int, ready: Any, limit: int) -> Any:
    """AI-chosen moves through the buttons until ``ready(state)``; at most ``limit`` moves."""
    engine = get_engine("dfccg")
    rng = random.Random(11)
    for _ in range(limit):
        state = engine.load_state((await _row(table, game_id)).state or "")
        if ready(state) or engine.is_over(state):
            return state
        await _step(table, game_id, board_id, rng)
    raise AssertionError(f"not ready after {limit} moves")


def _showdown_ready(state: Any) -> bool:
    """A plain turn, an Obstacle turning dice, and a Foe or Case owed a Showdown roll."""
    cards = [CARDS[s.card_id] for row in state.rows for s in row]
    owed = [s for row in state.rows for s in row if s.tokens]
    drug_war = any(c.id == "storm-front.three-eye-drug-war" for c in cards)
    return state.phase == "play" and state.decision is None and drug_war and bool(owed)


async def test_the_waiting_player_proposes_the_showdown_and_it_honours_an_obstacle(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def scenario() -> None:
        game_id, board_id = await _lobby(table, [table.player2])
        state = await _play_until(table, game_id, board_id, _showdown_ready, 40)
        assert _showdown_ready(state), "the game ended before a Showdown could be proposed"
        active = int(state.tableaux[state.active].seat)
        waiting = table.player2 if active == table.player else table.player
        board = table.message(board_id)
        hand = await table.click(board, "My hand", user=waiting)
        assert "Propose the Showdown (the table confirms)" in hand.labels()
        proposed = await table.click(
            hand, "Propose the Showdown (the table confirms)", user=waiting
        )
        assert "Already done" not in proposed.text and "not your turn" not in proposed.text
        await table.settle()
        row = await _row(table, game_id)
        assert get_engine("dfccg").load_state(row.state or "").phase == "play"  # not yet
        assert "proposes the Showdown" in message_text(table.message(board_id))
        monkeypatch.setattr(games_play, "row_rng", lambda row, step: _BlankDice(step))
        other = await table.click(table.message(board_id), "My hand", user=active)
        assert "Agree: start the Showdown" in other.labels()
        await table.click(other, "Agree: start the Showdown", user=active)
        final = await _play_until(table, game_id, board_id, lambda s: False, 40)
        assert get_engine("dfccg").is_over(final)
        await table.settle()
        log = await _all_pages(
            table, await table.slash("game history", user=active, game=game_id), active
        )
        assert "The table agrees: the Showdown begins." in log
        rolls = [line for line in log.splitlines() if "Showdown on " in line]
        assert rolls and all("counted as minus by Three Eye Drug War" in r for r in rolls)
        for roll in rolls:  # every blank counted as a minus: base minus the number of dice
            found = re.search(r"roll (\d+)\[(\d+)\].* = (-?\d+)\.$", roll)
            assert found, roll
            base, dice, total = (int(g) for g in found.groups())
            assert total == base - dice, roll
        board = table.message(board_id)
        assert "Game over" in message_text(board)
        assert any(a["filename"] == f"board-{game_id}.png" for a in board["attachments"])

    await asyncio.wait_for(scenario(), timeout=240)
