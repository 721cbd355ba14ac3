"""The web view's HTML: every user string is escaped, Discord markdown never lets markup in."""

from __future__ import annotations

from bot.fate.sheet import AspectKind, new_character
from bot.fate.stunts import Stunt
from bot.services.web import AspectView, EncounterView, SceneView, TableView
from bot.web import pages

HOSTILE = '<img src=x onerror="alert(1)">'


def test_markdown_is_read_after_escaping() -> None:
    assert pages.md("**bold** and *it* and `code`") == (
        "<b>bold</b> and <i>it</i> and <code>code</code>"
    )
    assert pages.md(f"**{HOSTILE}**") == f"<b>{pages.esc(HOSTILE)}</b>"
    assert "<img" not in pages.md(HOSTILE) and "&quot;" in pages.md(HOSTILE)


def test_every_user_string_on_a_page_is_escaped() -> None:
    sheet = new_character(HOSTILE, skills={"Fight": 2})
    sheet = sheet.set_aspect(AspectKind.HIGH_CONCEPT, "A <b>bold</b> claim")
    sheet = sheet.model_copy(update={"stunts": [Stunt(name=HOSTILE, text=HOSTILE)]})
    view = TableView(
        campaign=HOSTILE,
        for_gm=True,
        characters=[sheet],
        npcs=[sheet],
        scenes=[
            SceneView(
                channel_id=1,
                title=HOSTILE,
                gm_pool=2,
                aspects=[AspectView(HOSTILE, "zone", True, (HOSTILE,), HOSTILE)],
                zones=[(HOSTILE, [HOSTILE])],
                people=[HOSTILE],
            )
        ],
        game_aspects=[AspectView(HOSTILE, "game")],
        encounters=[
            EncounterView("conflict", 1, 1, HOSTILE, HOSTILE, [(HOSTILE, HOSTILE)], [], [HOSTILE])
        ],
    )
    body = pages.table_body(view, lambda _channel: HOSTILE)
    page = pages.document(HOSTILE, body, events="x/events", kind="gm")
    assert "<img" not in page and "<b>bold</b>" not in page
    assert page.count(pages.esc(HOSTILE)) >= 15
    assert "A &lt;b&gt;bold&lt;/b&gt; claim" in page


def test_the_refusal_page_says_nothing_but_how_to_get_a_link() -> None:
    page = pages.refusal()
    assert "does not open anything" in page and "/campaign web" in page
    assert "data-events" not in page and "<script" not in page
