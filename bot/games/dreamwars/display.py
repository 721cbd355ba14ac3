"""How Dreamwars shows itself at the table (see bot/games/display.py).

The board, the map picture and the result read the public view only (it names no Equipment
card); the hand adds the viewing seat's own hero sheets and Equipment.
"""

from __future__ import annotations

from typing import Any

from bot.games.display import GameDisplay, PanelField

PHASES = {"heroes": "Heroes phase", "over": "game over"}
FIELD_CHARS = 1000  # a little under Discord's 1024 per field value
COMPACT_HEROES = 3  # a hand with this many heroes or more shows each in one short field


def _chunked(name: str, lines: list[str], empty: str) -> list[PanelField]:
    """Lines as one field, or several ("name (2)") when they do not fit one."""
    if not lines:
        return [PanelField(name, empty)]
    fields: list[list[str]] = [[]]
    size = 0
    for line in lines:
        if fields[-1] and size + len(line) + 1 > FIELD_CHARS:
            fields.append([])
            size = 0
        fields[-1].append(line)
        size += len(line) + 1
    return [
        PanelField(name if n == 0 else f"{name} ({n + 1})", "\n".join(chunk))
        for n, chunk in enumerate(fields)
    ]


def _hero_state(hero: dict[str, Any]) -> str:
    if hero.get("dead"):
        return "dead"
    if hero.get("door") is not None:
        shown = f"At Death's Door ({hero['door']} turn(s) left)"
    else:
        shown = f"{hero['life']}/{hero['max_life']} LP"
    statuses = hero.get("statuses") or []
    return shown + (", " + ", ".join(statuses) if statuses else "")


def _carried(hero: dict[str, Any]) -> str:
    parts = [
        f"{hero.get('items', 0)} Item(s)",
        f"{hero.get('cantici', 0)} Cantici",
        f"{hero.get('shards', 0)} Shard(s)",
    ]
    if hero.get("supply"):
        parts.append(f"{hero['supply']} Supply")
    if hero.get("dreamstone"):
        parts.append("the Dreamstone")
    return ", ".join(parts)


def _sheet_line(hero: dict[str, Any]) -> str:
    stats = hero.get("stats") or {}
    sheet = hero.get("sheet") or {}
    return (
        f"Melee {stats.get('melee')} · Skill {stats.get('skill')} · Tech {stats.get('tech')} · "
        f"Arcane {stats.get('arcane')} · Movement {stats.get('movement')} · Dodge "
        f"{stats.get('dodge')}\nLife {hero.get('life')}/{sheet.get('life')} · load "
        f"{hero.get('load')}/{sheet.get('max_load')} · Cantici "
        f"{len(hero.get('cantici') or [])}/{sheet.get('max_cantici')}"
    )


def _card_line(card: dict[str, Any]) -> str:
    marks = []
    if card.get("worn"):
        marks.append("worn")
    if card.get("mounted_on"):
        marks.append(f"on {card['mounted_on']}")
    shown = f"**{card['name']}** ({card['type']}{', ' + ', '.join(marks) if marks else ''})"
    return f"{shown}: {card['text']}" if card.get("text") else shown


