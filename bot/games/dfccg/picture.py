"""A picture of the Dresden card game's table: pure function from a public view dict to PNG bytes.

It draws the two rows of Book cards with their Ranges, the tokens on each card, the Fate pools
and the Showdown card. Only the public view goes in, so the picture can never show a hand.
"""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageDraw

from bot.games.drawing import fit as _fit
from bot.games.drawing import font as _font
from bot.games.drawing import png
from bot.games.drawing import wrap as _wrap

CARD_W, CARD_H = 150, 112
GAP = 10
MARGIN = 16
HEADER_H = 40
ROW_LABEL_H = 22
FOOTER_H = 96
COLUMNS = 6

BACKGROUND = (28, 31, 38)
TEXT = (236, 236, 240)
MUTED = (160, 165, 178)
TYPE_COLOURS: dict[str, tuple[int, int, int]] = {
    "foe": (150, 48, 48),
    "case": (46, 92, 150),
    "obstacle": (120, 100, 40),
    "advantage": (48, 120, 72),
}
TOKEN_COLOURS = {"foe": (230, 80, 70), "case": (90, 160, 240)}


def _card(draw: ImageDraw.ImageDraw, x: int, y: int, card: dict[str, Any]) -> None:
    kind = str(card.get("type", ""))
    colour = TYPE_COLOURS.get(kind, (80, 80, 90))
    draw.rounded_rectangle((x, y, x + CARD_W, y + CARD_H), radius=8, fill=colour)
    draw.text((x + 6, y + 4), f"Range {card.get('range', '?')}", font=_font(11), fill=MUTED)
    draw.text((x + CARD_W - 6, y + 4), kind.title(), font=_font(11), fill=TEXT, anchor="ra")
    for i, line in enumerate(_wrap(draw, str(card.get("name", "?")), _font(14), CARD_W - 12, 2)):
        draw.text((x + 6, y + 20 + 16 * i), line, font=_font(14), fill=TEXT)
    links = " ".join(
        [f"in {c}" for c in card.get("links_in") or []]
        + [f"out {c}" for c in card.get("links_out") or []]
    )
    if links:
        draw.text((x + 6, y + 56), f"link {links}", font=_font(11), fill=MUTED)
    value = card.get("value")
    if value:
        tokens = int(card.get("tokens") or 0)
        noun = "Hits" if kind == "foe" else "Clues"
        draw.text((x + 6, y + CARD_H - 34), f"{tokens}/{value} {noun}", font=_font(13), fill=TEXT)
        # one pip per token, in rows of ten
        for i in range(min(tokens, 20)):
            px = x + 6 + (i % 10) * 13
            py = y + CARD_H - 16 - (i // 10) * 0
            draw.ellipse((px, py, px + 9, py + 9), fill=TOKEN_COLOURS.get(kind, TEXT))
        if card.get("can_receive") is False:
            lock = "no Hits" if kind == "foe" else "no Clues"
            draw.text((x + CARD_W - 6, y + 56), lock, font=_font(11), fill=TEXT, anchor="ra")


def render_board(view: dict[str, Any]) -> bytes:
    """PNG bytes of the table described by ``view`` (an engine's public view)."""
    rows: list[list[dict[str, Any]]] = list(view.get("rows") or [])[:2]
    while len(rows) < 2:
        rows.append([])
    width = MARGIN * 2 + COLUMNS * CARD_W + (COLUMNS - 1) * GAP
    height = MARGIN * 2 + HEADER_H + 2 * (ROW_LABEL_H + CARD_H + GAP) + FOOTER_H
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    fate = view.get("fate") or {}
    title = f"{view.get('book', '')} · turn {view.get('turn', 0)} · {view.get('phase', '')}"
    draw.text(
        (MARGIN, MARGIN),
        _fit(draw, title, _font(20), width - 2 * MARGIN),
        font=_font(20),
        fill=TEXT,
    )
    y = MARGIN + HEADER_H
    for index, row in enumerate(rows):
        draw.text((MARGIN, y), f"Row {index + 1}  (Range 1 to 6)", font=_font(13), fill=MUTED)
        y += ROW_LABEL_H
        for position in range(COLUMNS):
            x = MARGIN + position * (CARD_W + GAP)
            if position < len(row):
                _card(draw, x, y, row[position])
            else:
                draw.rounded_rectangle(
                    (x, y, x + CARD_W, y + CARD_H), radius=8, outline=(70, 74, 84)
                )
        y += CARD_H + GAP
    # Fate pools
    available = int(fate.get("available", 0))
    spent = int(fate.get("spent", 0))
    draw.text((MARGIN, y + 4), f"Fate available: {available}", font=_font(15), fill=TEXT)
    draw.text((MARGIN, y + 48), f"Fate spent: {spent}", font=_font(15), fill=MUTED)
    for i in range(min(available, 13)):
        px = MARGIN + i * 18
        draw.ellipse((px, y + 26, px + 14, y + 40), fill=(240, 200, 80))
    for i in range(min(spent, 13)):
        px = MARGIN + i * 18
        draw.ellipse((px, y + 70, px + 14, y + 84), outline=(240, 200, 80), width=2)
    # Showdown card
    showdown = view.get("showdown") or {}
    sx = MARGIN + 3 * (CARD_W + GAP)
    sw = width - MARGIN - sx
    draw.rounded_rectangle((sx, y, sx + sw, y + FOOTER_H - 6), radius=8, fill=(70, 44, 96))
    name = _fit(draw, str(showdown.get("name", "Showdown")), _font(14), sw - 12)
    draw.text((sx + 6, y + 4), name, font=_font(14), fill=TEXT)
    for line_no, key in enumerate(("foe", "case")):
        tiers = showdown.get(key) or []
        parts = []
        for tier in tiers:
            roll = tier.get("roll") or {}
            dice = f"[{roll.get('dice')}]" if roll.get("dice") else ""
            parts.append(f"{tier.get('fate')}F: {roll.get('base', 0)}{dice}")
        text = f"{'Foes' if key == 'foe' else 'Cases'}: " + "   ".join(parts)
        draw.text(
            (sx + 6, y + 26 + 20 * line_no),
            _fit(draw, text, _font(12), sw - 12),
            font=_font(12),
            fill=TEXT,
        )
    queue = showdown.get("queue") or []
    if queue:
        text = _fit(draw, "Next roll: " + ", ".join(queue), _font(12), sw - 12)
        draw.text((sx + 6, y + 66), text, font=_font(12), fill=MUTED)
    return png(image)
