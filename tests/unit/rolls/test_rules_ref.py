import pytest
import yaml

from bot.fate.rules_ref import (
    DATA_FILE,
    TOPIC_TEXT_MAX,
    RulesDataError,
    UnknownTopicError,
    get_topic,
    list_topics,
    parse_rules,
    rules_reference,
    search_topics,
)

REQUIRED = [
    "ladder",
    "actions",
    "rolling",
    "invoking",
    "compelling",
    "stress",
    "scale",
    "teamwork",
    "create_advantage",
    "conflicts",
    "concession",
    "recovery",
    "milestones",
]


def test_required_topics_exist_and_are_short() -> None:
    keys = [t.key for t in list_topics()]
    for key in REQUIRED:
        assert key in keys
    assert all(0 < len(t.text) <= TOPIC_TEXT_MAX for t in list_topics())
    assert len(list_topics()) <= 25  # fits one autocomplete answer


def test_topics_carry_the_rule_numbers() -> None:
    assert "+8 Legendary" in get_topic("ladder").text
    assert "-4 Horrifying" in get_topic("ladder").text
    stress = get_topic("stress").text
    assert "mild absorbs 2, moderate 4, severe 6" in stress
    assert "Average (+1)" in get_topic("teamwork").text
    scale = get_topic("scale").text
    assert "+1 per level" in scale and "+2 per level" in scale
    assert "Fantastic (+6)" in get_topic("recovery").text


def test_lookup_by_key_title_or_alias() -> None:
    assert get_topic("Create an advantage").key == "create_advantage"
    assert get_topic("CAA").key == "create_advantage"
    assert get_topic("create-advantage").key == "create_advantage"
    assert get_topic("compel").key == "compelling"
    assert get_topic("Godlike").key == "scale"


def test_unknown_topic_suggests() -> None:
    with pytest.raises(UnknownTopicError, match="Did you mean Teamwork"):
        get_topic("temwork")
    with pytest.raises(UnknownTopicError, match="no rules topic"):
        get_topic("qqqqqq")


def test_search_prefix_first() -> None:
    found = [t.key for t in search_topics("co")]
    assert found[:3] == ["compelling", "stress", "conflicts"]  # title/alias prefixes
    assert [t.key for t in search_topics("scale")] == ["scale"]
    assert len(search_topics("")) == len(list_topics())
    assert search_topics("zzzz") == []
    assert len(search_topics("", limit=3)) == 3


def test_cached() -> None:
    assert rules_reference() is rules_reference()


def test_over_long_text_names_the_path() -> None:
    raw = yaml.safe_load(DATA_FILE.read_text(encoding="utf-8"))
    raw["topics"][2]["text"] = "x" * (TOPIC_TEXT_MAX + 1)
    with pytest.raises(RulesDataError, match=r"topics\[2\]\.text"):
        parse_rules(raw)


def test_duplicate_topic_refused() -> None:
    raw = yaml.safe_load(DATA_FILE.read_text(encoding="utf-8"))
    raw["topics"].append(raw["topics"][0])
    with pytest.raises(RulesDataError, match="listed twice"):
        parse_rules(raw)
