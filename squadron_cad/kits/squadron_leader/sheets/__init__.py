"""Squadron Leader's paper edition: the sheets, drawn from the geometry of the 3D parts.

The engine (squadron_cad.paper) lays them out and writes them; this package knows the
game: its templates, ruler, stat card and counters, and the rules of Hex Grid Mode.
"""
