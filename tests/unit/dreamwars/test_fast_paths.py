"""``play_ai_game`` (one Dreamwars state changed in place, no events kept) ends each game
exactly as the ``choose_action``/``apply`` loop does: the same final state and length."""

from __future__ import annotations

import dataclasses
import random

import pytest
from pydantic import BaseModel

from bot.games.dreamwars.engine import ENGINE, PLAIN_TOWER, TOWER
from bot.games.dreamwars.state import (
    Decision,
    NemesisState,
    new_plain_decision,
    new_plain_nemesis,
)
from bot.games.simulate import play_one


@pytest.mark.parametrize(
    ("options", "players"),
    [({}, 3), ({}, 1), ({"simple_events": True, "replace_dead": False}, 5)],
)
def test_play_ai_game_plays_the_public_loops_games(
    options: dict[str, object], players: int
) -> None:
    parsed = ENGINE.parse_options(options)
    for seed in range(2):
        public = play_one(ENGINE, parsed, players, random.Random(seed))
        fast = ENGINE.play_ai_game(parsed, players, random.Random(seed))
        assert fast[1] == public[1]
        assert fast[0].model_dump_json() == public[0].model_dump_json()


# Every scenario with a Great Nemesis whose Ordeal holds it.
_SCENARIOS = sorted(
    (scenario.key, great.key)
    for great in ENGINE.board.lib.great.values()
    for scenario in ENGINE.board.lib.ordeals[great.ordeal].scenarios
)
_UNWRITTEN = (
    {},
    {"prototype_malfunction_on_success": False},
    {"nemesis_river_stop": False},
    {"prototype_malfunction_on_success": False, "nemesis_river_stop": False},
)


@pytest.mark.parametrize(
    ("options", "games"),
    [
        ({}, ((1, 1), (3, 3), (5, 5))),
        ({"prototype_malfunction_on_success": False, "nemesis_river_stop": False}, ((2, 7),)),
        ({"simple_events": True, "replace_dead": False}, ((4, 8),)),
    ]
    + [
        (
            {"single_scenario": True, "scenario": key, "great_nemesis": great, **_UNWRITTEN[n % 4]},
            ((1 + n % 5, 10 + n), (1 + (n + 2) % 5, 20 + n), (1 + (n + 4) % 5, 30 + n)),
        )
        for n, (key, great) in enumerate(_SCENARIOS)
    ],
)
def test_the_ai_picks_the_same_from_its_ids_as_from_every_legal_id(
    options: dict[str, object], games: tuple[tuple[int, int], ...]
) -> None:
    """actions.ai_ids leaves out what the AI never chooses: over whole games (the Ordeal and
    every scenario alone, 1-5 heroes, the unwritten rules either way) it is in order a part
    of the legal ids, and ai.choose_id picks the same from both. The AI-only games' AiMoves
    (worked out by kind when asked) hold those ids, kind by kind, and choose_move picks the
    same from them."""
    from bot.games.dreamwars.actions import AiMoves, ai_ids
    from bot.games.dreamwars.ai import ListedMoves, choose_id, choose_move

    kinds = ("steps", "attacks", "spells", "uses", "boosts", "reloads", "travels", "rides")
    parsed = ENGINE.parse_options(options)
    for players, seed in games:
        rng = random.Random(seed)
        state = ENGINE.new_game(parsed, [f"ai{i}" for i in range(players)], rng)
        while not ENGINE.is_over(state):
            seat = ENGINE.current_seats(state)[0]
            every = [a.id for a in ENGINE.legal_actions(state, seat)]
            look = ENGINE._ctx(state)
            mine = ai_ids(ENGINE, look)
            rest = iter(every)
            assert all(any(a == b for b in rest) for a in mine)  # a subsequence
            chosen = choose_id(look, dict.fromkeys(mine))
            assert chosen == choose_id(ENGINE._ctx(state), dict.fromkeys(every))
            moves = AiMoves(ENGINE._ctx(state))
            assert choose_move(ENGINE._ctx(state), moves) == chosen
            listed = ListedMoves(dict.fromkeys(mine))
            for kind in kinds:
                assert getattr(moves, kind)() == getattr(listed, kind)()
            for id_ in (*every, "end", "stop"):
                assert moves.has(id_) == (id_ in mine)
            if state.decision is None and not state.heroes[state.active].moving:
                for keys in (("pickstone", "reveal", "pickup"), ("meditate3", "meditate")):
                    assert moves.offered(keys) == listed.offered(keys)
            if state.decision is not None:
                assert moves.choices() == mine
            state, _events = ENGINE.apply(state, seat, chosen, rng)


