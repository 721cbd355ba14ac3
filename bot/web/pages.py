"""HTML of the live web view: plain markup from the views the web service gathered.

Every string that came from a user (names, aspects, stunts, notes, game fields) goes through
`esc` (or `md`, which escapes first and then reads Discord's **bold**, *italic* and `code`).
Nothing here decides what a page may show: `bot.services.web` already left out what the
viewer must not see.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections import Counter
from collections.abc import Callable, Iterable

from bot.fate.ladder import adjective, signed
from bot.fate.sheet import Character
from bot.fate.tracks import Track, TrackKind
from bot.fate.words import tally
from bot.games.base import get_display
from bot.services.game_info import GameInfo
from bot.services.web import AspectView, EncounterView, SceneView, TableView

ChannelName = Callable[[int], str | None]
LOG_LINES = 8


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_CODE = re.compile(r"`([^`]+)`")


def md(text: str) -> str:
    """Discord's light markdown as HTML, after escaping (so no markup of the user survives)."""
    out = esc(text)
    out = _CODE.sub(r"<code>\1</code>", out)
    out = _BOLD.sub(r"<b>\1</b>", out)
    out = _ITALIC.sub(r"<i>\1</i>", out)
    return out.replace("\n", "<br>")


def version_of(body: str) -> str:
    """A short fingerprint of a page body: the page replaces itself only when it changed."""
    return hashlib.sha256(body.encode()).hexdigest()[:16]


def document(title: str, body: str, *, events: str | None, kind: str) -> str:
    """A whole page; `events` is the (relative) address of its event stream."""
    live = '<span id="live" class="live" role="status">connecting…</span>' if events else ""
    footer = "Fate Table · this page follows the table as it changes" if events else "Fate Table"
    stream = f' data-events="{esc(events)}"' if events else ""
    script = '<script src="../static/web.js" defer></script>' if events else ""
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex">'
        f"<title>{esc(title)}</title>"
        '<link rel="stylesheet" href="../static/web.css">'
        f"{script}</head>"
        f'<body class="{esc(kind)}"{stream} data-version="{version_of(body)}">'
        f"<header><h1>{esc(title)}</h1>{live}</header>"
        f'<main id="page">{body}</main>'
        f"<footer>{footer}</footer>"
        "</body></html>"
    )


REFUSAL_TITLE = "This link does not open anything"
REFUSAL_BODY = (
    '<section class="refused"><p>This link does not open anything (any more). It may have '
    "expired, been revoked, or been copied incompletely.</p><p>Ask for a new one in Discord: "
    "<code>/campaign web</code> (the GM), <code>/character web</code> (your character) or "
    "<code>/game status</code> (a game at the table).</p></section>"
)


def refusal() -> str:
    return document(REFUSAL_TITLE, REFUSAL_BODY, events=None, kind="refusal")


INDEX = document(
    "Fate Table",
    "<section><p>The live web view of a Fate Table game. Pages open from links the bot gives in "
    "Discord: <code>/campaign web</code>, <code>/character web</code>, "
    "<code>/game status</code>.</p></section>",
    events=None,
    kind="index",
)


# ----------------------------------------------------------------------------- pieces
def _list(items: Iterable[str], cls: str = "") -> str:
    inner = "".join(f"<li>{item}</li>" for item in items)
    if not inner:
        return ""
    attr = f' class="{cls}"' if cls else ""
    return f"<ul{attr}>{inner}</ul>"


def _invokes(names: tuple[str, ...]) -> str:
    if not names:
        return ""
    text = tally(Counter(names), esc)
    total = len(names)
    return f' <span class="inv" title="free invokes">{total} free: {text}</span>'


