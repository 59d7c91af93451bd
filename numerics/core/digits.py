"""The exact side of the one number printer: a number rounded once to the digits its
uncertainty supports (:func:`supported_digits`, :func:`text`), and exact conversions between
mpmath numbers, Python rationals and decimal text, which :mod:`numerics.core.value` builds on.

The printer rounds once, from the exact binary value (ties away from zero), and prints only the
digits the uncertainty supports: ``dps`` digits for an exact value; two digits beyond the first
digit of a standard error (the standard error itself gets two); one beyond the first digit of a
ball radius.
"""
from __future__ import annotations

import decimal
import numbers
import re
from fractions import Fraction

import mpmath
from mpmath import libmp

from numerics.core.precision import MAX_DPS


def supported_digits(value, error, kind: str, dps: int) -> int:
    """The significant digits of ``value`` that its uncertainty supports (at most ``dps``)."""
    if error is None or kind == "dps" or isinstance(value, bool):
        return dps
    with mpmath.workdps(30):  # a ratio of magnitudes: 30 digits whatever mpmath.mp.dps is
        err, val = abs(_mpf(error)), abs(_mpf(value))
        if err <= 0 or val == 0 or not mpmath.isfinite(err) or not mpmath.isfinite(val):
            return dps
        beyond = 1 if kind == "radius" else 2
        return int(max(beyond, min(dps, mpmath.floor(mpmath.log10(val / err)) + beyond)))


_EXACT_BITS = 20_000  # binary exponents up to which the printer rounds from the exact value


def text(value, digits: int) -> str:
    """Booleans and counts (Python bool/int) as they are; a number to ``digits`` significant
    digits (trailing zeros kept: they are supported digits), rounded once from its exact binary
    value (ties away from zero), laid out as ``mpmath.nstr`` lays it out."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    x = _mpf(value)
    if not x or not mpmath.isfinite(x):
        return mpmath.nstr(x, digits)  # 0.0, +inf, -inf, nan
    sign, man, exp, bc = x._mpf_
    man, exp = int(man), int(exp)  # mpmath's mantissa may be a gmpy2 integer
    if abs(exp + bc) > _EXACT_BITS:  # beyond 10^±6000: from 25 guard digits (no exact tie is that far out)
        _, digs, point = libmp.to_digits_exp(x._mpf_, digits + 25)  # truncated toward zero
        q = int(digs[:digits]) + (digs[digits] >= "5")
        if q == 10**digits:
            q, point = q // 10, point + 1
        digs = str(q)
    else:
        with decimal.localcontext() as ctx:  # the exact value man·2^exp, rounded once to `digits`
            ctx.prec, ctx.rounding = digits, decimal.ROUND_HALF_UP
            ctx.Emax, ctx.Emin = decimal.MAX_EMAX, decimal.MIN_EMIN
            if exp >= 0:
                d = ctx.plus(decimal.Decimal(man << exp))
            else:  # man·2^exp = man·5^-exp·10^exp
                d = ctx.scaleb(decimal.Decimal(man * 5**-exp), decimal.Decimal(exp))
        digs = "".join(map(str, d.as_tuple().digits))
        point = d.adjusted()  # the decimal exponent of the first digit
    digs = digs.ljust(digits, "0")
    if min(-(digits // 3), -5) < point < digits:  # fixed point, where mpmath.nstr uses it
        if point < 0:
            digs, split = "0" * -point + digs, 1
        else:
            split = point + 1  # <= digits = len(digs): no padding needed
        return ("-" if sign else "") + (digs[:split] + "." + digs[split:]).rstrip(".")
    return f"{'-' if sign else ''}{digs[0]}.{digs[1:]}e{point:+d}"


def _mpf(x, dps: int = MAX_DPS):
    """``x`` as an mpf: an mpf as it is, an integer or a binary float exactly (``mpmath.mpf(x)``
    would round them to the global precision), any other rational or a string rounded to ``dps``
    digits."""
    if isinstance(x, mpmath.mpf):
        return x
    ratio = _ratio(x)
    if ratio is None:
        with mpmath.workdps(dps):
            return mpmath.mpf(x)
    p, q = ratio
    if q & (q - 1) == 0:  # a power of two: exact
        return mpmath.mp.make_mpf(libmp.from_man_exp(p, 1 - q.bit_length()))
    return mpmath.mp.make_mpf(libmp.from_rational(p, q, libmp.dps_to_prec(dps), libmp.round_nearest))


def _ratio(x):
    """A Python/numpy real number as (numerator, denominator), exactly; None for anything else
    (a string, an mpf, inf, nan)."""
    if isinstance(x, numbers.Integral):
        return int(x), 1
    if isinstance(x, numbers.Real) and hasattr(x, "as_integer_ratio"):
        try:
            return x.as_integer_ratio()
        except (OverflowError, ValueError):  # inf, nan
            return None
    return None


def _fraction(x) -> Fraction:
    """A finite mpf as the exact rational it is."""
    sign, man, exp, _ = x._mpf_
    man, exp = (-int(man) if sign else int(man)), int(exp)
    return Fraction(man << exp) if exp >= 0 else Fraction(man, 1 << -exp)


def error_text(error) -> str:
    """An uncertainty to two significant digits."""
    return text(error, 2)


def _shows(out: str, x) -> bool:
    """Whether the number printed in ``out`` (a float formatted) is ``x`` rounded at its last
    printed digit: within half a unit of it."""
    m = re.search(r"\d[\d,_]*(\.\d*)?([eE][-+]?\d+)?%?", out)
    if m is None:
        return False  # inf or nan printed for a finite value
    number = m.group(0).replace(",", "")  # Decimal reads "1_234" and "12." itself
    percent = number.endswith("%")
    d = decimal.Decimal(number[:-1] if percent else number)
    unit = decimal.Decimal(1).scaleb(d.as_tuple().exponent)
    if percent:
        d, unit = d / 100, unit / 100
    if "-" in out[: m.start()]:
        d = -d
    return abs(_fraction(x) - Fraction(d)) <= Fraction(unit) / 2


def _neg(x):
    return mpmath.fneg(x, exact=True)


def _abs(x):
    return _neg(x) if x < 0 else x
