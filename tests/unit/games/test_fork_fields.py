"""Every container field of the DFCCG and Vampire Empire states is copied by the copy the
engine changes, or shared on purpose (issue 15 review, finding 2).

That copy is ``plain`` for DFCCG (bot/games/dfccg/state.py: the model made plain, its lists
copied) and ``fork`` for Vampire Empire (bot/games/vampire_empire/state.py: a shallow copy,
then the lists and dicts it names). Anything they do not copy is shared with the input, so
``apply`` changing it in place would rewrite the state it was given. The field sets below are
the whole contract. A new list, dict or model field makes the first test fail: add it to the
copy (``_STATE_LISTS``, ``_TABLEAU_LISTS``, ``_JOB_LISTS``, ``_LISTS``, ``_NESTED`` ...) AND
to the table here; mark it SHARED only if the engine never changes it in place (it only ever
replaces it), and say why next to it. The second test checks on real states that the copy
does what the table says.
"""

from __future__ import annotations

import random
import types
from typing import Any, Union, get_args, get_origin

import pytest
from pydantic import BaseModel

from bot.games.base import get_engine
from bot.games.dfccg import state as df
from bot.games.vampire_empire import state as ve

COPY = "copy"  # a new list or dict (its items may be shared: numbers, strings, card refs)
COPY_INNER = "copy inner"  # a new list of new lists (items of the inner lists shared)
FORK = "fork"  # a new model, itself checked with its own line of the table (None allowed)
FORK_EACH = "fork each"  # a new list of new models, each checked with its own line
SHARED = "shared"  # the very same object: the engine only ever replaces it, never edits it

Spec = dict[type[BaseModel], dict[str, str]]

DFCCG: Spec = {
    df.DfState: {
        "options": SHARED,  # set at the start, never changed
        "seats": COPY,
        "tableaux": FORK_EACH,
        "rows": COPY_INNER,  # and each Book slot a new plain one (its tokens change)
        "solved": COPY,
        "book_discard": COPY,
        "jobs": FORK_EACH,
        "decision": FORK,  # a plain one; replaced whole when the game asks something else
        "showdown_queue": COPY,
        "showdown_rolls": COPY,
        "showdown_votes": COPY,
        "setup_notes": COPY,
    },
    df.Tableau: {
        "characters": COPY,
        "hand": COPY,  # CardRefs (frozen) shared: a card moves between piles
        "deck": COPY,
        "discard": COPY,
        "stunts_used": COPY,
        "talents_ready": COPY,
    },
    df.Job: {
        "effects": COPY,  # the Effects come from the card pack and are never edited
        "targets": COPY,
        "lingering": COPY,
    },
    df.Decision: {
        "options": SHARED,  # made with the decision, never edited
        "seats": SHARED,  # a vote makes a new decision with the seats still waiting
    },
}

VAMPIRE_EMPIRE: Spec = {
    ve.VeState: {
        "options": SHARED,  # set at the start, never changed
        "seats": COPY,
        "vampires": COPY,
        "known_humans": COPY,
        "city": COPY,
        "castle": COPY,
        "revealed": COPY,
        "dead": COPY,
        "attack_markers": COPY,
        "defence_markers": COPY,
        "decks": COPY_INNER,
        "hands": COPY_INNER,
        "cellars": COPY_INNER,
        "moats": COPY_INNER,
        "combat": FORK,
        "holy_pair": COPY,
        "tested": COPY,
        "attacks": COPY,
        "played": COPY,
        "scores": COPY,
    },
    ve.Combat: {"attack_cards": COPY, "defence_cards": COPY},
}


def _holds_containers(annotation: Any) -> bool:
    """Whether a field of this type holds something that can be changed in place."""
    origin = get_origin(annotation)
    if origin in (list, dict, set):
        return True
    if origin in (Union, types.UnionType):
        return any(_holds_containers(arg) for arg in get_args(annotation))
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def container_fields(model: type[BaseModel]) -> set[str]:
    return {name for name, info in model.model_fields.items() if _holds_containers(info.annotation)}


@pytest.mark.parametrize("spec", [DFCCG, VAMPIRE_EMPIRE], ids=["dfccg", "vampire-empire"])
def test_every_container_field_is_in_the_fork_table(spec: Spec) -> None:
    for model, fields in spec.items():
        assert container_fields(model) == set(fields), (
            f"{model.__name__}'s list/dict/model fields changed: copy the new one in the "
            "state's fork() and add it to this table (SHARED only if never edited in place)"
        )


# The class of the copy of each model (DFCCG's copies are plain; the rest are models).
COPY_CLASS: dict[type[BaseModel], type] = {
    df.DfState: df.PlainState,
    df.Tableau: df.PlainTableau,
    df.Job: df.PlainJob,
    df.BookSlot: df.PlainSlot,
    df.Decision: df.PlainDecision,
}


def _values(item: Any) -> Any:
    """What an item holds, whether a model or a plain copy of one."""
    if isinstance(item, BaseModel):
        return {name: getattr(item, name) for name in type(item).model_fields}
    if type(item) in COPY_CLASS.values():
        return {name: getattr(item, name) for name in item.__slots__}
    if isinstance(item, list):
        return [_values(x) for x in item]
    return item


def _check(spec: Spec, old: BaseModel, new: Any, seen: set[tuple[str, str]]) -> None:
    assert type(new) is COPY_CLASS.get(type(old), type(old)) and new is not old
    for name, how in spec[type(old)].items():
        before, after = getattr(old, name), getattr(new, name)
        where = f"{type(old).__name__}.{name}"
        if before is None:
            assert after is None, where
            continue
        seen.add((type(old).__name__, name))
        if how == SHARED:
            assert after is before, f"{where} should be shared"
            continue
        assert after is not before, f"{where} is shared by the copy"
        assert _values(after) == _values(before), f"{where} is not an equal copy"
        if how == COPY_INNER:
            for inner_old, inner_new in zip(before, after, strict=True):
                assert inner_new is not inner_old, f"an inner list of {where} is shared"
                for item_old, item_new in zip(inner_old, inner_new, strict=True):
                    if type(item_old) in COPY_CLASS:  # a model's copy is a new object
                        assert type(item_new) is COPY_CLASS[type(item_old)], where
        elif how == FORK:
            _check(spec, before, after, seen)
        elif how == FORK_EACH:
            for item_old, item_new in zip(before, after, strict=True):
                _check(spec, item_old, item_new, seen)


@pytest.mark.parametrize(
    ("key", "spec", "fork", "options", "players"),
    [
        ("dfccg", DFCCG, df.plain, {"start": "choose-variant"}, 3),
        ("dfccg", DFCCG, df.plain, {"book": "side-jobs"}, 1),
        ("vampire-empire", VAMPIRE_EMPIRE, ve.fork, {}, 2),
    ],
)
def test_the_copy_copies_what_the_table_says(
    key: str, spec: Spec, fork: Any, options: dict[str, Any], players: int
) -> None:
    engine = get_engine(key)
    rng = random.Random(11)
    seen: set[tuple[str, str]] = set()
    for _game in range(2):
        state = engine.new_game(
            engine.parse_options(options), [f"ai{i}" for i in range(players)], rng
        )
        while not engine.is_over(state):
            _check(spec, state, fork(state), seen)
            seat = engine.current_seats(state)[0]
            state, _events = engine.apply(state, seat, engine.choose_action(state, seat, rng), rng)
    # Every line of the table was checked on a state where its field held something.
    assert {(model.__name__, name) for model, fields in spec.items() for name in fields} <= seen
