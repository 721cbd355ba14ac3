"""The map picture (Pillow): spaces, locations, heroes, Nemeses, markers, and a legend.

Drawn from the public view only, so it can never show a hand."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from PIL import Image, ImageDraw

from bot.games.drawing import Font, blend_palette, fit, font, png_fixed
from bot.games.dreamwars.packs import Library, load_library

MAP_W, MAP_H = 1000, 670
LEGEND_W = 330
MARGIN = 20
PAPER = (236, 226, 200)
INK = (48, 40, 32)
SPACE_COLOURS = {
    "city": (170, 160, 150),
    "wall": (110, 84, 60),
    "road": (200, 170, 120),
    "forest": (70, 120, 70),
    "river": (70, 120, 190),
    "water": (70, 120, 190),
    "bridge": (150, 110, 70),
    "plain": (180, 180, 140),
}
HERO_COLOURS = [
    (220, 60, 60),
    (60, 110, 220),
    (240, 190, 40),
    (60, 170, 90),
    (170, 80, 200),
    (240, 130, 40),
    (40, 180, 190),
    (230, 110, 170),
]
NEMESIS = (90, 10, 30)
HURT = (160, 30, 30)
ICON_MARKS = {
    "healing": ("+", (200, 40, 40)),
    "arcane": ("*", (60, 70, 200)),
    "common_trade": ("$", (150, 110, 0)),
    "tech_trade": ("T", (80, 80, 80)),
    "station": ("=", (40, 40, 40)),
    "coach": ("c", (110, 70, 30)),
}

BLACK, WHITE = (0, 0, 0), (255, 255, 255)
LEGEND = (226, 214, 186)
DREAMSTONE = (40, 150, 200)
TOWER = (100, 100, 100)
BADGES = {"unknown": (90, 90, 90), "supply": (150, 100, 30), "cannon": (20, 20, 20)}
MAP_COLOURS = 128  # the drawn-once map's own share of the palette


def _xy(lib: Library, node: str) -> tuple[int, int]:
    info = lib.nodes[node]
    return MARGIN + info.x * (MAP_W - 2 * MARGIN) // 1000, MARGIN + info.y


def _initials(name: str) -> str:
    parts = [p for p in name.replace(".", " ").split() if p[0].isalpha()]
    return "".join(p[0] for p in parts[:2]).upper() or "?"


def render_map(view: dict[str, Any], lib: Library | None = None) -> bytes:
    """The board picture (PNG) of a public view: the map drawn once per Library and faction,
    then this turn's pieces, markers and legend on a copy of it."""
    lib = lib or load_library()
    faction = (view.get("great") or {}).get("faction", "")
    # Drawn every turn: a palette image encodes in a third of the time, at half the size; the
    # palette is fixed per map (`_palette`), so that no picture works one out.
    return png_fixed(draw_map(view, lib), _palette(lib, faction))


def draw_map(view: dict[str, Any], lib: Library | None = None) -> Image.Image:
    """`render_map` before encoding."""
    lib = lib or load_library()
    faction = (view.get("great") or {}).get("faction", "")
    image = _background(lib, faction).copy()
    draw = ImageDraw.Draw(image)
    small, label, big = font(12), font(14), font(17)
    _tokens(draw, lib, view, small)
    _pieces(draw, lib, view, label)
    _legend(draw, view, label, big, small)
    return image


def _palette(lib: Library, faction: str) -> Image.Image:
    """The map's own colours (its octree, worked out once per Library and faction) and every
    colour the pieces, tokens and legend are drawn with, with the shades their anti-aliased
    text makes on what it is written on (a colour added to the picture belongs here; a test
    holds every encoded pixel near the drawn one)."""
    return _drawn_once(lib, faction)[2]


