"""The rulebook's worked examples, with their numbers, through the engine."""

from __future__ import annotations

from bot.games.dreamwars import ENGINE
from bot.games.dreamwars.dice import passes

from .helpers import Dice, give, nemesis, place, table, texts


def _adventure_on_top(state, deck: str, key: str) -> None:  # type: ignore[no-untyped-def]
    pile = state.decks[deck]
    uid = next(u for u in pile if state.cards[u] == key)
    pile.remove(uid)
    pile.insert(0, uid)


def test_ilarier_tests_arcane_4_on_a_city_intrigue() -> None:
    """Ilarier Sint has Arcane 4: a City Intrigue's Arcane test passes on 4 or less."""
    for face, passed in ((4, True), (5, False), (1, True)):
        state = table("ilarier", at="library")
        assert ENGINE.board.lib.heroes["ilarier"].arcane == 4
        _adventure_on_top(state, "city", "strange_symbols")
        state, _ = ENGINE.apply(state, "p0", "end", Dice())
        assert state.decision is not None and state.decision.kind == "adventure"
        state, events = ENGINE.apply(state, "p0", "gem:0", Dice(face))
        assert f"target 4, rolled {face}: {'success' if passed else 'failure'}" in texts(events)
        assert (state.heroes[0].deeds.get("titles", 0) == 1) is passed


def test_max_needs_a_1_for_skill_1() -> None:
    """M.A.X has Skill 1: spotting something shiny in the lake needs a natural 1."""
    for face, passed in ((1, True), (2, False)):
        state = table("max", at="underground_lake")
        assert ENGINE.board.lib.heroes["max"].skill == 1
        _adventure_on_top(state, "outland", "lake_glint")
        state, _ = ENGINE.apply(state, "p0", "end", Dice())
        state, events = ENGINE.apply(state, "p0", "gem:0", Dice(face))
        assert f"target 1, rolled {face}: {'success' if passed else 'failure'}" in texts(events)
        assert (len(state.heroes[0].items) == 1) is passed


def test_eogart_two_melee_attacks_on_an_ekathon_shield_with_heavy_armour() -> None:
    """Melee 4, Heavy Armour -1: the rolls 4 and 2 give one hit (the 2)."""
    state = table("eogart")
    shield = place(state, "ekathon_shield", "h_square")
    assert ENGINE.board.lib.heroes["eogart"].melee == 4
    state, first = ENGINE.apply(state, "p0", f"hit:{shield}:fist", Dice(4))
    assert "Melee 4 -1 Heavy Armour; rolled 4): miss" in texts(first)
    state, second = ENGINE.apply(state, "p0", f"hit:{shield}:fist", Dice(2))
    assert "rolled 2): hit" in texts(second)
    target = nemesis(state, shield)
    assert target is not None and target.wounds == 1  # 2 LP, one lost
    assert state.heroes[0].actions == 0


def test_lady_melanie_tests_defence_3_against_an_ekathon_knight() -> None:
    state = table("melanie")
    place(state, "ekathon_knight", "h_square")
    state, events = ENGINE.apply(state, "p0", "end", Dice(3))
    assert "Defence 3 against the Ekathon Knight's melee attack (target 3, rolled 3: success" in (
        texts(events)
    )
    assert state.heroes[0].wounds == 0
    state.nemeses = [n for n in state.nemeses if n.key == "ekathon_knight"]
    state, events = ENGINE.apply(state, "p0", "end", Dice(4))
    assert "rolled 4: failure" in texts(events)
    assert state.heroes[0].wounds == 1  # loses 1 LP


def test_eilor_bladebreaker_shield_raises_defence_2_against_a_voidian_to_3() -> None:
    state = table("eilor")
    place(state, "voidian", "h_square")
    shield = give(state, 0, "bladebreaker")
    state.heroes[0].shield = shield
    state, events = ENGINE.apply(state, "p0", "end", Dice(3))
    assert "Defence 2 against the Voidian's melee attack (target 3, rolled 3: success" in texts(
        events
    )
    assert state.heroes[0].wounds == 0


def test_duncard_halberd_wounds_the_servant_not_the_colossus_on_a_2() -> None:
    """Melee 2: the 2 hits the Soulless Servant; the Colossus's Heavy Armour makes it 1."""
    for first in ("soulless_servant", "soulless_colossus"):
        state = table("duncard")
        servant = place(state, "soulless_servant", "h_square")
        colossus = place(state, "soulless_colossus", "h_square")
        halberd = give(state, 0, "halberd")
        target = servant if first == "soulless_servant" else colossus
        state, events = ENGINE.apply(state, "p0", f"hit:{target}:{halberd}", Dice(2))
        assert nemesis(state, servant) is None  # 1 LP: killed
        remaining = nemesis(state, colossus)
        assert remaining is not None and remaining.wounds == 0
        assert "Soulless Servant is killed" in texts(events)


def test_fate_2_needs_2_or_less() -> None:
    assert passes(2, 2) and passes(1, 2)
    assert not passes(3, 2)
