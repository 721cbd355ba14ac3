"""``trusted`` and ``shallow_copy`` (bot/games/base.py) and Dreamwars' ``fast_model`` build
pydantic models by filling pydantic's own instance slots, because ``model_construct`` and
``model_copy`` cost several times more on the engines' hot paths. These tests fail loudly if a
pydantic release stores its models differently, before any game quietly goes wrong."""

from __future__ import annotations

import copy
import pickle

from pydantic import BaseModel

from bot.games.base import GameEvent, event, shallow_copy, trusted
from bot.games.dfccg.state import BookSlot, Decision, Job, new_decision
from bot.games.dreamwars.state import fast_model

# The instance slots the helpers fill; pydantic 2 keeps every model's data in these four.
PYDANTIC_SLOTS = (
    "__dict__",
    "__pydantic_fields_set__",
    "__pydantic_extra__",
    "__pydantic_private__",
)


def test_pydantic_still_keeps_a_model_in_the_slots_the_helpers_fill() -> None:
    assert tuple(BaseModel.__slots__) == PYDANTIC_SLOTS, (
        "pydantic changed how it stores a model: bot/games/base.py trusted/shallow_copy and "
        "bot/games/dreamwars/state.py fast_model must follow (or use model_construct)"
    )
    validated = GameEvent(text="x")
    assert set(vars(validated)) == set(GameEvent.model_fields)
    assert validated.__pydantic_extra__ is None and validated.__pydantic_private__ is None


def _same(made: BaseModel, validated: BaseModel) -> None:
    """Everything the table and the tests ask of a model gives the same answer."""
    assert type(made) is type(validated)
    assert made == validated and validated == made
    assert made.model_dump() == validated.model_dump()
    assert made.model_dump_json() == validated.model_dump_json()
    assert type(made).model_validate_json(made.model_dump_json()) == validated
    assert made.model_copy() == validated
    assert copy.deepcopy(made) == validated
    assert pickle.loads(pickle.dumps(made)) == validated
    assert repr(made) == repr(validated)


def test_trusted_models_behave_as_validated_ones() -> None:
    _same(
        event("hello", "play", data={"n": 1}), GameEvent(text="hello", kind="play", data={"n": 1})
    )
    _same(event("psst", audience=["ai0"]), GameEvent(text="psst", public=False, audience=["ai0"]))
    _same(
        trusted(BookSlot, uid="b1", card_id="storm-front.foe", tokens=0),
        BookSlot(uid="b1", card_id="storm-front.foe"),
    )
    _same(
        trusted(Job, **Job(source="Talent", tableau=1, effects=[]).__dict__),
        Job(source="Talent", tableau=1, effects=[]),
    )
    plain = new_decision("talent", "Use a Talent?", {"skip": "No"})
    _same(
        trusted(Decision, **{name: getattr(plain, name) for name in Decision.model_fields}),
        Decision(kind="talent", prompt="Use a Talent?", options={"skip": "No"}),
    )
    _same(
        fast_model(BookSlot, {"uid": "b2", "card_id": "c", "tokens": 3}),
        BookSlot(uid="b2", card_id="c", tokens=3),
    )


def test_a_trusted_model_changes_like_a_validated_one() -> None:
    made = trusted(BookSlot, uid="b1", card_id="c", tokens=0)
    made.tokens = 2  # pydantic's __setattr__ on a model the helpers filled
    assert made == BookSlot(uid="b1", card_id="c", tokens=2)
    assert "tokens" in made.model_fields_set


def test_shallow_copy_is_a_new_model_sharing_the_values() -> None:
    job = Job(source="Card", tableau=0, effects=[], targets=["b1"])
    copied = shallow_copy(job)
    assert copied == job and copied is not job
    assert copied.targets is job.targets  # shared: the engine copies what it changes
    copied.value = 3
    assert job.value is None  # the fields themselves are the copy's own
    assert copied.model_fields_set == job.model_fields_set | {"value"}
    _same(shallow_copy(job), job)