class DreamwarsDisplay(GameDisplay):
    """The board embed, the map, each player's hero sheets and the result."""

    primary_kinds = frozenset({"attack", "adventure", "scenario", "end"})

    def title_suffix(self, view: dict[str, Any]) -> str:
        scenario = (view.get("scenario") or {}).get("name", "")
        return f" · {view.get('ordeal', '')}: {scenario}" if scenario else ""

    def turn_lines(self, view: dict[str, Any], waiting: str) -> list[str]:
        watch = f", Watch {view['watch']}" if view.get("watch") else ""
        phase = PHASES.get(view.get("phase") or "", view.get("phase") or "?")
        lines = [
            f"**Turn {view.get('turn')}{watch}** · {phase}: **{view.get('active_name')}** "
            f"({waiting}) acts."
        ]
        hero = next((h for h in view.get("heroes") or [] if h["index"] == view.get("active")), None)
        if hero is not None and not hero.get("dead"):
            lines.append(
                f"{hero['name']} is at {hero['place']}, {_hero_state(hero)}, "
                f"{hero.get('actions', 0)} Action(s) left."
            )
        decision = view.get("decision")
        if decision:
            lines.append(f"Waiting for a choice: {decision['prompt']}")
        limit = view.get("nemesis_limit")
        count = len(view.get("nemeses") or [])
        reached = " (reached: the Nemesis limit rules apply)" if view.get("limit_reached") else ""
        lines.append(f"Nemeses on the map: {count} of at most {limit}{reached}.")
        lines.append(
            "Each turn: 1 Events (automatic), 2 Heroes (each hero in turn), 3 Nemesis "
            "(they move and attack, automatic). The map is drawn as each hero's phase begins; "
            "the lists below follow every move."
        )
        return lines

    def board_fields(self, view: dict[str, Any], seat_names: dict[str, str]) -> list[PanelField]:
        scenario = view.get("scenario") or {}
        great = view.get("great") or {}
        fields = [
            PanelField(
                f"Scenario: {scenario.get('name', '?')}",
                f"{scenario.get('text', '')}\nGreat Nemesis: {great.get('name')}, "
                f"{great.get('title')} ({great.get('faction')}).",
            )
        ]
        lines = []
        for hero in view.get("heroes") or []:
            who = seat_names.get(hero["seat"], hero["seat"])
            first = " (Crescent Moon)" if hero["index"] == view.get("first") else ""
            lines.append(
                f"{hero['index'] + 1}. **{hero['name']}**{first} [{who}] at {hero['place']}: "
                f"{_hero_state(hero)}; {_carried(hero)}"
            )
        fields += _chunked("Heroes (number = token on the map)", lines, "none")
        foes = []
        for foe in view.get("nemeses") or []:
            stunned = ", stunned" if foe.get("stunned") else ""
            foes.append(
                f"{foe['name']} at {foe['place']}: {foe['life']} LP, Defence "
                f"{foe['defence']}{stunned}"
            )
        fields += _chunked(
            f"Nemeses ({len(foes)}, {view.get('horde', 0)} left in the Horde)",
            foes,
            "none on the map",
        )
        events = view.get("events") or []
        stars = view.get("stars") or []
        if events or stars:
            text = "\n".join(f"**{e['name']}** ({e['star']}): {e['text']}" for e in events)
            if stars:
                text += "\nThe Stars are Right: " + " ".join(stars)
            fields.append(PanelField("Events in play", text))
        decks = view.get("decks") or {}
        fields.append(
            PanelField(
                "Decks",
                ", ".join(f"{name} {count}" for name, count in decks.items()),
                inline=True,
            )
        )
        outcomes = view.get("outcomes") or []
        if outcomes:
            fields.append(
                PanelField(
                    "Scenarios played",
                    "\n".join(
                        f"{o['scenario']}: {'won' if o['won'] else 'lost'} in {o['turns']} turns"
                        for o in outcomes
                    ),
                    inline=True,
                )
            )
        return fields

    def picture(self, view: dict[str, Any]) -> bytes | None:
        from bot.games.dreamwars.picture import render_map

        return render_map(view)

    def picture_key(self, view: dict[str, Any]) -> str | None:
        """A new map when a hero's phase begins (or a turn, a scenario, the end): the board's
        text follows every step in between."""
        scenario = (view.get("scenario") or {}).get("key", "")
        return f"{scenario}:{view.get('total_turns')}:{view.get('active')}:{view.get('phase')}"

    def hand_fields(self, private_view: dict[str, Any]) -> list[PanelField]:
        fields = []
        decision = private_view.get("decision")
        if decision and decision.get("options"):
            fields.append(PanelField("Your choice", decision["prompt"]))
        mine = private_view.get("mine") or []
        if len(mine) >= COMPACT_HEROES:  # several heroes: one short field each, all of them
            for hero in mine:
                cards = [*hero.get("items", []), *hero.get("cantici", []), *hero.get("shards", [])]
                carried = ", ".join(f"{c['name']} ({c['type']})" for c in cards) or "nothing"
                allies = ", ".join(a["name"] for a in hero.get("allies") or [])
                fields.append(
                    PanelField(
                        f"{hero['name']} (your hero)",
                        f"{_sheet_line(hero)}\nCarries: {carried}"
                        + (f"\nAllies: {allies}" if allies else ""),
                    )
                )
            return fields
        for hero in mine:
            fields.append(
                PanelField(f"{hero['name']}, {hero['title']} (your hero)", _sheet_line(hero))
            )
            cards = [*hero.get("items", []), *hero.get("cantici", []), *hero.get("shards", [])]
            fields.append(
                PanelField(
                    f"{hero['name']}'s Equipment",
                    "\n".join(_card_line(c) for c in cards) or "nothing",
                )
            )
            extras = [f"Ally: **{a['name']}**: {a['text']}" for a in hero.get("allies") or []]
            for ability in hero.get("prestige") or []:
                if ability["unlocked"]:
                    state = "spent" if ability["spent"] else "unlocked"
                else:
                    state = f"{ability['progress']}/{ability['needs']}"
                extras.append(f"Prestige **{ability['name']}** ({state}): {ability['text']}")
            if extras:
                fields.append(
                    PanelField(f"{hero['name']}'s allies and Prestige", "\n".join(extras))
                )
        if not private_view.get("mine"):
            fields.append(PanelField("Your heroes", "none alive"))
        return fields

    def result_lines(self, result: dict[str, Any]) -> list[str]:
        details = result.get("details") or {}
        return [
            f"{details.get('turns', '?')} turns in all, {details.get('deaths', 0)} hero death(s)."
        ]

    def history_note(self, result: dict[str, Any]) -> str:
        details = result.get("details") or {}
        return f"({details.get('turns', '?')} turns, {details.get('deaths', 0)} deaths)"

    def rules_lines(self) -> list[str]:
        return [
            "A cooperative game for 1 to 8 players against a Great Nemesis and its monsters, on "
            "a map of Halfen and its wilds. Everyone wins or loses together.",
            "Seats: every player who joins runs a hero; the host may add AI seats for AI heroes "
            "(solo: you alone, or you plus AI seats). **Heroes in all** gives more heroes than "
            "seats: they are shared round-robin, so one player may run several.",
            "A turn: Events (a card, automatic), then each hero's Heroes phase, then the "
            "Nemesis phase (monsters move and attack, automatic). In your phase press **My "
            "hand**: your hero sheet and Equipment (only you see them) and your moves: move "
            "space by space, attack, explore a location (Adventure), use Equipment, intone a "
            "Cantico, trade, and **End your Heroes phase**.",
            "Tests: roll a d6 equal to or under the characteristic; a natural 1 always passes, "
            "a 6 always fails, a value of 0 always fails. Every test on the board shows the "
            "target and the die.",
            "Each turn the board shows a map (heroes as numbered discs, Nemeses as diamonds, a "
            "legend on the right). The Ordeal is a chain of scenarios: win or lose one, the "
            "next begins. `/game pause` and `/game resume` keep a long game for another day; "
            "**Game log** on the board (or `/game history game:<number>`) tells the story so "
            "far, every public event and roll in order.",
        ]


DISPLAY = DreamwarsDisplay()
