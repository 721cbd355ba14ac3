"""AI seats for either side. ``choose`` sees only the seat's private view (what that player
may know: the public table, its own hand and its own secrets) and the legal actions in it."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from bot.games.base import Action
from bot.games.vampire_empire.cards import NAMES

View = Mapping[str, Any]  # a seat's private view (its entries may be made when read)


def _values(view: View) -> dict[int, int]:
    return {c["card"]: c["value"] for c in view["hand"]}


def _castle(view: View) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in view["castle"]}


def suspicion(view: View) -> dict[str, float]:
    """The human player's estimate that each living character is a vampire, from public facts
    and the two known humans: revealed or dead vampires are certain, tested and known humans
    are cleared, the rest share the vampires not yet found; a character that keeps starting
    fights for the vampire player's turns draws a little more suspicion."""
    dead = {d["name"] for d in view["dead"]}
    found = {d["name"] for d in view["dead"] if d["vampire"]}
    revealed = {c["name"] for c in view["castle"] if c["revealed"]} | set(view["revealed_in_city"])
    cleared = set(view.get("known_humans", [])) | {n for n, v in view["tested"].items() if not v}
    cleared |= {d["name"] for d in view["dead"] if not d["vampire"]}
    unknown = [n for n in NAMES if n not in dead and n not in revealed and n not in cleared]
    missing = max(0, 3 - len(found) - len(revealed - found))
    base = missing / len(unknown) if unknown else 0.0
    scores = {}
    for name in NAMES:
        if name in dead:
            continue
        if name in revealed:
            scores[name] = 1.0
        elif name in cleared:
            scores[name] = 0.0
        else:
            scores[name] = min(0.95, base + 0.05 * view["attacks"].get(name, 0))
    return scores


def _fight_parts(action_id: str) -> tuple[str, str]:
    _, attacker, target = action_id.split(":")
    return NAMES[int(attacker)], NAMES[int(target)]


def choose(view: View, actions: list[Action], rng: random.Random) -> Action:
    """One of ``actions`` for the seat whose private ``view`` this is."""
    if not actions:
        raise ValueError("no legal action for this seat")
    phase = view["phase"]
    if phase == "discard":
        return _discard(view, actions, rng)
    if phase == "choose":
        best = max(view.get("choosing") or [], key=lambda c: c["value"], default=None)
        wanted = f"k:{best['card']}" if best else "k:none"
        return next((a for a in actions if a.id == wanted), actions[-1])
    if phase == "pay":
        return actions[0]  # the cheapest way to pay comes first
    if phase == "holy_attack":
        return actions[0]  # the first attacker that can win beats not attacking
    if phase == "combat":
        return _combat(view, actions, rng)
    return _turn(view, actions, rng)


def _discard(view: View, actions: list[Action], rng: random.Random) -> Action:
    values = _values(view)
    ones = [a for a in actions if a.kind == "discard" and values.get(int(a.id[2:])) == 1]
    if len(ones) >= 2 and rng.random() < 0.3:
        return ones[0]
    return next(a for a in actions if a.id == "draw")


def _turn(view: View, actions: list[Action], rng: random.Random) -> Action:
    by_kind: dict[str, list[Action]] = {}
    for action in actions:
        by_kind.setdefault(action.kind, []).append(action)
    if view["side"] == "vampires":
        return _vampire_turn(view, by_kind, rng)
    return _human_turn(view, by_kind, rng)


def _vampire_turn(view: View, by_kind: dict[str, list[Action]], rng: random.Random) -> Action:
    mine = set(view["vampires"])
    castle = _castle(view)
    shown = sum(1 for c in castle.values() if c["revealed"])
    vampire_cards = sum(c["value"] for c in view["hand"] if c["vampire"])
    for action in by_kind.get("reveal", []):
        name = NAMES[int(action.id[2:])]
        if name in castle and (shown + 1 >= 3 or (vampire_cards >= 5 and rng.random() < 0.3)):
            return action
    for action in by_kind.get("support", []):
        if "defence" in action.label and rng.random() < 0.5:
            target = NAMES[int(action.id.split(":")[2])]
            if target in mine:
                return action
    fights = by_kind.get("combat", [])
    humans = [a for a in fights if _fight_parts(a.id)[1] not in mine]
    hides = by_kind.get("hide", [])
    exposed = [a for a in hides if castle.get(NAMES[int(a.id[2:])], {}).get("revealed")]
    if exposed and (not humans or rng.random() < 0.4):
        return exposed[0]  # take a revealed vampire out of the holy water's reach
    if humans:
        # Bluff: attack with a hidden vampire or with a human alike, so fights tell little.
        return rng.choice(humans)
    if hides:
        # Hide a human to draw a new character (perhaps a vampire) into the castle.
        keep = [a for a in hides if NAMES[int(a.id[2:])] not in mine]
        return rng.choice(keep or hides)
    for kind in ("support", "combat", "pass"):
        if by_kind.get(kind):
            return by_kind[kind][0]
    return next(iter(by_kind.values()))[0]


def _human_turn(view: View, by_kind: dict[str, list[Action]], rng: random.Random) -> Action:
    scores = suspicion(view)
    castle = _castle(view)
    for action in by_kind.get("support", []):
        if "defence" in action.label and rng.random() < 0.5:
            target = NAMES[int(action.id.split(":")[2])]
            if scores.get(target, 1.0) == 0.0:
                return action
    fights = by_kind.get("combat", [])
    revealed = [a for a in fights if castle[_fight_parts(a.id)[1]]["revealed"]]
    if revealed:
        return revealed[0]
    waters = by_kind.get("holy_water", [])
    if waters:
        best = max(waters, key=lambda a: (scores.get(NAMES[int(a.id[2:])], 0), "castle" in a.label))
        if scores.get(NAMES[int(best.id[2:])], 0) >= 0.25:
            return best
    if fights:
        best = max(fights, key=lambda a: scores.get(_fight_parts(a.id)[1], 0) + rng.random() / 10)
        if scores.get(_fight_parts(best.id)[1], 0) > 0 or not waters:
            return best
    if waters:
        return waters[0]
    for kind in ("support", "pass"):
        if by_kind.get(kind):
            return by_kind[kind][0]
    return next(iter(by_kind.values()))[0]


def _combat(view: View, actions: list[Action], rng: random.Random) -> Action:
    combat = view["combat"]
    values = _values(view)
    done = next((a for a in actions if a.id == "done"), None)
    plays = sorted(
        (a for a in actions if a.kind == "play"), key=lambda a: -values.get(int(a.id[2:]), 0)
    )
    markers = [a for a in actions if a.kind == "support" and a.id.startswith("m:")]
    attacking = combat["side"] == view["side"]
    attack, defence = combat["attack"], combat["defence"]
    if attacking:
        wanted = defence + (2 if combat["round"] == 1 else 0)
        if attack <= wanted and markers:
            return markers[0]
        if attack <= wanted and plays:
            return plays[0]
        return done or plays[0]
    if view["side"] == "vampires":
        worth = combat["target"] in view["vampires"]
    else:
        worth = not next(c for c in view["castle"] if c["name"] == combat["target"])["revealed"]
        worth = worth or bool(combat["target"] in view.get("known_humans", []))
    if not worth:
        return done or actions[-1]
    reachable = defence + sum(values.get(int(a.id[2:]), 0) for a in plays)
    if reachable < attack:
        cancel = next((a for a in actions if a.id.startswith("n:")), None)
        if cancel is not None:
            return cancel
    if defence < attack and markers:
        return markers[0]
    if defence < attack and plays and reachable >= attack:
        return plays[0]
    return done or actions[-1]
