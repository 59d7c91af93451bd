"""The LaTeX of claims' equations (``attncheck latex``, ``attncheck.latex``)."""
from __future__ import annotations


def claims_latex(claims) -> str:
    chunks = []
    for claim in claims:
        chunks.append(f"% {claim.id} -- {claim.reference} [{claim.status}]: {claim.statement}")
        for eq in claim.get_equations():
            chunks.append(
                f"% {eq.name} ({eq.reference}; {eq.status})\n\\begin{{equation}}\\label{{eq:{eq.name}}}\n"
                f"{eq.latex()}\n\\end{{equation}}"
            )
    return "\n".join(chunks) + "\n"
