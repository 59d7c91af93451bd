"""Claims: one checkable statement of a paper each.

A paper's claim modules (``paper_x/<topic>.py``) each define a module-level ``CLAIMS`` list,
which the paper's registration (:mod:`numerics.registration`, one ``PAPER`` per paper) gathers;
adding a claim to a module touches no other file, adding a module names it in its paper's
registration.  The engine itself is in :mod:`numerics.claims.base`.
"""
