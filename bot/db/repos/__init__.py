"""Repositories: the reads and writes of one aggregate's rows, run inside a transaction that a
service opened.

The naming rule (CONTRIBUTING.md): a function that takes the caller's `session` and works inside
the caller's transaction is named `<verb>_<thing>_in(session, ...)` and never commits or opens a
session of its own; that is what lets e.g. a roll's invoke and its fate point payment commit
together. A service method opens the transaction (`async with self.db.session() as session:`),
calls `*_in` functions and pure rules, and returns a result. Writes to rows that buttons act on
go through `versioned.update_versioned_in` (optimistic concurrency).

Modules: `versioned` (the one conditional UPDATE), `encounters` (conflict, contest and challenge
rows), `rolls` (roll rows read by other features). The `*_in` functions that still live beside
their services (bot/services/campaigns.py, scenes.py, ...) follow the same rule.
"""
