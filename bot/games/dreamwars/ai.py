"""An AI hero: goes for the scenario's objective, fights what stands in the way, heals when
hurt. It reads only the state a player at the table could see plus its own hero's cards."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from bot.games.base import Action
from bot.games.dreamwars.actions import FIST
from bot.games.dreamwars.board import TARGETING, Board
from bot.games.dreamwars.content import Effect
from bot.games.dreamwars.engine import PLAIN_TOWER

if TYPE_CHECKING:
    from bot.games.dreamwars.engine import DreamwarsEngine, _Ctx
    from bot.games.dreamwars.state import DwState, NemesisState

Ids = dict[str, None]  # the legal action ids, in order


class Moves(Protocol):
    """The legal ids the AI chooses among, by kind, each kind in the legal ids' order."""

    def has(self, id_: str) -> bool: ...
    def offered(self, keys: tuple[str, ...]) -> str | None: ...  # the first legal of these
    def choices(self) -> list[str]: ...  # a decision's options
    def steps(self) -> list[str]: ...
    def attacks(self) -> list[str]: ...  # hit:, shoot: and cannon:
    def spells(self) -> list[str]: ...
    def uses(self) -> list[str]: ...
    def boosts(self) -> list[str]: ...  # ally: and pres:
    def reloads(self) -> list[str]: ...
    def travels(self) -> list[str]: ...  # coach: and train:
    def rides(self) -> list[str]: ...


class ListedMoves:
    """``Moves`` out of a list of legal ids (the table's AI seat, which has them all)."""

    def __init__(self, ids: Ids) -> None:
        self.ids = ids

    def _starting(self, *prefixes: str) -> list[str]:
        return [a for a in self.ids if a.startswith(prefixes)]

    def has(self, id_: str) -> bool:
        return id_ in self.ids

    def offered(self, keys: tuple[str, ...]) -> str | None:
        for key in keys:
            if key in self.ids:
                return key
        return None

    def choices(self) -> list[str]:
        return list(self.ids)

    def steps(self) -> list[str]:
        return self._starting("step:")

    def attacks(self) -> list[str]:
        return self._starting("hit:", "shoot:", "cannon:")

    def spells(self) -> list[str]:
        return self._starting("sing:")

    def uses(self) -> list[str]:
        return self._starting("use:")

    def boosts(self) -> list[str]:
        return self._starting("pres:", "ally:")

    def reloads(self) -> list[str]:
        return self._starting("reload:")

    def travels(self) -> list[str]:
        return self._starting("coach:", "train:")

    def rides(self) -> list[str]:
        return self._starting("ride:")


EFFECT_WORTH = {
    "damage": -2.0,
    "lose_turn": -1.5,
    "summon": -1.5,
    "heal": 1.0,
    "draw": 1.2,
    "prestige": 0.8,
    "ally": 2.0,
}


def chance(value: int) -> float:
    """Probability of passing a test against ``value`` (a 1 always passes, a 6 never)."""
    if value <= 0:
        return 0.0
    return (value if value < 5 else 5) / 6


def _worth(effects: list[Effect]) -> float:
    total = 0.0  # (added up in a loop, in the same order as sum() would)
    for e in effects:
        total += EFFECT_WORTH.get(e.kind, 0.5) * max(1, e.amount)
    return total


def choose(engine: DreamwarsEngine, state: DwState, seat: str, rng: random.Random) -> Action:
    """The action an AI seat takes now, decided from what that seat may see."""
    ctx = engine._ctx(state)
    actions = engine.legal_actions_in(ctx, seat)  # the same context: its effects are kept
    if not actions:
        raise ValueError("no legal action for this seat")
    by_id = {a.id: a for a in actions}
    return by_id[choose_id(ctx, dict.fromkeys(by_id))]


def choose_id(ctx: _Ctx, ids: Ids) -> str:
    """The id of the action the active hero's AI takes among the legal ``ids`` (in their
    order), in a context that only looks."""
    return choose_move(ctx, ListedMoves(ids))


