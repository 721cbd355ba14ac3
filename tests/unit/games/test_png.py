"""The boards' PNG writer (bot.games.drawing.png_indexed): any palette picture comes back
pixel for pixel, with zlib-ng or without it."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from bot.games import drawing


def _palette_picture(width: int, height: int, seed: int) -> Image.Image:
    rng = random.Random(seed)
    image = Image.frombytes(
        "P", (width, height), bytes(rng.randrange(200) for _ in range(width * height))
    )
    image.putpalette([rng.randrange(256) for _ in range(3 * 200)])
    return image


def _decoded(data: bytes) -> Image.Image:
    Image.open(io.BytesIO(data)).verify()  # chunks and checksums
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@pytest.mark.parametrize("zlib_ng", [True, False])
@pytest.mark.parametrize(("width", "height"), [(1, 1), (7, 3), (320, 200)])
def test_a_palette_picture_comes_back_pixel_for_pixel(
    zlib_ng: bool, width: int, height: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not zlib_ng:
        monkeypatch.setattr(drawing, "_deflater", None)
    elif drawing._deflater is None:
        pytest.skip("zlib-ng is not installed here")
    picture = _palette_picture(width, height, seed=width)
    back = _decoded(drawing.png(picture))
    assert back.mode == "P" and back.size == picture.size
    assert back.tobytes() == picture.tobytes()
    assert back.convert("RGB").tobytes() == picture.convert("RGB").tobytes()


def test_other_pictures_go_through_pillow() -> None:
    colour = Image.new("RGB", (5, 4), (10, 200, 30))
    assert _decoded(drawing.png(colour)).convert("RGB").tobytes() == colour.tobytes()
    clear = _palette_picture(6, 6, seed=1)
    clear.info["transparency"] = 0  # a transparent colour: png_indexed writes none
    back = _decoded(drawing.png(clear))
    assert back.convert("RGB").tobytes() == clear.convert("RGB").tobytes()


def test_a_short_palette_is_written_whole_and_an_rgba_one_through_pillow() -> None:
    short = Image.frombytes("P", (3, 1), bytes([0, 1, 5]))  # index 5: past the two colours
    short.putpalette([255, 0, 0, 0, 255, 0])
    data = drawing.png(short)
    assert data[data.index(b"PLTE") - 4 : data.index(b"PLTE")] == (768).to_bytes(4, "big")
    assert _decoded(data).convert("RGB").getpixel((1, 0)) == (0, 255, 0)
    seethrough = Image.frombytes("P", (2, 1), bytes([0, 1]))
    seethrough.putpalette([255, 0, 0, 0, 0, 255, 0, 128], rawmode="RGBA")
    back = _decoded(drawing.png(seethrough)).convert("RGBA")
    assert [back.getpixel((x, 0)) for x in (0, 1)] == [(255, 0, 0, 0), (0, 255, 0, 128)]
