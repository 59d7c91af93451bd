"""Paper C's vocabulary (positional and semantic attention, a solvable model)."""