def _aspect(a: AspectView) -> str:
    badges = []
    if a.hidden:
        badges.append('<span class="tag hidden">hidden</span>')
    if a.kind not in ("situation",):
        badges.append(f'<span class="tag">{esc(a.kind)}</span>')
    where = f' <span class="where">in {esc(a.where)}</span>' if a.where else ""
    cls = "aspect hidden-aspect" if a.hidden else "aspect"
    return (
        f'<span class="{cls}">{esc(a.text)}</span>{where} {" ".join(badges)}{_invokes(a.invokes)}'
    )


def _boxes(track: Track) -> str:
    boxes = "".join(
        f'<span class="box{" marked" if b.marked else ""}" title="{b.value}">{b.value}</span>'
        for b in track.boxes
    )
    return f'<span class="boxes">{boxes}</span>'


def _track(track: Track) -> str:
    label = esc(track.label)
    if track.kind is TrackKind.STRESS:
        return f"<li>{label} {_boxes(track)}</li>"
    if track.kind is TrackKind.CONSEQUENCE:
        if track.aspect:
            healing = ' <span class="tag">recovering</span>' if track.healing else ""
            return f'<li>{label}: <span class="aspect">{esc(track.aspect)}</span>{healing}</li>'
        return f'<li class="free">{label}: free</li>'
    marked = not track.is_free
    text = f': <span class="aspect">{esc(track.aspect)}</span>' if track.aspect else ""
    state = "marked" if marked else "clear"
    return f'<li class="{"" if marked else "free"}">{label} ({state}){text}</li>'


def _tracks(tracks: list[Track]) -> str:
    return f'<ul class="tracks">{"".join(_track(t) for t in tracks)}</ul>' if tracks else ""


def sheet(character: Character, *, npc: bool = False) -> str:
    aspects = [
        f'<span class="kind">{esc(a.kind.value)}</span> <span class="aspect">{esc(a.text)}</span>'
        + (f' <span class="inv">{a.free_invokes} free</span>' if a.free_invokes else "")
        for a in character.aspects
    ]
    skills = [
        f"<b>{esc(adjective(r))} ({esc(signed(r))})</b> {esc(', '.join(names))}"
        for r, names in character.skill_columns()
    ]
    stunts = [f"<b>{esc(s.name)}</b>: {esc(s.text)}" for s in character.stunts]
    kind = f" ({esc(character.npc_kind.value)} NPC)" if npc and character.npc_kind else ""
    points = (
        ""
        if npc
        else (
            f'<p class="points"><b class="fp">{character.fate_points}</b> '
            f"fate point{'' if character.fate_points == 1 else 's'} · "
            f"refresh {character.refresh}</p>"
        )
    )
    parts = [
        f'<article class="card sheet{" npc" if npc else ""}">',
        f"<h3>{esc(character.name)}{kind}</h3>",
        points,
        _list(aspects, "aspects"),
        f"<h4>Skills</h4>{_list(skills)}" if skills else "",
        f"<h4>Stunts</h4>{_list(stunts)}" if stunts else "",
        f"<h4>Stress and consequences</h4>{_tracks(character.tracks)}" if character.tracks else "",
        "</article>",
    ]
    return "".join(parts)


def _where(channel_id: int, channel_name: ChannelName) -> str:
    name = channel_name(channel_id)
    return f"#{esc(name)}" if name else "a channel"


def scene(view: SceneView, channel_name: ChannelName) -> str:
    title = esc(view.title) if view.title else "Scene"
    aspects = _list([_aspect(a) for a in view.aspects], "aspects") or "<p>No aspects yet.</p>"
    zones = " · ".join(
        f"<b>{esc(name)}</b>" + (f" ({esc(', '.join(people))})" if people else "")
        for name, people in view.zones
    )
    pool = f'<p class="points">GM pool: <b class="fp">{view.gm_pool}</b></p>'
    people = f"<p>In the scene: {esc(', '.join(view.people))}</p>" if view.people else ""
    return (
        f'<article class="card scene"><h3>{title} '
        f'<span class="where">{_where(view.channel_id, channel_name)}</span></h3>'
        f"{pool}{people}<h4>Aspects</h4>{aspects}"
        f"{'<h4>Zones</h4><p>' + zones + '</p>' if zones else ''}</article>"
    )


