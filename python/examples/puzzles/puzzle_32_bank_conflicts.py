# RUN: env PYTHONPATH=%{pythonpath} %{python} %s 256
# REQUIRES: gpu
"""Puzzle 32 (bank conflicts): (a + 10)·2 through shared memory, (1) with stride-1 accesses (conflict-free);
(2) a column walk of a Row(16, 16) shared tile (thread t writes row t & 15, column t >> 4 and reads it
back: flat slot 16·(t mod 16) + t div 16, so the 8 even rows of a warp's first half share bank 0 — an 8-way
conflict); (3) the same column walk on the layout ``lego-choose-smem-layout`` chooses for (2)'s tile
(``choose_shared_layout`` of ``lego.backend.gpu_dsl_analysis``: the pass's search, proved conflict-free and
bijective; here the XOR swizzle (B, M, S) = (3, 1, 4) on the flat index, no extra memory), declared as
``Shared(chosen["layout"], …)``. ``lego-analyze-memory`` gives (2) an 8-way conflict on its shared store and
load, (1) and (3) degree 1 (python/examples/puzzles/memory_analysis.json). All three compute the same result."""
from lego.core import OrderBy, Row
from lego.backend.gpu_dsl import gpu_kernel, Buffer, Shared
from lego.backend.gpu_dsl_analysis import choose_shared_layout
import bench_utils

ARG_NAMES, ARGS, TARGETS = ["n"], [256], bench_utils.T5


def build(N):
    TPB = 256
    T = OrderBy(Row(N)).TileBy([N // TPB], [TPB])

    @gpu_kernel(grid=(N // TPB,), block=(TPB,))
    def no_conflict(A: Buffer(T, N), Out: Buffer(T, N), s: Shared[TPB]):
        s[thread_id.x] = A[block_id.x, thread_id.x] + 10.0
        barrier()
        Out[block_id.x, thread_id.x] = s[thread_id.x] * 2.0

    @gpu_kernel(grid=(N // TPB,), block=(TPB,))
    def column_conflict(A: Buffer(T, N), Out: Buffer(T, N), s: Shared[16, 16]):
        r = thread_id.x & 15
        c = thread_id.x >> 4
        s[r, c] = A[block_id.x, thread_id.x] + 10.0
        barrier()
        Out[block_id.x, thread_id.x] = s[r, c] * 2.0

    # lego-choose-smem-layout searches column_conflict's 16×16 tile (paddings, XOR swizzles) and proves its
    # choice conflict-free; the same body on the layout it chose:
    chosen = choose_shared_layout(column_conflict)

    @gpu_kernel(grid=(N // TPB,), block=(TPB,))
    def column_chosen(A: Buffer(T, N), Out: Buffer(T, N), s: Shared(chosen["layout"], chosen["size"])):
        r = thread_id.x & 15
        c = thread_id.x >> 4
        s[r, c] = A[block_id.x, thread_id.x] + 10.0
        barrier()
        Out[block_id.x, thread_id.x] = s[r, c] * 2.0

    f = lambda ins: (ins[0] + 10) * 2  # noqa: E731
    return [dict(kernel=no_conflict, expected=f, label="no_conflict"),
            dict(kernel=column_conflict, expected=f, label="column_conflict"),
            dict(kernel=column_chosen, expected=f, label="column_chosen")]


if __name__ == "__main__":
    bench_utils.main(globals())
