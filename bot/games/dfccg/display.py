"""How the Dresden card game shows itself at the table (see bot/games/display.py).

Every text a player needs is shown: the Book cards' texts on the board (embed and picture),
every hand card's text in the hand, the Talents and Stunts with theirs. When a pack's texts are
too long for one embed, the board and hand show names and numbers and say to press
**Card texts**, which pages through every text whole.
"""

from __future__ import annotations

from typing import Any

from bot.games.dfccg.picture import picture_key, render_board
from bot.games.display import GameDisplay, PanelField, chunk_fields, fields_size

TYPE_TITLES = {"foe": "Foe", "case": "Case", "obstacle": "Obstacle", "advantage": "Advantage"}
# Room the board's and the hand's fields may take in an embed of 6000 characters (the rest is
# the title, the turn lines and the latest events).
BOARD_BUDGET = 3600
HAND_BUDGET = 4800
TEXTS_HINT = "Press **Card texts** to read every card's text whole."


def _tokens(card: dict[str, Any]) -> str:
    if not card.get("value"):
        return ""
    noun = "Hits" if card.get("type") == "foe" else "Clues"
    return f" · {card.get('tokens', 0)}/{card['value']} {noun}"


def link_lines(card: dict[str, Any]) -> list[str]:
    """One line per link letter, e.g. "link A: affected by Who is the Shadowman? (row 2,
    Range 1)"."""
    lines = []
    for link in card.get("links") or []:
        verb = "affected by" if link.get("dir") == "in" else "affects"
        partners = ", ".join(link.get("partners") or []) or "no card in this game"
        lines.append(f"link {link.get('letter')}: {verb} {partners}")
    return lines


def book_entry(card: dict[str, Any], *, with_text: bool = True) -> str:
    """One Book card: Range, name, type, tokens, why it is blocked, links and its text."""
    kind = TYPE_TITLES.get(str(card.get("type")), str(card.get("type")))
    head = f"`{card.get('range')}` **{card.get('name')}** · {kind}{_tokens(card)}"
    lines = [head] + [f"  ⛔ blocked: {reason}" for reason in card.get("blocked") or []]
    if with_text:
        lines += [f"  ↔ {line}" for line in link_lines(card)]
        if card.get("text"):
            lines.append(f"  _{card['text']}_")
    return "\n".join(lines)


def _tiers(tiers: list[dict[str, Any]]) -> str:
    parts = []
    for tier in tiers:
        roll = tier.get("roll") or {}
        dice = f"[{roll.get('dice')}]" if roll.get("dice") else ""
        parts.append(f"{tier.get('fate')} Fate: {roll.get('base', 0)}{dice}")
    return ", ".join(parts)


def showdown_text(showdown: dict[str, Any]) -> str:
    """The Showdown card: its rolls against Foes and Cases for each Fate spent."""
    lines = [f"**{showdown.get('name', 'Showdown')}**"]
    if showdown.get("text"):
        lines.append(f"_{showdown['text']}_")
    lines.append(f"Foes with Hits: {_tiers(showdown.get('foe') or [])}")
    lines.append(f"Cases with Clues: {_tiers(showdown.get('case') or [])}")
    if showdown.get("queue"):
        lines.append("Still owed a roll: " + ", ".join(showdown["queue"]))
    return "\n".join(lines)


def _fate(fate: dict[str, Any]) -> PanelField:
    return PanelField(
        "Fate", f"Available {fate.get('available')} · Spent {fate.get('spent')}", inline=True
    )


def _specials_short(player: dict[str, Any]) -> str:
    bits = []
    for talent in player.get("talents") or []:
        bits.append(f"Talent {talent['name']} ({talent.get('note') or 'no effect'})")
    for stunt in player.get("stunts") or []:
        bits.append(f"Stunt {stunt['name']} ({'used' if stunt.get('used') else 'unused'})")
    return "; ".join(bits)


