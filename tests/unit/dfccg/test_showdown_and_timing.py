"""The Showdown as the rulebook runs it, group decisions, and when triggered effects happen."""

import pytest

from bot.errors import RuleError
from bot.games.dfccg import ENGINE, DfOptions, DfState
from bot.games.dfccg.state import BookSlot, CardRef, Tableau
from tests.unit.dfccg.test_example_of_play import ScriptedDice, example_board

SF = "storm-front."


def _slot(uid: str, card_id: str, tokens: int = 0) -> BookSlot:
    return BookSlot(uid=uid, card_id=SF + card_id, tokens=tokens)


def _two_players(top: list[BookSlot], bottom: list[BookSlot], **options: object) -> DfState:
    """alice (Harry & Susan) is active, bob (Murphy & Michael) waits; 6 Fate available."""
    return DfState(
        options=DfOptions.model_validate(options),
        seats=["alice", "bob"],
        tableaux=[
            Tableau(
                seat="alice",
                characters=["harry", "susan"],
                hand=[CardRef(uid="c1", card_id="harry.tracking-spell")],
            ),
            Tableau(
                seat="bob",
                characters=["murphy", "michael"],
                hand=[
                    CardRef(uid="c2", card_id="murphy.beer-and-draws"),
                    CardRef(uid="c3", card_id="michael.family-man"),
                ],
            ),
        ],
        rows=[top, bottom],
        book_name="Storm Front",
        showdown_id=SF + "showdown",
        available=6,
        spent=7,
        phase="play",
    )


def _ids(state: DfState, seat: str) -> set[str]:
    return {a.id for a in ENGINE.legal_actions(state, seat)}


def test_the_non_active_player_proposes_and_the_table_confirms() -> None:
    state = _two_players([_slot("f", "victor-sells", 3)], [_slot("c", "madison-murders", 2)])
    assert ENGINE.current_seats(state) == ["alice"]
    assert _ids(state, "bob") == {"sd"}  # bob may only propose, between turns
    state, events = ENGINE.apply(state, "bob", "sd", ScriptedDice([]))
    assert state.phase == "play" and state.decision is not None
    assert state.decision.kind == "showdown_vote"
    assert ENGINE.current_seats(state) == ["alice"]  # bob's proposal counts as his vote
    assert any("proposes the Showdown" in e.text for e in events)
    with pytest.raises(RuleError):
        ENGINE.apply(state, "bob", "yes", ScriptedDice([]))  # he cannot vote twice
    # alice declines: the game goes on with her turn.
    declined, _ = ENGINE.apply(state, "alice", "no", ScriptedDice([]))
    assert declined.phase == "play" and declined.decision is None
    assert "p:c1" in _ids(declined, "alice")
    # alice agrees: the Showdown starts, and the table chooses which card rolls first.
    agreed, events = ENGINE.apply(state, "alice", "yes", ScriptedDice([]))
    assert agreed.phase == "showdown"
    assert any("The table agrees" in e.text for e in events)
    assert agreed.decision is not None and agreed.decision.kind == "showdown_pick"
    assert set(agreed.decision.options) == {"sp:f", "sp:c"}
    assert set(ENGINE.current_seats(agreed)) == {"alice", "bob"}


def test_the_host_confirms_for_the_table_and_solo_needs_a_confirmation() -> None:
    state = _two_players(
        [_slot("f", "victor-sells", 3)], [_slot("c", "madison-murders")], showdown_consent="host"
    )
    proposed, _ = ENGINE.apply(state, "bob", "sd", ScriptedDice([]))
    assert ENGINE.current_seats(proposed) == ["alice"]  # the host (first seat) decides
    by_host, _ = ENGINE.apply(state, "alice", "sd", ScriptedDice([]))
    assert ENGINE.current_seats(by_host) == ["alice"]  # one click never ends the game
    assert by_host.phase == "play"
    started, _ = ENGINE.apply(by_host, "alice", "yes", ScriptedDice([]))
    assert started.phase != "play"


