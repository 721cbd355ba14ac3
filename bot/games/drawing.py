"""Small Pillow helpers shared by the games' board pictures (pure: text in, pixels out)."""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

try:  # zlib-ng deflates a board three times as fast as zlib, into fewer bytes at level 2
    from zlib_ng import zlib_ng as _deflater
except ImportError:  # pragma: no cover - a platform without its wheel: zlib, at level 1
    _deflater = None  # type: ignore[assignment]

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

MASKS_KEPT = 2048  # rendered lines of text kept, of every size (a few KB each)
LENGTHS_KEPT = 4096


class KeptFont(ImageFont.FreeTypeFont):
    """A FreeType font that keeps what it rendered: a board's lines of text are most of its
    drawing (FreeType renders each glyph every time) and most come again in the next picture
    (labels, names, card texts). Pillow draws a line by asking the font for its mask and
    blending the ink through it; this font gives the mask it made before for the same line
    and arguments, so the pixels are the ones rendered afresh. Fonts are never changed."""

    def getmask2(  # type: ignore[override]
        self,
        text: str | bytes,
        mode: str = "",
        direction: str | None = None,
        features: list[str] | None = None,
        language: str | None = None,
        stroke_width: float = 0,
        anchor: str | None = None,
        ink: int = 0,
        start: tuple[float, float] | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> tuple[Any, tuple[int, int]]:
        plain = args or kwargs.keys() - {"stroke_filled"} or mode == "RGBA"  # RGBA: changed
        if plain or not isinstance(text, str):
            return super().getmask2(
                text, mode, direction, features, language, stroke_width, anchor, ink, start,
                *args, **kwargs,
            )  # fmt: skip
        return _mask(
            self,
            text,
            mode,
            direction,
            tuple(features) if features else None,
            language,
            stroke_width,
            anchor,
            ink,
            tuple(start) if start is not None else None,
            bool(kwargs.get("stroke_filled", False)),
        )

    def getlength(
        self,
        text: str | bytes,
        mode: str = "",
        direction: str | None = None,
        features: list[str] | None = None,
        language: str | None = None,
    ) -> float:
        if features or not isinstance(text, str):
            return super().getlength(text, mode, direction, features, language)
        return _length(self, text, mode, direction, language)


@lru_cache(maxsize=MASKS_KEPT)
def _mask(
    face: KeptFont,
    text: str,
    mode: str,
    direction: str | None,
    features: tuple[str, ...] | None,
    language: str | None,
    stroke_width: float,
    anchor: str | None,
    ink: int,
    start: tuple[float, float] | None,
    stroke_filled: bool,
) -> tuple[Any, tuple[int, int]]:
    return ImageFont.FreeTypeFont.getmask2(
        face,
        text,
        mode,
        direction,
        list(features) if features else None,
        language,
        stroke_width,
        anchor,
        ink,
        start,
        stroke_filled=stroke_filled,
    )


@lru_cache(maxsize=LENGTHS_KEPT)
def _length(
    face: KeptFont, text: str, mode: str, direction: str | None, language: str | None
) -> float:
    return ImageFont.FreeTypeFont.getlength(face, text, mode, direction, None, language)


@lru_cache(maxsize=16)
def font(size: int) -> Font:
    """The default font at `size` points (a fixed-size one where Pillow lacks FreeType)."""
    try:
        face = ImageFont.load_default(size=size)
    except (TypeError, OSError):  # Pillow without FreeType
        return ImageFont.load_default()
    font_bytes = getattr(face, "font_bytes", None)
    if not isinstance(face, ImageFont.FreeTypeFont) or not font_bytes:
        return face
    return KeptFont(io.BytesIO(font_bytes), size, layout_engine=face.layout_engine)


def fit(draw: ImageDraw.ImageDraw, text: str, face: Font, width: int) -> str:
    """``text`` cut with an ellipsis to fit ``width`` pixels."""
    if draw.textlength(text, font=face) <= width:
        return text
    while text and draw.textlength(text + "…", font=face) > width:
        text = text[:-1]
    return text + "…"


def wrap(draw: ImageDraw.ImageDraw, text: str, face: Font, width: int, lines: int) -> list[str]:
    """``text`` wrapped into at most ``lines`` lines of ``width`` pixels."""
    words = text.split()
    out: list[str] = []
    current = ""
    for word in words:
        trial = f"{current} {word}".strip()
        if draw.textlength(trial, font=face) <= width:
            current = trial
            continue
        if current:
            out.append(current)
        current = word
        if len(out) == lines:
            break
    if current and len(out) < lines:
        out.append(current)
    if len(out) == lines and " ".join(out) != " ".join(words):
        out[-1] = fit(draw, out[-1] + " …", face, width)
    return [fit(draw, line, face, width) for line in out[:lines]]


def png(image: Image.Image, compress_level: int = 1) -> bytes:
    """Encode a board picture as PNG, favouring speed over size. A picture of an opaque RGB
    palette (every board's) is written by `png_indexed`; others by Pillow at `compress_level`
    (0-9 as zlib takes it, -1 its default; 1, the fastest, takes about half the encoding time
    of the default for a tenth more bytes)."""
    opaque = "transparency" not in image.info
    if image.mode == "P" and opaque and image.palette is not None and image.palette.mode == "RGB":
        return png_indexed(image)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False, compress_level=compress_level)
    return buffer.getvalue()


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_indexed(image: Image.Image) -> bytes:
    """An opaque "P" image as a PNG file: the palette, then every row unfiltered (the filter
    a palette image should have), deflated in one stream. Deflating is most of a picture's
    encoding (1366 x 672 pixels: 2.7 ms with zlib at level 1 against 1.3 ms with zlib-ng at
    level 2, which also makes a tenth fewer bytes); Pillow's own writer takes zlib."""
    width, height = image.size
    pixels = memoryview(image.tobytes())
    rows = bytearray((width + 1) * height)  # each row after its filter byte, 0: none
    for y in range(height):
        start = y * (width + 1) + 1
        rows[start : start + width] = pixels[y * width : (y + 1) * width]
    if _deflater is not None:
        data = _deflater.compress(rows, 2)
    else:  # pragma: no cover - see the import
        data = zlib.compress(rows, 1)
    # all 256 entries: a pixel may name an index past the colours the palette was given
    palette = bytes((image.getpalette() or [])[: 3 * 256]).ljust(3 * 256, b"\0")
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8-bit palette indices
    return b"".join(
        [
            PNG_SIGNATURE,
            _chunk(b"IHDR", header),
            _chunk(b"PLTE", palette),
            _chunk(b"IDAT", data),
            _chunk(b"IEND", b""),
        ]
    )


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


