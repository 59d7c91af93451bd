"""Paper B's vocabulary (minimax rates for pairwise interactions in attention-style models)."""
