"""Board pictures: the worker processes draw exactly what the bot's process would, from the
public view only; a game they cannot draw, or a worker that died, falls back to a thread; the
card game's cached card tiles are the same pixels as cards drawn in place; a move's parsed
state shows the same public view as the state read back from the row."""

from __future__ import annotations

import io
import os
import random
import signal
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageDraw

from bot.games import base
from bot.games.base import BUILTIN_ENGINE_MODULES, get_display, get_engine
from bot.pictures import PicturePool

SEATS = {"dfccg": ["1"], "vampire-empire": ["1", "ai:1"], "dreamwars": ["1", "ai:1"]}


def _views(key: str, steps: int, seed: int = 5) -> list[dict[str, Any]]:
    """Public views of one AI-played game, every few steps."""
    engine = get_engine(key)
    rng = random.Random(seed)
    state = engine.new_game(engine.parse_options({}), SEATS[key], rng)
    views = [engine.public_view(state)]
    for _ in range(steps):
        current = engine.current_seats(state)
        if engine.is_over(state) or not current:
            break
        state, _events = engine.apply(
            state, current[0], engine.choose_action(state, current[0], rng), rng
        )
        views.append(engine.public_view(state))
    return views[::4]


async def test_a_picture_drawn_by_the_workers_equals_one_drawn_in_the_process() -> None:
    pool = PicturePool(1)
    await pool.start()
    try:
        await pool.wait_ready()
        assert pool.ready
        drawn = 0
        for key in BUILTIN_ENGINE_MODULES:
            for view in _views(key, 12):
                assert await pool.draw(key, view) == get_display(key).picture(view)
                drawn += 1
        assert pool.drawn_in_workers == drawn and pool.drawn_in_threads == 0
        assert pool.worker_cpu_seconds > 0
    finally:
        await pool.close()


async def test_the_workers_stop_with_the_pool_and_a_dead_one_is_replaced() -> None:
    pool = PicturePool(1)
    await pool.start()
    view = _views("vampire-empire", 1)[0]
    await pool.wait_ready()
    executor = pool._executor
    assert executor is not None
    first = list(executor._processes.values())  # type: ignore[attr-defined]
    os.kill(first[0].pid, signal.SIGKILL)
    first[0].join(5)
    # The picture still comes (from a thread), and new workers take the next ones.
    assert await pool.draw("vampire-empire", view) == get_display("vampire-empire").picture(view)
    await pool.wait_ready()
    assert pool.ready and pool._executor is not executor
    assert await pool.draw("vampire-empire", view) is not None
    assert pool.drawn_in_workers == 1
    workers = list(pool._executor._processes.values())  # type: ignore[union-attr]
    await pool.close()
    await pool.close()  # twice is harmless
    assert workers and not any(process.is_alive() for process in workers)


async def test_a_display_the_workers_do_not_have_is_drawn_in_a_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    builtin = get_display("vampire-empire")

    class Replaced(type(builtin)):  # type: ignore[misc]
        def picture(self, view: dict[str, Any]) -> bytes | None:
            return b"drawn here"

    monkeypatch.setitem(base.DISPLAYS, "vampire-empire", Replaced())
    pool = PicturePool(1)
    await pool.start()
    try:
        await pool.wait_ready()
        assert await pool.draw("vampire-empire", {}) == b"drawn here"
        assert pool.drawn_in_threads == 1 and pool.drawn_in_workers == 0
    finally:
        await pool.close()


async def test_without_workers_pictures_are_drawn_in_a_thread() -> None:
    pool = PicturePool(0)
    await pool.start()
    view = _views("vampire-empire", 1)[0]
    assert await pool.draw("vampire-empire", view) == get_display("vampire-empire").picture(view)
    assert pool.drawn_in_threads == 1 and not pool.ready
    await pool.close()


