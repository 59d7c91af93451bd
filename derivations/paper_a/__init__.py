"""Paper A (Barnfield, Cui, Lu, arXiv 2509.25153): sparse-token classification with single-layer attention. One module per result."""
