"""Vampire Empire at the table, through the fake Discord: two people, the AI on either side, a
restart in the middle of a combat; every public message and every reply one seat got is
scanned for the other seat's secrets."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from bot.db.models.games import GameRow
from bot.games.base import get_engine
from bot.games.vampire_empire.cards import NAMES, load_packs
from bot.games.vampire_empire.state import HUMANS, VAMPIRES, VeState
from bot.testing.harness import Table, iter_components, message_text, shown_text

ENGINE = get_engine("vampire-empire")
CARDS = load_packs()["authored"].instances()


pytestmark = pytest.mark.usefixtures("fast_board")


async def _state(table: Table, game_id: int) -> tuple[GameRow, VeState]:
    assert table.bot is not None
    async with table.bot.db.session() as session:  # type: ignore[attr-defined]
        row = await session.get(GameRow, game_id)
        assert row is not None
        return row, ENGINE.load_state(row.state or "")


def _leaks(text: str, s: VeState, viewer: int | None) -> list[str]:
    """Secrets of the other side in ``text`` (viewer: the side that may see it, None: the
    public table): an unrevealed vampire called a vampire, a card in the other side's hand."""
    found = []
    if s.phase != "over" and viewer != VAMPIRES:
        for c in s.vampires:
            if c in s.revealed or c in s.dead:
                continue
            for line in text.splitlines():
                cleaned = re.sub(r"vampire player|vampires?'", "", line, flags=re.I)
                if re.search(rf"\b{NAMES[c]}\b", line) and "vampire" in cleaned.lower():
                    found.append(f"{NAMES[c]} named a vampire: {line!r}")
    public = {CARDS[c].name for side in (0, 1) for c in s.moats[side]}
    if s.combat is not None:
        public |= {CARDS[c].name for c in s.combat.attack_cards + s.combat.defence_cards}
    public |= {CARDS[c].name for c in s.holy_pair}
    for side in (VAMPIRES, HUMANS):
        if side == viewer:
            continue
        for name in {CARDS[c].name for c in s.hands[side]} - public:
            if name in text:
                found.append(f"card {name} of the {side} hand shown")
    return found


async def _open(table: Table, seed: int, host_side: str, ai: bool) -> tuple[int, int]:
    assert table.bot is not None
    table.bot.get_cog("GameTable").games.new_seed = lambda: seed  # type: ignore[union-attr]
    lobby = await table.slash(
        "game new", user=table.player, game="vampire-empire", options=f"host_side={host_side}"
    )
    assert not lobby.ephemeral and "The host plays: **" in lobby.text
    game_id = next(
        int(c["custom_id"].split(":")[2])
        for c in lobby.components()
        if (c.get("custom_id") or "").startswith("ftg:")
    )
    if ai:
        await table.click(lobby, "Add AI seat", user=table.player)
    else:
        await table.click(lobby, "Join", user=table.player2)
    started = await table.click(lobby, "Start", user=table.player)
    assert "My hand" in started.labels()
    assert lobby.message is not None
    return game_id, int(lobby.message["id"])


async def _play(
    table: Table, game_id: int, board_id: int, limit: int = 400, stop: Any = None
) -> VeState:
    """Each human seat plays the AI's choice for it through /game move; every reply and the
    public channel are scanned after each move."""
    rng = random.Random(11)
    users = {str(table.player): table.player, str(table.player2): table.player2}
    for _step in range(limit):
        row, s = await _state(table, game_id)
        if row.status != "running" or (stop is not None and stop(s)):
            return s
        seat = ENGINE.current_seats(s)[0]
        action = ENGINE.choose_action(s, seat, rng)
        user = users[seat]
        moved = await table.slash("game move", user=user, action=f"{row.version}:{action.id}")
        assert moved.ephemeral and "Already done" not in moved.text, moved.text
        _row2, after = await _state(table, game_id)
        side = after.seats.index(seat)
        assert not _leaks(shown_text(moved), after, side), _leaks(shown_text(moved), after, side)
        await table.settle()
        public = "\n".join(shown_text(m) for m in table.channel_messages())
        assert not _leaks(public, after, None), _leaks(public, after, None)
    raise AssertionError("the game did not end")


async def test_two_people_play_a_whole_game_without_leaks(table: Table) -> None:
    game_id, board_id = await _open(table, 5, "vampires", ai=False)
    _row, s = await _state(table, game_id)
    assert s.seats == [str(table.player), str(table.player2)]
    vampire_hand = await table.click(table.message(board_id), "My hand", user=table.player)
    assert "Your vampires (secret)" in vampire_hand.text
    assert all(NAMES[c] in vampire_hand.text for c in s.vampires)
    human_hand = await table.click(table.message(board_id), "My hand", user=table.player2)
    assert "Your two known humans (secret)" in human_hand.text
    assert not _leaks(shown_text(human_hand), s, HUMANS)
    final = await _play(table, game_id, board_id)
    board = message_text(table.message(board_id))
    assert "Game over" in board and final.winner is not None
    rules = await table.slash("game rules", user=table.player3, game="vampire-empire")
    assert rules.ephemeral and "Reshuffle the cellar" in rules.text and "[?]" in rules.text


