"""Vampire Empire: the two-player bluffing card game, registered as ``vampire-empire``."""

from bot.games.base import register_engine
from bot.games.vampire_empire.display import DISPLAY, VampireEmpireDisplay
from bot.games.vampire_empire.engine import ENGINE, VampireEmpireEngine, VeRuleError
from bot.games.vampire_empire.state import VeOptions, VeState

register_engine(ENGINE, DISPLAY)

__all__ = [
    "DISPLAY",
    "ENGINE",
    "VampireEmpireDisplay",
    "VampireEmpireEngine",
    "VeOptions",
    "VeRuleError",
    "VeState",
]
