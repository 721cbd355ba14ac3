import random
from pathlib import Path

import pytest

from bot.games.base import GameResult, get_engine
from bot.games.dfccg import ENGINE, DfOptions, DfRuleError, DfState
from bot.games.dfccg.campaign import campaign_options, new_campaign, record_game
from bot.games.dfccg.engine import side_jobs_counts
from bot.games.dfccg.packs import PACK_DIR, load_library, validate_pack_file, validate_pack_text


def test_registry_finds_the_engine() -> None:
    assert get_engine("dfccg") is ENGINE


@pytest.mark.parametrize(
    ("players", "hand", "hands"), [(5, 4, 5), (4, 5, 4), (3, 7, 3), (2, 9, 2), (1, 6, 3)]
)
def test_hand_sizes_and_harry_always_in(players: int, hand: int, hands: int) -> None:
    state = ENGINE.new_game(DfOptions(), [f"s{i}" for i in range(players)], random.Random(3))
    assert len(state.tableaux) == hands
    assert all(len(t.hand) == hand for t in state.tableaux)
    assert any("harry" in t.characters for t in state.tableaux)
    if players == 2:
        assert all(len(t.characters) == 2 for t in state.tableaux)


@pytest.mark.parametrize(
    ("difficulty", "available", "spent"),
    [("apprentice", 13, 0), ("wizard", 8, 5), ("merlin", 4, 9)],
)
def test_fate_split(difficulty: str, available: int, spent: int) -> None:
    options = DfOptions.model_validate({"difficulty": difficulty})
    state = ENGINE.new_game(options, ["a", "b", "c"], random.Random(1))
    assert (state.available, state.spent) == (available, spent)


def test_range_six_never_holds_obstacle_or_advantage() -> None:
    for seed in range(40):
        state = ENGINE.new_game(DfOptions(), ["a", "b", "c"], random.Random(seed))
        ctx = ENGINE._ctx(state, random.Random(0))
        for row in state.rows:
            assert len(row) == 6
            assert ctx.book(row[-1]).type in ("foe", "case")


def test_side_jobs_table() -> None:
    assert side_jobs_counts(1, 1) == (2, 6, 0, 4)
    assert side_jobs_counts(-1, 1) == (4, 4, 2, 2)
    assert side_jobs_counts(-1, 0) == (5, 5, 1, 1)
    assert all(sum(side_jobs_counts(a, b)) == 12 for a in (-1, 0, 1) for b in (-1, 0, 1))


def _answer_setup(state: DfState, pick: dict[str, str], seed: int = 5) -> DfState:
    """Answer set-up decisions: ``pick`` maps a decision kind to the option to take (the first
    option otherwise), until the first player is to be chosen."""
    rng = random.Random(seed)
    while state.decision is not None and state.decision.kind != "first_player":
        seat = ENGINE.current_seats(state)[0]
        options = list(state.decision.options)
        wanted = pick.get(state.decision.kind)
        state, _ = ENGINE.apply(state, seat, wanted if wanted in options else options[0], rng)
    return state


def test_variant_start_each_player_names_a_type_and_may_redraw() -> None:
    options = DfOptions(start="random-variant")
    seats = ["a", "b", "c", "d", "e"]  # hands of 4: a named Take Advantage is often missing
    state = ENGINE.new_game(options, seats, random.Random(9))
    assert state.decision is not None and state.decision.kind == "named_type"
    assert ENGINE.current_seats(state) == [state.tableaux[0].seat]
    assert not any(t.hand for t in state.tableaux)  # a type is named before drawing
    ctx = ENGINE._ctx(state, random.Random(0))
    redraws = 0
    rng = random.Random(2)
    while state.decision is not None and state.decision.kind != "first_player":
        seat = ENGINE.current_seats(state)[0]
        if state.decision.kind == "named_type":
            state, _ = ENGINE.apply(state, seat, "advantage", rng)
        else:
            assert state.decision.kind == "redraw"
            redraws += 1
            state, _ = ENGINE.apply(state, seat, "redraw", rng)
    assert redraws > 0
    for tableau in state.tableaux:
        assert len(tableau.hand) == 4
        assert any(ctx.cards[r.card_id].type == "advantage" for r in tableau.hand)
    # Keeping a hand without the named type is the player's choice.
    state = ENGINE.new_game(options, seats, random.Random(9))
    kept = _answer_setup(state, {"named_type": "advantage", "redraw": "keep"})
    assert all(len(t.hand) == 4 for t in kept.tableaux)
    assert kept.decision is not None and kept.decision.kind == "first_player"


