"""The engines' quick draws make the very draws random.Random makes (a seed gives the same
game), and leave any other kind of dice to its own methods."""

from __future__ import annotations

import random

from bot.games.draws import d6, fate_dice, shuffle


def test_shuffle_is_random_shuffle() -> None:
    for seed in range(40):
        for size in (0, 1, 2, 3, 7, 16, 33, 64, 100):
            ours, theirs = random.Random(seed), random.Random(seed)
            mine, expected = list(range(size)), list(range(size))
            shuffle(ours, mine)
            theirs.shuffle(expected)
            assert mine == expected, (seed, size)
            assert ours.random() == theirs.random()  # and the stream goes on in step


def test_fate_dice_are_choices_of_the_three_faces() -> None:
    for seed in range(40):
        ours, theirs = random.Random(seed), random.Random(seed)
        for count in (1, 4, 4, 12):
            expected = [theirs.choice((-1, 0, 1)) for _ in range(count)]
            assert fate_dice(ours, count) == expected, seed
        assert ours.random() == theirs.random()


def test_d6_draws_what_randint_draws() -> None:
    """draws.d6 stands for rng.randint(1, 6): the same numbers, the generator left the same."""
    for seed in range(20):
        ours, theirs = random.Random(seed), random.Random(seed)
        assert [d6(ours) for _ in range(500)] == [theirs.randint(1, 6) for _ in range(500)]
        assert ours.getstate() == theirs.getstate()


def test_other_dice_keep_their_own_methods() -> None:
    class Loaded(random.Random):
        def choice(self, seq):  # type: ignore[no-untyped-def, override]
            return seq[-1]

        def shuffle(self, x):  # type: ignore[no-untyped-def, override]
            x.reverse()

    items = [1, 2, 3]
    shuffle(Loaded(0), items)
    assert items == [3, 2, 1]
    assert fate_dice(Loaded(0), 4) == [1, 1, 1, 1]
