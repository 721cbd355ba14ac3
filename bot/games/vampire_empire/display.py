"""How Vampire Empire shows itself at the table (see bot/games/display.py). The board uses the
public view only; the hand adds the seat's own secrets."""

from __future__ import annotations

from typing import Any

from bot.games.display import GameDisplay, PanelField
from bot.games.vampire_empire.picture import render_board

SIDE_TITLES = {"vampires": "vampire player", "humans": "human player"}


def _character(c: dict[str, Any]) -> str:
    marks = []
    if c["attack"]:
        marks.append(f"+{c['attack']} attack")
    if c["defence"]:
        marks.append(f"+{c['defence']} defence")
    shown = f"**{c['name']}** ({c['profession']})"
    if c["revealed"]:
        shown += " · revealed vampire"
    return shown + (" · " + ", ".join(marks) if marks else "")


class VampireEmpireDisplay(GameDisplay):
    """How Vampire Empire looks at the table: castle, city, the dead, piles and each hand."""

    primary_kinds = frozenset({"combat", "holy_water", "hide", "draw"})

    def turn_lines(self, view: dict[str, Any], waiting: str) -> list[str]:
        acting = SIDE_TITLES.get(view.get("acting") or "", "?")
        lines = [f"**Turn {view.get('turn')}** ({view.get('phase')}): {waiting}, the {acting}."]
        combat = view.get("combat")
        if combat:
            lines.append(
                f"Combat, round {combat['round']}: the {combat['attacker']} attacks the "
                f"{combat['target']}, attack {combat['attack']} against defence "
                f"{combat['defence']}."
            )
        return lines

    def board_fields(self, view: dict[str, Any], seat_names: dict[str, str]) -> list[PanelField]:
        castle = "\n".join(_character(c) for c in view.get("castle") or []) or "empty"
        city = ", ".join(view.get("city") or []) or "empty"
        fields = [
            PanelField("Castle", castle),
            PanelField(f"City ({view.get('city_count', 0)}, order hidden)", city),
        ]
        dead = view.get("dead") or []
        if dead:
            text = ", ".join(f"{d['name']} ({'V' if d['vampire'] else 'H'})" for d in dead)
            fields.append(PanelField("Dead (V vampire, H human)", text))
        tested = view.get("tested") or {}
        if tested:
            text = ", ".join(f"{n}: {'yes' if v else 'no'}" for n, v in tested.items())
            fields.append(PanelField("Holy water answers", text))
        sides = view.get("sides") or {}
        lines = []
        for side, piles in (view.get("piles") or {}).items():
            who = seat_names.get(sides.get(side, ""), "?")
            lines.append(
                f"**{who}**, {SIDE_TITLES[side]}: {piles['hand']} in hand, {piles['deck']} in "
                f"deck, {piles['cellar']} in cellar, {piles['moat']} in moat"
            )
        lines.append(f"Markers left: {view.get('marker_supply', 0)}")
        fields.append(PanelField("Players", "\n".join(lines)))
        combat = view.get("combat")
        if combat:
            text = (
                f"Attack: {', '.join(combat['attack_cards']) or 'no cards yet'}\n"
                f"Defence: {', '.join(combat['defence_cards']) or 'no cards yet'}"
            )
            fields.append(PanelField("Cards in this combat", text))
        elif view.get("played"):
            fields.append(PanelField("Cards just played", ", ".join(view["played"])))
        return fields

    def picture(self, view: dict[str, Any]) -> bytes | None:
        return render_board(view)

    def hand_fields(self, private_view: dict[str, Any]) -> list[PanelField]:
        side = private_view.get("side")
        fields = []
        if side == "vampires":
            fields.append(
                PanelField("Your vampires (secret)", ", ".join(private_view.get("vampires", [])))
            )
        elif side == "humans":
            fields.append(
                PanelField(
                    "Your two known humans (secret)",
                    ", ".join(private_view.get("known_humans", [])),
                )
            )
        lines = []
        for card in private_view.get("hand") or []:
            kinds = list(card["professions"])
            if card["holy_water"]:
                kinds.append("holy water")
            if card["vampire"]:
                kinds.append("vampire")
            if card["support"]:
                lines.append(f"**{card['name']}** (support): {card['text']}")
            else:
                lines.append(f"**{card['name']}** {card['value']} ({' / '.join(kinds)})")
        fields.append(PanelField("Your hand", "\n".join(lines) or "no cards"))
        paying = private_view.get("paying")
        if paying:
            fields.append(
                PanelField(
                    "Choose how to pay",
                    f"Pick the cards that pay for the {paying} in the action menu (or go back).",
                )
            )
        choosing = private_view.get("choosing")
        if choosing:
            text = ", ".join(f"{c['name']} ({c['value']})" for c in choosing)
            fields.append(PanelField("The pile you look through", text))
        return fields

    def result_lines(self, result: dict[str, Any]) -> list[str]:
        scores = result.get("scores") or {}
        return [
            f"Surviving: humans {scores.get('humans', 0)} points (1 each), vampires "
            f"{scores.get('vampires', 0)} points (2 each)."
        ]

    def rules_lines(self) -> list[str]:
        return [
            "Two players: the vampire player secretly owns three of the nine characters, the "
            "human player knows two humans. Both see the castle (three characters), the city "
            "(the rest, order hidden) and the dead with who they were.",
            "Your turn: discard any cards and draw to 8 (**My hand**), then the vampire player "
            "may reveal a vampire, then one action: hide a castle character in the city "
            "(vampire player, 3 vampire cards), holy water (human player, 2 holy water cards, "
            "a truthful answer, an attack at once on a revealed vampire in the castle) or a "
            "combat of at most two rounds (ties go to the defender). When your hand can pay in "
            "more than one way, you pick the cards (**Pay with …**).",
            "The human player never attacks with a revealed vampire; the vampire player must "
            "attack with one when one is in the castle. Holy water counts only against a "
            "revealed vampire, vampire cards only for one.",
            "The game ends when all humans or all vampires are dead, when three revealed "
            "vampires are in the castle, or when both players are out of cards: then 1 point "
            "per surviving human against 2 per surviving vampire (ties possible).",
            "The options below are the rules the public rulebook pages leave open: [I] is an "
            "inferred default, [?] unknown; set them to match your own rulebook.",
        ]


DISPLAY = VampireEmpireDisplay()
