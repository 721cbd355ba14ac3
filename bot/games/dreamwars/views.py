"""What the table sees (``public_view``) and what only a seat sees (``private_view``).

The public view names no Equipment card: it gives how many Items, Cantici and Shards each hero
carries, never which. Unknown tokens show where they lie, not which one is the Dreamstone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.games.dreamwars.state import DwState, HeroState

CHRONICLE_IN_VIEW = 20

if TYPE_CHECKING:
    from bot.games.dreamwars.engine import DreamwarsEngine, _Ctx


def public_view(engine: DreamwarsEngine, state: DwState) -> dict[str, Any]:
    """What everyone may see of the game."""
    ctx = engine._ctx(state)
    lib = ctx.lib
    scenario = ctx.scenario()
    great = lib.great[state.great]
    heroes = []
    for i, hero in enumerate(state.heroes):
        sheet = ctx.sheet(i)
        heroes.append(
            {
                "index": i,
                "key": hero.key,
                "name": sheet.name,
                "title": sheet.title,
                "seat": hero.seat,
                "node": hero.node,
                "place": ctx.board.nodes[hero.node].name if hero.node else "",
                "life": ctx.life(i),
                "max_life": sheet.life,
                "door": hero.door,
                "dead": hero.dead,
                "actions": hero.actions,
                "items": len(hero.items),
                "cantici": len(hero.cantici),
                "shards": len(hero.shards),
                "allies": [ctx.adventure(u).name for u in hero.allies],
                "prestige": [a.name for a in sheet.prestige if a.key in hero.unlocked],
                "supply": hero.supply,
                "dreamstone": hero.dreamstone,
                "lose_turns": hero.lose_turns,
                "statuses": [
                    f"{st.name}"
                    + (f" ({hero.statuses[st.key]} turns)" if hero.statuses[st.key] else "")
                    for st in ctx.statuses()
                    if st.key in hero.statuses
                ],
            }
        )
    nemeses = [
        {
            "uid": n.uid,
            "name": ctx.marker(n).name,
            "node": n.node,
            "place": ctx.board.nodes[n.node].name,
            "life": ctx.marker(n).life - n.wounds,
            "defence": ctx.marker(n).defence,
            "stunned": n.stunned,
            "tower": n.key == "siege_tower",
        }
        for n in (*state.nemeses, *state.towers)
    ]
    events = [
        {"name": ctx.event(u).name, "star": ctx.event(u).star, "text": ctx.event(u).text, "turn": t}
        for u, t in state.in_play
    ]
    decision = _public_decision(state)
    active = state.heroes[state.active]
    return {
        "game": "dreamwars",
        "phase": state.phase,
        "turn": state.turn,
        "total_turns": state.total_turns,
        "watch": state.watch,
        "great": {"name": great.name, "title": great.title, "faction": great.faction},
        "ordeal": lib.ordeals[state.ordeal].name,
        "scenario": {"key": scenario.key, "name": scenario.name, "text": scenario.text},
        "nemesis_limit": ctx.nemesis_limit(),
        "limit_reached": ctx.limit_active(),
        "active": state.active,
        "active_name": ctx.sheet(state.active).name,
        "active_seat": active.seat,
        "first": state.first,
        "heroes": heroes,
        "nemeses": nemeses,
        "horde": len(state.horde),
        "events": events,
        "stars": [great.stars[i].text for i in state.stars_now],
        "unknown": sorted(state.unknown),
        "dropped_stone": state.dropped_stone,
        "supply": dict(state.supply_tokens),
        "delivered": state.delivered,
        "coaches": list(state.coaches),
        "train": state.train,
        "cannons": list(state.cannons),
        "decision": decision,
        "decks": {k: len(v) for k, v in state.decks.items()},
        "discards": {k: len(v) for k, v in state.discards.items()},
        "outcomes": [o.model_dump() for o in state.outcomes],
        "result": state.result,
        "chronicle": state.chronicle[-CHRONICLE_IN_VIEW:],  # public lines only
    }


def _public_decision(state: DwState) -> dict[str, Any] | None:
    if state.decision is None:
        return None
    return {
        "kind": state.decision.kind,
        "prompt": state.decision.prompt if not state.decision.private else "choosing privately",
    }


def private_view(
    engine: DreamwarsEngine, state: DwState, seat: str, public: dict[str, Any] | None = None
) -> dict[str, Any]:
    """What one seat may see: the public view and its own hand (``public``: the public view
    of this state, when the caller has it; it is copied, not changed)."""
    view = dict(public) if public is not None else public_view(engine, state)
    view.update(hand_view(engine._ctx(state), seat))
    return view


def hand_view(ctx: _Ctx, seat: str) -> dict[str, Any]:
    """What a seat's hand shows of its private view: its heroes ("mine") and the decision as
    the seat sees it (the display's hand fields are the same from this as from the whole
    view). ``ctx``: a context that only looks at the state (the one of its legal actions)."""
    state = ctx.s
    mine = []
    for i, hero in enumerate(state.heroes):
        if hero.seat != seat or hero.dead:
            continue
        sheet = ctx.sheet(i)

        def cards(uids: list[str], hero: HeroState = hero) -> list[dict[str, Any]]:
            shown = []
            worn = (hero.armour, hero.shield, hero.vehicle)
            for u in dict.fromkeys(uids):  # each uid once, in carrying order
                item = ctx.item(u)
                mounted_on = hero.mounted.get(u)
                shown.append(
                    {
                        "uid": u,
                        "name": item.name,
                        "type": item.type,
                        "deck": item.deck,
                        "text": item.text,
                        "worn": u in worn,
                        "mounted_on": None if mounted_on is None else ctx.item(mounted_on).name,
                    }
                )
            return shown

        mine.append(
            {
                "index": i,
                "name": sheet.name,
                "title": sheet.title,
                "traits": sheet.traits,
                "stats": {
                    s: ctx.value(i, s)
                    for s in ("melee", "skill", "tech", "arcane", "movement", "dodge")
                },
                "sheet": {
                    s: getattr(sheet, s)
                    for s in (
                        "melee",
                        "skill",
                        "tech",
                        "arcane",
                        "movement",
                        "life",
                        "max_load",
                        "max_cantici",
                    )
                },
                "life": ctx.life(i),
                "load": ctx.load(i),
                "items": cards(hero.items),
                "cantici": cards(hero.cantici),
                "shards": cards(hero.shards),
                "allies": [
                    {
                        "name": ctx.adventure(u).name,
                        "text": ctx.adventure(u).text,
                        "uses": hero.ally_uses.get(u),
                    }
                    for u in hero.allies
                ],
                "prestige": [
                    {
                        "name": a.name,
                        "text": a.text,
                        "needs": f"{a.needs} {a.requires}",
                        "progress": hero.deeds.get(a.requires, 0),
                        "unlocked": a.key in hero.unlocked,
                        "spent": a.key in hero.spent_prestige,
                    }
                    for a in sheet.prestige
                ],
            }
        )
    decision: dict[str, Any] | None
    if state.decision is not None and state.heroes[state.active].seat == seat:
        decision = {
            "kind": state.decision.kind,
            "prompt": state.decision.prompt,
            "options": dict(state.decision.options),
        }
    else:
        decision = _public_decision(state)
    return {"mine": mine, "decision": decision}