def _pieces_palette(background: Image.Image) -> Image.Image:
    drawn_once = background.quantize(
        colors=MAP_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
    )
    rgb = drawn_once.getpalette() or []
    counts = drawn_once.getcolors(MAP_COLOURS) or []
    used = sorted({index for _count, index in counts if isinstance(index, int)})
    map_colours = [(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]) for i in used]
    fills = [*HERO_COLOURS, NEMESIS, TOWER, *BADGES.values(), DREAMSTONE]
    return blend_palette(
        [*map_colours, *fills, BLACK, WHITE, INK, LEGEND, HURT, PAPER],
        [
            *((fill, ink) for fill in fills for ink in (BLACK, WHITE)),
            (LEGEND, INK),
            (LEGEND, HURT),
            (PAPER, DREAMSTONE),
        ],
        4,
    )


_BACKGROUNDS: dict[tuple[int, str], tuple[Library, Image.Image, Image.Image]] = {}


def _background(lib: Library, faction: str) -> Image.Image:
    """Walls, paths, spaces and locations (with this faction's active Portals framed), drawn
    once per Library and faction (the cache holds the Library, so its id stays its own)."""
    return _drawn_once(lib, faction)[1]


def _drawn_once(lib: Library, faction: str) -> tuple[Library, Image.Image, Image.Image]:
    """The Library, its map for the faction and the palette its pictures are encoded with."""
    cached = _BACKGROUNDS.get((id(lib), faction))
    if cached is not None and cached[0] is lib:
        return cached
    if len(_BACKGROUNDS) >= 16:
        _BACKGROUNDS.clear()
    image = _draw_background(lib, faction)
    cached = (lib, image, _pieces_palette(image))
    _BACKGROUNDS[(id(lib), faction)] = cached
    return cached


def _draw_background(lib: Library, faction: str) -> Image.Image:
    image = Image.new("RGB", (MAP_W + LEGEND_W, MAP_H + 2 * MARGIN), PAPER)
    draw = ImageDraw.Draw(image)
    small = font(12)
    _walls(draw, lib)
    _edges(draw, lib)
    for key, info in lib.nodes.items():
        x, y = _xy(lib, key)
        if info.kind == "space":
            colour = SPACE_COLOURS.get(info.type, SPACE_COLOURS["plain"])
            if info.type == "wall":
                draw.rectangle((x - 7, y - 7, x + 7, y + 7), fill=colour, outline=INK)
            else:
                draw.ellipse((x - 7, y - 7, x + 7, y + 7), fill=colour, outline=INK)
            continue
        portal = f"portal_{faction}" in info.icons
        fill = (250, 244, 228) if "city" in info.icons else (226, 236, 210)
        outline = (140, 30, 120) if portal else INK
        draw.rounded_rectangle(
            (x - 13, y - 11, x + 13, y + 11),
            radius=5,
            fill=fill,
            outline=outline,
            width=3 if portal else 1,
        )
        marks = "".join(ICON_MARKS[i][0] for i in info.icons if i in ICON_MARKS)
        if marks:
            draw.text((x, y), marks[:3], fill=INK, font=small, anchor="mm")
        draw.text((x, y + 14), info.name, fill=INK, font=small, anchor="ma")
    return image


def _walls(draw: ImageDraw.ImageDraw, lib: Library) -> None:
    for region, colour in (("halfen", (120, 90, 60)), ("folkenburg", (120, 90, 60))):
        points = [_xy(lib, k) for k, n in lib.nodes.items() if n.region == region]
        if not points:
            continue
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        draw.rounded_rectangle(
            (min(xs) - 28, min(ys) - 24, max(xs) + 28, max(ys) + 30),
            radius=18,
            outline=colour,
            width=3,
        )


