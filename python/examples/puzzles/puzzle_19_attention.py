# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 4 8
# REQUIRES: gpu
"""Puzzle 19 (attention): (1) scores = Q·Kᵀ/√DIM; (2) a row softmax where each thread scans its row for the
max and the sum; (3) the weighted sum W·V. Each kernel is checked on its own inputs."""
import numpy as np
from lego.backend.gpu_dsl import gpu_kernel, Buffer
import bench_utils
from puzzle_18_softmax import softmax_reference

ARG_NAMES, ARGS, TARGETS = ["seq", "dim"], [4, 8], bench_utils.T8


def build(SEQ, DIM):
    assert DIM & (DIM - 1) == 0, "DIM must be power of 2"

    @gpu_kernel(grid=(SEQ,), block=(SEQ,))
    def attention_scores(Q: Buffer[SEQ, DIM], K: Buffer[SEQ, DIM], S: Buffer[SEQ, SEQ]):
        acc = 0.0
        for d in range(DIM):
            acc += Q[block_id.x, d] * K[thread_id.x, d]
        S[block_id.x, thread_id.x] = acc * (1.0 / DIM ** 0.5)

    @gpu_kernel(grid=(SEQ,), block=(SEQ,))
    def softmax(S: Buffer[SEQ, SEQ], W: Buffer[SEQ, SEQ]):
        i = block_id.x
        m = S[i, 0]
        for k in range(1, SEQ):
            v = S[i, k]
            if v > m:
                m = v
        total = 0.0
        for k in range(SEQ):
            total += exp(S[i, k] - m)
        W[i, thread_id.x] = exp(S[i, thread_id.x] - m) / total

    @gpu_kernel(grid=(SEQ,), block=(DIM,))
    def weighted_sum(W: Buffer[SEQ, SEQ], V: Buffer[SEQ, DIM], Out: Buffer[SEQ, DIM]):
        acc = 0.0
        for j in range(SEQ):
            acc += W[block_id.x, j] * V[j, thread_id.x]
        Out[block_id.x, thread_id.x] = acc

    f64 = np.float64
    return [dict(kernel=attention_scores, label="scores", atol=1e-2, init_mod=10,
                 expected=lambda ins: ins[0].reshape(SEQ, DIM).astype(f64) @ ins[1].reshape(SEQ, DIM).T / DIM ** 0.5),
            dict(kernel=softmax, label="softmax", atol=1e-4, init_mod=10,
                 expected=lambda ins: softmax_reference(ins[0].reshape(SEQ, SEQ).astype(f64))),
            dict(kernel=weighted_sum, label="weighted_sum", atol=1e-2, init_mod=10,
                 expected=lambda ins: ins[0].reshape(SEQ, SEQ).astype(f64) @ ins[1].reshape(SEQ, DIM))]


if __name__ == "__main__":
    bench_utils.main(globals())
