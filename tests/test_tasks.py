"""Trials inside a claim: same results for any number of workers, progress reported."""
import numpy as np

from numerics.core.seeding import seed_sequence
from numerics.core.tasks import map_tasks, reporting, track, trial_workers


def _draw(task):
    key, n = task
    return np.random.default_rng(seed_sequence(7, "test.tasks", key)).standard_normal(n).tolist()


def test_map_tasks_gives_the_same_results_serially_and_in_a_pool():
    tasks = [(k, 5) for k in range(6)]
    serial = map_tasks(_draw, tasks, "draws")
    with trial_workers(2):
        pooled = map_tasks(_draw, tasks, "draws")
    assert pooled == serial
    assert len({tuple(x) for x in serial}) == 6  # different paths, different draws


def test_progress_is_reported_for_tracked_loops_and_maps():
    seen = []
    with reporting(lambda label, done, total: seen.append((label, done, total))):
        assert list(track(range(3), "loop")) == [0, 1, 2]
        map_tasks(_draw, [(0, 1), (1, 1)], "map")
    assert seen[-1] == ("map", 2, 2) and ("loop", 3, 3) in seen and ("loop", 0, 3) in seen
    assert list(track([1, 2], "silent")) == [1, 2]  # no reporter: nothing happens