def test_the_ai_moves_offer_nothing_of_their_own_while_the_turn_ends() -> None:
    """While the turn is ending (no decision pending), the legal ids hold nothing, and
    AiMoves hold no step, no stop and no end either, even for a hero still moving."""
    from bot.games.dreamwars.actions import AiMoves, ai_ids

    state = ENGINE.new_game(ENGINE.default_options(), ["ai0", "ai1"], random.Random(4))
    state.decision = None
    state.ending = True
    for moving in (False, True):
        state.heroes[state.active].moving = moving
        assert ai_ids(ENGINE, ENGINE._ctx(state)) == []
        moves = AiMoves(ENGINE._ctx(state))
        assert moves.steps() == [] and moves.uses() == [] and moves.attacks() == []
        assert not moves.has("stop") and not moves.has("end")


def test_the_kept_table_effects_are_always_the_ones_worked_out_anew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A playing context keeps the table's effects under a key of what they depend on (turn,
    scenario, Events in play, Stars, the Nemesis limit): at every use over whole games, with
    both kinds of Events, they are what working them out again gives."""
    from bot.games.dreamwars import engine as dw

    kept = dw._Ctx.table_effects
    uses = []

    def checked(self: dw._Ctx) -> list[object]:
        effects = kept(self)
        assert effects == self._table_effects()
        uses.append(1)
        return effects  # type: ignore[return-value]

    monkeypatch.setattr(dw._Ctx, "table_effects", checked)
    for options, players in (({}, 3), ({"simple_events": True}, 4), ({}, 1)):
        parsed = ENGINE.parse_options(options)
        for seed in range(3):
            ENGINE.play_ai_game(parsed, players, random.Random(seed))
    assert len(uses) > 1000


def test_the_kept_nemesis_limit_effects_per_space_and_stats_are_the_ones_worked_out_anew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three more answers a context keeps (the Nemesis limit under a key of its own, the
    table's effects per space, a look's stats with every modifier): at every use over whole
    games, with both kinds of Events, each is what working it out again gives."""
    from bot.games.dreamwars import engine as dw

    uses = {"limit": 0, "here": 0, "value": 0}
    kept_limit, kept_here, kept_value = (
        dw._Ctx.nemesis_limit,
        dw._Ctx._table_at,
        dw._Ctx.value,
    )

    def limit(self: dw._Ctx) -> int:
        found = kept_limit(self)
        assert found == self._nemesis_limit()
        uses["limit"] += 1
        return found

    def here(self: dw._Ctx, table: list[object], node: str) -> list[object]:
        found = kept_here(self, table, node)  # type: ignore[arg-type]
        assert table == self._table_effects()
        assert found == [
            e for e in self._table_effects() if e.where == "any" or self.at(e.where, node)
        ]
        uses["here"] += 1
        return found  # type: ignore[return-value]

    def value(
        self: dw._Ctx, i: int, stat: str, weapon: str | None = None, effects: object = None
    ) -> int:
        found = kept_value(self, i, stat, weapon, effects)  # type: ignore[arg-type]
        if effects is None:
            mods = sum(
                e.amount
                for e in self.hero_effects(i, weapon)
                if e.stat == stat and e.kind == "modify"
            )
            assert found == self._stat(i, stat, mods)
            uses["value"] += 1
        return found

    monkeypatch.setattr(dw._Ctx, "nemesis_limit", limit)
    monkeypatch.setattr(dw._Ctx, "_table_at", here)
    monkeypatch.setattr(dw._Ctx, "value", value)
    # (four games each: the AI's look and the playing context share the limit they keep)
    for options, players in (({}, 3), ({"simple_events": True}, 4), ({}, 1)):
        parsed = ENGINE.parse_options(options)
        for seed in range(4):
            ENGINE.play_ai_game(parsed, players, random.Random(seed))
    assert min(uses.values()) > 1000, uses


