"""The DFCCG rules work on plain slotted copies of the state (bot/games/dfccg/state.py);
the models stay what the table stores. The copies must hold every field and give the same
model back."""

from __future__ import annotations

import random

from pydantic import BaseModel

from bot.games.dfccg import ENGINE
from bot.games.dfccg.state import (
    BookSlot,
    DfOptions,
    DfState,
    Job,
    PlainJob,
    PlainSlot,
    PlainState,
    PlainTableau,
    Tableau,
    model,
    new_job,
    plain,
)


def test_each_plain_class_has_the_fields_of_its_model() -> None:
    pairs: list[tuple[type, type[BaseModel]]] = [
        (PlainState, DfState),
        (PlainTableau, Tableau),
        (PlainJob, Job),
        (PlainSlot, BookSlot),
    ]
    for plain_class, model_class in pairs:
        assert set(plain_class.__slots__) == set(model_class.model_fields), plain_class


def test_a_state_goes_plain_and_back_unchanged_and_untouched() -> None:
    rng = random.Random(3)
    state = ENGINE.new_game(DfOptions(), ["a", "b", "c"], rng)
    for _ in range(40):  # far enough into a game for jobs, tokens and decisions
        if ENGINE.is_over(state):
            break
        seat = ENGINE.current_seats(state)[0]
        before = state.model_dump_json()
        copied = plain(state)
        copied.tableaux[0].hand.clear()
        copied.rows[0][0].tokens += 5
        copied.turn += 1
        assert state.model_dump_json() == before  # the copy shares nothing it may change
        assert model(plain(state)) == state
        assert model(plain(state)).model_dump_json() == before
        state, _events = ENGINE.apply(state, seat, ENGINE.choose_action(state, seat, rng), rng)


def test_a_plain_job_is_what_the_model_would_hold() -> None:
    job = new_job(source="Card", tableau=2, effects=[], value=3, reach=4, action="attack")
    fields = {name: getattr(job, name) for name in PlainJob.__slots__}
    assert Job.model_validate(fields) == Job(
        source="Card", tableau=2, effects=[], value=3, reach=4, action="attack"
    )
