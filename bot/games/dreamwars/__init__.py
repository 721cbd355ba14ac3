"""Dreamwars: the cooperative adventure on a map, a pure engine registered as ``dreamwars``."""

from bot.games.base import register_engine
from bot.games.dreamwars.display import DISPLAY, DreamwarsDisplay
from bot.games.dreamwars.engine import ENGINE, DreamwarsEngine, DwRuleError
from bot.games.dreamwars.state import DwOptions, DwState

register_engine(ENGINE, DISPLAY)

__all__ = [
    "DISPLAY",
    "DreamwarsDisplay",
    "ENGINE",
    "DreamwarsEngine",
    "DwOptions",
    "DwRuleError",
    "DwState",
]
