"""Contests: sides race for victories, one overcome roll per side per exchange.

Helpers may give teamwork or try to create an advantage first (each participant once per
exchange). A failed advantage costs the side its roll, or (success at a cost) gives the other
side a free invoke. Teamwork helpers share the hits their side's roll takes.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from bot.errors import RuleError
from bot.fate.aspects import Event, OutcomeKind, classify

DEFAULT_VICTORIES = 3
MIN_VICTORIES, MAX_VICTORIES = 1, 5
MAX_SIDES = 6


class ContestError(RuleError):
    """A contest step the rules do not allow."""


class FailedAdvantage(StrEnum):
    FORFEIT_ROLL = "forfeit_roll"
    GIVE_FREE_INVOKE = "give_free_invoke"


class ContestSide(BaseModel):
    key: str
    name: str
    intent: str = ""
    members: list[str]
    victories: int = 0
    harms_others: bool = False  # losers against this side take hits


class SideRoll(BaseModel):
    roller: str
    effort: int
    difficulty: int | None = None  # passive difficulty; None = compared with the other sides


class ExchangeDraft(BaseModel):
    number: int = 1
    rolls: dict[str, SideRoll] = Field(default_factory=dict)
    forfeited: list[str] = Field(default_factory=list)
    helpers: dict[str, list[str]] = Field(default_factory=dict)  # side -> teamwork helpers
    advantage_tries: list[str] = Field(default_factory=list)  # members who tried one already


class Contest(BaseModel):
    id: str
    sides: list[ContestSide]
    victories_needed: int = DEFAULT_VICTORIES
    exchange: ExchangeDraft = Field(default_factory=ExchangeDraft)
    twists: list[str] = Field(default_factory=list)
    winner: str | None = None

    def side(self, key: str) -> ContestSide:
        for side in self.sides:
            if side.key == key:
                return side
        raise ContestError("There is no such side in this contest.")


def start_contest(
    contest_id: str, sides: list[ContestSide], victories_needed: int = DEFAULT_VICTORIES
) -> tuple[Contest, list[Event]]:
    if not MIN_VICTORIES <= victories_needed <= MAX_VICTORIES:
        raise ContestError(f"Pick {MIN_VICTORIES} to {MAX_VICTORIES} victories to win.")
    if not 2 <= len(sides) <= MAX_SIDES:
        raise ContestError(f"A contest needs 2 to {MAX_SIDES} sides.")
    if len({s.key for s in sides}) != len(sides) or any(not s.members for s in sides):
        raise ContestError("Every side needs its own name and at least one member.")
    state = Contest(id=contest_id, sides=sides, victories_needed=victories_needed)
    return state, [
        Event(
            kind="contest_started",
            text=f"A contest to {victories_needed} victories begins.",
            data={"needed": victories_needed},
        )
    ]


def _open_side(state: Contest, side_key: str, member: str) -> ContestSide:
    if state.winner is not None:
        raise ContestError("This contest is over.")
    side = state.side(side_key)
    if member not in side.members:
        raise ContestError(f"That character is not on {side.name}.")
    return side


def try_advantage(
    state: Contest,
    side_key: str,
    actor: str,
    outcome: OutcomeKind,
    on_fail: FailedAdvantage | None = FailedAdvantage.GIVE_FREE_INVOKE,
) -> tuple[Contest, list[Event]]:
    """Record a participant's one create-an-advantage attempt this exchange, made before the
    side's roll. A failure is settled with `on_fail` at once, or, when it is None, later with
    `settle_failed_advantage` once the side has chosen."""
    side = _open_side(state, side_key, actor)
    if side_key in state.exchange.rolls:
        raise ContestError("Create advantages before your side's roll, not after.")
    if actor in state.exchange.advantage_tries:
        raise ContestError(
            "Each participant tries to create an advantage once per exchange, and this one "
            "already has: roll for the side or give teamwork instead, and try again next exchange."
        )
    tries = [*state.exchange.advantage_tries, actor]
    state = state.model_copy(
        update={"exchange": state.exchange.model_copy(update={"advantage_tries": tries})}
    )
    if outcome is not OutcomeKind.FAIL:
        return state, [
            Event(
                kind="advantage",
                text="Advantage created.",
                who=actor,
                data={"outcome": outcome.value},
            )
        ]
    if on_fail is None:
        return state, [
            Event(
                kind="advantage_failed",
                text=f"{side.name} must forfeit its roll or give the other side a free invoke.",
                who=actor,
            )
        ]
    return settle_failed_advantage(state, side_key, actor, on_fail)


def settle_failed_advantage(
    state: Contest, side_key: str, actor: str, on_fail: FailedAdvantage
) -> tuple[Contest, list[Event]]:
    """The side's choice after a failed advantage: forfeit its roll, or succeed at a cost."""
    side = _open_side(state, side_key, actor)
    if side_key in state.exchange.rolls:
        raise ContestError("Your side already rolled this exchange.")
    if on_fail is FailedAdvantage.FORFEIT_ROLL:
        draft = state.exchange.model_copy(
            update={"forfeited": [*state.exchange.forfeited, side_key]}
        )
        return state.model_copy(update={"exchange": draft}), [
            Event(
                kind="roll_forfeited",
                text=f"{side.name} forfeits its roll this exchange.",
                who=actor,
            )
        ]
    others = [s.key for s in state.sides if s.key != side_key]
    return state, [
        Event(
            kind="free_invoke_for_opponents",
            text="Success at a cost: the other side gets a free invoke.",
            who=actor,
            data={"for_sides": ",".join(others)},
        )
    ]


