"""The five campaign books, variable costs that start the Showdown, and "cannot" restrictions."""

import random
from typing import Any

from bot.games.dfccg import ENGINE, DfOptions, DfState
from bot.games.dfccg.campaign import campaign_options, new_campaign, record_game
from bot.games.dfccg.packs import PACK_DIR, load_library, load_pack
from bot.games.dfccg.simulate import play_one
from bot.games.dfccg.state import BookSlot, CardRef, Tableau
from tests.unit.dfccg.test_example_of_play import ScriptedDice

CAMPAIGN = ["storm-front", "fool-moon", "grave-peril", "summer-knight", "death-masks"]


def test_five_books_are_shipped_in_campaign_order_and_marked_authored() -> None:
    library = load_library()
    assert [b.key for b in library.campaign_books()] == CAMPAIGN
    for key in CAMPAIGN[1:]:
        pack = load_pack(PACK_DIR / f"{key}.yaml")
        assert pack.pack.authored is True
        (book,) = pack.books
        assert len(book.cards) == 12
        kinds = {c.type for c in book.cards}
        assert kinds == {"foe", "case", "obstacle", "advantage"}
        assert book.showdown.foe[0].fate == 0 and book.showdown.case[0].fate == 0
    fool_moon = library.books["fool-moon"]
    assert (str(fool_moon.showdown.foe[-1].roll), str(fool_moon.showdown.case[-1].roll)) == (
        "2[6]",
        "4[5]",
    )
    summer = library.books["summer-knight"]
    assert (str(summer.showdown.foe[-1].roll), str(summer.showdown.case[-1].roll)) == (
        "4[6]",
        "3[6]",
    )


def test_campaign_plays_through_all_five_books() -> None:
    campaign = new_campaign()
    rng = random.Random(2024)
    for _game in range(60):
        if campaign.finished:
            break
        options = campaign_options(campaign, DfOptions(difficulty="apprentice"))
        state = play_one(ENGINE, options, 3, random.Random(rng.getrandbits(32)))
        assert state.book_name == load_library().books[options.book].name
        result = ENGINE.result(state)
        assert result is not None
        campaign = record_game(campaign, result)
    assert campaign.finished and campaign.current_book is None
    won = [a["book"] for a in campaign.attempts if a["winner"] == "players"]
    assert won == CAMPAIGN  # each book won once, in order; losses replayed the same book
    played = [a["book"] for a in campaign.attempts]
    assert played == sorted(played, key=lambda b: CAMPAIGN.index(str(b)))


def _slot(uid: str, card_id: str, tokens: int = 0) -> BookSlot:
    return BookSlot(uid=uid, card_id=card_id, tokens=tokens)


def _board(top: list[str], bottom: list[str], hand: list[str], available: int) -> DfState:
    """Billy & Georgia alone (seat "a") facing the given Book cards; Harry idles in seat "h"."""
    rows = [
        [_slot(f"t{i}", card_id) for i, card_id in enumerate(top)],
        [_slot(f"u{i}", card_id) for i, card_id in enumerate(bottom)],
    ]
    tableaux = [
        Tableau(
            seat="a",
            characters=["alphas"],
            hand=[CardRef(uid=f"c{i}", card_id=c) for i, c in enumerate(hand)],
        ),
        Tableau(seat="h", characters=["harry"], hand=[CardRef(uid="h1", card_id="harry.fuego")]),
    ]
    return DfState(
        options=DfOptions(),
        seats=["a", "h"],
        tableaux=tableaux,
        rows=rows,
        book_name="test",
        showdown_id="death-masks.showdown",
        available=available,
        spent=13 - available,
        phase="play",
    )


