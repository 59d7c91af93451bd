"""Claims: one checkable statement of a paper each.

Every module in this package that defines a module-level ``CLAIMS`` list is discovered by
:mod:`numerics.registry`; adding a claim never touches a shared file.  The engine itself is in
:mod:`numerics.claims.base`.
"""
