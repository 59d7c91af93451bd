"""The registration of the spiked-covariance paper: one ``Paper`` with its prefix, title,
claims and figure, named by the ``attncheck.papers`` entry point of this package's
pyproject.toml."""
from __future__ import annotations

from numerics.paper import Paper
from spiked_covariance.claims import CLAIMS, FIGURES

PAPER = Paper(prefix="S", title="The spiked sample covariance: BBP transition, eigenvector overlap, "
                                "Marchenko-Pastur edge (Baik, Ben Arous, Peche 2005; Baik, Silverstein 2006; "
                                "Paul 2007)",
              claims=CLAIMS, figures=FIGURES)
