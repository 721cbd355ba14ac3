"""Discord glue shared by every cog: error reporting, permission checks, safe views."""
