"""squadron_cad: parametric, printable parts for the Squadron Leader aerial combat game."""

__version__ = "0.1.0"