def specials_entries(player: dict[str, Any]) -> list[str]:
    """A player's Talents and Stunts with their texts and whether they can be used."""
    entries = []
    for talent in player.get("talents") or []:
        note = f": {talent['note']}" if talent.get("note") else ""
        entries.append(
            f"Talent **{talent['name']}** ({talent.get('character', '')}){note}\n"
            f"  _{talent.get('text') or 'no text'}_"
        )
    for stunt in player.get("stunts") or []:
        state = "used" if stunt.get("used") else "unused, once per game"
        entries.append(
            f"Stunt **{stunt['name']}** ({stunt.get('character', '')}): {state}\n"
            f"  _{stunt.get('text') or 'no text'}_"
        )
    return entries


def hand_entry(card: dict[str, Any], *, with_text: bool = True) -> str:
    """One hand card: its type, what it costs now (and why that differs), Range, value."""
    cost = f"cost {card['cost']}"
    if card.get("cost_note"):
        cost += f" (printed {card.get('printed_cost')}: {card['cost_note']})"
    bits = [cost, f"Range {card.get('range')}"]
    if card.get("value_noun"):
        bits.append(str(card["value_noun"]))
    discard = f"discard for {card.get('discard')} Fate"
    if card.get("discard_note"):
        discard += f" ({card['discard_note']})"
    bits.append(discard)
    owner = f"{card['owner']}'s " if card.get("owner") else ""
    lines = [
        f"**{card['name']}** ({owner}{card.get('type_name', card.get('type'))}): " + ", ".join(bits)
    ]
    if with_text and card.get("text"):
        lines.append(f"  _{card['text']}_")
    return "\n".join(lines)


def _hand_title(part: dict[str, Any], solo: bool) -> str:
    names = " & ".join(part.get("characters") or []) or "hand"
    if solo:
        acting = ", acting now" if part.get("active") else ""
        return f"Hand {int(part.get('index', 0)) + 1} of 3: {names}{acting}"
    return f"Your hand: {names}"