def test_a_variable_cost_rolled_above_the_pool_starts_the_showdown() -> None:
    howl = load_library().characters["alphas"].cards
    (card,) = [c for c in howl if c.id == "alphas.howl"]
    assert card.cost.dice == 1  # a shipped card with a variable Fate cost (4[1])
    board = _board(
        ["death-masks.ursiel", "death-masks.cassius"],
        ["death-masks.stolen-shroud"],
        ["alphas.howl", "alphas.lunge"],
        available=4,
    )
    board.rows[0][0].tokens = 2
    # Its lowest cost (3) fits the pool of 4, so it may be played ...
    assert "p:c0" in {a.id for a in ENGINE.legal_actions(board, "a")}
    # ... and a plus comes up: 5 Fate is more than the 4 available -> the Showdown begins.
    state, events = ENGINE.apply(board, "a", "p:c0", ScriptedDice([1]))
    assert state.phase == "showdown"
    assert state.available == 4  # nothing was paid
    assert "variable cost" in state.showdown_reason
    assert any("The Showdown begins" in e.text for e in events)
    assert state.rows[0][0].tokens == 2  # no Hits were added
    assert state.decision is not None and state.decision.kind == "showdown"
    # A blank instead: 4 Fate is paid and the Attack goes ahead.
    state, _ = ENGINE.apply(board, "a", "p:c0", ScriptedDice([0]))
    assert state.phase == "play" and state.available == 0
    assert state.decision is not None and state.decision.kind == "choose"


def test_cannot_attack_blocks_attack_cards_but_not_talents_or_stunts() -> None:
    board = _board(
        ["death-masks.ortegas-challenge", "death-masks.ursiel", "death-masks.cassius"],
        ["death-masks.stolen-shroud"],
        ["alphas.lunge", "alphas.pack-tactics", "alphas.loyal-friends"],
        available=8,
    )
    board.rows[0][1].tokens = 1
    ids = {a.id for a in ENGINE.legal_actions(board, "a")}
    # "Ortega's Challenge": no Attack card may be played while it is in the rows ...
    assert "p:c0" not in ids and "p:c1" not in ids
    assert "p:c2" in ids  # ... but an Overcome card may remove it
    # ... while the Stunt (Hits on Foes that have Hits) still adds Hits,
    assert "s:alphas" in ids
    state, _ = ENGINE.apply(board, "a", "s:alphas", random.Random(0))
    assert state.rows[0][1].tokens == 3
    # and the Talent (1 Hit on the Foe at the longest Range) still works after a discard.
    state = board.model_copy(deep=True)
    state, _ = ENGINE.apply(state, "a", "d:c0", random.Random(0))
    assert state.decision is not None and "t:alphas" in state.decision.options
    state, _ = ENGINE.apply(state, "a", "t:alphas", random.Random(0))
    assert state.rows[0][-1].card_id == "death-masks.cassius" and state.rows[0][-1].tokens == 1
    # Once it is overcome, Attack cards come back.
    state = board.model_copy(deep=True)
    state, _ = ENGINE.apply(state, "a", "p:c2", random.Random(0))
    assert "death-masks.ortegas-challenge" in state.book_discard
    state.active = 0
    assert "p:c1" in {a.id for a in ENGINE.legal_actions(state, "a")}


def test_cannot_receive_hits_takes_precedence_over_talents_and_stunts() -> None:
    board = _board(
        ["fool-moon.full-moon-rising", "fool-moon.streetwolves", "fool-moon.macfinn"],
        ["fool-moon.tera-west"],
        ["alphas.lunge", "alphas.loyal-friends"],
        available=8,
    )
    board.rows[0][2].tokens = 2  # MacFinn already has Hits: the Stunt would want him
    # The Talent targets the Foe at the longest Range (MacFinn, restricted): it cannot be used.
    state, _ = ENGINE.apply(board, "a", "d:c0", random.Random(0))
    assert state.decision is None or "t:alphas" not in state.decision.options
    # The Stunt adds Hits to Foes with Hits, but MacFinn cannot receive them: nothing to do.
    assert "s:alphas" not in {a.id for a in ENGINE.legal_actions(board, "a")}
    # Overcoming Full Moon Rising lifts the restriction for everyone.
    state, _ = ENGINE.apply(board, "a", "p:c1", random.Random(0))
    state.active = 0
    assert "s:alphas" in {a.id for a in ENGINE.legal_actions(state, "a")}


