"""A conflict: elective turn order, attacks awaiting a defence, absorbing hits, concessions.

Every function takes the state and returns a new state plus events; the state is never mutated.
Efforts arrive already rolled (dice, skill, invokes and stunts are the roll service's business).
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from bot.errors import RuleError
from bot.fate.aspects import Event, OutcomeKind, classify
from bot.fate.economy import FatePointChange, Reason
from bot.fate.harm import AbsorbChoice, AbsorbResult, HarmType, absorb_hit
from bot.fate.tracks import Track
from bot.fate.words import plural

MAX_COMBATANTS = 20


class ConflictError(RuleError):
    """A conflict step the rules do not allow."""


class ConflictKind(StrEnum):
    PHYSICAL = "physical"
    MENTAL = "mental"


class Status(StrEnum):
    ACTIVE = "active"
    CONCEDED = "conceded"
    TAKEN_OUT = "taken_out"


class Phase(StrEnum):
    ACTING = "acting"  # `current` takes their turn
    DEFENDING = "defending"  # an attack is rolled; the defender must roll
    ABSORBING = "absorbing"  # the hit landed; the defender chooses how to absorb it
    CHOOSING_NEXT = "choosing_next"  # the GM picks who acts (the actor left the conflict)
    ENDED = "ended"


class Combatant(BaseModel):
    id: str
    name: str
    side: str
    is_npc: bool = False
    # rules: only a major NPC or a monster brings its concession's and its hostile invokes'
    # fate points to the GM's pool; a minor NPC's bring nothing
    minor: bool = False
    zone: str | None = None
    status: Status = Status.ACTIVE
    consequences_taken: int = 0


class PendingAttack(BaseModel):
    attacker: str
    defender: str
    attack_effort: int
    defence_effort: int | None = None
    shifts: int = 0
    boost_traded: bool = False


class Payout(BaseModel):
    """Fate points owed when the conflict ends. NPC payouts go to the GM's carried points."""

    change: FatePointChange
    is_npc: bool


class Conflict(BaseModel):
    id: str
    kind: ConflictKind
    combatants: list[Combatant]
    adjacency: dict[str, list[str]] = Field(default_factory=dict)
    exchange: int = 1
    acted: list[str] = Field(default_factory=list)
    current: str | None = None
    phase: Phase = Phase.ACTING
    action_used: bool = False
    free_move_used: bool = False
    pending: PendingAttack | None = None
    payouts: list[Payout] = Field(default_factory=list)
    winner_side: str | None = None

    @property
    def harm(self) -> HarmType:
        return HarmType(self.kind.value)

    def combatant(self, combatant_id: str) -> Combatant:
        for person in self.combatants:
            if person.id == combatant_id:
                return person
        raise ConflictError("That character is not in this conflict.")

    def active(self) -> list[Combatant]:
        return [c for c in self.combatants if c.status is Status.ACTIVE]

    def waiting(self) -> list[Combatant]:
        """Active combatants who have not acted this exchange (and are not acting now)."""
        return [c for c in self.active() if c.id not in self.acted and c.id != self.current]


def _event(kind: str, text: str, who: str | None = None, **data: int | str | bool | None) -> Event:
    return Event(kind=kind, text=text, who=who, data=data)


def _boost(text: str, holder: str, name: str, **data: int | str | bool | None) -> Event:
    """A boost for `holder`; `name` is the start of its aspect's name ("Opening for Molly")."""
    return _event("boost", text, holder, boost_for=holder, boost_name=name, **data)


def _update(state: Conflict, **changes: object) -> Conflict:
    return state.model_copy(update=changes)


def _replace(state: Conflict, person: Combatant) -> list[Combatant]:
    return [person if c.id == person.id else c for c in state.combatants]


def start_conflict(
    conflict_id: str,
    kind: ConflictKind,
    combatants: list[Combatant],
    first_actor: str,
    adjacency: dict[str, list[str]] | None = None,
) -> tuple[Conflict, list[Event]]:
    if len(combatants) > MAX_COMBATANTS:
        raise ConflictError(f"A conflict holds at most {MAX_COMBATANTS} characters.")
    if len({c.id for c in combatants}) != len(combatants):
        raise ConflictError("A character is listed twice.")
    if len({c.side for c in combatants}) < 2:
        raise ConflictError("A conflict needs at least two sides.")
    state = Conflict(
        id=conflict_id, kind=kind, combatants=combatants, adjacency=dict(adjacency or {})
    )
    state.combatant(first_actor)
    state = _update(state, current=first_actor)
    return state, [
        _event("conflict_started", f"A {kind.value} conflict begins.", first_actor, exchange=1),
        _event("turn", f"{state.combatant(first_actor).name} acts first.", first_actor, exchange=1),
    ]


