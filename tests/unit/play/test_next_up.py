"""Who acts next is decided by an encounter's state (the cogs only name and ping it): the one
side still to roll in a contest, the next assigned task in a challenge, the conflict's current
combatant; a player is told only for a character they play, never for an NPC or a side of
several."""

from __future__ import annotations

from bot.fate import challenge as challenges
from bot.fate import contest as contests
from bot.services.challenges import ChallengeState
from bot.services.contests import ContestState
from bot.services.encounters import Member, NextUp

ALICE, BOB, GM = 11, 22, 99
MEMBERS = {
    "molly": Member(character_id=1, owner_id=ALICE, name="Molly", is_npc=False),
    "charles": Member(character_id=2, owner_id=BOB, name="Charles", is_npc=False),
    "ghoul": Member(character_id=3, owner_id=GM, name="Ghoul", is_npc=True),
}


def contest(*sides: tuple[str, list[str]]) -> ContestState:
    built = [contests.ContestSide(key=k, name=f"Side {k}", members=m) for k, m in sides]
    state, _ = contests.start_contest("c1", built, 3)
    return ContestState(contest=state, members=MEMBERS)


def test_a_contest_waits_on_the_one_side_left_to_roll() -> None:
    state = contest(("a", ["molly"]), ("b", ["ghoul"]))
    assert state.next_up() is None  # nobody rolled yet: either side may
    state.contest, _ = contests.roll(state.contest, "b", "ghoul", 2)
    assert state.next_up() == NextUp((1, "a"), "Molly", ALICE)
    state.contest, _ = contests.roll(state.contest, "a", "molly", 1)
    assert state.next_up() is None  # everyone rolled: resolve

    npc_left = contest(("a", ["molly"]), ("b", ["ghoul"]))
    npc_left.contest, _ = contests.roll(npc_left.contest, "a", "molly", 3)
    assert npc_left.next_up() == NextUp((1, "b"), "Ghoul", None)  # the GM plays it: no ping

    several = contest(("a", ["molly", "charles"]), ("b", ["ghoul"]))
    several.contest, _ = contests.roll(several.contest, "b", "ghoul", 0)
    assert several.next_up() == NextUp((1, "a"), "Side a", None)  # the side decides who


def test_a_challenge_waits_on_the_next_assigned_task_once_one_is_rolled() -> None:
    tasks, _ = challenges.start_challenge("h1", [("Lore", 3, ""), ("Athletics", 2, "")])
    state = ChallengeState(challenge=tasks, members=MEMBERS)
    state.challenge, _ = challenges.assign(state.challenge, "t2", "charles")
    assert state.next_up() is None  # before the first roll
    state.challenge, _ = challenges.record_roll(state.challenge, "t1", "molly", 4)
    assert state.next_up() == NextUp(("t2",), "Charles", BOB)
    state.challenge, _ = challenges.assign(state.challenge, "t2", "ghoul")
    assert state.next_up() == NextUp(("t2",), "Ghoul", None)
    state.stopped = True
    assert state.next_up() is None
