"""Renderers never exceed Discord's embed limits, whatever the user typed."""

from __future__ import annotations

import discord
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ui.common import (
    EMBED_TOTAL_LIMIT,
    FIELD_VALUE_LIMIT,
    MAX_FIELDS,
    clip,
    newest_lines,
    safe_embed,
    trim_embed,
)
from bot.ui.help import CommandEntry, CommandGroup, help_page, page_count

texts = st.text(min_size=0, max_size=5000)


@settings(max_examples=50)
@given(title=texts, description=texts, fields=st.lists(st.tuples(texts, texts), max_size=40))
def test_safe_embed_fits(title: str, description: str, fields: list[tuple[str, str]]) -> None:
    embed = discord.Embed(title=title, description=description)
    for name, value in fields:
        embed.add_field(name=name or "x", value=value or "y")
    safe_embed(embed)
    assert len(embed) <= EMBED_TOTAL_LIMIT
    assert len(embed.fields) <= MAX_FIELDS
    assert all(len(f.value or "") <= FIELD_VALUE_LIMIT for f in embed.fields)


small_texts = st.text(min_size=0, max_size=1200)


@settings(max_examples=100)
@given(
    title=small_texts,
    description=st.one_of(small_texts, texts),
    fields=st.lists(st.tuples(small_texts, small_texts, st.booleans()), max_size=30),
)
def test_an_embed_within_the_limits_is_left_as_it_is(
    title: str, description: str, fields: list[tuple[str, str, bool]]
) -> None:
    """safe_embed skips the trimming when nothing needs it, and gives what trimming gives."""
    embeds = [discord.Embed(title=title, description=description) for _ in range(2)]
    for embed in embeds:
        for name, value, inline in fields:
            embed.add_field(name=name, value=value, inline=inline)
    assert safe_embed(embeds[0]).to_dict() == trim_embed(embeds[1]).to_dict()


def test_clip_marks_the_cut() -> None:
    assert clip("abcdef", 4) == "abc…" and clip("abc", 4) == "abc"


@settings(max_examples=50)
@given(lines=st.lists(st.text(min_size=1, max_size=300), max_size=12), limit=st.integers(1, 2000))
def test_a_cut_log_keeps_its_newest_line(lines: list[str], limit: int) -> None:
    """A tracker's log cut to fit loses its oldest lines: the newest, which a quiet answer
    relies on being shown, is always there (whole when it fits)."""
    text = newest_lines(lines, limit)
    assert len(text) <= limit
    if lines and len(lines[-1]) <= limit:
        assert text.endswith(lines[-1])
    if len("\n".join(lines)) <= limit:
        assert text == "\n".join(lines)


def test_help_pages_fit_with_many_long_commands() -> None:
    groups = [
        CommandGroup(
            f"group{g}",
            "d" * 100,
            tuple(CommandEntry(f"group{g} sub{i}", "x" * 100) for i in range(25)),
        )
        for g in range(30)
    ]
    shown = []
    for page in range(page_count(groups)):
        embed = help_page(groups, page)
        assert len(embed) <= EMBED_TOTAL_LIMIT and len(embed.fields) <= 25
        assert all(len(f.value or "") <= 1024 for f in embed.fields)
        shown += [line for f in embed.fields for line in (f.value or "").splitlines()]
    # nothing dropped: every command of every group is on some page, whole
    for group in groups:
        for command in group.commands:
            assert f"`/{command.name}`: {command.description}" in shown