def _require_open(state: Conflict) -> None:
    if state.phase is Phase.ENDED:
        raise ConflictError("This conflict is over.")


def _require_turn(state: Conflict, actor: str, *, action: bool = True) -> None:
    _require_open(state)
    if state.phase is not Phase.ACTING:
        raise ConflictError("Finish the attack in progress first (defence or absorbing the hit).")
    if state.current != actor:
        raise ConflictError("It is not your turn.")
    if action and state.action_used:
        raise ConflictError("You already took your action this turn; pick who goes next.")


# --- actions ---------------------------------------------------------------------------


def attack(
    state: Conflict, attacker: str, defender: str, effort: int
) -> tuple[Conflict, list[Event]]:
    """The attacker has rolled; the defender is asked to defend."""
    _require_turn(state, attacker)
    target = state.combatant(defender)
    if defender == attacker:
        raise ConflictError("Pick someone other than yourself to attack.")
    if target.status is not Status.ACTIVE:
        raise ConflictError(f"{target.name} is already out of the conflict.")
    pending = PendingAttack(attacker=attacker, defender=defender, attack_effort=effort)
    state = _update(state, pending=pending, phase=Phase.DEFENDING, action_used=True)
    return state, [
        _event(
            "attack",
            f"Attack on {target.name}: effort {effort:+d}.",
            attacker,
            target=defender,
            effort=effort,
        )
    ]


def defend(state: Conflict, defender: str, effort: int) -> tuple[Conflict, list[Event]]:
    _require_open(state)
    if state.phase is not Phase.DEFENDING or state.pending is None:
        raise ConflictError("There is no attack waiting for a defence.")
    if state.pending.defender != defender:
        raise ConflictError("Only the character under attack can defend against it.")
    return _resolve(state, state.pending.model_copy(update={"defence_effort": effort}))


def _resolve(state: Conflict, pending: PendingAttack) -> tuple[Conflict, list[Event]]:
    assert pending.defence_effort is not None
    outcome = classify(pending.attack_effort, pending.defence_effort)
    attacker, defender = pending.attacker, pending.defender
    events = [
        _event(
            "defence",
            f"Defence {pending.defence_effort:+d} against attack {pending.attack_effort:+d}.",
            defender,
            outcome=outcome.value,
        )
    ]
    if outcome is OutcomeKind.FAIL:
        if pending.defence_effort - pending.attack_effort >= 3:
            events.append(defended_with_style(defender))
        events.append(_event("missed", "The attack does not land.", attacker))
        return _update(state, pending=None, phase=Phase.ACTING), events
    if outcome is OutcomeKind.TIE:
        events.append(_boost("A tie: the attacker gets a boost.", attacker, "Opening"))
        return _update(state, pending=None, phase=Phase.ACTING), events
    shifts = pending.attack_effort - pending.defence_effort - (1 if pending.boost_traded else 0)
    pending = pending.model_copy(update={"shifts": shifts})
    events.append(
        _event(
            "hit",
            f"A {shifts}-shift hit.",
            defender,
            shifts=shifts,
            style=outcome is OutcomeKind.SUCCESS_WITH_STYLE,
        )
    )
    return _update(state, pending=pending, phase=Phase.ABSORBING), events


def defended_with_style(defender: str) -> Event:
    """A defence that beats the attack or the advantage by three or more: the action is
    denied and the defender gets a boost."""
    return _boost("Defended with style: a boost.", defender, "Sure footing")


def invoke_on_attack(state: Conflict, who: str, bonus: int) -> tuple[Conflict, list[Event]]:
    """An invoke after both dice are down (attacker to push the hit, defender to soften it)."""
    _require_open(state)
    pending = state.pending
    if state.phase is not Phase.ABSORBING or pending is None:
        raise ConflictError("Invokes after the defence are only possible while a hit waits.")
    if pending.boost_traded:
        raise ConflictError("The hit's shifts were already traded for a boost; no more invokes.")
    if who == pending.attacker:
        pending = pending.model_copy(update={"attack_effort": pending.attack_effort + bonus})
    elif who == pending.defender:
        assert pending.defence_effort is not None
        pending = pending.model_copy(update={"defence_effort": pending.defence_effort + bonus})
    else:
        raise ConflictError("Only the attacker or the defender can invoke on this attack.")
    state, events = _resolve(state, pending)
    return state, [_event("invoke", f"Invoke for {bonus:+d}.", who, bonus=bonus), *events]


