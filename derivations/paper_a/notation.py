"""Paper A's symbols as the paper writes them (symbol name -> LaTeX), read by the one printer
(``derivations.core.latex``) for Paper A's equations, statements and sections, and for an
expression printed with no paper named (declared as ``A`` in the entry-point group
``attncheck.notation`` of ``pyproject.toml``).  Names only: no SymPy."""

#: the prior P(y = +1): printed pi_+, never the constant pi (the names it goes by in the code)
SYMBOLS = {"pi": r"\pi_{+}", "pi_+": r"\pi_{+}", "pi_plus": r"\pi_{+}",
           # a variance written as one symbol: sigma^2, never sigma_2
           "sigma2": r"\sigma^{2}"}
#: the square roots printed as one symbol: sqrt(sigma2) is sigma
ROOTS = {"sigma2": r"\sigma"}
