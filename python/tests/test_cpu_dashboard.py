"""The CPU dashboard's kernels (bench/cpu, docs/cpu-dashboard.md), small: each built ours (x86), with clang-22 and
with gcc, run once on the same inputs and compared with NumPy element for element. No timing here: speed is the
dashboard's business."""

import dataclasses
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "cpu"))
import dashboard  # noqa: E402
from kernels import kernels  # noqa: E402

SMALL = kernels(scale=16)
# The dashboard compares with gcc and clang-22 (make setup): without them these tests fail, not skip, and the
# wheel's clean-machine run (clang-22 hidden there) deselects them by this marker.
pytestmark = pytest.mark.needs_host_compilers


def _builds(kernel, inputs, tmp_path):
    return {label: dashboard.build(kernel, label, inputs, str(tmp_path)) for label in ("lego", "clang", "gcc")}


@pytest.mark.parametrize("kernel", SMALL, ids=[k.name for k in SMALL])
def test_every_build_matches_numpy(kernel, tmp_path):
    inputs = kernel.make_args(np.random.default_rng(5))
    assert dashboard.check(kernel, _builds(kernel, inputs, tmp_path), inputs) == []


def test_a_wrong_result_is_reported(tmp_path):
    saxpy = next(k for k in SMALL if k.name == "saxpy")
    inputs = saxpy.make_args(np.random.default_rng(5))
    runs = _builds(saxpy, inputs, tmp_path)
    off_by_one = dataclasses.replace(saxpy, reference=lambda a: [saxpy.reference(a)[0] + np.float32(1)])
    problems = dashboard.check(off_by_one, runs, inputs)
    assert len(problems) == 3 and all("differs from NumPy" in p for p in problems)