def test_a_heros_kept_effects_and_weapons_are_always_the_ones_worked_out_anew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A context keeps each hero's effects (with their modifiers) and usable weapons while
    what they come from is the same, shared by the AI's look and the playing context of an
    AI-only game: at every use over whole games, with both kinds of Events, kept or not, they
    are what working them out again gives."""
    from bot.games.dreamwars import engine as dw

    uses = {"effects": 0, "effects kept": 0, "weapons": 0, "weapons kept": 0}
    kept_effects, kept_weapons = dw._Ctx._kept_effects, dw._Ctx.weapons

    def effects(self: dw._Ctx, i: int) -> object:
        before = self._kept.heroes.get(i)
        found = kept_effects(self, i)
        fresh = self._effects_now(i)
        assert found[1] == fresh
        mods: dict[str | None, int] = {}
        for e in fresh:
            if e.kind == "modify":
                mods[e.stat] = mods.get(e.stat, 0) + e.amount
        assert found[2] == mods
        kinds = {e.kind for e in fresh}
        assert found[3] == ("reroll_failed" in kinds, "reroll_success" in kinds)
        uses["effects"] += 1
        uses["effects kept"] += found is before
        return found

    def weapons(self: dw._Ctx, i: int) -> tuple[list[str], list[str]]:
        before = self._kept.weapons.get(i)
        found = kept_weapons(self, i)
        hero = self.s.heroes[i]
        usable = [
            uid
            for uid in hero.items
            if self.item(uid).type == "weapon"
            and (self.item(uid).deck != "tech" or self.sheet(i).tech > 0)
        ]
        fresh: tuple[list[str], list[str]] = ([], [])
        seen: set[str] = set()
        for uid in usable:  # one of each kind, in carrying order
            if self.s.cards[uid] not in seen:
                seen.add(self.s.cards[uid])
                fresh["ranged" in self.item(uid).traits].append(uid)
        assert found == fresh
        uses["weapons"] += 1
        uses["weapons kept"] += before is not None and found[0] is before[2]
        return found

    monkeypatch.setattr(dw._Ctx, "_kept_effects", effects)
    monkeypatch.setattr(dw._Ctx, "weapons", weapons)
    for options, players in (({}, 3), ({"simple_events": True}, 4), ({}, 1)):
        parsed = ENGINE.parse_options(options)
        for seed in range(3):
            ENGINE.play_ai_game(parsed, players, random.Random(seed))
    assert min(uses.values()) > 500, uses


def test_the_kept_steps_toward_a_goal_are_the_ones_worked_out_anew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The board keeps the AI's step toward a goal for each space, goal and steps offered: at
    every use over whole games it is the step that gets closer, dry land first, then the
    nearest, then the first by name, among the steps the hero is offered now."""
    from bot.games.dreamwars import ai

    kept_toward = ai._toward
    uses = {"toward": 0, "step": 0}

    def toward(ctx: object, i: int, goal: str, moves: object) -> str | None:
        found = kept_toward(ctx, i, goal, moves)  # type: ignore[arg-type]
        board = ctx.board  # type: ignore[attr-defined]
        here = ctx.s.heroes[i].node  # type: ignore[attr-defined]
        closer = [
            (nxt in board.rivers, board.distance(nxt, goal), nxt)
            for nxt in (step.removeprefix("step:") for step in moves.steps())  # type: ignore[attr-defined]
            if board.distance(nxt, goal) < board.distance(here, goal)
        ]
        assert found == (f"step:{min(closer)[2]}" if closer and here != goal else None)
        uses["toward"] += 1
        uses["step"] += found is not None
        return found

    monkeypatch.setattr(ai, "_toward", toward)
    for options, players in (({}, 3), ({"nemesis_river_stop": False}, 4), ({}, 1)):
        parsed = ENGINE.parse_options(options)
        for seed in range(3):
            ENGINE.play_ai_game(parsed, players, random.Random(seed))
    assert min(uses.values()) > 500, uses


def test_a_reach_past_the_kept_tables_is_worked_out() -> None:
    """The board keeps the spaces within 0-6 of each space; a longer reach (a range made longer
    by bonuses) is worked out when asked, not a KeyError."""
    state = ENGINE.new_game(ENGINE.default_options(), ["ai0", "ai1"], random.Random(2))
    look = ENGINE._ctx(state)
    far = look.targets_in_reach(0, 40)
    assert {id(n) for n in look.targets_in_reach(0, 6)} <= {id(n) for n in far}
    assert len(far) == len(state.nemeses) + len(state.towers)  # the whole map is within 40


