"""Game table use cases: lobbies, seats, validated actions with optimistic concurrency, AI seats,
idle games and history. The only place that opens a transaction for table games.

Engines are looked up through ``bot.games.base.get_engine``; the service never knows a game's
rules. Seats given to an engine are opaque strings: a human seat is the user id as text, an AI
seat is ``ai:<n>``.
"""

from __future__ import annotations

from bot.services.games_lobby import GameLobby
from bot.services.games_queries import GameQueries


class GameService(GameLobby, GameQueries):
    """The game table: lobbies, seats, actions, AI turns, idle games."""
