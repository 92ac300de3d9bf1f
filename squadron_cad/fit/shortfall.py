"""How a refusal states a shortfall: in mm, rounded up to 0.1 (light: the parameter models
use it too, before any geometry library loads)."""

from __future__ import annotations

import math


def mm_up_to_tenth(amount: float) -> str:
    """mm rounded up to 0.1, so a shortfall never reads as 0.0 nor as less than it is."""
    return f"{math.ceil(amount * 10 - 1e-6) / 10:.1f}"


def mm_down_to_hundredth(amount: float) -> str:
    """mm rounded down to 0.01: what a refusal says is left, so 0.7999 of a needed 0.8 reads
    0.79, never '0.80 ... at least 0.8'."""
    return f"{math.floor(amount * 100 + 1e-6) / 100:.2f}"


def mm_down_to_tenth(amount: float) -> str:
    """mm rounded down to 0.1: room a refusal says is left."""
    return f"{math.floor(amount * 10 + 1e-6) / 10:.1f}"