def test_cached_card_tiles_are_the_pixels_of_cards_drawn_in_place() -> None:
    from bot.games.dfccg import picture

    picture._tile.cache_clear()
    compared = 0
    for view in _views("dfccg", 40, seed=3):
        board = picture.draw_board(view)
        y = picture.MARGIN + picture.HEADER_H
        for row in (view.get("rows") or [])[:2]:
            y += picture.ROW_LABEL_H
            for position, card in enumerate(row[: picture.COLUMNS]):
                x = picture.MARGIN + position * (picture.CARD_W + picture.GAP)
                in_place = Image.new("RGB", board.size, picture.BACKGROUND)
                picture._card(ImageDraw.Draw(in_place), x, y, card)
                box = (x, y, x + picture.CARD_W + 1, y + picture.CARD_H + 1)
                diff = ImageChops.difference(board.crop(box), in_place.crop(box))
                assert diff.getbbox() is None, card.get("name")
                compared += 1
            y += picture.CARD_H + picture.GAP
    assert compared > 20 and picture._tile.cache_info().hits > 0


def _board_drawn_in_place(view: dict[str, Any]) -> Image.Image:
    """The card game's board drawn part by part on one image, nothing pasted."""
    from bot.games.dfccg import picture as p

    image = Image.new("RGB", (p.WIDTH, p.HEIGHT), p.BACKGROUND)
    draw = ImageDraw.Draw(image)
    p._title(draw, view, p.WIDTH)
    y = p.MARGIN + p.HEADER_H
    rows = [*list(view.get("rows") or [])[:2], [], []][:2]
    for index, row in enumerate(rows):
        draw.text((p.MARGIN, y), f"Row {index + 1}  (Range 1 to 6)", font=p._font(15), fill=p.MUTED)
        y += p.ROW_LABEL_H
        for position in range(p.COLUMNS):
            x = p.MARGIN + position * (p.CARD_W + p.GAP)
            if position < len(row):
                p._card(draw, x, y, row[position])
            else:
                box = (x, y, x + p.CARD_W, y + p.CARD_H)
                draw.rounded_rectangle(box, radius=8, outline=p.EMPTY)
        y += p.CARD_H + p.GAP
    p._fate(draw, y, view.get("fate") or {})
    p._showdown(draw, y, p.WIDTH, view.get("showdown") or {}, list(view.get("solved") or []))
    return image


def test_the_board_of_pasted_parts_is_the_board_drawn_in_place() -> None:
    """Title, rows, pools and Showdown card are drawn once and pasted: the same pixels."""
    views = [v for seed in (3, 9) for v in _views("dfccg", 120, seed=seed)]
    assert any(v.get("result") for v in views) and any(v.get("solved") for v in views)
    views += [{}, {"book": None, "turn": 3}]
    for view in views:
        diff = ImageChops.difference(picture_of(view), _board_drawn_in_place(view))
        assert diff.getbbox() is None, view.get("turn")


def test_the_board_put_together_in_the_palette_is_the_drawn_board_reduced_to_it() -> None:
    """The picture is pasted from parts already reduced to the palette: the same PNG as the
    board drawn in full colour and reduced as a whole."""
    from bot.games.dfccg import picture
    from bot.games.drawing import png_fixed

    views = _views("dfccg", 60, seed=5) + [{}, {"book": None, "turn": 3}]
    for view in views:
        assert picture.render_board(view) == png_fixed(picture.draw_board(view), picture.PALETTE)


def picture_of(view: dict[str, Any]) -> Image.Image:
    from bot.games.dfccg import picture

    return picture.draw_board(view)


@pytest.mark.parametrize("key", sorted(BUILTIN_ENGINE_MODULES))
def test_a_moves_state_shows_what_the_stored_state_shows(key: str) -> None:
    """The table shows a move's result from the state the engine returned, not from the
    JSON it stored: both must give the same public view."""
    engine = get_engine(key)
    rng = random.Random(11)
    state = engine.new_game(engine.parse_options({}), SEATS[key], rng)
    for _ in range(60):
        current = engine.current_seats(state)
        if engine.is_over(state) or not current:
            break
        state, _events = engine.apply(
            state, current[0], engine.choose_action(state, current[0], rng), rng
        )
        stored = engine.load_state(state.model_dump_json())
        assert engine.public_view(state) == engine.public_view(stored)
        assert engine.current_seats(state) == engine.current_seats(stored)