def test_the_showdown_honours_an_obstacles_dice_effect() -> None:
    state = _two_players(
        [_slot("f", "victor-sells", 5), _slot("o", "three-eye-drug-war")],
        [_slot("c", "madison-murders")],
    )
    state, _ = ENGINE.apply(state, "bob", "sd", ScriptedDice([]))
    state, _ = ENGINE.apply(state, "alice", "yes", ScriptedDice([]))
    # Victor Sells is the only card owed a roll; 6 Fate buys 2[4] on the Storm Front table.
    assert state.decision is not None and state.decision.kind == "showdown"
    assert "sd3" in state.decision.options
    state, events = ENGINE.apply(state, "alice", "sd3", ScriptedDice([1, 0, 0, 1]))
    rolled = next(e.text for e in events if e.text.startswith("Showdown on Victor Sells"))
    # + blank blank +: the blanks count as minus by the Three Eye Drug War: 2 + 0 = 2.
    assert "blank x2 counted as minus by Three Eye Drug War" in rolled
    assert rolled.endswith("= 2.")
    assert state.phase == "over"


def test_who_is_owed_a_roll_is_asked_again_after_every_roll() -> None:
    # Solving Tracing the Drug puts 2 Hits on Marcone's Muscle, who then gets a roll too.
    state = _two_players(
        [_slot("m", "marcones-muscle"), _slot("f", "victor-sells", 1)],
        [_slot("t", "tracing-the-drug", 6)],
    )
    state.available = 0
    state.spent = 13
    state, _ = ENGINE.apply(state, "alice", "sd", ScriptedDice([]))
    state, _ = ENGINE.apply(state, "bob", "yes", ScriptedDice([]))
    assert state.decision is not None and set(state.decision.options) == {"sp:f", "sp:t"}
    state, _ = ENGINE.apply(state, "bob", "sp:t", ScriptedDice([]))
    assert set(state.decision.options) == {"sd0", "pick"}  # only the free row is affordable
    state, events = ENGINE.apply(state, "alice", "sd0", ScriptedDice([1, 1]))
    assert SF + "tracing-the-drug" in state.solved
    assert state.rows[0][0].tokens == 2  # Marcone's Muscle got its 2 Hits
    assert state.decision is not None and set(state.decision.options) == {"sp:f", "sp:m"}
    assert not any("no legal target" in e.text for e in events)


def test_a_taken_advantage_acts_before_the_taking_card_finishes() -> None:
    state = _two_players(
        [_slot("a", "a-favor-from-mac"), _slot("f", "victor-sells")],
        [_slot("c", "madison-murders")],
    )
    state.active = 1
    state.available, state.spent = 1, 12
    # Family Man (Take Advantage, then gain 1 Fate) takes A Favor from Mac (gain 3 Fate).
    state, events = ENGINE.apply(state, "bob", "p:c3", ScriptedDice([]))
    fate = [e.text for e in events if e.kind == "fate"]
    assert fate == [
        "A Favor from Mac: +3 Fate (Available 3).",
        "Family Man: +1 Fate (Available 4).",
    ]


def test_a_draw_never_reshuffles_the_card_being_played() -> None:
    state = _two_players([_slot("a", "a-favor-from-mac"), _slot("f", "victor-sells")], [])
    state.active = 1
    bob = state.tableaux[1]
    assert not bob.deck and not bob.discard
    state, events = ENGINE.apply(state, "bob", "p:c2", ScriptedDice([]))  # Beer and Draws
    bob = state.tableaux[1]
    assert [r.card_id for r in bob.discard] == ["murphy.beer-and-draws"]
    assert [r.card_id for r in bob.hand] == ["michael.family-man"]
    assert not any("shuffled" in e.text for e in events)


def test_the_solo_player_chooses_who_goes_first() -> None:
    state = ENGINE.new_game(DfOptions(), ["solo"], ScriptedDice([]))
    assert state.decision is not None and state.decision.kind == "first_player"
    assert len(state.decision.options) == 3
    state, events = ENGINE.apply(state, "solo", "f2", ScriptedDice([]))
    assert state.active == 2 and state.phase == "play"


def test_the_example_of_play_names_the_dice_conversion() -> None:
    state = example_board()
    rng = ScriptedDice([0])
    state, _ = ENGINE.apply(state, "harry", "p:c1", rng)
    state, events = ENGINE.apply(state, "michael", "d:c3", rng)
    discard = next(e.text for e in events if e.kind == "discard")
    assert "rolled blank; blank counted as minus by Three Eye Drug War" in discard
