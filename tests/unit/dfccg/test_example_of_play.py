"""The rulebook's example of play (3 players, Storm Front), on a board built by hand."""

import random

import pytest

from bot.games.dfccg import ENGINE, DfOptions, DfRuleError, DfState
from bot.games.dfccg.state import BookSlot, CardRef, Tableau


class ScriptedDice(random.Random):
    """Fate dice come up with the listed faces, in order."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def choice(self, seq):  # type: ignore[no-untyped-def, override]
        if self.faces and tuple(seq) == (-1, 0, 1):
            return self.faces.pop(0)
        return super().choice(seq)


def slot(uid: str, card_id: str, tokens: int = 0) -> BookSlot:
    return BookSlot(uid=uid, card_id=card_id, tokens=tokens)


def example_board() -> DfState:
    sf = "storm-front."
    top = [
        slot("b0", sf + "victor-sells"),
        slot("b1", sf + "kalshazzak"),
        slot("b2", sf + "scorpion-demon"),
        slot("b3", sf + "marcones-muscle"),
        slot("b4", sf + "three-eye-drug-war"),
        slot("b5", sf + "bob-the-skull"),
    ]
    bottom = [
        slot("b6", sf + "who-is-the-shadowman", tokens=9),
        slot("b7", sf + "madison-murders"),
        slot("b8", sf + "missing-husband"),
        slot("b9", sf + "tracing-the-drug"),
        slot("b10", sf + "police-suspicion"),
        slot("b11", sf + "a-favor-from-mac"),
    ]
    tableaux = [
        Tableau(
            seat="harry",
            characters=["harry"],
            hand=[
                CardRef(uid="c1", card_id="harry.pyrofuego"),
                CardRef(uid="c2", card_id="harry.forzare"),
            ],
        ),
        Tableau(
            seat="michael",
            characters=["michael"],
            hand=[
                CardRef(uid="c3", card_id="michael.divine-revelation"),
                CardRef(uid="c4", card_id="michael.sword-strike"),
            ],
        ),
        Tableau(
            seat="susan",
            characters=["susan"],
            hand=[CardRef(uid="c5", card_id="susan.play-a-hunch")],
        ),
    ]
    return DfState(
        options=DfOptions(difficulty="merlin"),
        seats=["harry", "michael", "susan"],
        tableaux=tableaux,
        rows=[top, bottom],
        book_name="Storm Front",
        showdown_id="storm-front.showdown",
        available=4,
        spent=9,
        clue_supply=64 - 9,
        phase="play",
        active=0,
    )


def tokens(state: DfState) -> dict[str, int]:
    return {s.uid: s.tokens for row in state.rows for s in row}


def test_example_of_play() -> None:
    state = example_board()
    rng = ScriptedDice([0])  # Michael's discard die comes up blank

    # Harry: Pyrofuego for 4 Fate; 2 Hits on every Foe in the top row but Kalshazzak.
    state, events = ENGINE.apply(state, "harry", "p:c1", rng)
    assert state.available == 0 and state.spent == 13
    hits = tokens(state)
    assert (hits["b0"], hits["b1"], hits["b2"], hits["b3"]) == (2, 0, 2, 2)
    assert any("Pyrofuego" in e.text for e in events)
    assert state.tableaux[state.active].seat == "michael"

    # Michael: Amoracchius is illegal (Kalshazzak cannot take Hits, the others have Hits) ...
    assert "s:michael" not in {a.id for a in ENGINE.legal_actions(state, "michael")}
    with pytest.raises(DfRuleError, match="Stunt"):
        ENGINE.apply(state, "michael", "s:michael", rng)
    # ... and passing with no Fate is not allowed while he still holds cards.
    assert "pass" not in {a.id for a in ENGINE.legal_actions(state, "michael")}

    # He discards Divine Revelation for 5[1]: blank -> minus (Three Eye Drug War) = 4 Fate.
    state, events = ENGINE.apply(state, "michael", "d:c3", rng)
    assert state.available == 4
    assert "t:michael" in state.decision.options  # type: ignore[union-attr]
    state, _ = ENGINE.apply(state, "michael", "t:michael", rng)
    assert state.tableaux[1].talents_ready == ["michael"]
    # A readied Holy Knight offers +2 Range on a play.
    assert state.tableaux[state.active].seat == "susan"

    # Susan discards Play a Hunch for 4 Fate; Arcane Reporter solves Who is the Shadowman? (10).
    state, _ = ENGINE.apply(state, "susan", "d:c5", rng)
    assert state.available == 8
    state, events = ENGINE.apply(state, "susan", "t:susan", rng)
    assert "storm-front.who-is-the-shadowman" in state.solved
    assert [s.uid for s in state.rows[1]][0] == "b7"  # the row closed up
    assert state.clue_supply == 64  # the 10 Clues went back to the supply

    # Now Kalshazzak may receive Hits, so Amoracchius becomes legal for Michael.
    state.active = 1
    assert "s:michael" in {a.id for a in ENGINE.legal_actions(state, "michael")}
    state, _ = ENGINE.apply(state, "michael", "s:michael", rng)
    top = [s.uid for s in state.rows[0]]
    assert top[-1] == "b1" and tokens(state)["b1"] == 3  # 3 Hits, pushed to the longest Range


def test_readied_talent_gives_range() -> None:
    state = example_board()
    state.available = 8
    state.spent = 5
    state.active = 1
    state.tableaux[1].talents_ready = ["michael"]
    ids = {a.id for a in ENGINE.legal_actions(state, "michael")}
    # The +2 Range variant of Sword Strike is offered, and playing it unreadies the Talent.
    assert "p:c4:michael" in ids
    state, _ = ENGINE.apply(state, "michael", "p:c4:michael", random.Random(1))
    assert state.tableaux[1].talents_ready == []