def trade_shift_for_boost(state: Conflict, attacker: str) -> tuple[Conflict, list[Event]]:
    """An attack with style may give up one shift of the hit for a boost."""
    pending = state.pending
    if state.phase is not Phase.ABSORBING or pending is None or pending.attacker != attacker:
        raise ConflictError("Only the attacker of a hit waiting to be absorbed can do that.")
    assert pending.defence_effort is not None
    if (
        classify(pending.attack_effort, pending.defence_effort)
        is not OutcomeKind.SUCCESS_WITH_STYLE
    ):
        raise ConflictError(
            "Only an attack that succeeded with style can trade a shift for a boost."
        )
    if pending.boost_traded:
        raise ConflictError("That hit was already reduced for a boost.")
    pending = pending.model_copy(update={"boost_traded": True, "shifts": pending.shifts - 1})
    return _update(state, pending=pending), [
        _boost(
            f"One shift traded for a boost; the hit is {pending.shifts}.",
            attacker,
            "Momentum",
            shifts=pending.shifts,
        )
    ]


def absorb(
    state: Conflict, defender_tracks: list[Track], choice: AbsorbChoice
) -> tuple[Conflict, list[Event], AbsorbResult]:
    """The defender's absorb choice (harm.absorb_hit); taken out if they will not absorb."""
    pending = state.pending
    if state.phase is not Phase.ABSORBING or pending is None:
        raise ConflictError("There is no hit waiting to be absorbed.")
    result = absorb_hit(
        defender_tracks,
        state.harm,
        pending.shifts,
        choice,
        defender=pending.defender,
        attacker=pending.attacker,
    )
    person = state.combatant(pending.defender)
    if result.taken_out:
        person = person.model_copy(update={"status": Status.TAKEN_OUT})
    else:
        person = person.model_copy(
            update={"consequences_taken": person.consequences_taken + len(result.new_aspects)}
        )
    state = _update(state, combatants=_replace(state, person), pending=None, phase=Phase.ACTING)
    state, end_events = _maybe_end(state)
    return state, [*result.events, *end_events], result


def overcome(
    state: Conflict, actor: str, effort: int, difficulty: int
) -> tuple[Conflict, list[Event]]:
    """Uses the actor's action; with style it is a success and a boost for the actor too."""
    _require_turn(state, actor)
    outcome = classify(effort, difficulty)
    events = [
        _event(
            "overcome",
            f"Overcome: {outcome.value.replace('_', ' ')}.",
            actor,
            outcome=outcome.value,
            effort=effort,
        )
    ]
    if outcome is OutcomeKind.SUCCESS_WITH_STYLE:
        events.append(_boost("Overcome with style: a boost.", actor, "Head start"))
    return _update(state, action_used=True), events


def create_advantage(
    state: Conflict, actor: str, outcome: OutcomeKind
) -> tuple[Conflict, list[Event]]:
    """Uses the actor's action; the aspect itself is made with bot.fate.aspects."""
    _require_turn(state, actor)
    return _update(state, action_used=True), [
        _event("create_advantage", "Create an advantage.", actor, outcome=outcome.value)
    ]


