"""Fate Table: a Discord GM companion for Fate Condensed / DFC and a game table."""

__version__ = "0.1.0"
