"""numerics.core.stats: the Bonferroni critical value and the mean with its standard error."""
from statistics import NormalDist

import numpy as np
import pytest

from numerics.core.stats import FAMILY_ALPHA, mean_se, normal_quantile, z_critical


def test_the_critical_value_splits_the_family_rate_over_the_rows_and_both_tails():
    assert FAMILY_ALPHA == 1e-3
    assert z_critical(1) == pytest.approx(3.2905267314919)  # 1 - 1e-3 / 2
    assert z_critical(10) == pytest.approx(NormalDist().inv_cdf(1 - 1e-4 / 2))
    assert z_critical(4, family_alpha=0.05) == pytest.approx(NormalDist().inv_cdf(1 - 0.05 / 8))
    assert z_critical(0) == z_critical(1) == z_critical(-3)  # at least one row
    assert z_critical(2.7) == z_critical(2)


def test_normal_quantile():
    assert normal_quantile(0.975) == pytest.approx(1.959963984540054)
    assert normal_quantile(0.5) == 0.0


def test_mean_and_standard_error_with_one_degree_of_freedom_less():
    m, se = mean_se([1, 2, 3, 4])
    assert m == 2.5 and se == pytest.approx(np.std([1, 2, 3, 4], ddof=1) / 2)
    rows = np.array([[1.0, 2.0, 3.0], [3.0, 4.0, 8.0]])
    m, se = mean_se(rows, axis=1)
    assert np.allclose(m, [2.0, 5.0])
    assert np.allclose(se, [1 / np.sqrt(3), np.sqrt(7) / np.sqrt(3)])
    m, se = mean_se(rows)
    assert np.allclose(m, [2.0, 3.0, 5.5]) and np.allclose(se, [1.0, 1.0, 2.5])
    assert mean_se([1, 2])[0].dtype == float and isinstance(mean_se(np.array([1, 3], int))[0], float)
