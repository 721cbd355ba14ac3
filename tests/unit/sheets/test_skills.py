import pytest

from bot.errors import RuleError
from bot.fate.skills import (
    PyramidError,
    SkillList,
    UnknownSkillError,
    check_columns,
    check_pyramid,
    column_violation,
    default_skills,
)

STANDARD = {
    "Fight": 4,
    "Physique": 3,
    "Athletics": 3,
    "Will": 2,
    "Notice": 2,
    "Lore": 2,
    "Empathy": 1,
    "Rapport": 1,
    "Stealth": 1,
    "Drive": 1,
}


def ratings_from_counts(counts: dict[int, int]) -> dict[str, int]:
    """Fill ranks from the default list in order, e.g. {4: 1, 3: 2} -> first skill Great..."""
    names = iter(default_skills().names)
    return {next(names): rating for rating, n in counts.items() for _ in range(n)}


def test_default_list_has_fate_condensed_nineteen():
    skills = default_skills()
    assert len(skills) == 19
    assert skills.names[0] == "Academics" and "Will" in skills.names
    assert all(s.description for s in skills.skills)


def test_lookup_is_case_insensitive():
    assert default_skills().resolve("  pHysique ") == "Physique"


def test_unknown_skill_suggests_the_closest():
    with pytest.raises(UnknownSkillError, match="Did you mean Investigate"):
        default_skills().resolve("Investigat")


def test_unknown_skill_without_close_match_lists_skills():
    with pytest.raises(UnknownSkillError, match="Pick one of: Academics"):
        default_skills().resolve("Quantum Chromodynamics")


def test_custom_list_and_its_errors():
    custom = SkillList.from_names(["Fight", "Sail", "Navigate"])
    assert custom.resolve("sail") == "Sail"
    with pytest.raises(RuleError, match="listed twice"):
        SkillList.from_names(["Sail", "sail"])
    with pytest.raises(RuleError, match="at least one"):
        SkillList.from_names(["  "])


def test_autocomplete_suggestions_prefix_first():
    assert default_skills().suggestions("re")[:1] == ["Resources"]


def test_standard_pyramid_is_valid():
    check_pyramid(STANDARD)


@pytest.mark.parametrize(
    ("counts", "rank"),
    [
        ({4: 2, 3: 2, 2: 3, 1: 4}, "Great"),
        ({4: 1, 3: 1, 2: 3, 1: 4}, "Good"),
        ({4: 1, 3: 2, 2: 4, 1: 4}, "Fair"),
        ({4: 1, 3: 2, 2: 3, 1: 3}, "Average"),
        ({5: 1, 3: 2, 2: 3, 1: 4}, "Superb"),
    ],
)
def test_pyramid_violation_names_the_rank(counts, rank):
    with pytest.raises(PyramidError, match=rank):
        check_pyramid(ratings_from_counts(counts))


def test_pyramid_rejects_unknown_skill():
    with pytest.raises(UnknownSkillError):
        check_pyramid({**STANDARD, "Kung Fu": 0})


# The seed's "The Pyramid" figure: the starting shape, "Not Valid", "Valid", "Also Valid".
@pytest.mark.parametrize(
    "counts",
    [{4: 1, 3: 2, 2: 3, 1: 4}, {4: 1, 3: 2, 2: 4, 1: 4}, {4: 1, 3: 3, 2: 3, 1: 3}],
)
def test_column_rule_valid_shapes(counts):
    assert column_violation(ratings_from_counts(counts), list_size=19) is None


def test_column_rule_not_valid_shape_names_fair():
    problem = column_violation(ratings_from_counts({4: 1, 3: 2, 2: 4, 1: 3}))
    assert problem is not None
    assert problem.startswith("Fair (+2) holds 4 skills but Average (+1) below it holds only 3")


RUTH = {
    "Fight": 4,
    "Athletics": 3,
    "Physique": 3,
    "Academics": 2,
    "Notice": 2,
    "Will": 2,
    "Lore": 1,
    "Investigate": 1,
    "Rapport": 1,
    "Stealth": 1,
}


def test_ruth_raises_lore_then_empathy():
    # Lore Average -> Fair alone gives four Fair over three Average: not allowed.
    check_pyramid(RUTH)
    only_lore = dict(RUTH, Lore=2)
    with pytest.raises(PyramidError, match=r"^Fair \(\+2\) holds 4 skills"):
        check_columns(only_lore)
    # With a saved point, Empathy Mediocre -> Average: 1 Great, 2 Good, 4 Fair, 4 Average.
    both = dict(only_lore, Empathy=1)
    check_columns(both, list_size=19)
    assert sorted(both.values(), reverse=True) == [4, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1]


def test_column_rule_counts_mediocre_when_list_size_known():
    nine_average = {name: 1 for name in default_skills().names[:9]}
    assert column_violation(nine_average, list_size=19) is None  # 10 Mediocre remain
    assert column_violation(nine_average) is None  # list size unknown: rank 1 unchecked
    problem = column_violation(nine_average, list_size=12) or ""
    assert problem.startswith("Average (+1) holds 9 skills but Mediocre (+0) below it holds only 3")