def test_a_targeted_cannot_attack_skips_that_foe_in_an_area_attack() -> None:
    nightmare = "grave-peril.nightmare"
    board = _board(
        ["grave-peril.thralls", nightmare, "grave-peril.bianca"],
        ["grave-peril.who-sent-the-nightmare", "grave-peril.stolen-sword"],
        [],
        available=8,
    )
    board.tableaux[1].hand = [CardRef(uid="h1", card_id="harry.pyrofuego")]
    board.active = 1
    state, _ = ENGINE.apply(board, "h", "p:h1", random.Random(0))
    if state.decision is not None:  # a row to choose: the top one
        top = next(k for k in state.decision.options if k.startswith("t"))
        state, _ = ENGINE.apply(state, "h", top, random.Random(0))
    hits = {s.card_id: s.tokens for s in state.rows[0]}
    assert hits == {"grave-peril.thralls": 2, nightmare: 0, "grave-peril.bianca": 2}


def test_chosen_characters_play_with_harry_and_too_many_are_refused() -> None:
    import pytest

    from bot.games.dfccg import DfRuleError

    two = ENGINE.new_game(DfOptions(characters=["susan", "alphas"]), ["a", "b"], random.Random(4))
    decks = [k for t in two.tableaux for k in t.characters]
    assert {"harry", "susan", "alphas"} <= set(decks) and len(decks) == 4
    solo = ENGINE.new_game(DfOptions(characters=["murphy"]), ["a"], random.Random(4))
    solo_decks = [k for t in solo.tableaux for k in t.characters]
    assert {"harry", "murphy"} <= set(solo_decks) and len(solo_decks) == 3
    with pytest.raises(DfRuleError, match="pick fewer"):
        ENGINE.new_game(
            DfOptions(characters=["susan", "murphy", "michael"]), ["a"], random.Random()
        )
    with pytest.raises(DfRuleError, match="Unknown character"):
        ENGINE.new_game(DfOptions(characters=["mouse"]), ["a", "b", "c"], random.Random())


def test_user_packs_cannot_break_action_ids_or_stall_the_showdown() -> None:
    from bot.games.dfccg.packs import validate_pack_text

    long_key = (
        "pack: {key: x, title: X}\n"
        "characters:\n"
        "  - key: harry-dresden-wizard-of-chicago-for-hire\n"
        "    name: H\n"
        "    talent: {name: T}\n"
        "    stunt: {name: S, effects: []}\n"
        "    cards: []\n"
    )
    errors = validate_pack_text(long_key, "mine.yaml")
    assert errors and errors[0].startswith("mine.yaml:3:") and "key" in errors[0]
    showdown = (
        "pack: {key: x, title: X}\n"
        "side_jobs:\n"
        "  showdowns:\n"
        "    - {id: s, name: S, foe: [{fate: 1, roll: '0[2]'}], case: [{fate: 0, roll: '0[2]'}]}\n"
        "  cards: []\n"
    )
    errors = validate_pack_text(showdown, "mine.yaml")
    assert errors and "0 Fate" in errors[0]


def test_campaign_history_replays_wins_and_starts_over_when_complete() -> None:
    from bot.games.dfccg.campaign import campaign_from_history

    Past = tuple[dict[str, Any], dict[str, Any] | None]

    def game(book: str, winner: str, campaign: bool = True) -> Past:
        return (
            {"book": book, "campaign": campaign},
            {"winner": winner, "scores": {"players": 1}, "summary": ""},
        )

    past: list[Past] = [game("storm-front", "players"), game("fool-moon", "game")]
    past.append(game("fool-moon", "players", campaign=False))  # a one-off game does not count
    assert campaign_from_history(past).current_book == "fool-moon"
    everything = [game(book, "players") for book in CAMPAIGN]
    assert campaign_from_history(everything).current_book == "storm-front"
    assert campaign_from_history([*everything, game("storm-front", "players")]).index == 1
    engine_options, note = ENGINE.resolve_options({"book": "campaign"}, past)
    assert engine_options == {"book": "fool-moon", "campaign": True}
    assert note == "Campaign: book 2 of 5, Fool Moon (attempt 2)."
    assert ENGINE.resolve_options({"book": "summer-knight"}, past) == (
        {"book": "summer-knight"},
        None,
    )
