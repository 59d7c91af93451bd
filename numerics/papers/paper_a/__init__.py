"""Paper A's vocabulary (sparse-token classification with single-layer attention)."""
