"""squadron_cad: parametric, printable kits for tabletop games, one kit per game."""

__version__ = "0.1.0"
