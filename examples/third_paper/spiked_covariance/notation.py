"""The spiked covariance paper's symbols as the literature writes them (symbol name -> LaTeX),
read by attncheck's printer for this paper's equations only (the entry point ``S`` of the group
``attncheck.notation`` in ``pyproject.toml``).  Names only: no SymPy.  The other names
(``lambda_1``, ``ell_c``, ``gamma``) print as SymPy prints them."""

#: the overlap <u_1, v> of the top sample eigenvector with the spike; the bulk's upper edge
SYMBOLS = {"overlap": r"\langle u_1, v\rangle", "lambda_plus": r"\lambda_{+}"}