def test_a_heros_effects_with_a_weapon_are_hers_then_the_weapons_in_both_kinds_of_context() -> None:
    """hero_effects(i, w) is hero_effects(i) + weapon_effects(i, w) (the weapon and its add-on),
    whether the context plays (nothing kept) or only looks (kept)."""
    from .helpers import give, table

    state = table("max")
    sword = give(state, 0, "short_sword")
    scope = give(state, 0, "scope")
    state.heroes[0].mounted[scope] = sword
    give(state, 0, "knives")
    for context in (ENGINE._ctx(state, random.Random(0)), ENGINE._ctx(state)):
        weapon = context.weapon_effects(0, sword)
        assert len(weapon) == 2
        assert context.hero_effects(0, sword) == context.hero_effects(0) + weapon
        assert context.hero_effects(0, sword) == context.hero_effects(0) + weapon  # kept or not


def _same_content(model: object, plain: object) -> None:
    """``plain`` reads like ``model``: the same field values, models as plain objects."""
    if isinstance(model, BaseModel):
        assert not isinstance(plain, BaseModel)
        for name in type(model).model_fields:
            _same_content(getattr(model, name), getattr(plain, name))
    elif isinstance(model, list | tuple):
        assert type(plain) is type(model) and len(plain) == len(model)  # type: ignore[arg-type]
        for a, b in zip(model, plain, strict=True):  # type: ignore[call-overload]
            _same_content(a, b)
    elif isinstance(model, dict):
        assert isinstance(plain, dict) and list(plain) == list(model)
        for key, value in model.items():
            _same_content(value, plain[key])
    else:
        assert plain == model


def test_the_content_the_engine_reads_is_the_packs_content() -> None:
    lib, content = ENGINE.board.lib, ENGINE.board.content
    for field in dataclasses.fields(lib):
        _same_content(getattr(lib, field.name), getattr(content, field.name))
    _same_content(TOWER, PLAIN_TOWER)


def test_a_plain_decision_is_made_as_the_model_is() -> None:
    for given in (
        {"kind": "keep", "prompt": "Keep 1", "options": {"keep:c1": "Keep it"}},
        {
            "kind": "discard",
            "prompt": "Over",
            "options": {"drop:c2": "Drop it"},
            "cards": ["c2"],
            "keep": 2,
            "deck": "cantici",
            "private": True,
        },
    ):
        made = new_plain_decision(**given)  # type: ignore[arg-type]
        model = Decision(**given)  # type: ignore[arg-type]
        assert {name: getattr(made, name) for name in Decision.model_fields} == model.model_dump()


def test_a_plain_nemesis_is_made_as_the_model_is() -> None:
    made = new_plain_nemesis(uid="n1", key="ghoul", node="bridge")
    model = NemesisState(uid="n1", key="ghoul", node="bridge")
    assert {name: getattr(made, name) for name in NemesisState.model_fields} == model.model_dump()


def test_two_games_moved_in_turn_play_as_alone() -> None:
    """Two games moved in turn by one engine, one of them reloaded now and then: each move
    gives what an engine of its own gives that game (what the engine keeps from one move to
    the next, the table's and the heroes' effects, is one game's)."""
    from bot.games.dreamwars.engine import DreamwarsEngine

    options = ENGINE.parse_options({})
    seats = ["s1", "s2"]
    shared = DreamwarsEngine(ENGINE.board)
    games = []
    for seed in (0, 1):
        alone = DreamwarsEngine(ENGINE.board)
        state = shared.new_game(options, seats, random.Random(seed))
        games.append([alone, alone.new_game(options, seats, random.Random(seed)), state])
    for n in range(80):
        for g, (alone, ref, state) in enumerate(games):
            if ref.phase == "over":
                continue
            if g == 1 and n % 7 == 3:
                state = shared.load_state(state.model_dump_json())
            seat = alone.current_seats(ref)[0]
            action = alone.choose_action(ref, seat, random.Random(n))
            ref, ref_events = alone.apply(ref, seat, action.id, random.Random(n))
            state, events = shared.apply(state, seat, action.id, random.Random(n))
            assert [e.text for e in events] == [e.text for e in ref_events]
            assert state.model_dump_json() == ref.model_dump_json()
            _, actions, hand = shared.seat_views(state, seat)
            _, ref_actions, ref_hand = alone.seat_views(ref, seat)
            assert [a.id for a in actions] == [a.id for a in ref_actions]
            assert hand == ref_hand
            games[g][1:] = [ref, state]
