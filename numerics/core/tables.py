"""Tidy tables in memory: rows of named cells as a pandas DataFrame or an xarray Dataset.

pandas and xarray are an optional extra (``pip install 'attncheck[tables]'``), imported only
when a table is asked for; without them the request fails with one line saying what to install.

Numbers keep the precision they were computed at where it exceeds float64: a column of
:class:`~numerics.core.value.Value` (``values="value"``, an ``object`` column) or of decimal
strings (``values="text"``); ``values="float"`` gives float64 columns.  The default
(``"auto"``) is float64 up to :data:`FLOAT_DPS` digits and Values above.
"""
from __future__ import annotations

import importlib

#: the digits a float64 holds; a table computed at more keeps them by default (``values="auto"``)
FLOAT_DPS = 15
VALUES = ("auto", "float", "value", "text")
EXTRA = "tables"


class MissingExtra(ImportError):
    """An optional library the request needs is not installed (one line: what to install)."""


def require(module: str, what: str):
    """Import ``module`` (pandas, xarray) for ``what``, or raise :class:`MissingExtra` saying
    how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(f"{what} needs {module}, an optional extra: pip install 'attncheck[{EXTRA}]' "
                           f"(or pip install {module})") from None


def kind(values: str, dps: int) -> str:
    """The cell type of the output columns: ``values`` checked, ``"auto"`` resolved."""
    if values not in VALUES:
        from numerics.core.params import ParameterError

        raise ParameterError(f"values must be one of {', '.join(VALUES)}, got {values!r}")
    if values == "auto":
        return "value" if dps > FLOAT_DPS else "float"
    return values


def frame(rows: list[dict], columns: list[str], object_columns=(), index=None):
    """A DataFrame of ``rows`` with ``columns`` in that order; ``object_columns`` keep their
    Python objects (Values, strings, None) as they are."""
    pd = require("pandas", "to_pandas()")
    df = pd.DataFrame.from_records([{c: r.get(c) for c in columns} for r in rows], columns=columns)
    for c in object_columns:
        if c in df:
            df[c] = pd.Series([r.get(c) for r in rows], dtype=object, index=df.index)
    if index:
        df = df.set_index(list(index))
    return df


def dataset(dims: dict[str, list], data: dict[str, dict], attrs: dict, object_vars=()):
    """An xarray Dataset on the Cartesian product of ``dims`` ({name: coordinate values}):
    ``data`` = {variable: {coordinate tuple: cell}}, a missing cell NaN (None for an object
    variable)."""
    import itertools

    import numpy as np

    xr = require("xarray", "to_xarray()")
    shape = tuple(len(v) for v in dims.values())
    where = {combo: ix for combo, ix in zip(itertools.product(*dims.values()), np.ndindex(*shape))}
    out = {}
    for name, cells in data.items():
        if len(cells) == len(where) and all(isinstance(c, bool) for c in cells.values()):
            out[name] = (tuple(dims), np.array([cells[c] for c in where], dtype=bool).reshape(shape))
            continue
        obj = name in object_vars
        arr = np.full(shape, None if obj else np.nan, dtype=object if obj else float)
        for combo, cell in cells.items():
            if cell is not None:
                arr[where[combo]] = cell
        out[name] = (tuple(dims), arr)
    return xr.Dataset(out, coords={k: list(v) for k, v in dims.items()}, attrs=attrs)