NO_DITHER = Image.Dither.NONE

RGB = tuple[int, int, int]


def blend_palette(flat: Iterable[RGB], pairs: Iterable[tuple[RGB, RGB]], steps: int) -> Image.Image:
    """A palette for `png_fixed` of a picture drawn with known colours: the ``flat`` fills and
    inks exactly, and ``steps`` shades between each (background, ink) pair of ``pairs``, which
    is what anti-aliased text on a flat fill draws. At most 256 colours in all."""
    colours = list(dict.fromkeys(flat))
    for back, ink in pairs:
        for step in range(1, steps + 1):
            t = step / (steps + 1)
            shade = tuple(round(b + (i - b) * t) for b, i in zip(back, ink, strict=True))
            colours.append(shade)  # type: ignore[arg-type]
    colours = list(dict.fromkeys(colours))
    if len(colours) > 256:
        raise ValueError(f"{len(colours)} colours do not fit a palette of 256")
    palette = Image.new("P", (1, 1))
    palette.putpalette([channel for colour in colours for channel in colour])
    return palette


def palette_index(palette: Image.Image, colour: RGB) -> int:
    """Where a colour of `blend_palette`'s palette is in it (for drawing on a "P" image)."""
    flat = palette.getpalette() or []
    triples = [tuple(flat[i : i + 3]) for i in range(0, len(flat), 3)]
    return triples.index(colour)


def png_fixed(image: Image.Image, palette: Image.Image) -> bytes:
    """`png` of the image reduced to a palette known beforehand (`blend_palette`): each pixel
    takes the nearest colour of the palette, which costs a tenth of working out a palette per
    picture (an octree over every pixel, about half of drawing and encoding a card table), and
    a palette image encodes faster and at half the bytes."""
    return png(image.quantize(palette=palette, dither=NO_DITHER))
