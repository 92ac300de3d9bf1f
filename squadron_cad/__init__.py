"""squadron_cad: parametric, printable kits for tabletop games, Squadron Leader first."""

__version__ = "0.1.0"
