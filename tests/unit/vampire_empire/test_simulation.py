"""Seeded AI-only Vampire Empire games: invariants after every step, the AI's private view."""

from __future__ import annotations

import json
import random

import pytest

from bot.__main__ import main
from bot.errors import RuleError
from bot.games.base import get_engine
from bot.games.simulate import TIMING_KEYS
from bot.games.vampire_empire.state import HUMANS, VAMPIRES, VeState

ENGINE = get_engine("vampire-empire")
GAMES = 1000  # seeds checked step by step, in chunks that xdist runs side by side
CHUNKS = 5


def check(s: VeState) -> None:
    everyone = s.castle + s.city + s.dead
    assert sorted(everyone) == list(range(9)), "nine characters accounted for"
    assert len(s.castle) == 3 or not s.city, "the castle is refilled while the city has cards"
    assert set(s.revealed) <= set(s.vampires) and len(set(s.vampires)) == 3
    assert not set(s.known_humans) & set(s.vampires)
    cards = [
        c
        for side in (VAMPIRES, HUMANS)
        for pile in (s.decks, s.hands, s.cellars, s.moats)
        for c in pile[side]
    ]
    if s.combat is not None:
        cards += s.combat.attack_cards + s.combat.defence_cards
    cards += s.holy_pair
    assert sorted(cards) == list(range(80)), "cards conserved"
    assert all(c < 40 for c in s.hands[VAMPIRES]) and all(c >= 40 for c in s.hands[HUMANS])
    held = sum(s.attack_markers) + sum(s.defence_markers)
    assert held + s.marker_supply == 12 and all(
        s.attack_markers[c] == s.defence_markers[c] == 0 for c in range(9) if c not in s.castle
    )


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_seeded_games_keep_the_invariants_after_every_step(chunk: int) -> None:
    endings = set()
    size = GAMES // CHUNKS
    for seed in range(chunk * size, (chunk + 1) * size):
        rng = random.Random(seed)
        options = ENGINE.parse_options({"reveals_per_turn": "any"} if seed % 4 == 0 else {})
        s = ENGINE.new_game(options, ["a", "b"], rng)
        check(s)
        for _step in range(5000):
            if ENGINE.is_over(s):
                break
            seat = ENGINE.current_seats(s)[0]
            s, events = ENGINE.apply(s, seat, ENGINE.choose_action(s, seat, rng), rng)
            check(s)
        assert ENGINE.is_over(s), f"seed {seed} did not end"
        endings.add(s.ending)
        with pytest.raises(RuleError):
            ENGINE.apply(s, s.seats[0], "pass", rng)  # nothing after the end
    assert {"all_humans_dead", "all_vampires_dead"} <= endings


def test_the_ai_decides_from_the_private_view_only() -> None:
    s = ENGINE.new_game(
        ENGINE.parse_options({"host_side": "vampires"}), ["v", "h"], random.Random(3)
    )
    s = s.model_copy(update={"phase": "act", "active": HUMANS})
    # Another game the human player cannot tell apart: other vampires (none known yet), another
    # vampire hand of the same size, other deck orders.
    unknown = [c for c in range(9) if c not in s.known_humans]
    other = s.model_copy(
        update={
            "vampires": sorted(unknown[-3:]) if sorted(unknown[-3:]) != s.vampires else unknown[:3],
            "hands": [list(range(40))[-8:], s.hands[HUMANS]],
            "decks": [list(range(32)), list(reversed(s.decks[HUMANS]))],
        }
    )
    assert other.vampires != s.vampires
    assert ENGINE.private_view(s, "h") == ENGINE.private_view(other, "h")
    for seed in range(20):
        mine = ENGINE.choose_action(s, "h", random.Random(seed))
        theirs = ENGINE.choose_action(other, "h", random.Random(seed))
        assert mine.id == theirs.id
    # and the vampire player's AI cannot see the human player's hand or known humans
    v = s.model_copy(update={"active": VAMPIRES})
    v_other = v.model_copy(
        update={
            "hands": [v.hands[VAMPIRES], list(range(72, 80))],
            "known_humans": [c for c in range(9) if c not in v.vampires][-2:],
        }
    )
    assert ENGINE.private_view(v, "v") == ENGINE.private_view(v_other, "v")
    for seed in range(20):
        assert (
            ENGINE.choose_action(v, "v", random.Random(seed)).id
            == ENGINE.choose_action(v_other, "v", random.Random(seed)).id
        )


def test_simulate_prints_reproducible_json(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "vampire-empire", "--games", "30", "--seed", "4"]
    assert main(args) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["games"] == 30 and sum(line["endings"].values()) == 30
    assert abs(sum(line["win_rate"].values()) - 1) < 1e-6 and line["mean_turns"] > 1
    with capsys.disabled():
        print(
            json.dumps(
                {"bench": "vampire-empire-simulation", "games_per_second": line["games_per_second"]}
            )
        )
    assert main(args) == 0
    again = json.loads(capsys.readouterr().out)
    assert line["games_per_cpu_second"] > 0
    assert {k: v for k, v in again.items() if k not in TIMING_KEYS} == {
        k: v for k, v in line.items() if k not in TIMING_KEYS
    }
    assert main(["simulate", "vampire-empire", "--players", "3"]) == 2
    assert main(["simulate", "vampire-empire", "--games", "2", "--deck-pack", "nope"]) == 2
    assert "nope" in capsys.readouterr().err
