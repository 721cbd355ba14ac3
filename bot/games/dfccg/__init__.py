"""The Dresden Files Cooperative Card Game: a pure engine registered as ``dfccg``."""

from bot.games.base import register_engine
from bot.games.dfccg.engine import ENGINE, DfccgEngine, DfRuleError
from bot.games.dfccg.state import DfOptions, DfState

register_engine(ENGINE)

__all__ = ["ENGINE", "DfOptions", "DfRuleError", "DfState", "DfccgEngine"]
