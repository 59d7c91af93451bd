"""The in-process memo keyed by content (numerics.core.content_memo)."""
import numpy as np

from numerics.core.content_memo import ContentMemo, digest


def test_get_computes_once_per_key_and_keeps_the_latest():
    calls = []
    memo = ContentMemo(kept=2)

    def value(k):
        return lambda: calls.append(k) or k * 10

    assert memo.get(1, value(1)) == 10 and memo.get(1, value(1)) == 10 and calls == [1]
    memo.get(2, value(2))
    memo.get(1, value(1))  # a hit makes 1 the latest
    memo.get(3, value(3))  # drops 2, the oldest
    assert memo.keys() == [1, 3] and len(memo) == 2 and calls == [1, 2, 3]
    memo.clear()
    assert len(memo) == 0 and memo.get(1, value(1)) == 10 and calls == [1, 2, 3, 1]


def test_digest_sees_every_value_the_dtype_the_shape_and_the_order_of_parts():
    a = np.arange(6.0)
    base = digest(a, 1.0, "x")
    assert base == digest(a.copy(), 1.0, "x") and len(base) == 16
    b = a.copy()
    b[5] = np.nextafter(b[5], 10)
    others = [digest(b, 1.0, "x"), digest(a.astype(np.float32), 1.0, "x"), digest(a.reshape(2, 3), 1.0, "x"),
              digest(a, 2.0, "x"), digest(a, 1.0, "y"), digest(1.0, a, "x"), digest(a, 1.0), digest(a[::-1], 1.0, "x"),
              digest(np.asfortranarray(a.reshape(2, 3)), 1.0, "x")]
    assert base not in others and len(set(others)) == len(others) - 1  # C and Fortran order: the same values
    assert digest(a.reshape(2, 3), 1.0, "x") == digest(np.asfortranarray(a.reshape(2, 3)), 1.0, "x")
    assert digest(1, 23) != digest(12, 3)  # parts are separated