def encounter(view: EncounterView, channel_name: ChannelName) -> str:
    rows = "".join(
        f"<tr><th>{esc(name)}</th><td>{esc(status)}</td></tr>" for name, status in view.rows
    )
    aspects = _list([_aspect(a) for a in view.aspects], "aspects")
    log = _list([esc(line) for line in view.log], "log")
    return (
        f'<article class="card encounter {esc(view.kind)}"><h3>{esc(view.title)} '
        f'<span class="where">{_where(view.channel_id, channel_name)}</span></h3>'
        f'<p class="now">{esc(view.now)}</p>'
        f"<table>{rows}</table>"
        f"{'<h4>Aspects</h4>' + aspects if aspects else ''}"
        f"{'<h4>Latest</h4>' + log if log else ''}</article>"
    )


def table_body(view: TableView, channel_name: ChannelName) -> str:
    """The GM's page or a player's, from a view already filtered for its reader."""
    parts: list[str] = []
    if not view.for_gm:
        parts.append('<section class="mine"><h2>Your character</h2><div class="cards">')
        parts += [sheet(c) for c in view.characters]
        parts.append("</div></section>")
    parts.append('<div class="top">')
    if view.encounters:
        parts.append('<section><h2>Now</h2><div class="stack">')
        parts += [encounter(e, channel_name) for e in view.encounters]
        parts.append("</div></section>")
    parts.append('<section><h2>Scenes</h2><div class="stack">')
    if view.scenes:
        parts += [scene(s, channel_name) for s in view.scenes]
    else:
        parts.append('<p class="empty">No scene is running.</p>')
    parts.append("</div></section></div>")
    if view.game_aspects:
        items = _list([_aspect(a) for a in view.game_aspects], "aspects")
        parts.append(f"<section><h2>Game aspects</h2>{items}</section>")
    if view.for_gm:
        parts.append('<section><h2>Player characters</h2><div class="cards">')
        parts += [sheet(c) for c in view.characters] or ['<p class="empty">None yet.</p>']
        parts.append("</div></section>")
        if view.npcs:
            parts.append('<section class="gm-only"><h2>NPCs</h2><div class="cards">')
            parts += [sheet(c, npc=True) for c in view.npcs]
            parts.append("</div></section>")
    return "".join(parts)


def game_body(info: GameInfo, picture: str | None) -> str:
    """A game's public page: the picture, whose turn, the public fields and log. `info` holds
    the public view only (never a hand)."""
    display = get_display(info.engine)
    view = info.view or {}
    lines: list[str] = []
    if info.status == "running":
        lines += display.turn_lines(view, ", ".join(info.current_names) or "nobody")
    elif info.status == "finished" and info.result:
        lines.append(f"**Game over.** {info.result.get('summary', '')}")
        lines += display.result_lines(info.result)
    elif info.status == "abandoned":
        lines.append("**This game was abandoned.**")
    else:
        lines.append("In the lobby: waiting for the host to press Start.")
    seats = ", ".join(s.name + (" (AI)" if s.ai else "") for s in info.seats)
    parts = [
        f'<section class="game"><p class="now">{"<br>".join(md(line) for line in lines)}</p>',
        f"<p>Seats: {esc(seats) or '·'}</p>",
    ]
    if picture:
        parts.append(f'<img class="board" src="{esc(picture)}" alt="The board">')
    if view:
        fields = display.board_fields(view, {s.seat: s.name for s in info.seats})
        parts.append('<div class="cards">')
        parts += [
            f'<article class="card"><h3>{md(f.name)}</h3><p>{md(f.value)}</p></article>'
            for f in fields
        ]
        parts.append("</div>")
    log = info.public_log[-LOG_LINES:]
    if log:
        parts.append("<h2>Latest</h2>" + _list([md(line) for line in log], "log"))
    parts.append("</section>")
    return "".join(parts)
