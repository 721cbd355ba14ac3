"""The map as a graph with distances computed once: plain distance (ranges), and the distance
for walkers, who cannot go from one river space straight to another."""

from __future__ import annotations

from collections import deque
from functools import cache

from bot.games.dreamwars.packs import Library, load_library

WATERY = frozenset({"water", "river", "bridge"})


def _bfs(adjacent: dict[str, tuple[str, ...]], start: str) -> dict[str, int]:
    seen = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for nxt in adjacent.get(node, ()):
            if nxt not in seen:
                seen[nxt] = seen[node] + 1
                queue.append(nxt)
    return seen


class Board:
    """The map of a pack: its locations and the paths between them."""

    def __init__(self, lib: Library) -> None:
        self.lib = lib
        self.nodes = lib.nodes
        self.adjacent = lib.adjacent
        rivers = {k for k, n in lib.nodes.items() if n.type == "river"}
        self.walk_adjacent = {
            k: tuple(n for n in v if not (k in rivers and n in rivers))
            for k, v in lib.adjacent.items()
        }
        self.rivers = frozenset(rivers)
        self.dist = {k: _bfs(self.adjacent, k) for k in lib.nodes}
        self.walk = {k: _bfs(self.walk_adjacent, k) for k in lib.nodes}
        self.portals: dict[str, list[str]] = {}
        for key, node in lib.nodes.items():
            for icon in node.icons:
                if icon.startswith("portal_"):
                    self.portals.setdefault(icon.removeprefix("portal_"), []).append(key)

    def distance(self, a: str, b: str) -> int:
        return self.dist[a].get(b, 99)

    def within(self, a: str, reach: int) -> list[str]:
        return [n for n, d in self.dist[a].items() if d <= reach]

    def watery(self, node: str) -> bool:
        return self.nodes[node].type in WATERY

    def next_step(self, start: str, goal: str, free: bool) -> str | None:
        """The neighbour one step closer to ``goal`` (``free``: rivers do not matter)."""
        table = self.dist if free else self.walk
        links = self.adjacent if free else self.walk_adjacent
        here = table[start].get(goal)
        if not here:
            return None
        for nxt in links.get(start, ()):
            if table[nxt].get(goal, 99) == here - 1:
                return nxt
        return None


@cache
def default_board() -> Board:
    """The board of the packs shipped with the bot (built once)."""
    return Board(load_library())
