"""`python -m bot validate-pack FILE` and `python -m bot simulate dfccg ...`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.games.dfccg.packs import PACK_DIR


def test_validate_pack_accepts_the_shipped_packs(capsys: pytest.CaptureFixture[str]) -> None:
    for pack in sorted(PACK_DIR.glob("*.yaml")):
        assert main(["validate-pack", str(pack)]) == 0
        assert "valid" in capsys.readouterr().out


def test_validate_pack_reports_errors_with_positions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("pack:\n  key: mine\n  name: Mine\ncharacters:\n  - key: 12\n    nope: [\n")
    assert main(["validate-pack", str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"{bad}:" in out and "YAML syntax error" in out
    line = out.splitlines()[0]
    position = line[len(str(bad)) + 1 :].split(":")[:2]
    assert all(part.isdigit() for part in position)

    wrong = tmp_path / "wrong.yaml"
    wrong.write_text("pack:\n  key: mine\ncharacters: 5\n")
    assert main(["validate-pack", str(wrong)]) == 1
    out = capsys.readouterr().out
    assert out.count(f"{wrong}:") >= 1 and ":3:" in out

    assert main(["validate-pack", str(tmp_path / "missing.yaml")]) == 1
    assert "cannot read" in capsys.readouterr().out


def test_simulate_prints_one_reproducible_json_line(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "dfccg", "--games", "6", "--players", "3", "--difficulty", "wizard"]
    assert main([*args, "--seed", "5"]) == 0
    first = capsys.readouterr().out.strip().splitlines()
    assert len(first) == 1
    line = json.loads(first[0])
    assert line["games"] == 6 and 0 <= line["wins"] <= 6
    assert set(line["mean_score"]) == {"players", "game"}
    assert line["games_per_second"] > 0 and line["games_per_cpu_second"] > 0
    with capsys.disabled():  # the games-per-second line, visible in test logs with -s
        print(
            json.dumps(
                {
                    "bench": "dfccg-simulation",
                    "games_per_second": line["games_per_second"],
                    "games_per_cpu_second": line["games_per_cpu_second"],
                }
            )
        )
    assert main([*args, "--seed", "5", "--book", "storm-front"]) == 0
    again = json.loads(capsys.readouterr().out)
    for key in ("wins", "mean_score", "games", "players", "difficulty", "book", "seed"):
        assert again[key] == line[key]


def test_simulate_refuses_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "dfccg", "--games", "0"]) == 2
    assert "--games" in capsys.readouterr().err
    assert main(["simulate", "dfccg", "--games", "1", "--book", "no-such-book"]) == 2
    assert "no-such-book" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["simulate", "dfccg", "--difficulty", "impossible"])


def test_bench_prints_the_simulation_speed_next_to_card_play() -> None:
    from bench.__main__ import _simulation_line

    line = _simulation_line(3)
    assert line["scenario"] == "dfccg-simulation" and line["games"] == 3
    assert line["games_per_second"] > 0


def test_validate_pack_checks_the_named_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = sorted(PACK_DIR.glob("*.yaml"))[0]
    assert main(["validate-pack", str(pack), "--game", "dfccg"]) == 0
    assert "valid (dfccg)" in capsys.readouterr().out
    assert main(["validate-pack", str(pack), "--game", "chess"]) == 2
    assert "no game called" in capsys.readouterr().err