def choose_move(ctx: _Ctx, moves: Moves) -> str:
    """The id of the action the active hero's AI takes among the legal ``moves``, in a
    context that only looks."""
    state = ctx.s
    i = state.active
    hero = state.heroes[i]
    if state.decision is not None:
        return _decide(ctx, i, moves.choices())
    if hero.moving:
        return _toward(ctx, i, _goal(ctx, i), moves) or "stop"
    # Each pick chooses among the moves it is given: what it returns is legal. (The goal is
    # worked out by the picks that need it: seldom more than one a look.)
    for pick in (_survive, _objective_here, _fight, _boost, _travel, _meditate):
        choice = pick(ctx, i, moves)
        if choice is not None:
            return choice
    return "end"


def _decide(ctx: _Ctx, i: int, ids: list[str]) -> str:
    s = ctx.s
    hero = s.heroes[i]
    decision = s.decision
    assert decision is not None
    if decision.kind == "adventure":
        assert s.adventure is not None
        card = ctx.adventure(s.adventure)

        def score(option: str) -> float:
            if option == "gem:none":
                return 0.0
            approach = card.approaches[int(option[4:])]
            if approach.attack:
                p = chance(ctx.value(i, "melee") + approach.modifier)
            elif approach.test is not None:
                test = approach.test
                base = test.threshold if test.threshold is not None else ctx.value(i, test.stat)
                p = chance(base + test.modifier)
            else:
                p = 1.0
            return (
                p * _worth(approach.success)
                + (1 - p) * _worth(approach.failure)
                - (0.6 * approach.cost)
            )

        return max(ids, key=score)
    if decision.kind == "location":
        wounded = hero.wounds > 0
        if wounded and "healall" in ids and ctx.life(i) * 2 <= ctx.sheet(i).life:
            return "healall"
        if wounded and "heal1" in ids:
            return "heal1"
        if "trade" in ids and len(hero.shards) >= 2:
            return "trade"
        return "adventure" if "adventure" in ids else ids[0]
    if decision.kind == "keep":
        return max(ids, key=lambda o: _card_worth(ctx, i, o.removeprefix("keep:")))
    return min(ids, key=lambda o: _card_worth(ctx, i, o.removeprefix("drop:")))


TYPE_WORTH = {
    "weapon": 3.0,
    "armour": 2.5,
    "shield": 2.5,
    "cantico": 2.0,
    "vehicle": 1.5,
    "tool": 1.5,
    "addon": 1.0,
    "shard": 1.0,
}


def _card_worth(ctx: _Ctx, i: int, uid: str) -> float:
    card = ctx.item(uid)
    worth = TYPE_WORTH.get(card.type, 1.0)
    if card.deck == "tech" and ctx.sheet(i).tech == 0:
        worth = 0.1
    return worth + card.damage * 0.3 + card.range * 0.2


def _goal(ctx: _Ctx, i: int) -> str:
    s = ctx.s
    hero = s.heroes[i]
    board = ctx.board
    here = hero.node

    far = board.dist[here]
    if hero.door is not None or ctx.lib.heroes[hero.key].life - hero.wounds <= 1:  # ctx.life
        return _nearest(far, board.healing) or here
    for goal in ctx.lib.scenarios[s.scenario].victory:  # (ctx.scenario()'s)
        if goal.kind == "deliver":
            if hero.dreamstone:
                return goal.location or here
            for h in s.heroes:  # the first carrier
                if h.dreamstone and not h.dead:
                    if h.node:
                        return h.node
                    break
            if s.dropped_stone:
                return s.dropped_stone
            spot = _nearest(far, s.unknown)
            if spot:
                return spot
        if goal.kind == "supply":
            if hero.supply:
                return goal.location or here
            spot = _nearest(far, [k for k, v in s.supply_tokens.items() if v])
            if spot:
                return spot
        if goal.kind == "kill" and goal.marker:
            spot = _nearest(far, [n.node for n in s.nemeses if n.key == goal.marker])
            if spot:
                return spot
    if s.towers:
        return _nearest(far, [t.node for t in s.towers]) or here
    spot = _nearest(far, [n.node for n in s.nemeses])
    return spot or here


