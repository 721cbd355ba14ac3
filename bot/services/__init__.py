"""Use cases: one method call = one transaction (see CONTRIBUTING.md)."""
