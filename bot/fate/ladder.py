"""The Fate ladder: numbers <-> adjectives."""

from __future__ import annotations

LADDER: dict[int, str] = {
    8: "Legendary",
    7: "Epic",
    6: "Fantastic",
    5: "Superb",
    4: "Great",
    3: "Good",
    2: "Fair",
    1: "Average",
    0: "Mediocre",
    -1: "Poor",
    -2: "Terrible",
    -3: "Catastrophic",
    -4: "Horrifying",
}
TOP = max(LADDER)
BOTTOM = min(LADDER)
_BY_NAME = {name.lower(): value for value, name in LADDER.items()}


def adjective(rating: int) -> str:
    """The ladder word for a rating; off the ladder it is the nearest end plus the distance.

    +10 reads "Legendary+2" and -6 reads "Horrifying-2", so every integer has a name that
    still tells how far past the ladder it is.
    """
    if rating in LADDER:
        return LADDER[rating]
    if rating > TOP:
        return f"{LADDER[TOP]}+{rating - TOP}"
    return f"{LADDER[BOTTOM]}-{BOTTOM - rating}"


def signed(rating: int) -> str:
    """A rating written the Fate way: +2, +0, -1."""
    return f"{rating:+d}"


def describe(rating: int) -> str:
    """ "Good (+3)"."""
    return f"{adjective(rating)} ({signed(rating)})"


def parse_rating(text: str) -> int:
    """A number ("3", "+3", "-1") or a ladder word ("good", "Legendary+2") to a rating.

    Raises ValueError with a sentence a user can act on.
    """
    raw = text.strip()
    cleaned = raw.replace("(", " ").replace(")", " ").split()
    if not cleaned:
        raise ValueError("Give a number like +2 or a ladder word like Fair.")
    word = cleaned[0]
    try:
        return int(word)
    except ValueError:
        pass
    lowered = word.lower()
    if lowered in _BY_NAME:
        return _BY_NAME[lowered]
    for sign in "+-":
        head, sep, tail = lowered.partition(sign)
        if sep and head in _BY_NAME and tail.isdigit():
            base = _BY_NAME[head]
            return base + int(tail) if sign == "+" else base - int(tail)
    raise ValueError(
        f"'{raw[:40]}' is not a rating. Use a number like +2 or a ladder word "
        "(Mediocre, Average, Fair, Good, Great, Superb, Fantastic, Epic, Legendary, Poor, Terrible)."
    )
