"""Each paper's vocabulary, on the ground floor: its parameters (with their domains, declared
once as :class:`numerics.core.params.Param`) and the names a user picks from (losses, models,
token laws).  No SymPy and no formula: the theory, the problems, the experiments and the claims
of a paper all import its vocabulary from here, and none of them has to import another role to
learn a parameter's name or range (``tests/test_architecture.py``)."""
