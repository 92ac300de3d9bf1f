"""Squadrons' paper edition: the sheets, drawn from the geometry of the 3D parts.

The engine (squadron_cad.paper) lays them out and writes them; this package knows the
game: its inch ruler and movement gauge, pivot guide, ship bases, trackers and markers.
"""
