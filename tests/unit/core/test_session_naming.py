"""One naming rule for code that runs inside somebody else's transaction (issue 14, item 3): a
function or method of bot/services or bot/db/repos that takes a `session` ends in `_in`.

Only the step closures a service method hands to its own transaction (`step`, `run`, defined
inside that method) are left out: they are part of the method's unit of work, not helpers.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
BASES = ("bot/services", "bot/db/repos")


def _takes_session(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    args = node.args
    return "session" in [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]


def _helpers(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Module-level functions and methods of module-level classes (not closures)."""
    found: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append(node)
        elif isinstance(node, ast.ClassDef):
            found += [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    return found


def test_functions_that_take_a_session_end_in_in() -> None:
    wrong = []
    for base in BASES:
        for path in sorted((ROOT / base).rglob("*.py")):
            for node in _helpers(ast.parse(path.read_text())):
                if _takes_session(node) and not node.name.endswith("_in"):
                    wrong.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno} {node.name}")
    assert wrong == [], wrong
