"""Dreamwars: the cooperative adventure on a map, a pure engine registered as ``dreamwars``."""

from bot.games.base import register_engine
from bot.games.dreamwars.engine import ENGINE, DreamwarsEngine, DwRuleError
from bot.games.dreamwars.state import DwOptions, DwState

register_engine(ENGINE)

__all__ = ["ENGINE", "DreamwarsEngine", "DwOptions", "DwRuleError", "DwState"]
