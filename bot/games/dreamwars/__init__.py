"""Dreamwars: the cooperative adventure on a map, a pure engine registered as ``dreamwars``."""

from bot.games.base import register_engine
from bot.games.dreamwars import actions, ai, simulate, views
from bot.games.dreamwars.display import DISPLAY, DreamwarsDisplay
from bot.games.dreamwars.engine import ENGINE, DreamwarsEngine, DwRuleError, Parts
from bot.games.dreamwars.state import DwOptions, DwState

# The engine imports none of its other modules; the package puts them together.
DreamwarsEngine.parts = Parts(
    legal_actions=actions.legal_actions,
    ai_moves=actions.AiMoves,
    perform=actions.perform,
    over_limit_decision=actions.over_limit_decision,
    choose=ai.choose,
    choose_move=ai.choose_move,
    public_view=views.public_view,
    private_view=views.private_view,
    hand_view=views.hand_view,
    simulate=simulate.simulate,
)
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
