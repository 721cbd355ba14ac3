"""How the Dresden card game shows itself at the table (see bot/games/display.py)."""

from __future__ import annotations

from typing import Any

from bot.games.dfccg.picture import render_board
from bot.games.display import GameDisplay, PanelField


def _talents(player: dict[str, Any]) -> str:
    bits = []
    for talent in player.get("talents") or []:
        bits.append(f"{talent['name']} ({'ready' if talent.get('ready') else 'not ready'})")
    for stunt in player.get("stunts") or []:
        bits.append(f"{stunt['name']} ({'used' if stunt.get('used') else 'unused'})")
    return "; ".join(bits)


def _row_text(row: list[dict[str, Any]]) -> str:
    parts = []
    for card in row:
        tokens = ""
        if card.get("value"):
            noun = "Hits" if card.get("type") == "foe" else "Clues"
            tokens = f" {card.get('tokens', 0)}/{card['value']} {noun}"
            if card.get("can_receive") is False:
                tokens += " (blocked)"
        parts.append(f"`{card.get('range')}` {card.get('name')} [{card.get('type')}]{tokens}")
    return "\n".join(parts) or "empty"


def _fate(fate: dict[str, Any]) -> PanelField:
    return PanelField(
        "Fate", f"Available {fate.get('available')} · Spent {fate.get('spent')}", inline=True
    )


class DfccgDisplay(GameDisplay):
    """How the Dresden Files card game looks at the table: board, picture, hand and result."""

    primary_kinds = frozenset({"play", "first_player", "showdown", "choose", "talent"})

    def title_suffix(self, view: dict[str, Any]) -> str:
        return f" ({view['book']})" if view.get("book") else ""

    def turn_lines(self, view: dict[str, Any], waiting: str) -> list[str]:
        lines = [
            f"**Turn {view.get('turn', 0)}**, phase {view.get('phase', '?')}: {waiting} to act."
        ]
        decision = view.get("decision")
        if decision:
            lines.append(f"Waiting on: {decision.get('prompt', '')}")
        return lines

    def board_fields(self, view: dict[str, Any], seat_names: dict[str, str]) -> list[PanelField]:
        fields = [_fate(view["fate"])] if view.get("fate") else []
        for index, row in enumerate((view.get("rows") or [])[:2], start=1):
            fields.append(PanelField(f"Row {index}", _row_text(row)))
        players = view.get("players") or []
        if players:
            text = "\n".join(
                f"**{seat_names.get(p.get('seat'), '?')}**: "
                f"{' & '.join(p.get('characters') or [])}, {p.get('hand_count', 0)} in hand, "
                f"{p.get('deck_count', 0)} in deck. {_talents(p)}"
                for p in players
            )
            fields.append(PanelField("Players", text))
        if view.get("solved"):
            fields.append(PanelField("Solved", ", ".join(view["solved"])))
        return fields

    def picture(self, view: dict[str, Any]) -> bytes | None:
        return render_board(view)

    def hand_fields(self, private_view: dict[str, Any]) -> list[PanelField]:
        fields = []
        for hand_part in (private_view.get("hands") or [])[:5]:
            text = "\n".join(
                f"**{c['name']}** ({c['type']}): cost {c['cost']}, discard {c['discard']}, "
                f"range {c['range']}" + (f", value {c['value']}" if c.get("value") else "")
                for c in hand_part.get("hand") or []
            )
            name = " & ".join(hand_part.get("characters") or []) or "hand"
            fields.append(PanelField(name, text or "no cards"))
        if private_view.get("fate"):
            fields.append(_fate(private_view["fate"]))
        return fields

    def history_note(self, result: dict[str, Any]) -> str:
        book = (result.get("details") or {}).get("book")
        return f"({book})" if book else ""

    def rules_lines(self) -> list[str]:
        return [
            "Cooperative: 1 to 5 players face a Book deck laid out in two rows of six Ranges.",
            "On your turn play a card (pay its Fate cost), discard one for Fate, use a Stunt, "
            "or pass for 1 Fate; the Showdown settles the remaining Foes and Cases.",
            "You win with more Cases solved than Foes left standing (ties go to the game).",
        ]


DISPLAY = DfccgDisplay()
