"""Errors a user can cause. Their message is shown to the user as-is (ephemeral)."""


class RuleError(ValueError):
    """A request the rules (or the bot's limits) do not allow; the message says what to do instead."""
