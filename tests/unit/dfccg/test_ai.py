"""The AI seat: its own module on the engine's public queries, no gamble on a variable cost,
Talents and Fate weighed, Showdown Fate spent where it helps most; simulate's numbers."""

import ast
import random
from pathlib import Path

from bot.games.dfccg import ENGINE, DfOptions, DfState
from bot.games.dfccg.ai import _dice_at_least
from bot.games.dfccg.simulate import simulate
from bot.games.dfccg.state import BookSlot, CardRef, Decision, Tableau

PACKAGE = Path(__file__).resolve().parents[3] / "bot" / "games" / "dfccg"


def _imports(module: str) -> set[str]:
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def test_the_ai_and_the_engine_do_not_import_each_other() -> None:
    assert not [m for m in _imports("engine") if "dfccg.ai" in m]
    assert not [m for m in _imports("ai") if "dfccg.engine" in m]
    assert not [m for m in _imports("simulate") if "dfccg.engine" in m]
    assert "_ctx" not in (PACKAGE / "ai.py").read_text()


def _table(hand: list[str], characters: list[str], available: int, **extra: object) -> DfState:
    sf = "storm-front."
    rows = [
        [
            BookSlot(uid="b0", card_id=sf + "victor-sells"),
            BookSlot(uid="b1", card_id=sf + "bob-the-skull"),
        ],
        [BookSlot(uid="b2", card_id=sf + "madison-murders", tokens=3)],
    ]
    return DfState(
        options=DfOptions(),
        seats=["a", "b"],
        tableaux=[
            Tableau(
                seat="a",
                characters=characters,
                hand=[CardRef(uid=f"c{i}", card_id=c) for i, c in enumerate(hand)],
            ),
            Tableau(seat="b", characters=["murphy", "michael"]),
        ],
        rows=rows,
        book_name="Storm Front",
        showdown_id=sf + "showdown",
        available=available,
        spent=13 - available,
        phase="play",
        **extra,
    )


def test_no_gamble_on_a_variable_cost_it_might_not_pay() -> None:
    state = _table(["alphas.howl", "alphas.lunge"], ["alphas", "harry"], available=4)
    ids = {a.id for a in ENGINE.legal_actions(state, "a")}
    assert "p:c0" in ids  # the rules allow it (4[1] may come up 3 or 4) ...
    for seed in range(20):
        assert ENGINE.choose_action(state, "a", random.Random(seed)).id != "p:c0"  # ... not the AI
    state.available, state.spent = 5, 8
    assert ENGINE.choose_action(state, "a", random.Random(0)).id == "p:c0"  # 5 pays any roll


def test_a_full_pool_and_an_empty_spent_pool_mean_play_not_discard() -> None:
    state = _table(["susan.tabloid-tip", "susan.kick-to-the-gut"], ["susan", "harry"], 13)
    action = ENGINE.choose_action(state, "a", random.Random(0))
    assert action.kind == "play"


def test_two_player_talents_are_weighed_not_taken_in_order() -> None:
    state = _table(["harry.its-not-my-fault", "susan.tabloid-tip"], ["harry", "susan"], 4)
    state, _ = ENGINE.apply(state, "a", "d:c0", random.Random(0))
    assert state.decision is not None and state.decision.kind == "talent"
    assert list(state.decision.options)[0] == "t:harry"  # Harry's move is offered first
    assert ENGINE.choose_action(state, "a", random.Random(0)).id == "t:susan"  # a Clue wins


def test_showdown_odds_and_fate_where_it_helps() -> None:
    assert _dice_at_least(2, 2) == 1 / 9 and _dice_at_least(0, 0) == 1.0
    assert abs(_dice_at_least(4, 0) - 50 / 81) < 1e-9  # 19 ways to 0 of 81, half the rest
    state = _table([], ["harry", "susan"], 6)
    state.rows = [
        [BookSlot(uid="f", card_id="storm-front.victor-sells", tokens=7)],  # needs 1 Hit
        [BookSlot(uid="m", card_id="storm-front.madison-murders", tokens=1)],  # needs 7 Clues
    ]
    state.phase, state.showdown_queue = "showdown", ["m", "f"]
    state.decision = Decision(
        kind="showdown_pick", prompt="?", options={"sp:m": "m", "sp:f": "f"}, table=True
    )
    assert ENGINE.choose_action(state, "a", random.Random(0)).id == "sp:f"
    state.showdown_pick = "f"
    tiers = {f"sd{i}": f"tier {i}" for i in range(4)}
    state.decision = Decision(
        kind="showdown", prompt="?", options={**tiers, "pick": "x"}, table=True
    )
    assert ENGINE.choose_action(state, "a", random.Random(0)).id == "sd3"  # all 6 Fate on it


def test_simulate_reports_length_and_win_rate() -> None:
    line = simulate(games=4, players=2, seed=3)
    assert line["mean_turns"] > 0 and 0 <= line["win_rate"] <= 1
    assert line["win_rate"] == round(line["wins"] / 4, 3)