class DfccgDisplay(GameDisplay):
    """How the Dresden Files card game looks at the table: board, picture, hand and result."""

    primary_kinds = frozenset({"play", "first_player", "showdown", "choose", "talent"})

    def title_suffix(self, view: dict[str, Any]) -> str:
        return f" ({view['book']})" if view.get("book") else ""

    def turn_lines(self, view: dict[str, Any], waiting: str) -> list[str]:
        """Who acts, named by seat and character ("alice, as Karrin Murphy")."""
        decision = view.get("decision") or {}
        chars = " & ".join(view.get("active_characters") or [])
        who = f"**{waiting}**"
        if chars and not decision.get("table"):
            hand = f" (hand {view['active_hand']} of 3)" if view.get("solo") else ""
            who += f", as {chars}{hand},"
        phase = "the Showdown" if view.get("phase") == "showdown" else f"turn {view.get('turn', 0)}"
        lines = [f"**{phase[0].upper()}{phase[1:]}**: {who} to act."]
        if decision:
            lines.append(f"Waiting on: {decision.get('prompt', '')}")
        return lines

    def board_fields(self, view: dict[str, Any], seat_names: dict[str, str]) -> list[PanelField]:
        fields = self._board(view, seat_names, with_text=True)
        if fields_size(fields) > BOARD_BUDGET:
            fields = self._board(view, seat_names, with_text=False)
            fields.append(PanelField("Card texts", TEXTS_HINT))
        return fields

    def _board(
        self, view: dict[str, Any], seat_names: dict[str, str], *, with_text: bool
    ) -> list[PanelField]:
        fields = [_fate(view["fate"])] if view.get("fate") else []
        for index, row in enumerate((view.get("rows") or [])[:2], start=1):
            entries = [book_entry(card, with_text=with_text) for card in row]
            fields += chunk_fields(f"Row {index} (Range 1 to 6)", entries or ["empty"])
        if view.get("showdown"):
            fields.append(PanelField("Showdown card", showdown_text(view["showdown"])))
        players = view.get("players") or []
        if players:
            entries = [
                f"**{seat_names.get(p.get('seat'), '?')}**: "
                f"{' & '.join(p.get('characters') or [])}, {p.get('hand_count', 0)} in hand, "
                f"{p.get('deck_count', 0)} in deck. {_specials_short(p)}"
                for p in players
            ]
            fields += chunk_fields("Players", entries)
        if view.get("solved"):
            fields.append(PanelField("Solved", ", ".join(view["solved"])))
        return fields

    def picture(self, view: dict[str, Any]) -> bytes | None:
        return render_board(view)

    def picture_key(self, view: dict[str, Any]) -> str | None:
        """A move that changes nothing drawn (a card drawn into a hand, a decision) keeps the
        picture posted."""
        return picture_key(view)

    def hand_fields(self, private_view: dict[str, Any]) -> list[PanelField]:
        fields = self._hand(private_view, with_text=True)
        if fields_size(fields) > HAND_BUDGET:
            fields = self._hand(private_view, with_text=False)
            fields.append(PanelField("Card texts", TEXTS_HINT))
        return fields

    def _hand(self, private_view: dict[str, Any], *, with_text: bool) -> list[PanelField]:
        solo = bool(private_view.get("solo"))
        fields = []
        if private_view.get("question"):
            fields.append(PanelField("Your choice", private_view["question"]))
        parts = private_view.get("hands") or []
        for part in parts:
            entries = [hand_entry(c, with_text=with_text) for c in part.get("hand") or []]
            fields += chunk_fields(_hand_title(part, solo), entries or ["no cards"])
        mine = {tuple(p.get("characters") or []) for p in parts}
        specials = [
            entry
            for player in private_view.get("players") or []
            if tuple(player.get("characters") or []) in mine
            for entry in (specials_entries(player) if with_text else [_specials_short(player)])
        ]
        if specials:
            fields += chunk_fields("Your Talents and Stunts", specials)
        if private_view.get("fate"):
            fields.append(_fate(private_view["fate"]))
        return fields

    def reference_fields(self, view: dict[str, Any]) -> list[PanelField]:
        """Every text whole: the Book cards, the Showdown, each player's Talents and Stunts
        and, in a seat's private view, that seat's hand."""
        fields = []
        for index, row in enumerate((view.get("rows") or [])[:2], start=1):
            fields += chunk_fields(f"Row {index}", [book_entry(c) for c in row] or ["empty"])
        if view.get("showdown"):
            fields.append(PanelField("Showdown card", showdown_text(view["showdown"])))
        for player in view.get("players") or []:
            title = " & ".join(player.get("characters") or []) or "player"
            fields += chunk_fields(f"{title}: Talents and Stunts", specials_entries(player))
        solo = bool(view.get("solo"))
        for part in view.get("hands") or []:
            entries = [hand_entry(c) for c in part.get("hand") or []] or ["no cards"]
            fields += chunk_fields(_hand_title(part, solo), entries)
        return fields

    def result_lines(self, result: dict[str, Any]) -> list[str]:
        lines = super().result_lines(result)
        turns = (result.get("details") or {}).get("turns")
        return lines + ([f"The game lasted {turns} turns."] if turns is not None else [])

    def history_note(self, result: dict[str, Any]) -> str:
        book = (result.get("details") or {}).get("book")
        return f"({book})" if book else ""

    def rules_lines(self) -> list[str]:
        return [
            "Cooperative: 1 to 5 players face a Book deck laid out in two rows of six Ranges.",
            "On your turn play a card (pay its Fate cost), discard one for Fate, use a Stunt, "
            "or pass for 1 Fate; the Showdown settles the remaining Foes and Cases.",
            "You win with more Cases solved than Foes left standing (ties go to the game).",
            "The board shows every Book card's text, your hand every card's text; **Card "
            "texts** shows them all whole, with the Talents and Stunts of everyone.",
        ]


DISPLAY = DfccgDisplay()
