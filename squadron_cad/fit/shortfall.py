"""How a refusal states a shortfall: in mm, rounded up to 0.1 (light: the parameter models
use it too, before any geometry library loads)."""

from __future__ import annotations

import math


def tenth_up(amount: float) -> str:
    """mm rounded up to 0.1, so a shortfall never reads as 0.0 nor as less than it is."""
    return f"{math.ceil(amount * 10 - 1e-6) / 10:.1f}"