def _edges(draw: ImageDraw.ImageDraw, lib: Library) -> None:
    drawn: set[tuple[str, str]] = set()
    for a, links in lib.adjacent.items():
        for b in links:
            pair = (min(a, b), max(a, b))
            if pair in drawn:
                continue
            drawn.add(pair)
            watery = {lib.nodes[a].type, lib.nodes[b].type} <= {"river", "bridge"}
            colour = (70, 120, 190) if watery else (150, 135, 110)
            draw.line((*_xy(lib, a), *_xy(lib, b)), fill=colour, width=6 if watery else 2)
    for a, b in zip(lib.rail, lib.rail[1:], strict=False):
        (x1, y1), (x2, y2) = _xy(lib, a), _xy(lib, b)
        for n in range(0, 20, 2):
            draw.line(
                (
                    x1 + (x2 - x1) * n // 20,
                    y1 + (y2 - y1) * n // 20,
                    x1 + (x2 - x1) * (n + 1) // 20,
                    y1 + (y2 - y1) * (n + 1) // 20,
                ),
                fill=(40, 40, 40),
                width=3,
            )


def _tokens(draw: ImageDraw.ImageDraw, lib: Library, view: dict[str, Any], face: Font) -> None:
    def badge(node: str, dx: int, dy: int, text: str, fill: tuple[int, int, int]) -> None:
        if node not in lib.nodes:
            return
        x, y = _xy(lib, node)
        draw.ellipse((x + dx - 7, y + dy - 7, x + dx + 7, y + dy + 7), fill=fill, outline=INK)
        draw.text((x + dx, y + dy), text, fill=(255, 255, 255), font=face, anchor="mm")

    for node in view.get("unknown") or []:
        badge(node, 16, -14, "?", BADGES["unknown"])
    if view.get("dropped_stone"):
        badge(view["dropped_stone"], 16, -14, "D", DREAMSTONE)
    for node, count in (view.get("supply") or {}).items():
        badge(node, -16, -14, str(count), BADGES["supply"])
    for node in view.get("cannons") or []:
        badge(node, -14, 12, "K", BADGES["cannon"])
    if view.get("train"):
        badge(view["train"], 0, -20, "=", BADGES["cannon"])


