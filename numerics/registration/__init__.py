"""The registration of attncheck's own papers: one module per paper, each exporting ``PAPER``
(a :class:`numerics.paper.Paper`), named by an entry point of the group ``attncheck.papers`` in
the project's ``pyproject.toml``, the route every plugin paper takes too.

Why here and not in a role's folder: a paper's registration names its claims, figures, solvable
problems and benchmarks, so it sits above all four roles, as the registry that reads it does.
``numerics/papers`` (each paper's vocabulary) is the ground floor and may import none of them
(``tests/test_architecture.py``); a ``PAPER`` in ``numerics/claims/paper_x/__init__.py`` would
make the claims layer name the figures and benchmarks built on it, and run whenever one claim
module is imported.  Each module imports only :mod:`numerics.paper` when loaded: the parts are
functions that import the paper's modules when first asked for, so listing the problems imports
no claim (and no SymPy).
"""
