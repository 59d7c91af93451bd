"""The one request layer under the command line and the Python API.

Every user request (``eval``, ``eval --certify``, ``solve``, ``sweep``, ``verify``, ``explore``,
``mutate``, ``figure``, ``report``) is parsed and validated here, once: the claim ids, ``dps``
(its domain declared in :mod:`numerics.core.precision`), ``seed``, ``mode``, ``workers``,
``mutate``, the problem options and the parameters (through each claim's or problem's
``ParamSpace``).  The estimated memory and time are checked against the limits
(:mod:`numerics.core.resources`) before anything runs.  Results come back typed:
:class:`Evaluation`, :class:`SolveResult` (numbers as :class:`numerics.core.value.Value`),
certified balls, a :class:`SweepPlan`.

One module per verb: :mod:`.validate` (the scalars and the settings of a run), :mod:`.find`
(claims, problems, figures by name), :mod:`.verify` (a verify planned, priced and run: the claims,
the point, the cache, the workers), :mod:`.evaluate`, :mod:`.solve`, :mod:`.plan` (a sweep),
:mod:`.explore` (``explore`` and ``mutate``); this package names them all.

Bad input raises :class:`ParameterError` (exit 2 on the command line, one line); a numerical
failure raises :class:`EvaluationError` (an ``ArithmeticError``; exit 1), a solve that did not
converge :class:`SolveError` (exit 1).  ``spell`` turns a parameter name into the way the caller
spells it in messages (``"dps"`` in Python, ``"--dps"`` on the command line).

``numerics.cli`` and ``attncheck`` import this package; it imports neither.
"""
from numerics.core.params import ParameterError  # noqa: F401  (raised here, caught by callers)
from numerics.core.results import SolveError  # noqa: F401  (raised by callers)
from numerics.request.evaluate import Evaluation, EvaluationError, certify, evaluate  # noqa: F401
from numerics.request.explore import automatic_mutants, explore_request  # noqa: F401
from numerics.request.find import claim, evaluable, figure_fn, known, problem, select, stubs  # noqa: F401
from numerics.request.plan import SweepPlan, plan_sweep  # noqa: F401
from numerics.request.solve import SolveResult, solve, solve_request  # noqa: F401
from numerics.request.validate import (  # noqa: F401
    MAX_POINTS, MAX_WORKERS, dps, integer, mode, mutate, option_name, options, output_path, python_name, seed,
    settings, workers,
)
from numerics.request.verify import VerifyPlan, claims_dps, plan_verify, point_settings, run_verify  # noqa: F401