def test_players_choose_their_decks_then_the_seating_is_random() -> None:
    options = DfOptions(start="choose")
    state = ENGINE.new_game(options, ["a", "b", "c"], random.Random(1))
    picks = {"a": "k:susan", "b": "k:murphy"}
    rng = random.Random(3)
    while state.decision is not None and state.decision.kind == "deck":
        seat = ENGINE.current_seats(state)[0]
        if seat == "c":  # the last pick must be Harry: he always plays
            assert list(state.decision.options) == ["k:harry"]
        state, _ = ENGINE.apply(state, seat, picks.get(seat, "k:harry"), rng)
    decks = {t.seat: t.characters for t in state.tableaux}
    assert decks == {"a": ["susan"], "b": ["murphy"], "c": ["harry"]}
    assert all(len(t.hand) == 7 and len(t.deck) == 3 for t in state.tableaux)
    orders = set()
    for seed in range(12):
        game = ENGINE.new_game(options, ["a", "b", "c"], random.Random(seed))
        game = _answer_setup(game, {}, seed)
        orders.add(tuple(t.seat for t in game.tableaux))
    assert len(orders) > 1  # the seating order is drawn after the choice


def test_two_players_choose_two_decks_each() -> None:
    state = ENGINE.new_game(DfOptions(start="choose"), ["a", "b"], random.Random(1))
    state = _answer_setup(state, {})
    assert sorted(len(t.characters) for t in state.tableaux) == [2, 2]
    assert any("harry" in t.characters for t in state.tableaux)
    assert all(len(t.hand) == 9 for t in state.tableaux)


def test_side_jobs_announce_their_set_up_roll() -> None:
    state = ENGINE.new_game(DfOptions(book="side-jobs"), ["a", "b", "c"], random.Random(4))
    (note,) = state.setup_notes
    assert note.startswith("Side Jobs set-up roll: ")
    counts = [int(n) for n in note.split(": ")[-1].replace(",", "").split()[::2]]
    ctx = ENGINE._ctx(state, random.Random(0))
    kinds = [ctx.book(s).type for row in state.rows for s in row]
    assert counts == [kinds.count(k) for k in ("case", "foe", "obstacle", "advantage")]


def test_bad_seat_count_and_book() -> None:
    with pytest.raises(DfRuleError):
        ENGINE.new_game(DfOptions(), [], random.Random(0))
    with pytest.raises(DfRuleError, match="Unknown book"):
        ENGINE.new_game(DfOptions(book="skin-game"), ["a"], random.Random(0))


def test_shipped_packs_are_valid_and_complete() -> None:
    for path in sorted(PACK_DIR.glob("*.yaml")):
        assert validate_pack_file(path) == []
    library = load_library()
    assert len(library.characters) == 5
    for character in library.characters.values():
        assert len(character.cards) == 10  # plus a Talent and a Stunt: 12
    assert "storm-front" in library.books
    for kind, most in (("case", 5), ("foe", 6), ("obstacle", 3), ("advantage", 4)):
        assert sum(c.type == kind for c in library.side_job_cards) >= most


def test_pack_errors_carry_line_and_column(tmp_path: Path) -> None:
    text = "pack:\n  key: x\n  title: X\ncharacters:\n  - key: k\n    name: K\n    talent: {name: T}\n    stunt: {name: S, effects: []}\n    cards:\n      - {id: k.a, name: A, type: attack, cost: lots, discard: 1, range: 1, value: 2}\n"
    errors = validate_pack_text(text, "mine.yaml")
    assert errors and errors[0].startswith("mine.yaml:10:")
    assert "cost" in errors[0]
    bad = tmp_path / "bad.yaml"
    bad.write_text("pack: [unclosed\n")
    assert "YAML syntax error" in validate_pack_file(bad)[0]


def test_ties_go_to_the_game_and_campaign_advances() -> None:
    state = ENGINE.new_game(DfOptions(), ["a", "b", "c"], random.Random(2))
    state.phase = "over"
    ctx = ENGINE._ctx(state, random.Random(0))
    foes = [s for row in state.rows for s in row if ctx.book(s).type == "foe"]
    state.solved = ["x"] * len(foes)
    result = ENGINE.result(state)
    assert result is not None and result.winner == "game"
    campaign = new_campaign()
    assert campaign_options(campaign).book == "storm-front"
    lost = record_game(campaign, GameResult(winner="game", scores={"players": 1}, summary=""))
    assert lost.index == 0
    won = record_game(lost, GameResult(winner="players", scores={"players": 3}, summary=""))
    assert won.index == 1 and len(won.attempts) == 2
