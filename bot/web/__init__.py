"""The live web view: pages and event streams served by the bot itself (docs/web.md)."""
