"""The live web view in a real browser: headless Chromium (Debian's package) driven by
Playwright for Python with the system browser. Skipped, with the reason, where either is missing.

Set WEB_SCREENSHOTS=docs to write the screenshots docs/web.md shows.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.testing.harness import Table
from tests.e2e.test_game_table import _hidden_names, _lobby, _row
from tests.e2e.test_web import a_table_in_play, link_of, web_table  # noqa: F401 - fixture

CHROMIUM = next(
    (p for p in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")) if p),
    None,
)
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def _skip_reason() -> str | None:
    if not CHROMIUM or not Path(CHROMIUM).exists():
        return "no Chromium: install Debian's package `chromium` (apt-get install chromium)"
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        return "no Playwright for Python: pip install -e '.[test]'"
    return None


REASON = _skip_reason()
if REASON:
    print(f"browser tests skipped: {REASON}")
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"browser tests: {REASON}")


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as driver:
        launched = await driver.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            yield launched
        finally:
            await launched.close()


async def _open(browser: Any, url: str, size: dict[str, int] = DESKTOP) -> Any:
    page = await browser.new_page(viewport=size)
    await page.goto(url)
    await page.wait_for_function("() => document.body.dataset.live === 'yes'", timeout=5000)
    return page


async def _shot(page: Any, name: str) -> None:
    folder = os.environ.get("WEB_SCREENSHOTS")
    if folder:
        await page.screenshot(path=str(Path(folder) / name), full_page=True)


async def _text(page: Any) -> str:
    return str(await page.inner_text("body"))


async def test_a_change_in_discord_appears_on_the_open_gm_page(
    web_table: Table,  # noqa: F811
    browser: Any,
) -> None:
    table = web_table
    await a_table_in_play(table)
    await table.slash(
        "conflict start",
        user=table.gm,
        kind="physical",
        participants="Molly, Dana, Ghoul",
        first="Ghoul",
    )
    page = await _open(browser, link_of(await table.slash("campaign web", user=table.gm)))
    shown = await _text(page)
    for expected in ("Molly", "Ghoul", "Cultists Wait Upstairs", "Conflict #", "Ghoul acts"):
        assert expected in shown, expected
    assert "<script>alert(1)</script>" in shown  # shown as text: it never ran
    assert await page.evaluate("typeof window.alert === 'function'")
    # The page takes well under a second (tests/e2e/test_web.py and `python -m bench
    # web-follow` time it); a browser on a loaded CI machine gets a few seconds here.
    await table.slash("aspect add", user=table.gm, text="Sirens in the Distance")
    await page.wait_for_function(
        "() => document.getElementById('page').innerText.includes('Sirens in the Distance')",
        timeout=5000,
    )
    # A player's edits of their own sheet show up on the GM's page too.
    box = await table.slash("character edit box", user=table.player, track="Physical stress", box=2)
    hurt = await table.slash(
        "character edit consequence", user=table.player, slot="Mild", aspect="Bruised Ribs"
    )
    assert "[x]" in box.text and "consequence updated" in hurt.text, (box.text, hurt.text)
    await page.wait_for_function(
        "() => document.getElementById('page').innerText.includes('Bruised Ribs')", timeout=3000
    )
    assert await page.locator(".box.marked").count() >= 1
    await _shot(page, "web-gm.png")


async def test_a_player_page_never_shows_hidden_things_or_npcs(
    web_table: Table,  # noqa: F811
    browser: Any,
) -> None:
    table = web_table
    await a_table_in_play(table)
    url = link_of(await table.slash("character web", user=table.player))
    page = await _open(browser, url, PHONE)
    await table.slash("aspect add", user=table.gm, text="A Trapdoor Under the Rug", hidden=True)
    await table.slash("aspect add", user=table.gm, text="Sirens in the Distance")
    await page.wait_for_function(
        "() => document.getElementById('page').innerText.includes('Sirens in the Distance')",
        timeout=3000,
    )
    html = await page.content()
    for secret in ("Cultists Wait Upstairs", "A Trapdoor Under the Rug", "Ghoul", "Hungry"):
        assert secret not in html, secret
    assert "Molly" in html and "Pouring Rain" in html
    await _shot(page, "web-player.png")


async def test_revoked_or_tampered_links_show_the_refusal_page(
    web_table: Table,  # noqa: F811
    browser: Any,
) -> None:
    table = web_table
    await a_table_in_play(table)
    url = link_of(await table.slash("campaign web", user=table.gm))
    page = await _open(browser, url)
    tampered = await browser.new_page()
    response = await tampered.goto(url[:-2] + ("AA" if not url.endswith("AA") else "BB"))
    assert response.status == 403
    assert "does not open anything" in await _text(tampered)
    assert "Molly" not in await tampered.content()
    await table.slash("campaign web", user=table.gm, revoke=True)
    # The open page turns into the refusal page by itself...
    await page.wait_for_function(
        "() => document.getElementById('page').innerText.includes('does not open anything')",
        timeout=3000,
    )
    assert "Molly" not in await page.content()
    assert "no longer works" in await page.inner_text("#live")
    # ...and opening the old link again gets it too.
    again = await browser.new_page()
    assert (await again.goto(url)).status == 403
    await _shot(again, "web-refused.png")


async def test_the_page_says_when_it_lost_the_connection_and_comes_back(
    web_table: Table,  # noqa: F811
    browser: Any,
) -> None:
    table = web_table
    await a_table_in_play(table)
    page = await _open(browser, link_of(await table.slash("campaign web", user=table.gm)))
    bot: Any = table.bot
    port = bot.web_server.port
    await bot.web_server.stop()
    await page.wait_for_function("() => document.body.dataset.live === 'no'", timeout=5000)
    assert "connection lost" in await page.inner_text("#live")
    await table.slash("aspect add", user=table.gm, text="Made While Offline")
    await bot.web_server.start(port, "127.0.0.1")
    await page.wait_for_function("() => document.body.dataset.live === 'yes'", timeout=10000)
    await page.wait_for_function(
        "() => document.getElementById('page').innerText.includes('Made While Offline')",
        timeout=3000,
    )


async def test_a_game_page_shows_the_board_picture_and_no_hand(
    web_table: Table,  # noqa: F811
    browser: Any,
) -> None:
    table = web_table
    game_id, _board = await _lobby(table, [table.player2])
    url = link_of(await table.slash("game status", user=table.player3))
    page = await _open(browser, url)
    await page.wait_for_function(
        "() => { const i = document.querySelector('img.board');"
        " return i && i.complete && i.naturalWidth > 0; }",
        timeout=5000,
    )
    from bot.games.base import get_engine

    state = get_engine("dfccg").load_state((await _row(table, game_id)).state or "")
    html = await page.content()
    for secret in _hidden_names(state):
        assert secret not in html, secret
    await _shot(page, "web-game.png")