@pytest.mark.parametrize("key", sorted(BUILTIN_ENGINE_MODULES))
def test_the_encoded_board_is_the_drawn_board_to_the_eye(key: str) -> None:
    """The PNG keeps at most 256 colours, of a palette fixed beforehand (it encodes in half
    the time, at half the bytes): no pixel moves far from what was drawn."""
    from PIL import ImageStat

    from bot.games.dfccg import picture as dfccg_picture
    from bot.games.dreamwars import picture as dw_picture
    from bot.games.vampire_empire import picture as ve_picture

    draw, render = {
        "dfccg": (dfccg_picture.draw_board, dfccg_picture.render_board),
        "vampire-empire": (ve_picture.draw_board, ve_picture.render_board),
        "dreamwars": (dw_picture.draw_map, dw_picture.render_map),
    }[key]
    for view in _views(key, 60, seed=4):
        drawn = draw(view)
        encoded = Image.open(io.BytesIO(render(view)))
        assert encoded.mode == "P" and encoded.size == drawn.size
        diff = ImageChops.difference(drawn, encoded.convert("RGB"))
        assert max(ImageStat.Stat(diff).mean) < 1.0
        assert max(high for _low, high in diff.getextrema()) <= 40


def test_the_card_games_picture_key_changes_exactly_when_the_picture_does() -> None:
    from bot.games.dfccg import picture

    views = _views("dfccg", 80, seed=6)
    views = [v for i, v in enumerate(views) for v in (v, views[max(i - 1, 0)])]
    pairs = list(zip(views, views[1:], strict=False))
    for before, after in pairs:
        same_key = picture.picture_key(before) == picture.picture_key(after)
        assert same_key == (picture.render_board(before) == picture.render_board(after))
    hand_only = {**views[0], "active_hand": [], "players": [], "decision": None}
    assert picture.picture_key(hand_only) == picture.picture_key(views[0])
    assert get_display("dfccg").picture_key(views[0]) == picture.picture_key(views[0])


async def test_the_workers_start_at_the_first_picture_not_before() -> None:
    pool = PicturePool(1)
    view = _views("vampire-empire", 1)[0]
    assert pool._executor is None  # a bot that never draws starts no process
    assert await pool.draw("vampire-empire", view) is not None  # drawn in a thread meanwhile
    assert pool.drawn_in_threads == 1 and pool._executor is not None
    await pool.wait_ready()
    await pool.draw("vampire-empire", view)
    assert pool.drawn_in_workers == 1
    await pool.close()


def test_kept_lines_of_text_are_the_pixels_of_lines_rendered_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pictures' font keeps the masks of the lines it rendered (and their lengths): every
    board drawn with it is the board drawn with the font rendering every line again."""
    from PIL import ImageFont

    from bot.games import drawing
    from bot.games.dfccg import picture as dfccg_picture
    from bot.games.dreamwars import picture as dw_picture
    from bot.games.vampire_empire import picture as ve_picture

    assert isinstance(drawing.font(14), drawing.KeptFont)
    draws = {
        "dfccg": dfccg_picture.draw_board,
        "vampire-empire": ve_picture.draw_board,
        "dreamwars": dw_picture.draw_map,
    }
    views = {key: _views(key, 80, seed=8) for key in draws}

    def boards() -> list[bytes]:
        for kept in (
            dfccg_picture._tile,
            dfccg_picture._title_tile,
            dfccg_picture._fate_tile,
            dfccg_picture._showdown_tile,
            dfccg_picture._table,
        ):
            kept.cache_clear()
        dw_picture._BACKGROUNDS.clear()
        return [draws[key](view).tobytes() for key in draws for view in views[key] * 2]

    kept = boards()
    assert drawing._mask.cache_info().hits > 0 and drawing._length.cache_info().hits > 0
    monkeypatch.setattr(drawing.KeptFont, "getmask2", ImageFont.FreeTypeFont.getmask2)
    monkeypatch.setattr(drawing.KeptFont, "getlength", ImageFont.FreeTypeFont.getlength)
    assert boards() == kept
