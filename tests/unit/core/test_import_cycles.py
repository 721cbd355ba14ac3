"""No module of bot/ or cogs/ imports a module that imports it back, at the top or inside a
function (issue 14): what a module needs flows one way. Type-checking-only imports count too."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
# Pairs still waiting to be untangled; the list may only shrink.
KNOWN: set[frozenset[str]] = set()


def _modules() -> dict[str, Path]:
    found = {}
    for base in ("bot", "cogs"):
        for path in (ROOT / base).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules ``path`` imports (``from pkg import sub`` is the submodule)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                out.add(sub if sub in modules else node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m in modules}


def test_no_module_imports_one_that_imports_it_back() -> None:
    modules = _modules()
    graph = {name: _imports(path, modules) - {name} for name, path in modules.items()}
    pairs = {frozenset({a, b}) for a, deps in graph.items() for b in deps if a in graph[b]}
    assert pairs - KNOWN == set(), sorted(sorted(p) for p in pairs - KNOWN)
    assert KNOWN - pairs == set(), "untangled: take these pairs off KNOWN"