def _nearest(far: dict[str, int], nodes: Iterable[str]) -> str | None:
    """The nearest of ``nodes`` by the distances ``far`` (the first by name of the nearest)."""
    best: str | None = None
    best_far = 0
    for n in nodes:
        d = far.get(n, 99)
        if best is None or d < best_far or (d == best_far and n < best):
            best, best_far = n, d
    return best


def _toward(ctx: _Ctx, i: int, goal: str, moves: Moves) -> str | None:
    here = ctx.s.heroes[i].node
    if here == goal:
        return None
    steps = tuple(moves.steps())
    # The best of the same steps toward the same goal from the same space is the same: the
    # board keeps it (a moving hero asks at each step).
    known = ctx.board.toward
    key = (here, goal, steps)
    if key not in known:
        known[key] = best_step(ctx.board, here, goal, steps)
    return known[key]


def best_step(board: Board, here: str, goal: str, steps: tuple[str, ...]) -> str | None:
    """The step among ``steps`` (``step:<space>`` ids) that gets closer to ``goal`` from
    ``here``: dry land and bridges before a river crossing, then the nearest, then the first
    space by name."""
    dist = board.dist
    rivers = board.rivers
    now = dist[here].get(goal, 99)
    best: tuple[bool, int, str] | None = None
    chosen = None
    for step in steps:
        n = step[5:]
        d = dist[n].get(goal, 99)
        if d < now:
            key = (n in rivers, d, n)
            if best is None or key < best:
                best, chosen = key, step
    return chosen


def _survive(ctx: _Ctx, i: int, moves: Moves) -> str | None:
    hero = ctx.s.heroes[i]
    if ctx.lib.heroes[hero.key].life - hero.wounds > 2 and hero.door is None:  # ctx.life's
        return None
    for key in moves.uses():
        used = key[4:].partition(":")[0]
        for e in ctx.lib.items[ctx.s.cards[used]].effects:  # (ctx.item's)
            if e.kind == "heal":
                return key
    if hero.door is not None:
        return _toward(ctx, i, _goal(ctx, i), moves) if not hero.moved else None
    return None


def _objective_here(ctx: _Ctx, i: int, moves: Moves) -> str | None:
    return moves.offered(("pickstone", "reveal", "pickup"))


def _fight(ctx: _Ctx, i: int, moves: Moves) -> str | None:
    attacks = moves.attacks()
    spells = moves.spells()
    if not attacks and not spells:
        return None

    # The first of the best scores; the further targets chosen (after a third colon) do not
    # count: one score for all of an attack's choices.
    scores: dict[str, float] = {}
    best: str | None = None
    best_score = 0.0
    foes: dict[str, NemesisState] = {}
    if attacks:  # (every uid is another marker's: "n" and "t" and a number never reused)
        foes = {n.uid: n for n in ctx.s.nemeses}
        if ctx.s.towers:
            foes.update({t.uid: t for t in ctx.s.towers})
    for action_id in attacks:
        key = action_id.rpartition(":")[0] if action_id.count(":") > 2 else action_id
        known = scores.get(key)
        if known is None:
            known = scores[key] = _attack_score(ctx, i, foes, key)
        if best is None or known > best_score:
            best, best_score = action_id, known
    for spell in spells:
        card = ctx.lib.items[ctx.s.cards[spell[5:].partition(":")[0]]]  # (ctx.item's)
        if _useful(ctx, i, card.effects) and (
            best is None or chance(ctx.value(i, "arcane")) > best_score
        ):
            return spell
    return best


