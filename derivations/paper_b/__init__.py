"""Paper B (Zucker, Wang, Lu, Seroussi, arXiv 2510.11789): minimax rates for pairwise interactions. One module per result."""
