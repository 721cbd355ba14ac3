"""Building exact Dreamwars positions for rule tests, and dice that roll what a test says."""

from __future__ import annotations

import random
from typing import Any

from bot.games.dreamwars import ENGINE, DwOptions, DwState
from bot.games.dreamwars.engine import _Ctx
from bot.games.dreamwars.state import NemesisState


class Dice(random.Random):
    """A Random whose d6 rolls come from a script (then from the seed)."""

    def __init__(self, *faces: int, seed: int = 0) -> None:
        super().__init__(seed)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        if (a, b) == (1, 6) and self.faces:
            return self.faces.pop(0)
        return super().randint(a, b)


def table(*heroes: str, at: str = "h_square", seats: int | None = None, **options: Any) -> DwState:
    """A game with these heroes on ``at``, no Nemesis, no Event in play, empty hands."""
    opts = DwOptions.model_validate(
        {
            "heroes": list(heroes),
            "great_nemesis": "cynther",
            "single_scenario": True,
            "party": len(heroes),
            **options,
        }
    )
    count = seats or len(heroes)
    state = ENGINE.new_game(opts, [f"p{n}" for n in range(count)], random.Random(1))
    ctx = ENGINE._ctx(state, random.Random(0))
    state.nemeses = []
    for uid, _turn in state.in_play:
        ctx.discard(uid)
    state.in_play = []
    state.stars_now = []
    state.limit_turn = 0
    for i, hero in enumerate(state.heroes):
        for uid in [*hero.items, *hero.cantici, *hero.shards]:
            ctx.drop_item(i, uid)
        hero.node = at
        hero.armour = hero.shield = None
    state.active = state.first = 0
    return state


def give(state: DwState, hero: int, key: str) -> str:
    """Move one card of ``key`` from its deck into the hero's Equipment; returns its uid."""
    ctx = ENGINE._ctx(state, random.Random(0))
    for deck, pile in state.decks.items():
        for uid in pile:
            if state.cards[uid] == key:
                pile.remove(uid)
                if deck == "shards":
                    state.heroes[hero].shards.append(uid)
                elif deck == "cantici":
                    state.heroes[hero].cantici.append(uid)
                else:
                    state.heroes[hero].items.append(uid)
                del ctx
                return uid
    raise KeyError(key)


def place(state: DwState, marker: str, node: str) -> str:
    state.next_uid += 1
    uid = f"n{state.next_uid}"
    if marker in state.horde:
        state.horde.remove(marker)
    state.nemeses.append(NemesisState(uid=uid, key=marker, node=node))
    return uid


def ctx(state: DwState, rng: random.Random | None = None) -> _Ctx:
    return ENGINE._ctx(state, rng or random.Random(0))


def nemesis(state: DwState, uid: str) -> NemesisState | None:
    return next((n for n in state.nemeses if n.uid == uid), None)


def texts(events: list[Any]) -> str:
    return "\n".join(e.text for e in events)
