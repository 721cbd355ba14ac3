"""Every SQLModel table. Each feature keeps its tables in its own module here; importing this
package imports them all, so `SQLModel.metadata` is complete for Alembic and for tests."""

from __future__ import annotations

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
