import random
from pathlib import Path

import pytest

from bot.games.base import GameResult, get_engine
from bot.games.dfccg import ENGINE, DfOptions, DfRuleError
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


def test_variant_start_rule_gives_named_type() -> None:
    options = DfOptions(variant_start_type="overcome")
    state = ENGINE.new_game(options, ["a", "b", "c", "d", "e"], random.Random(9))
    ctx = ENGINE._ctx(state, random.Random(0))
    assert all(any(ctx.cards[r.card_id].type == "overcome" for r in t.hand) for t in state.tableaux)


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
