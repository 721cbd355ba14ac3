"""The Dresden Files Cooperative Card Game: a pure engine registered as ``dfccg``."""

from bot.games.base import register_engine
from bot.games.dfccg.ai import ANSWERS, choose, choose_id
from bot.games.dfccg.display import DISPLAY, DfccgDisplay
from bot.games.dfccg.engine import ENGINE, DfccgEngine, DfRuleError
from bot.games.dfccg.state import DfOptions, DfState

ENGINE.use_ai(choose, choose_id, ANSWERS)  # the engine knows no AI; the package gives it one
register_engine(ENGINE, DISPLAY)

__all__ = [
    "DISPLAY",
    "ENGINE",
    "DfOptions",
    "DfRuleError",
    "DfState",
    "DfccgDisplay",
    "DfccgEngine",
]