def forfeit_roll(state: Contest, side_key: str) -> tuple[Contest, list[Event]]:
    """A side with nobody left to roll (all taken out) forfeits its roll this exchange."""
    if state.winner is not None:
        raise ContestError("This contest is over.")
    side = state.side(side_key)
    if side_key in state.exchange.rolls or side_key in state.exchange.forfeited:
        return state, []
    draft = state.exchange.model_copy(update={"forfeited": [*state.exchange.forfeited, side_key]})
    return state.model_copy(update={"exchange": draft}), [
        Event(
            kind="roll_forfeited",
            text=f"{side.name} has nobody left to roll and forfeits the exchange.",
            who=side_key,
        )
    ]


def add_teamwork(state: Contest, side_key: str, helper: str) -> tuple[Contest, list[Event]]:
    """A helper with at least Average in the skill adds +1 (the roll service adds the bonus)."""
    _open_side(state, side_key, helper)
    helpers = dict(state.exchange.helpers)
    if helper in helpers.get(side_key, []):
        raise ContestError("You already help this exchange.")
    roll = state.exchange.rolls.get(side_key)
    if roll is not None:
        raise ContestError("Your side already rolled; help before the roll.")
    helpers[side_key] = [*helpers.get(side_key, []), helper]
    return state.model_copy(
        update={"exchange": state.exchange.model_copy(update={"helpers": helpers})}
    ), [Event(kind="teamwork", text="Teamwork: +1 to the side's roll.", who=helper)]


def teamwork_bonus(helpers_with_skill: int, highest_skill: int) -> int:
    """+1 per helper with Average (+1) or better, capped at the leader's skill rating."""
    return max(0, min(helpers_with_skill, highest_skill))


def roll(
    state: Contest, side_key: str, roller: str, effort: int, difficulty: int | None = None
) -> tuple[Contest, list[Event]]:
    side = _open_side(state, side_key, roller)
    draft = state.exchange
    if side_key in draft.forfeited:
        raise ContestError(f"{side.name} forfeited its roll this exchange.")
    if side_key in draft.rolls:
        raise ContestError(f"{side.name} already rolled this exchange; only one roll per side.")
    if roller in draft.helpers.get(side_key, []):
        raise ContestError("You gave teamwork this exchange; someone else on your side rolls.")
    rolls = {**draft.rolls, side_key: SideRoll(roller=roller, effort=effort, difficulty=difficulty)}
    return state.model_copy(update={"exchange": draft.model_copy(update={"rolls": rolls})}), [
        Event(
            kind="contest_roll",
            text=f"{side.name} rolls {effort:+d}.",
            who=roller,
            data={"effort": effort},
        )
    ]