def move(
    state: Conflict,
    actor: str,
    to_zone: str,
    *,
    impeded: bool = False,
    overcome_effort: int | None = None,
    difficulty: int | None = None,
) -> tuple[Conflict, list[Event]]:
    """A free move to an adjacent zone; a long move (anywhere on the map) or a second one takes
    the action; an impeded move takes the action and an overcome (a tie costs a minor cost,
    with style the mover gets a boost as for any overcome)."""
    _require_turn(state, actor, action=False)
    if to_zone not in state.adjacency:
        raise ConflictError(f"There is no zone '{to_zone}' in this conflict.")
    person = state.combatant(actor)
    if person.zone == to_zone:
        raise ConflictError("You are already in that zone.")
    adjacent = person.zone is not None and to_zone in state.adjacency.get(person.zone, [])
    if adjacent and not impeded:
        if state.free_move_used:
            raise ConflictError("You already moved this turn; another move takes your action.")
        moved = person.model_copy(update={"zone": to_zone})
        return _update(state, combatants=_replace(state, moved), free_move_used=True), [
            _event("moved", f"{person.name} moves.", actor, zone=to_zone)
        ]
    if state.action_used:
        raise ConflictError("That move takes your action, and you already used it this turn.")
    if not impeded:  # rules: "use your action to move anywhere on the map"
        moved = person.model_copy(update={"zone": to_zone})
        return _update(state, combatants=_replace(state, moved), action_used=True), [
            _event("moved", f"{person.name} moves, using the action.", actor, zone=to_zone)
        ]
    if overcome_effort is None or difficulty is None:
        raise ConflictError("That move is impeded: roll an overcome against the GM's difficulty.")
    outcome = classify(overcome_effort, difficulty)
    if outcome is OutcomeKind.FAIL:
        return _update(state, action_used=True), [
            _event("move_failed", f"{person.name} does not get through.", actor, zone=to_zone)
        ]
    moved = person.model_copy(update={"zone": to_zone})
    events = [_event("moved", f"{person.name} moves.", actor, zone=to_zone, outcome=outcome.value)]
    if outcome is OutcomeKind.TIE:
        events.append(_event("minor_cost", "Made it, at a minor cost.", actor))
    if outcome is OutcomeKind.SUCCESS_WITH_STYLE:  # an overcome like any other: plus a boost
        events.append(_boost("Overcome with style: a boost.", actor, "Head start"))
    return _update(state, combatants=_replace(state, moved), action_used=True), events


def support(state: Conflict, helper: str, roller: str) -> tuple[Conflict, list[Event]]:
    """Teamwork: `helper` adds to `roller`'s roll, which uses the helper's action this exchange.

    The +1 itself (and its cap) is bot.fate.rolls.add_teamwork's business."""
    _require_open(state)
    person = state.combatant(helper)
    rolling = state.combatant(roller)
    if helper == roller:
        raise ConflictError("You are making this roll; teamwork comes from another character.")
    if person.status is not Status.ACTIVE:
        raise ConflictError(f"{person.name} is out of the conflict and cannot help.")
    if person.side != rolling.side:
        raise ConflictError(f"{person.name} is not on {rolling.name}'s side.")
    if helper == state.current or helper in state.acted:
        raise ConflictError(
            f"{person.name} already used their action this exchange; helping takes it."
        )
    return _update(state, acted=[*state.acted, helper]), [
        _event(
            "support",
            f"{person.name} helps {rolling.name} (this uses their action for the exchange).",
            helper,
            roller=roller,
        )
    ]


# --- turn order --------------------------------------------------------------------------


def end_turn(state: Conflict, actor: str, next_actor: str) -> tuple[Conflict, list[Event]]:
    """The actor hands the turn to someone who has not acted; the last one opens the next exchange."""
    _require_turn(state, actor, action=False)
    return _hand_over(state, actor, next_actor)


def gm_pick_next(state: Conflict, next_actor: str) -> tuple[Conflict, list[Event]]:
    """When the actor left mid-turn (conceded), the GM picks who goes next."""
    _require_open(state)
    if state.phase is not Phase.CHOOSING_NEXT:
        raise ConflictError("The current actor picks who goes next.")
    return _hand_over(state, None, next_actor)


def _hand_over(state: Conflict, actor: str | None, next_actor: str) -> tuple[Conflict, list[Event]]:
    acted = [*state.acted, actor] if actor and actor not in state.acted else list(state.acted)
    state = _update(state, acted=acted, current=None)
    waiting = state.waiting()
    events: list[Event] = []
    chosen = state.combatant(next_actor)
    if chosen.status is not Status.ACTIVE:
        raise ConflictError(f"{chosen.name} is out of the conflict; pick someone still in it.")
    if waiting:
        if next_actor not in {c.id for c in waiting}:
            raise ConflictError(
                f"{chosen.name} already acted this exchange; pick someone who has not."
            )
    else:
        state = _update(state, exchange=state.exchange + 1, acted=[])
        events.append(
            _event("new_exchange", f"Exchange {state.exchange} begins.", exchange=state.exchange)
        )
    state = _update(
        state, current=next_actor, phase=Phase.ACTING, action_used=False, free_move_used=False
    )
    events.append(_event("turn", f"{chosen.name} acts next.", next_actor, exchange=state.exchange))
    return state, events


def standing(state: Conflict, combatant: Combatant) -> str:
    """Where a combatant stands this exchange, in a word or two ("acting now", "taken out")."""
    if combatant.status is Status.CONCEDED:
        return "conceded"
    if combatant.status is Status.TAKEN_OUT:
        return "taken out"
    if combatant.id == state.current:
        return "acting now"
    return "acted" if combatant.id in state.acted else "waiting"


