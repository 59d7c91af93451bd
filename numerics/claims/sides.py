"""Which side of a claim raised: its theory (the derivations and what compiles or evaluates
them), its experiment (the simulators and the experiment memo), or the claim's own code (row
construction, allowances).  An error verdict names the side and the claim
(``numerics.claims.runner.error_evidence``)."""
from __future__ import annotations

#: the code of a claim's theory: the derivations and what evaluates or compiles them
THEORY_MODULES = ("derivations", "numerics.theory", "numerics.core.backends", "numerics.core.arb_compile")
#: the code of a claim's experiment: the simulators (which import no derivation); what the
#: experiment memo (:func:`numerics.claims.base.memo`) computes is named by the memo itself
EXPERIMENT_MODULES = ("numerics.experiments",)
#: how an error names its side (``Evidence.error``; ``{id}`` is the claim)
SIDES = {"theory": "theory of {id} not computable", "experiment": "experiment of {id} failed",
         "claim": "claim code of {id} failed"}


def _within(module: str, packages: tuple) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def raised_in(exc: BaseException) -> str:
    """The side of a claim that raised ``exc``: ``"theory"``, ``"experiment"`` or ``"claim"``
    (the claim's own code, outside both: row construction, allowances).

    A side named by the exception itself (``exc.side``: :class:`Comparison` names the field that
    is not a number, the experiment memo names what raised while it computed an entry) is
    taken; else the innermost frame of its traceback that lies in theory code
    (:data:`THEORY_MODULES`) or experiment code (:data:`EXPERIMENT_MODULES`) decides, so that a
    generic helper (a solver of ``numerics.core``, numpy) is attributed to the side that called
    it."""
    side = getattr(exc, "side", None)
    if side in SIDES:
        return side
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        module = frame.f_globals.get("__name__", "") or ""
        if _within(module, EXPERIMENT_MODULES):
            return "experiment"
        if _within(module, THEORY_MODULES):
            return "theory"
    return "claim"