def _style(key: str, rolls: dict[str, SideRoll]) -> bool:
    mine = rolls[key]
    if mine.difficulty is not None:
        return classify(mine.effort, mine.difficulty) is OutcomeKind.SUCCESS_WITH_STYLE
    others = [r.effort for k, r in rolls.items() if k != key]
    return bool(others) and mine.effort - max(others) >= 3


def resolve_exchange(
    state: Contest, twist_aspect: str | None = None
) -> tuple[Contest, list[Event]]:
    """Compare the efforts; a tie at the top needs the GM's twist aspect."""
    if state.winner is not None:
        raise ContestError("This contest is over.")
    draft = state.exchange
    missing = [
        s.name for s in state.sides if s.key not in draft.rolls and s.key not in draft.forfeited
    ]
    if missing:
        raise ContestError(f"Waiting for a roll from: {', '.join(missing)}.")
    rolls = draft.rolls
    events: list[Event] = []
    sides = list(state.sides)
    twists = list(state.twists)
    if rolls:
        best = max(r.effort for r in rolls.values())
        leaders = [k for k, r in rolls.items() if r.effort == best]
        if len(leaders) > 1:
            text = " ".join((twist_aspect or "").split())
            if not text:
                raise ContestError(
                    "A tie for the highest effort: add a twist aspect to resolve the exchange."
                )
            twists.append(text)
            events.append(Event(kind="twist", text=f"A tie; twist: {text}.", data={"aspect": text}))
        else:
            leader = leaders[0]
            styled = [k for k in rolls if _style(k, rolls)]
            gained = 2 if styled == [leader] else 1
            sides = [
                s.model_copy(update={"victories": s.victories + gained}) if s.key == leader else s
                for s in sides
            ]
            events.append(
                Event(
                    kind="victory",
                    text=f"{state.side(leader).name} marks {gained} victory(ies).",
                    who=leader,
                    data={"victories": gained},
                )
            )
        events += _hits(state, rolls)
    else:
        events.append(Event(kind="no_rolls", text="Every side forfeited; nobody marks a victory."))
    winner = next((s.key for s in sides if s.victories >= state.victories_needed), None)
    if winner is not None:
        events.append(
            Event(
                kind="contest_won", text=f"{state.side(winner).name} wins the contest.", who=winner
            )
        )
    updated = state.model_copy(
        update={
            "sides": sides,
            "twists": twists,
            "winner": winner,
            "exchange": ExchangeDraft(number=draft.number + 1),
        }
    )
    return updated, events


def _hits(state: Contest, rolls: dict[str, SideRoll]) -> list[Event]:
    """Where a side aims to harm, anyone it beats takes a hit of the shifts they lost by: the
    roller and, since supporters face the same consequences, each of their teamwork helpers."""
    events = []
    for harmer in state.sides:
        if not harmer.harms_others or harmer.key not in rolls:
            continue
        attacker = rolls[harmer.key].roller
        for victim in state.sides:
            if victim.key == harmer.key or victim.key not in rolls:
                continue
            shifts = rolls[harmer.key].effort - rolls[victim.key].effort
            if shifts <= 0:
                continue
            helpers = state.exchange.helpers.get(victim.key, [])
            for who in [rolls[victim.key].roller, *helpers]:
                events.append(
                    Event(
                        kind="contest_hit",
                        text=f"{victim.name} takes a {shifts}-shift hit.",
                        who=who,
                        data={"shifts": shifts, "attacker": attacker, "helper": who in helpers},
                    )
                )
    return events
