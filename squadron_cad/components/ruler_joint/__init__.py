"""The snap joint of a sectioned ruler: a tab with square shoulders and snap ridges that
drops into its slot from above, its parameters, its solids and its measures."""
