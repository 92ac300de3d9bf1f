"""A tray lid's tolerance coupon, for any kit whose box is the engine's tray with a lid
(the lid itself: squadron_cad.fit.tray_lid; its in-play checks: checks.tray_play)."""