def _pieces(draw: ImageDraw.ImageDraw, lib: Library, view: dict[str, Any], face: Font) -> None:
    heroes_at: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for hero in view.get("heroes") or []:
        if not hero.get("dead") and hero.get("node") in lib.nodes:
            heroes_at[hero["node"]].append(hero)
    for node, group in heroes_at.items():
        x, y = _xy(lib, node)
        for n, hero in enumerate(group):
            cx, cy = x - 18 + 13 * (n % 4), y - 20 - 13 * (n // 4)
            draw.line((x, y, cx, cy), fill=INK, width=1)
            colour = HERO_COLOURS[hero["index"] % len(HERO_COLOURS)]
            outline = (0, 0, 0) if hero.get("door") is None else (255, 255, 255)
            draw.ellipse((cx - 9, cy - 9, cx + 9, cy + 9), fill=colour, outline=outline, width=2)
            draw.text((cx, cy), str(hero["index"] + 1), fill=(0, 0, 0), font=face, anchor="mm")
            if hero.get("dreamstone"):
                draw.text((cx, cy - 14), "D", fill=DREAMSTONE, font=face, anchor="mm")
    foes_at: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for foe in view.get("nemeses") or []:
        if foe.get("node") in lib.nodes:
            foes_at[foe["node"]].append(foe)
    for node, group in foes_at.items():
        x, y = _xy(lib, node)
        towers = [f for f in group if f.get("tower")]
        monsters = [f for f in group if not f.get("tower")]
        if monsters:  # right of the location, clear of its name below
            cx, cy = x + 26, y + 1
            draw.polygon(
                [(cx, cy - 11), (cx + 11, cy), (cx, cy + 11), (cx - 11, cy)],
                fill=NEMESIS,
                outline=(0, 0, 0),
            )
            draw.text((cx, cy), str(len(monsters)), fill=(255, 255, 255), font=face, anchor="mm")
        if towers:
            cx, cy = x - 26, y + 1
            draw.rectangle((cx - 9, cy - 11, cx + 9, cy + 11), fill=TOWER, outline=BLACK)
            draw.text((cx, cy), str(len(towers)), fill=(255, 255, 255), font=face, anchor="mm")


def _legend(
    draw: ImageDraw.ImageDraw, view: dict[str, Any], label: Font, big: Font, small: Font
) -> None:
    x0 = MAP_W + 8
    draw.rectangle((MAP_W, 0, MAP_W + LEGEND_W, MAP_H + 2 * MARGIN), fill=LEGEND)
    y = 12

    def line(
        text: str, face: Font = label, fill: tuple[int, int, int] = INK, step: int = 17
    ) -> None:
        nonlocal y
        while text and draw.textlength(text, font=face) > LEGEND_W - 16:
            text = text[:-2] + "…" if not text.endswith("…") else text[:-2] + "…"
        draw.text((x0, y), text, fill=fill, font=face)
        y += step

    scenario = (view.get("scenario") or {}).get("name", "")
    line(scenario, big, step=22)
    watch = f", Watch {view['watch']}" if view.get("watch") else ""
    line(
        f"Turn {view.get('turn', 1)}{watch}; Nemeses {len(view.get('nemeses') or [])}/"
        f"{view.get('nemesis_limit', '?')}"
    )
    great = view.get("great") or {}
    line(f"{great.get('name', '')}, {great.get('title', '')}", small)
    if view.get("phase") == "over":
        line("Game over: " + ("won" if view.get("result") == "won" else "lost"), label)
    else:
        line(f"As {view.get('active_name', '')}'s Heroes phase began", label)
    y += 6
    line("Heroes", big, step=20)
    for hero in view.get("heroes") or []:
        colour = HERO_COLOURS[hero["index"] % len(HERO_COLOURS)]
        draw.ellipse((x0, y, x0 + 16, y + 16), fill=colour, outline=INK)
        draw.text((x0 + 8, y + 8), str(hero["index"] + 1), fill=(0, 0, 0), font=small, anchor="mm")
        state = (
            "dead"
            if hero.get("dead")
            else (
                f"Death's Door {hero['door']}"
                if hero.get("door") is not None
                else f"{hero['life']}/{hero['max_life']} LP"
            )
        )
        extra = " +Dreamstone" if hero.get("dreamstone") else ""
        extra += f" +{hero['supply']} supply" if hero.get("supply") else ""
        width = LEGEND_W - 30
        text = fit(draw, f"{hero['name']}: {state}{extra}", small, width)
        draw.text((x0 + 22, y + 1), text, fill=INK, font=small)
        y += 19
        statuses = ", ".join(hero.get("statuses") or [])
        if statuses:  # an alteration status on a line of its own, in red
            draw.text((x0 + 22, y - 2), fit(draw, statuses, small, width), fill=HURT, font=small)
            y += 15
    y += 6
    line("Nemeses on the map", big, step=20)
    counted: dict[str, int] = defaultdict(int)
    for foe in view.get("nemeses") or []:
        counted[foe["name"]] += 1
    for name, count in sorted(counted.items()):
        line(f"{count} x {name}", small, step=15)
    y += 6
    line("Events in play", big, step=20)
    for event in view.get("events") or []:
        line(f"{event['name']} ({event['star']})", small, step=15)
    y += 6
    line("Key", big, step=20)
    for text in (
        "numbered disc: a hero (white ring: Death's Door)",
        "square: wall; dots: city, road, forest, river",
        "blue: the river Sende",
        "purple frame: active Portal",
        "$ common trade, T tech trade",
        "+ healing, * arcane, = station, c coach",
        "dark diamond: Nemeses there (count)",
        "grey block: Siege Tower; K cannon",
        "? Unknown token; D Dreamstone",
        "brown badge: Supply tokens",
        "dashes: the railway",
    ):
        line(text, small, step=15)
