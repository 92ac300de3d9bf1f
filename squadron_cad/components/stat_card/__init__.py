"""A stat card with a sliding clip on each row (a stat dial, a ship tracker): its
parameter section, its solids and its measures."""
