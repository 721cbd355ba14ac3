"""The one greedy pager every paged reply uses (card texts, a game's log, the GM overview)."""

from __future__ import annotations

from bot.ui.common import greedy_pages


def test_pages_hold_whole_items_within_the_budget_and_the_count() -> None:
    items = ["a" * 4, "b" * 4, "c" * 4, "d" * 9, "e"]
    assert greedy_pages(items, len, 8) == [["aaaa", "bbbb"], ["cccc"], ["d" * 9], ["e"]]
    assert greedy_pages(items, len, 100, most=2) == [["aaaa", "bbbb"], ["cccc", "d" * 9], ["e"]]


def test_the_first_page_and_the_others_start_with_what_they_already_hold() -> None:
    assert greedy_pages(["x" * 5, "y" * 5, "z" * 5], len, 10, first_used=6, page_used=0) == [
        ["xxxxx"],
        ["yyyyy", "zzzzz"],
    ]
    assert greedy_pages([], len, 10) == [[]]
