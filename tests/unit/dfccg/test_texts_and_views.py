"""What players read: card texts, the explanations in the views, the board and hand within
Discord's limits, and a readable picture."""

import io
import random

from PIL import Image

from bot.games.dfccg import DISPLAY, ENGINE, DfOptions, DfState
from bot.games.dfccg.cards import ActionCard, BookCard
from bot.games.dfccg.packs import card_index, load_library
from bot.games.dfccg.picture import render_board
from bot.games.dfccg.state import BookSlot, CardRef, Tableau
from bot.games.dfccg.texts import action_text, book_text
from bot.games.display import FIELD_LIMIT, fields_size
from tests.unit.dfccg.test_example_of_play import example_board

CARDS = card_index(load_library())


def test_every_card_of_every_pack_says_what_it_does() -> None:
    for card in CARDS.values():
        if isinstance(card, ActionCard):
            assert action_text(card), card.id
        if isinstance(card, BookCard) and (card.passive or card.on_removed):
            assert book_text(card), card.id
    assert not [c.id for c in CARDS.values() if "authored" in (getattr(c, "text", "") or "")]


def test_made_up_texts_follow_the_card_data() -> None:
    assert action_text(CARDS["murphy.service-pistol"]) == "Put 2 Hits on one Foe up to Range 3."
    assert action_text(CARDS["harry.its-not-my-fault"]).startswith(
        "Overcome one Obstacle at Range 1"
    )
    beetle = action_text(CARDS["harry.blue-beetle"])
    assert "up to Range 3[2] (rolled)" in beetle
    assert action_text(CARDS["harry.pyrofuego"]) == CARDS["harry.pyrofuego"].text


def test_the_view_explains_blocks_links_costs_and_an_empty_spent_pool() -> None:
    state = example_board()  # Kalshazzak waits for "Who is the Shadowman?"; Police Suspicion
    state.spent = 0
    view = ENGINE.private_view(state, "harry")
    kalshazzak = next(c for c in view["rows"][0] if c["name"].startswith("Kalshazzak"))
    assert kalshazzak["blocked"] == ["cannot receive Hits until Who is the Shadowman? is solved"]
    assert kalshazzak["links"] == [
        {"letter": "A", "dir": "in", "partners": ["Who is the Shadowman? (row 2, Range 1)"]}
    ]
    muscle = next(c for c in view["rows"][0] if c["name"] == "Marcone's Muscle")
    assert muscle["links"][0]["partners"] == ["Tracing the Drug (row 2, Range 4)"]
    forzare = next(c for c in view["hands"][0]["hand"] if c["name"] == "Forzare")
    assert forzare["discard_note"] == "gives no Fate now: the Spent pool is empty"
    labels = [a.label for a in ENGINE.legal_actions(state, "harry") if a.kind == "discard"]
    assert "Discard Forzare (no Fate: the Spent pool is empty)" in labels
    talents = view["players"][1]["talents"]
    assert talents[0]["note"] == "not ready: discard a card for Fate to ready it"
    state.spent = 9
    state.tableaux[0].hand.append(CardRef(uid="c9", card_id="harry.tracking-spell"))
    view = ENGINE.private_view(state, "harry")
    spell = next(c for c in view["hands"][0]["hand"] if c["name"] == "Tracking Spell")
    assert (spell["printed_cost"], spell["cost"]) == ("3", "4")
    assert spell["cost_note"] == "+1 from Police Suspicion"
    susan = ENGINE.private_view(state, "susan")["players"][2]["talents"][0]
    assert susan["note"] == "works on a discard now"


def test_the_turn_names_the_seat_and_the_character() -> None:
    state = example_board()
    view = ENGINE.public_view(state)
    assert (
        DISPLAY.turn_lines(view, "alice")[0] == "**Turn 0**: **alice**, as Harry Dresden, to act."
    )
    solo = ENGINE.new_game(ENGINE.parse_options({}), ["alice"], random.Random(2))
    solo.decision, solo.phase = None, "play"
    solo.active = 1
    line = DISPLAY.turn_lines(ENGINE.public_view(solo), "alice")[0]
    assert "(hand 2 of 3)" in line and ", as " in line


