"""A picture of a Vampire Empire table, drawn from the public view only (so it can never show
a hidden vampire, a known human or a card in a hand): the castle's three characters with their
markers, the city's members (not their order), the dead with who they were, a combat under way
and each side's piles."""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageDraw

from bot.games.drawing import blend_palette, fit, font, png_fixed

WIDTH, HEIGHT = 720, 640  # drawn tall, then cut to what was drawn
MARGIN = 16
CASTLE_W, CASTLE_H = 216, 120
TILE_W, TILE_H = 102, 34

BACKGROUND = (24, 22, 30)
TEXT = (238, 234, 240)
MUTED = (158, 150, 170)
PROFESSION_COLOURS = {
    "noble": (112, 70, 140),
    "clergy": (58, 96, 150),
    "servant": (106, 92, 60),
}
REVEALED = (160, 30, 40)
HUMAN_DEAD = (70, 90, 70)
VAMPIRE_DEAD = (110, 40, 46)
OTHER = (80, 80, 90)  # a castle character without a profession colour
CITY = (60, 60, 72)
UNMASKED = (255, 200, 200)  # "revealed vampire" on a castle card
COMBAT = (255, 210, 140)
SIDE_TITLES = {"vampires": "Vampire player", "humans": "Human player"}
# Every colour the picture is drawn with, and the shades anti-aliased text makes of each ink
# on the fills it is written on: the PNG's palette, fixed, so that no picture works one out
# (a colour added to the picture belongs here; a test holds every encoded pixel near the
# drawn one).
CASTLE_FILLS = (*PROFESSION_COLOURS.values(), OTHER)
FILLS = (BACKGROUND, *CASTLE_FILLS, REVEALED, CITY, HUMAN_DEAD, VAMPIRE_DEAD)
PALETTE = blend_palette(
    (*FILLS, TEXT, MUTED, UNMASKED, COMBAT),
    [
        *((fill, TEXT) for fill in FILLS),
        (BACKGROUND, MUTED),
        (BACKGROUND, COMBAT),
        *((fill, UNMASKED) for fill in CASTLE_FILLS),
    ],
    14,
)


def _castle_card(draw: ImageDraw.ImageDraw, x: int, y: int, character: dict[str, Any]) -> None:
    colour = PROFESSION_COLOURS.get(str(character.get("profession")), OTHER)
    draw.rounded_rectangle((x, y, x + CASTLE_W, y + CASTLE_H), radius=10, fill=colour)
    if character.get("revealed"):
        draw.rounded_rectangle(
            (x, y, x + CASTLE_W, y + CASTLE_H), radius=10, outline=REVEALED, width=5
        )
    draw.text((x + 10, y + 8), str(character.get("name", "?")), font=font(22), fill=TEXT)
    draw.text(
        (x + 10, y + 38), str(character.get("profession", "")).title(), font=font(14), fill=TEXT
    )
    if character.get("revealed"):
        draw.text((x + 10, y + 58), "revealed vampire", font=font(14), fill=UNMASKED)
    marks = []
    if character.get("attack"):
        marks.append(f"+{character['attack']} attack")
    if character.get("defence"):
        marks.append(f"+{character['defence']} defence")
    if marks:
        draw.text((x + 10, y + CASTLE_H - 26), "  ".join(marks), font=font(14), fill=TEXT)


def _tiles(
    draw: ImageDraw.ImageDraw, y: int, label: str, tiles: list[tuple[str, tuple[int, int, int]]]
) -> int:
    """A labelled row of small name tiles; returns the y below it."""
    draw.text((MARGIN, y), label, font=font(14), fill=MUTED)
    y += 20
    for index, (name, colour) in enumerate(tiles):
        x = MARGIN + (index % 6) * (TILE_W + 8)
        row_y = y + (index // 6) * (TILE_H + 6)
        draw.rounded_rectangle((x, row_y, x + TILE_W, row_y + TILE_H), radius=6, fill=colour)
        draw.text(
            (x + 8, row_y + 9), fit(draw, name, font(14), TILE_W - 16), font=font(14), fill=TEXT
        )
    rows = max(1, (len(tiles) + 5) // 6)
    if not tiles:
        draw.text((MARGIN, y + 8), "none", font=font(14), fill=MUTED)
    return y + rows * (TILE_H + 6) + 8


def render_board(view: dict[str, Any]) -> bytes:
    """PNG bytes of the table that ``view`` (the engine's public view) describes."""
    return png_fixed(draw_board(view), PALETTE)


def draw_board(view: dict[str, Any]) -> Image.Image:
    """The table that ``view`` (the engine's public view) describes, before encoding."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    acting = SIDE_TITLES.get(str(view.get("acting")), "nobody")
    title = f"Vampire Empire · turn {view.get('turn', 0)} · {acting} to act"
    draw.text(
        (MARGIN, MARGIN), fit(draw, title, font(20), WIDTH - 2 * MARGIN), font=font(20), fill=TEXT
    )
    y = MARGIN + 34
    draw.text((MARGIN, y), "Castle", font=font(14), fill=MUTED)
    for index, character in enumerate((view.get("castle") or [])[:3]):
        _castle_card(draw, MARGIN + index * (CASTLE_W + 12), y + 20, character)
    y += 20 + CASTLE_H + 12
    revealed = set(view.get("revealed_in_city") or [])
    city = [(name, REVEALED if name in revealed else CITY) for name in view.get("city") or []]
    y = _tiles(draw, y, f"City: {view.get('city_count', 0)} characters, order hidden", city)
    dead = [
        (
            f"{d['name']} ({'V' if d['vampire'] else 'H'})",
            VAMPIRE_DEAD if d["vampire"] else HUMAN_DEAD,
        )
        for d in view.get("dead") or []
    ]
    y = _tiles(draw, y, "Dead (V vampire, H human)", dead)
    combat = view.get("combat")
    if combat:
        text = (
            f"Combat, round {combat['round']}: {combat['attacker']} attacks {combat['target']}, "
            f"attack {combat['attack']} against defence {combat['defence']}"
        )
        draw.text(
            (MARGIN, y),
            fit(draw, text, font(15), WIDTH - 2 * MARGIN),
            font=font(15),
            fill=COMBAT,
        )
        y += 24
    piles = view.get("piles") or {}
    for side, counts in piles.items():
        text = (
            f"{SIDE_TITLES.get(side, side)}: {counts['hand']} in hand, {counts['deck']} in deck, "
            f"{counts['cellar']} in cellar, {counts['moat']} in moat"
        )
        draw.text(
            (MARGIN, y), fit(draw, text, font(13), WIDTH - 2 * MARGIN), font=font(13), fill=MUTED
        )
        y += 18
    return image.crop((0, 0, WIDTH, min(HEIGHT, y + MARGIN)))