def _useful(ctx: _Ctx, i: int, effects: list[Effect]) -> bool:
    """Whether a Cantico's effects would do something now: reach a Nemesis, or heal."""
    for e in effects:  # (a loop: a generator in any() costs more than the few effects)
        kind = e.kind
        if kind in TARGETING:
            if ctx.targets_in_reach(i, e.range):
                return True
        elif kind == "heal" and ctx.s.heroes[i].wounds:
            return True
    return False


def _attack_score(ctx: _Ctx, i: int, foes: dict[str, NemesisState], action_id: str) -> float:
    """What an attack (its id without further targets) is worth: the chance to hit times the
    damage that counts, and a bonus for a kill."""
    verb, _, rest = action_id.partition(":")
    target_uid, _, weapon = rest.partition(":")
    foe = foes.get(target_uid)
    if foe is None:
        return -1.0
    if verb == "cannon":
        return chance(ctx.value(i, "tech")) * 2.2
    marker = PLAIN_TOWER if foe.key == "siege_tower" else ctx.lib.markers[foe.key]  # ctx.marker's
    armour = 1 if verb == "hit" and "heavy_armour" in marker.abilities else 0
    if weapon == FIST:
        weapon_uid = None
        stat = "melee" if verb == "hit" else "skill"
        damage = 1
    else:
        weapon_uid = weapon
        card = ctx.lib.items[ctx.s.cards[weapon]]  # ctx.item's
        stat = "melee" if verb == "hit" else ("tech" if card.deck == "tech" else "skill")
        damage = card.damage
    left = marker.life - foe.wounds
    value = ctx.value(i, stat, weapon_uid) - armour
    hit = 0.0 if value <= 0 else (value if value < 5 else 5) / 6  # chance(value), inline
    return hit * (damage if damage < left else left) + (0.5 if left <= damage else 0.0)


def _boost(ctx: _Ctx, i: int, moves: Moves) -> str | None:
    hero = ctx.s.heroes[i]
    if not hero.allies and not hero.unlocked:
        return None  # (most heroes: no Ally to call, no Prestige to use or reload)
    for key in moves.boosts():
        effects = (
            _prestige_effects(ctx, i, key[5:])
            if key.startswith("pres:")
            else ctx.adventure(key[5:]).abilities
        )
        for effect in effects:
            if effect.kind == "heal" and hero.wounds:
                return key
            if effect.kind == "draw" and ctx.load(i) < ctx.sheet(i).max_load:
                return key
            if effect.kind == "wound_nemesis" and ctx.targets_in_reach(i, effect.range):
                return key
    if hero.actions >= 2:
        for key in moves.reloads():
            return key
    return None


def _prestige_effects(ctx: _Ctx, i: int, key: str) -> list[Effect]:
    for ability in ctx.sheet(i).prestige:
        if ability.key == key:
            return ability.effects
    raise KeyError(key)  # (never: the ids name the hero's own abilities)


def _travel(ctx: _Ctx, i: int, moves: Moves) -> str | None:
    hero = ctx.s.heroes[i]
    board = ctx.board
    travels = moves.travels()
    if not travels and not moves.steps() and (hero.moved or not moves.rides()):
        return None  # no way to go anywhere: the goal does not matter
    to = _goal(ctx, i)
    if hero.node == to:
        return None
    far = board.distance(hero.node, to)
    for key in travels:
        if board.distance(key.split(":")[1], to) + 2 < far:
            return key
    if not hero.moved and far > ctx.value(i, "movement"):
        for key in moves.rides():
            return key
    return _toward(ctx, i, to, moves)


def _meditate(ctx: _Ctx, i: int, moves: Moves) -> str | None:
    hero = ctx.s.heroes[i]
    if len(hero.cantici) >= ctx.sheet(i).max_cantici:
        return None
    return moves.offered(("meditate3", "meditate"))
