"""What is asked for: claims by id or prefix, an evaluable claim, a problem, a figure; an unknown
name is refused naming the command that lists the known ones."""
from __future__ import annotations

from numerics import registry
from numerics.core.params import ParameterError


def unknown(claim_id) -> ParameterError:
    """The refusal of a claim id (or prefix) that names no claim."""
    return ParameterError(f"unknown claim id {claim_id!r}; `attncheck list` (attncheck.claims()) lists them")


def ids_of(ids) -> list:
    """Claim ids or prefixes as a list (a single id, a list or tuple of them; None: all), each
    a string; any other shape is refused."""
    if ids is not None and not isinstance(ids, (str, list, tuple)):
        raise ParameterError(f"ids must be a claim id, a list of ids or None, got {ids!r}")
    ids = [ids] if isinstance(ids, str) else list(ids or [])
    if not all(isinstance(i, str) for i in ids):
        raise ParameterError(f"claim ids must be strings, got {ids!r}")
    return ids


def known(ids) -> None:
    """Refuse an unknown claim id (or prefix) from the index, before any claim is imported
    (what is not a string is left to :func:`ids_of`)."""
    ids = [ids] if isinstance(ids, str) else list(ids or [])
    try:
        registry.check_ids([i for i in ids if isinstance(i, str)])
    except KeyError as e:
        raise unknown(e.args[0]) from None


def claim(claim_id):
    if isinstance(claim_id, str):
        known([claim_id])
    table = registry.claims()
    if not isinstance(claim_id, str) or claim_id not in table:
        raise unknown(claim_id)
    return table[claim_id]


def select(ids) -> list:
    """Claims by ids or prefixes (all for None or an empty list)."""
    try:
        return registry.select(ids_of(ids))
    except KeyError as e:
        raise unknown(e.args[0]) from None


def stubs(ids) -> list:
    """The index entries of the claims selected by ``ids`` (as :func:`select`), none imported:
    a claim is imported only when its evidence must be computed."""
    try:
        return registry.stubs(ids_of(ids))
    except KeyError as e:
        raise unknown(e.args[0]) from None


def evaluable(claim_id):
    c = claim(claim_id)
    if c.evaluate is None:
        raise ParameterError(f"claim {claim_id} has no closed form to evaluate; evaluable claims are marked "
                             "'eval' in `attncheck list`")
    return c


def problem(name):
    table = registry.problems()
    if not isinstance(name, str) or name not in table:
        raise ParameterError(f"unknown problem {name!r}; known: {', '.join(table) or 'none'}")
    return table[name]


def figure_fn(figure_id):
    table = registry.figures()
    if not isinstance(figure_id, str) or figure_id not in table:
        raise ParameterError(f"unknown figure {figure_id!r}; known: {', '.join(table) or 'none'}")
    return table[figure_id]
