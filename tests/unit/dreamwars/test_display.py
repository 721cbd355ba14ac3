"""The Dreamwars display at Discord's limits: eight heroes, a crowded map, a full hand of
heroes for one player; and the picture drawn from the public view only."""

from __future__ import annotations

import io
import random
from datetime import UTC, datetime

from PIL import Image

from bot.games.base import get_display
from bot.games.dreamwars import ENGINE, DwState
from bot.services.game_info import GameInfo, HandInfo, Seat
from bot.ui.common import EMBED_TOTAL_LIMIT
from bot.ui.games import board_embed, hand_embed, picture_key

from .helpers import give, place, table

DISPLAY = get_display("dreamwars")


def _crowded() -> DwState:
    """Eight heroes of one seat, each as loaded as the sheet allows, and twenty Nemeses."""
    keys = ["max", "ilarier", "eogart", "melanie", "eilor", "duncard", "sela", "brannoc"]
    state = table(*keys, seats=1)
    lib = ENGINE.board.lib
    items = [k for k, item in lib.items.items() if item.deck in ("common", "tech")]
    for i, key in enumerate(keys):
        hero = lib.heroes[key]
        for item in items[: hero.max_load]:
            try:
                give(state, i, item)
            except KeyError:
                continue
        state.heroes[i].statuses = {"whisper": 2}
    nodes = [n for n, info in lib.nodes.items() if info.kind == "location"]
    markers = [k for k, m in lib.markers.items() if m.copies > 2]
    for n in range(20):
        place(state, markers[n % len(markers)], nodes[n % len(nodes)])
    return state


def _info(view: dict[str, object]) -> GameInfo:
    now = datetime.now(UTC)
    return GameInfo(
        id=7,
        engine="dreamwars",
        engine_name="Dreamwars",
        guild_id=1,
        channel_id=2,
        host_id=3,
        seats=[Seat("p0", 3, "alice")],
        options={},
        status="running",
        version=4,
        board_message_id=None,
        public_log=["x" * 190] * 8,
        result=None,
        created_at=now,
        last_activity=now,
        view=view,
        current_names=["alice"],
    )


def test_the_board_of_eight_heroes_and_twenty_nemeses_fits_one_embed() -> None:
    state = _crowded()
    view = ENGINE.public_view(state)
    embed = board_embed(_info(view))
    assert len(embed) <= EMBED_TOTAL_LIMIT and len(embed.fields) <= 25
    text = "\n".join(f.value or "" for f in embed.fields)
    for hero in view["heroes"]:
        assert hero["name"] in text
    assert all(len(f.value or "") <= 1024 for f in embed.fields)


def test_a_hand_of_eight_heroes_names_every_one_within_the_limits() -> None:
    state = _crowded()
    private = ENGINE.private_view(state, "p0")
    info = _info(ENGINE.public_view(state))
    hand = HandInfo(info, info.seats[0], private, ENGINE.legal_actions(state, "p0"))
    embed = hand_embed(hand, 0, 1)
    assert len(embed) <= EMBED_TOTAL_LIMIT and len(embed.fields) <= 25
    shown = "\n".join(f.name or "" for f in embed.fields)
    for hero in private["mine"]:
        assert f"{hero['name']} (your hero)" in shown


def test_the_map_is_drawn_from_the_public_view_and_redrawn_per_hero_phase() -> None:
    state = _crowded()
    view = ENGINE.public_view(state)
    assert "mine" not in view
    picture = DISPLAY.picture(view)
    assert picture is not None
    image = Image.open(io.BytesIO(picture))
    assert image.format == "PNG" and image.size[0] > 1000
    key = picture_key(_info(view))
    after, _ = ENGINE.apply(
        state, "p0", "stop" if state.heroes[0].moving else "end", random.Random(1)
    )
    assert key is not None and picture_key(_info(ENGINE.public_view(after))) != key