@pytest.mark.parametrize("host_side", ["vampires", "humans"])
async def test_a_game_against_the_ai_from_either_side(table: Table, host_side: str) -> None:
    game_id, board_id = await _open(table, 9, host_side, ai=True)
    _row, s = await _state(table, game_id)
    assert s.seats[0 if host_side == "vampires" else 1] == str(table.player)
    final = await _play(table, game_id, board_id)
    assert final.phase == "over" and "Game over" in message_text(table.message(board_id))


async def test_a_restart_in_the_middle_of_a_combat(table: Table) -> None:
    game_id, board_id = await _open(table, 5, "humans", ai=False)
    s = await _play(table, game_id, board_id, stop=lambda s: s.combat is not None)
    assert s.combat is not None
    row, s = await _state(table, game_id)
    seat = ENGINE.current_seats(s)[0]
    user = table.player if seat == str(table.player) else table.player2
    hand = await table.click(table.message(board_id), "My hand", user=user)
    old = hand.message
    assert old is not None and "Combat, round" in message_text(table.message(board_id))
    await table.restart()
    action = ENGINE.choose_action(s, seat, random.Random(0))
    custom_id = f"ftg:a:{game_id}:{row.version}:{action.id}"
    if not any(c.get("custom_id") == custom_id for c in iter_components(old["components"])):
        action = ENGINE.legal_actions(s, seat)[0]
        custom_id = f"ftg:a:{game_id}:{row.version}:{action.id}"
    moved = await table.click(old, custom_id, user=user)
    assert "Already done" not in moved.text
    after_row, _after = await _state(table, game_id)
    assert after_row.version == row.version + 1
    final = await _play(table, game_id, board_id)
    assert final.phase == "over"


async def test_the_board_has_a_picture_and_a_player_picks_the_cards_that_pay(table: Table) -> None:
    game_id, board_id = await _open(table, 5, "vampires", ai=False)
    board = table.message(board_id)
    assert any(a["filename"] == f"board-{game_id}.png" for a in board["attachments"])

    # The vampire player's turn with four vampire cards of three kinds in hand: three ways to
    # pay for hiding (stored as if dealt so; every card stays where the invariants want it).
    row, s = await _state(table, game_id)
    fangs = [c for c in range(40) if CARDS[c].vampire]
    kinds: dict[str, list[int]] = {}
    for c in fangs:
        kinds.setdefault(CARDS[c].id, []).append(c)
    two = next(cards for cards in kinds.values() if len(cards) >= 2)
    others = [cards for cards in kinds.values() if cards is not two]
    four = [*two[:2], others[0][0], others[1][0]]
    pool = s.hands[VAMPIRES] + s.decks[VAMPIRES]
    rest = [c for c in pool if c not in four]
    hands = [four + [c for c in rest if not CARDS[c].vampire][:4], s.hands[HUMANS]]
    decks = [[c for c in rest if c not in hands[0]], s.decks[HUMANS]]
    s = s.model_copy(update={"phase": "act", "hands": hands, "decks": decks, "active": VAMPIRES})
    assert table.bot is not None
    async with table.bot.db.session() as session:  # type: ignore[attr-defined]
        stored = await session.get(GameRow, game_id)
        assert stored is not None
        stored.state = s.model_dump_json()
        # A new version, as every write of a game's state has: the bot, which remembers the
        # game as it last wrote it, then reads it again.
        stored.version = row.version + 1
        session.add(stored)
    seat, side, user = s.seats[VAMPIRES], VAMPIRES, table.player
    step = f"h:{s.castle[0]}"
    begun = await table.slash("game move", user=user, action=f"{row.version + 1}:{step}")
    assert begun.ephemeral and "Already done" not in begun.text, begun.text
    row, after_step = await _state(table, game_id)
    assert after_step.phase == "pay" and after_step.hands[side] == s.hands[side]  # nothing paid
    s = after_step
    hand = await table.click(table.message(board_id), "My hand", user=user)
    assert "Choose how to pay" in hand.text
    pay_labels = [label for label in hand.labels() if label.startswith("Pay with")]
    assert len(pay_labels) >= 2 and "Back: choose another action" in hand.labels()
    chosen = next(a for a in ENGINE.legal_actions(s, seat) if a.label == pay_labels[-1])
    paid = [int(c) for c in chosen.id[2:].split(".")]
    moved = await table.click(hand, pay_labels[-1], user=user)
    assert "Already done" not in moved.text
    _row, after = await _state(table, game_id)
    assert after.phase != "pay" and not set(paid) & set(after.hands[side])
    assert set(paid) <= set(after.moats[side]) | set(after.holy_pair)
    await table.settle()
    public = "\n".join(shown_text(m) for m in table.channel_messages())
    assert not _leaks(public, after, None)
