"""`python -m bot convert-character FILE`: the JSON on stdout, what was not mapped on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.fate.sheet_io import import_character

FIXTURES = Path(__file__).resolve().parent / "sheets" / "fixtures"


@pytest.mark.parametrize("name", ["fari_current.json", "fari_older.json"])
def test_converts_fari_files(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert-character", str(FIXTURES / name)]) == 0
    out, err = capsys.readouterr()
    document = json.loads(out)
    assert document["format"] == "fate-table/character" and document["version"] == 1
    character = import_character(out)  # the output is a file the bot imports as-is
    assert character.name and character.aspects and character.skills
    assert "could not be mapped" in err
    assert all(line.startswith("  - ") for line in err.splitlines()[1:])


def test_our_own_format_round_trips(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert-character", str(FIXTURES / "fari_current.json")]) == 0
    first, _ = capsys.readouterr()
    path = tmp_path / "ours.json"
    path.write_text(first, encoding="utf-8")
    assert main(["convert-character", str(path)]) == 0
    second, err = capsys.readouterr()
    assert json.loads(second) == json.loads(first)
    assert "everything was mapped" in err


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"{broken", "not valid JSON"),
        (b'{"pages": "nope", "x": 1}', "neither a Fate Table character nor a Fari"),
        (b"[1, 2, 3]", "neither a Fate Table character nor a Fari"),
        (b" " * (257 * 1024), "limited to 256 KiB"),
    ],
)
def test_bad_files_fail_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, expected: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    assert main(["convert-character", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert expected in err and len(err.strip().splitlines()) == 1


def test_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert-character", "/no/such/file.json"]) == 1
    assert "Cannot read" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["version", "fate_points"])
def test_a_five_thousand_digit_number_is_one_line(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = "9" * 5000
    body = '{"name": "X", "fate_points": ' + huge + "}" if where == "fate_points" else "{}"
    version = huge if where == "version" else "1"
    path = tmp_path / "huge.json"
    path.write_text(
        '{"format": "fate-table/character", "version": ' + version + ', "character": ' + body + "}"
    )
    assert main(["convert-character", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert "5000 digits" in err and "Traceback" not in err
