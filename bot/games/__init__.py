"""Table game engines: one package per game, registered in base.py."""