def eligible_next(state: Conflict) -> list[Combatant]:
    """Who may be picked to go next (for the picker's buttons)."""
    if state.phase is Phase.ENDED:
        return []
    waiting = [c for c in state.waiting()]
    return waiting or state.active()


# --- leaving and ending -----------------------------------------------------------------------


def concede(state: Conflict, who: str) -> tuple[Conflict, list[Event]]:
    """Concede before the dice are rolled: 1 fate point plus 1 per consequence taken here,
    paid when the conflict ends."""
    _require_open(state)
    person = state.combatant(who)
    if person.status is not Status.ACTIVE:
        raise ConflictError(f"{person.name} is already out of the conflict.")
    if state.phase in (Phase.DEFENDING, Phase.ABSORBING):
        raise ConflictError(
            "The dice are already rolled for this attack; concede before the next roll."
        )
    points = 0 if person.minor else 1 + person.consequences_taken
    payouts = state.payouts
    if points:
        change = FatePointChange(who=who, delta=points, reason=Reason.CONCESSION, note=state.id)
        payouts = [*payouts, Payout(change=change, is_npc=person.is_npc)]
    person = person.model_copy(update={"status": Status.CONCEDED})
    state = _update(state, combatants=_replace(state, person), payouts=payouts)
    gains = f" and will gain {plural(points, 'fate point')}" if points else ""
    events = [_event("conceded", f"{person.name} concedes{gains}.", who, points=points)]
    if state.current == who:
        state = _update(state, current=None, phase=Phase.CHOOSING_NEXT)
    state, end_events = _maybe_end(state)
    if state.phase is Phase.CHOOSING_NEXT:
        end_events.append(_event("gm_picks", "The GM picks who acts next."))
    return state, events + end_events


def hostile_invoke(
    state: Conflict, invoker: str, aspect_owner: str
) -> tuple[Conflict, list[Event]]:
    """Someone invoked an aspect of `aspect_owner` against them: the owner gets 1 point at the end."""
    _require_open(state)
    state.combatant(invoker)
    owner = state.combatant(aspect_owner)
    if owner.minor:
        return state, []  # a minor NPC brings the GM nothing
    payout = Payout(
        change=FatePointChange(
            who=aspect_owner, delta=1, reason=Reason.HOSTILE_INVOKE_PAYOUT, note=state.id
        ),
        is_npc=owner.is_npc,
    )
    return _update(state, payouts=[*state.payouts, payout]), [
        _event(
            "hostile_invoke",
            f"{owner.name} is owed a fate point at the end of the conflict.",
            aspect_owner,
        )
    ]


def _maybe_end(state: Conflict) -> tuple[Conflict, list[Event]]:
    sides_left = {c.side for c in state.active()}
    if len(sides_left) > 1:
        return state, []
    winner = next(iter(sides_left)) if sides_left else None
    return _finish(state, winner)


def end_conflict(state: Conflict) -> tuple[Conflict, list[Event]]:
    """The GM ends the conflict early (the story moved on). Payouts still happen."""
    _require_open(state)
    if state.phase in (Phase.DEFENDING, Phase.ABSORBING):
        raise ConflictError("Finish the attack in progress before ending the conflict.")
    return _finish(state, None)


def _finish(state: Conflict, winner: str | None) -> tuple[Conflict, list[Event]]:
    state = _update(state, phase=Phase.ENDED, current=None, pending=None, winner_side=winner)
    events = [_event("conflict_ended", "The conflict is over.", winner=winner)]
    for payout in state.payouts:
        to_gm = " for the GM, in the next scene with them" if payout.is_npc else ""
        events.append(
            _event(
                "payout",
                f"+{plural(payout.change.delta, 'fate point')}{to_gm} "
                f"({payout.change.reason.value.replace('_', ' ')}).",
                payout.change.who,
                points=payout.change.delta,
            )
        )
    return state, events


def payouts_due(state: Conflict) -> list[Payout]:
    """What the service pays once the conflict has ended (PCs: ledger; NPCs: GM carried points)."""
    if state.phase is not Phase.ENDED:
        return []
    return list(state.payouts)


def scale_bonus(levels_above: int) -> dict[str, int]:
    """Scale: per level of difference, +1 before the roll, or +2 after a success, or one more
    free invoke on a successful create an advantage (the table picks one)."""
    levels = max(0, levels_above)
    return {"before_roll": levels, "after_success": 2 * levels, "extra_invokes": levels}