def _long_texts(view: dict) -> dict:  # type: ignore[type-arg]
    for row in view["rows"]:
        for card in row:
            card["text"] = "A very long text of a user's pack, word after word. " * 6
    for part in view.get("hands") or []:
        for card in part["hand"]:
            card["text"] = "Another long text that a pack may give a card, in full. " * 5
    return view


def test_board_and_hand_fit_discord_and_point_to_card_texts_when_too_long() -> None:
    for players in (1, 2, 5):
        state = ENGINE.new_game(
            ENGINE.parse_options({}), [str(i) for i in range(players)], random.Random(players)
        )
        for view in (ENGINE.private_view(state, "0"), _long_texts(ENGINE.private_view(state, "0"))):
            board = DISPLAY.board_fields(view, {})
            hand = DISPLAY.hand_fields(view)
            for fields in (board, hand):
                assert all(len(f.value) <= FIELD_LIMIT for f in fields)
                assert fields_size(fields) <= 4800 and len(fields) <= 25
            reference = DISPLAY.reference_fields(view)
            assert all(len(f.value) <= FIELD_LIMIT for f in reference)
        assert any(f.name == "Card texts" for f in board)  # the long texts did not fit
        whole = "\n".join(f.value for f in reference)
        assert view["rows"][0][0]["text"].strip() in whole  # but Card texts shows them whole


def test_the_picture_shows_card_texts_and_the_result() -> None:
    state = example_board()
    view = ENGINE.public_view(state)
    image = Image.open(io.BytesIO(render_board(view)))
    assert image.width >= 1200  # cards wide enough for their text at a readable size
    view["result"] = "The players win: 3 Case(s) solved against 2 Foe(s) left."
    assert render_board(_long_texts(view)).startswith(b"\x89PNG")
    assert render_board({}).startswith(b"\x89PNG")


def _harry_alone(top: list[str], bottom: list[str], **options: object) -> DfState:
    def slots(ids: list[str], start: int) -> list[BookSlot]:
        return [
            BookSlot(uid=f"b{start + i}", card_id="storm-front." + c) for i, c in enumerate(ids)
        ]

    return DfState(
        options=DfOptions.model_validate(options),
        seats=["h"],
        tableaux=[
            Tableau(
                seat="h",
                characters=["harry"],
                hand=[
                    CardRef(uid="c1", card_id="harry.its-not-my-fault"),
                    CardRef(uid="c2", card_id="harry.wizards-staff"),
                ],
            )
        ],
        rows=[slots(top, 0), slots(bottom, 6)],
        book_name="Storm Front",
        showdown_id="storm-front.showdown",
        available=6,
        spent=7,
        phase="play",
    )


def test_a_talent_that_could_move_nothing_is_not_offered() -> None:
    state = _harry_alone(["three-eye-drug-war"], ["victor-sells"])
    assert ENGINE.public_view(state)["players"][0]["talents"][0]["note"].startswith("would do")
    after, _ = ENGINE.apply(state, "h", "d:c2", random.Random(1))
    assert after.decision is None  # no "Use a Talent?" for a move with nowhere to go


def test_a_missed_main_effect_says_where_it_looked_once() -> None:
    state = _harry_alone(
        ["victor-sells", "three-eye-drug-war"], ["madison-murders"], allow_play_without_target=True
    )
    _, events = ENGINE.apply(state, "h", "p:c1", random.Random(1))
    missed = [e.text for e in events if "no card it may target" in e.text]
    assert missed == ["It's Not My Fault: no card it may target in Range 1; it has no effect."]


def test_a_hand_card_is_shown_the_same_with_its_face_kept_or_made_anew() -> None:
    """The parts of a hand card's view that follow from the card alone are kept between views
    (views._CARD_FACES); every view of a whole game is the same with that memory emptied."""
    from bot.games.dfccg import views

    rng = random.Random(4)
    state = ENGINE.new_game(ENGINE.default_options(), ["a", "b"], rng)
    for _step in range(60):
        if ENGINE.is_over(state):
            break
        for seat in ("a", "b"):
            kept = ENGINE.private_view(state, seat)
            views._CARD_FACES.clear()
            assert ENGINE.private_view(state, seat) == kept
        seat = ENGINE.current_seats(state)[0]
        state, _events = ENGINE.apply(state, seat, ENGINE.choose_action(state, seat, rng), rng)
