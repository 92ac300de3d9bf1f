"""What the engine reads of a kit's registry: deferred functions that import, coupons that
cannot share a fit name (Squadron Leader's parts and counts: its kit's tests)."""

from __future__ import annotations

import dataclasses

import pytest
from toykit.lidded import TOY_LID_KIT

from squadron_cad.kit import LazyImport, installed_kits


@pytest.mark.parametrize("name", ["squadron-leader", "squadrons", "space-planes"])
def test_every_deferred_function_of_a_kit_imports(name: str) -> None:
    """A LazyImport names its module and function as text: a typo would fail only at build."""
    contents = installed_kits()[name].loaded
    deferred = [value for value in vars(contents).values() if isinstance(value, LazyImport)]
    for later in deferred:
        assert later.resolve() is not None, later
    assert deferred  # each kit's mesh checks are deferred


def test_two_coupons_of_a_kit_cannot_share_a_fit_name() -> None:
    """Checked where the coupons are first read (they may load late, behind a LazyImport):
    the lidded toy kit's one coupon, declared twice."""
    (first,) = TOY_LID_KIT.coupons
    doubled = dataclasses.replace(TOY_LID_KIT.loaded, coupons=(first, first))
    kit = dataclasses.replace(TOY_LID_KIT, name="doubled", contents=doubled)
    with pytest.raises(ValueError, match="share a fit name"):
        _ = kit.coupons
