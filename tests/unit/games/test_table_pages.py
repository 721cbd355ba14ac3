"""The game table's paged replies stay inside Discord's limits and lose nothing."""

from bot.games.display import PanelField, chunk_fields
from bot.ui.games import LOG_PAGE_CHARS, log_pages, texts_pages


def test_card_text_pages_fit_one_embed_each_and_keep_every_field() -> None:
    fields = [PanelField(f"Card {i}", "word " * 200) for i in range(40)]
    pages = texts_pages(fields)
    assert [f for page in pages for f in page] == fields
    for page in pages:
        assert len(page) <= 25 and sum(len(f.name) + len(f.value) for f in page) <= 5200


def test_log_pages_keep_whole_numbered_lines_within_a_description() -> None:
    lines = [f"event {i}: " + "x" * (i % 380) for i in range(300)]
    pages = log_pages(lines)
    flat = [line for page in pages for line in page]
    assert flat == [f"{i + 1}. {line}" for i, line in enumerate(lines)]
    assert all(len("\n".join(page)) <= LOG_PAGE_CHARS for page in pages)
    assert log_pages([]) == [[]]


def test_chunked_fields_keep_whole_entries_within_a_field() -> None:
    entries = [f"entry {i} " + "y" * 300 for i in range(10)]
    fields = chunk_fields("Row 1", entries)
    assert [f.name for f in fields][:2] == ["Row 1", "Row 1 (continued)"]
    assert "\n".join(f.value for f in fields).split("\n") == entries
    assert all(len(f.value) <= 1024 for f in fields)
    assert chunk_fields("Empty", []) == [PanelField("Empty", "none")]
