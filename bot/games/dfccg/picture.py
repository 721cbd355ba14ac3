"""A picture of the Dresden card game's table: pure function from a public view dict to PNG bytes.

It draws the two rows of Book cards with their Ranges, each card's text, links and what blocks
it, the tokens on each card, the Fate pools, the Showdown card and, once the game is over, the
result. Only the public view goes in, so the picture can never show a hand.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import Any

import orjson
from PIL import Image, ImageDraw

from bot.games.drawing import NO_DITHER, blend_palette, png
from bot.games.drawing import fit as _fit
from bot.games.drawing import font as _font
from bot.games.drawing import palette_index as _palette_index
from bot.games.drawing import wrap as _wrap

CARD_W, CARD_H = 214, 212
GAP = 10
MARGIN = 16
HEADER_H = 44
ROW_LABEL_H = 24
FOOTER_H = 104
COLUMNS = 6
PAD = 8
TEXT_SIZE = 14  # card texts: large enough to read when the picture is opened
LINE = TEXT_SIZE + 4
TOKENS_H = 40  # the bottom of a card: its tokens

BACKGROUND = (28, 31, 38)
TEXT = (240, 240, 244)
MUTED = (200, 204, 214)
BLOCKED = (255, 214, 110)
TYPE_COLOURS: dict[str, tuple[int, int, int]] = {
    "foe": (128, 40, 40),
    "case": (36, 74, 128),
    "obstacle": (104, 84, 28),
    "advantage": (36, 100, 60),
}
TOKEN_COLOURS = {"foe": (240, 96, 86), "case": (110, 176, 250)}
OTHER_CARD = (80, 80, 90)  # a card of a type without a colour of its own
SHOWDOWN = (70, 44, 96)  # the Showdown card, and the title's box once the game is over
FATE = (240, 200, 80)
EMPTY = (70, 74, 84)  # the outline of a free place in a row
WHITE = (255, 255, 255)
# Every colour the picture is drawn with, and the shades anti-aliased text makes of an ink on a
# fill: the PNG's palette, fixed, so that no picture works one out (a colour added to the
# picture belongs here; a test holds every encoded pixel near the drawn one).
FILLS = (BACKGROUND, *TYPE_COLOURS.values(), OTHER_CARD, SHOWDOWN)
INKS = (TEXT, MUTED, BLOCKED)
PALETTE = blend_palette(
    (*FILLS, *INKS, *TOKEN_COLOURS.values(), FATE, EMPTY, WHITE),
    [(fill, ink) for fill in FILLS for ink in INKS],
    10,
)
EMPTY_INDEX = _palette_index(PALETTE, EMPTY)  # a free place's outline on an indexed board


def _notes(card: dict[str, Any]) -> list[tuple[str, tuple[int, int, int]]]:
    """Short lines under the name: why the card is blocked, and its links."""
    notes = [(f"blocked: {reason}", BLOCKED) for reason in card.get("blocked") or []]
    for link in card.get("links") or []:
        arrow = "from" if link.get("dir") == "in" else "to"
        partners = ", ".join(p.split(" (")[0] for p in link.get("partners") or []) or "none"
        notes.append((f"link {link.get('letter')} {arrow} {partners}", MUTED))
    return notes


def _tokens(draw: ImageDraw.ImageDraw, x: int, y: int, card: dict[str, Any]) -> None:
    kind = str(card.get("type", ""))
    value = card.get("value")
    if not value:
        return
    tokens = int(card.get("tokens") or 0)
    noun = "Hits" if kind == "foe" else "Clues"
    base = y + CARD_H - TOKENS_H
    draw.line((x + PAD, base, x + CARD_W - PAD, base), fill=WHITE, width=1)
    draw.text((x + PAD, base + 4), f"{tokens}/{value} {noun}", font=_font(15), fill=TEXT)
    for i in range(min(tokens, 14)):  # one pip per token (up to 14)
        px = x + PAD + i * 14
        draw.ellipse((px, base + 24, px + 10, base + 34), fill=TOKEN_COLOURS.get(kind, TEXT))


def _card(draw: ImageDraw.ImageDraw, x: int, y: int, card: dict[str, Any]) -> None:
    kind = str(card.get("type", ""))
    width = CARD_W - 2 * PAD
    draw.rounded_rectangle(
        (x, y, x + CARD_W, y + CARD_H), radius=8, fill=TYPE_COLOURS.get(kind, OTHER_CARD)
    )
    draw.text((x + PAD, y + 5), f"Range {card.get('range', '?')}", font=_font(13), fill=MUTED)
    draw.text((x + CARD_W - PAD, y + 5), kind.title(), font=_font(13), fill=TEXT, anchor="ra")
    line_y = y + 24
    for line in _wrap(draw, str(card.get("name", "?")), _font(16), width, 2):
        draw.text((x + PAD, line_y), line, font=_font(16), fill=TEXT)
        line_y += 19
    line_y += 2
    for note, colour in _notes(card)[:3]:
        for line in _wrap(draw, note, _font(12), width, 2):
            draw.text((x + PAD, line_y), line, font=_font(12), fill=colour)
            line_y += 15
    bottom = y + CARD_H - (TOKENS_H if card.get("value") else PAD)
    room = max(0, (bottom - line_y - 6) // LINE)
    text = str(card.get("text") or "")
    for line in _wrap(draw, text, _font(TEXT_SIZE), width, room) if text and room else []:
        draw.text((x + PAD, line_y + 2), line, font=_font(TEXT_SIZE), fill=TEXT)
        line_y += LINE
    _tokens(draw, x, y, card)


TILES_KEPT = 512  # card tiles drawn once and pasted again while the card looks the same


@lru_cache(maxsize=TILES_KEPT)
def _tile(card_json: str, indexed: bool = False) -> Image.Image:
    """One card drawn on its own (the table's background in its rounded corners): a card
    changes when its tokens, links or blocks do, so most of a board is pasted, not drawn.
    `indexed`: reduced to the picture's palette (`_indexed`)."""
    tile = Image.new("RGB", (CARD_W + 1, CARD_H + 1), BACKGROUND)
    _card(ImageDraw.Draw(tile), 0, 0, json.loads(card_json))
    return _indexed(tile) if indexed else tile


def _title(draw: ImageDraw.ImageDraw, view: dict[str, Any], width: int) -> None:
    title = f"{view.get('book', '')} · turn {view.get('turn', 0)} · {view.get('phase', '')}"
    result = view.get("result")
    if result:
        draw.rounded_rectangle(
            (MARGIN - 6, MARGIN - 6, width - MARGIN + 6, MARGIN + 30), radius=6, fill=SHOWDOWN
        )
        title = f"Game over: {result}"
    draw.text(
        (MARGIN, MARGIN),
        _fit(draw, title, _font(22), width - 2 * MARGIN),
        font=_font(22),
        fill=TEXT,
    )


def _fate(draw: ImageDraw.ImageDraw, y: int, fate: dict[str, Any]) -> None:
    available = int(fate.get("available", 0))
    spent = int(fate.get("spent", 0))
    draw.text((MARGIN, y + 4), f"Fate available: {available}", font=_font(16), fill=TEXT)
    draw.text((MARGIN, y + 52), f"Fate spent: {spent}", font=_font(16), fill=MUTED)
    for i in range(min(available, 13)):
        px = MARGIN + i * 20
        draw.ellipse((px, y + 28, px + 15, y + 43), fill=FATE)
    for i in range(min(spent, 13)):
        px = MARGIN + i * 20
        draw.ellipse((px, y + 76, px + 15, y + 91), outline=FATE, width=2)


def _showdown(
    draw: ImageDraw.ImageDraw, y: int, width: int, showdown: dict[str, Any], solved: list[str]
) -> None:
    """The Showdown card's table, then who is still owed a roll (or the Cases solved)."""
    sx = MARGIN + 2 * (CARD_W + GAP)
    sw = width - MARGIN - sx
    draw.rounded_rectangle((sx, y, sx + sw, y + FOOTER_H - 6), radius=8, fill=SHOWDOWN)
    name = _fit(draw, str(showdown.get("name", "Showdown")), _font(16), sw - 2 * PAD)
    draw.text((sx + PAD, y + 5), name, font=_font(16), fill=TEXT)
    for line_no, key in enumerate(("foe", "case")):
        parts = []
        for tier in showdown.get(key) or []:
            roll = tier.get("roll") or {}
            dice = f"[{roll.get('dice')}]" if roll.get("dice") else ""
            parts.append(f"{tier.get('fate')} Fate: {roll.get('base', 0)}{dice}")
        label = "Foes with Hits" if key == "foe" else "Cases with Clues"
        text = _fit(draw, f"{label}: " + "   ".join(parts), _font(14), sw - 2 * PAD)
        draw.text((sx + PAD, y + 30 + 22 * line_no), text, font=_font(14), fill=TEXT)
    queue = showdown.get("queue") or []
    line = "Still owed a roll: " + ", ".join(queue) if queue else ""
    if not line and solved:
        line = "Solved Cases: " + ", ".join(solved)
    if line:
        draw.text(
            (sx + PAD, y + 76),
            _fit(draw, line, _font(13), sw - 2 * PAD),
            font=_font(13),
            fill=MUTED,
        )


# Every part of the public view the picture draws (the title, the rows, the pools, the
# Showdown, the solved Cases); the rest of the view (hands' sizes, decks, the decision) is not.
PICTURED = ("book", "turn", "phase", "result", "rows", "fate", "showdown", "solved")


def picture_key(view: dict[str, Any]) -> str:
    """A short digest of what `render_board` would draw from ``view``."""
    # orjson: the board asks at every edit, and json.dumps of the rows was ~0.3 ms of it
    drawn = orjson.dumps({key: view.get(key) for key in PICTURED}, option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(drawn, digest_size=12).hexdigest()


def render_board(view: dict[str, Any]) -> bytes:
    """PNG bytes of the table described by ``view`` (an engine's public view): the board put
    together from parts already reduced to the palette, which is `png_fixed(draw_board(view),
    PALETTE)` pixel for pixel (a pixel's colour in the palette does not depend on its
    neighbours) without reducing the whole picture each time (about a fifth of its cost)."""
    return png(draw_board(view, indexed=True))


def _indexed(part: Image.Image) -> Image.Image:
    """A part of the picture reduced to its palette once, as it is kept for pasting."""
    return part.quantize(palette=PALETTE, dither=NO_DITHER)


WIDTH = MARGIN * 2 + COLUMNS * CARD_W + (COLUMNS - 1) * GAP
HEIGHT = MARGIN * 2 + HEADER_H + 2 * (ROW_LABEL_H + CARD_H + GAP) + FOOTER_H
FOOTER_Y = MARGIN + HEADER_H + 2 * (ROW_LABEL_H + CARD_H + GAP)
SHOWDOWN_X = MARGIN + 2 * (CARD_W + GAP)  # the Fate pools are drawn left of it
PARTS_KEPT = 64  # titles, pools and Showdown cards drawn once and pasted again

# Text is most of what a board costs to draw (each line is rendered glyph by glyph), and
# little of it changes between two pictures of a game: the row labels never do, the title
# once a turn, the pools and the Showdown card more rarely still. Each part is drawn on its
# own (on the table's background, where nothing else is drawn) and pasted, like the cards.


@lru_cache(maxsize=2)
def _table(indexed: bool = False) -> Image.Image:
    """The empty table with its row labels."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    y = MARGIN + HEADER_H
    for index in range(2):
        draw.text((MARGIN, y), f"Row {index + 1}  (Range 1 to 6)", font=_font(15), fill=MUTED)
        y += ROW_LABEL_H + CARD_H + GAP
    return _indexed(image) if indexed else image


@lru_cache(maxsize=PARTS_KEPT)
def _title_tile(drawn_json: str, indexed: bool = False) -> Image.Image:
    tile = Image.new("RGB", (WIDTH, MARGIN + HEADER_H), BACKGROUND)
    _title(ImageDraw.Draw(tile), json.loads(drawn_json), WIDTH)
    return _indexed(tile) if indexed else tile


@lru_cache(maxsize=PARTS_KEPT)
def _fate_tile(available: int, spent: int, indexed: bool = False) -> Image.Image:
    tile = Image.new("RGB", (SHOWDOWN_X, FOOTER_H), BACKGROUND)
    _fate(ImageDraw.Draw(tile), 0, {"available": available, "spent": spent})
    return _indexed(tile) if indexed else tile


@lru_cache(maxsize=PARTS_KEPT)
def _showdown_tile(drawn_json: str, indexed: bool = False) -> Image.Image:
    showdown, solved = json.loads(drawn_json)
    tile = Image.new("RGB", (WIDTH, FOOTER_H), BACKGROUND)
    _showdown(ImageDraw.Draw(tile), 0, WIDTH, showdown, solved)
    tile = tile.crop((SHOWDOWN_X, 0, WIDTH, FOOTER_H))
    return _indexed(tile) if indexed else tile


def draw_board(view: dict[str, Any], indexed: bool = False) -> Image.Image:
    """The table described by ``view`` (an engine's public view), before encoding;
    `indexed`: in the palette's colours (a "P" image), put together from indexed parts."""
    rows: list[list[dict[str, Any]]] = list(view.get("rows") or [])[:2]
    while len(rows) < 2:
        rows.append([])
    image = _table(indexed).copy()
    draw = ImageDraw.Draw(image)
    titled = {key: view[key] for key in ("book", "turn", "phase", "result") if key in view}
    image.paste(_title_tile(json.dumps(titled, sort_keys=True), indexed), (0, 0))
    y = MARGIN + HEADER_H
    empty = EMPTY_INDEX if indexed else EMPTY
    for row in rows:
        y += ROW_LABEL_H
        for position in range(COLUMNS):
            x = MARGIN + position * (CARD_W + GAP)
            if position < len(row):
                image.paste(_tile(json.dumps(row[position], sort_keys=True), indexed), (x, y))
            else:
                draw.rounded_rectangle((x, y, x + CARD_W, y + CARD_H), radius=8, outline=empty)
        y += CARD_H + GAP
    fate = view.get("fate") or {}
    pools = _fate_tile(int(fate.get("available", 0)), int(fate.get("spent", 0)), indexed)
    image.paste(pools, (0, y))
    shown = [view.get("showdown") or {}, list(view.get("solved") or [])]
    image.paste(_showdown_tile(json.dumps(shown, sort_keys=True), indexed), (SHOWDOWN_X, y))
    return image
