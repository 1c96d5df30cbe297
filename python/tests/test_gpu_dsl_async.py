"""The GPU DSL's cuda-only asynchronous copies, mbarriers and thread-block clusters (docs/gpu-dsl.md, "API"):
the PTX holds the real instructions, every other target refuses them with ``TargetFeatureError`` naming the
target and the feature, the CPU emulation raises ``NotEmulable``, misuse is a ``DSLTypeError``."""

from __future__ import annotations

import pytest

from lego.backend.gpu_dsl import (F_ASYNC_COPY, F_CLUSTER, F_MBARRIER, TARGETS, DSLTypeError, DType, NotEmulable,
                                  Buffer, Shared, TargetFeatureError, gpu_kernel)
from lego.jit.builders import kernel_assembly

N = 512


def _ptx(kernel):
    result = kernel.compile(target="cuda", chip="sm_90", features="+ptx80", format="assembly")
    return kernel_assembly(result.kernel_source)[0]


def _async_kernel():
    @gpu_kernel(grid=(N // 128,), block=(32,))
    def staged(A: Buffer[N], Out: Buffer[N], s: Shared[128], bar: Shared(1, dtype=DType.i64)):
        tx = thread_id.x
        if tx == 0:
            mbarrier_init(bar[0], 32)
        barrier()
        async_copy(s[tx * 4], A[block_id.x * 128 + tx * 4], 4)
        async_copy_arrive(bar[0])
        async_copy_commit()
        async_copy_wait(0)
        mbarrier_wait(bar[0], 0)
        mbarrier_arrive(bar[0])
        Out[block_id.x * 128 + tx] = s[tx]

    return staged


def _cluster_kernel():
    @gpu_kernel(grid=(8,), block=(64,), cluster=(4,))
    def swap(A: Buffer[N], Out: Buffer[N], s: Shared[64]):
        tx = thread_id.x
        rank = cluster_rank()
        s[tx] = A[block_id.x * 64 + tx]
        cluster_barrier()
        Out[block_id.x * 64 + tx] = cluster_load(s[tx], (rank + 1) % 4) + cluster_id.x
        cluster_store(s[tx], rank, 0.0)
        cluster_arrive()
        cluster_wait()

    return swap


def test_async_copy_and_mbarrier_ptx():
    kernel = _async_kernel()
    assert {F_ASYNC_COPY, F_MBARRIER} <= set(kernel.features())
    ptx = _ptx(kernel)
    for text in ("cp.async.cg.shared.global", ", 16;", "cp.async.commit_group", "cp.async.wait_group",
                 "cp.async.mbarrier.arrive.noinc.shared.b64", "mbarrier.init.shared.b64",
                 "mbarrier.try_wait.parity.shared.b64", "mbarrier.arrive.shared.b64", "cvta.to.global"):
        assert text in ptx, text


def test_cluster_ptx():
    kernel = _cluster_kernel()
    assert F_CLUSTER in kernel.features()
    ptx = _ptx(kernel)
    for text in (".explicitcluster", ".reqnctapercluster 4, 1, 1", "%cluster_ctarank", "%clusterid.x",
                 "barrier.cluster.arrive", "barrier.cluster.wait", "mapa.shared::cluster", "ld.shared::cluster",
                 "st.shared::cluster"):
        assert text in ptx, text


@pytest.mark.parametrize("make, feature", [(_async_kernel, F_ASYNC_COPY), (_cluster_kernel, F_CLUSTER)])
@pytest.mark.parametrize("target", [t for t in TARGETS if t != "cuda"])
def test_other_targets_refuse(make, feature, target):
    with pytest.raises(TargetFeatureError) as info:
        make().compile(target=target)
    assert target in str(info.value) and info.value.feature in (feature, F_MBARRIER, F_CLUSTER, F_ASYNC_COPY)
    assert info.value.feature in str(info.value)


@pytest.mark.parametrize("make", [_async_kernel, _cluster_kernel])
def test_cpu_emulation_refuses(make):
    with pytest.raises(NotEmulable):
        make().cpu_mlir_text()


def test_misuse():
    with pytest.raises(DSLTypeError, match="must be a shared buffer"):
        @gpu_kernel(grid=(1,), block=(32,))
        def wrong_way(A: Buffer[N], Out: Buffer[N]):
            async_copy(A[thread_id.x], Out[thread_id.x])
    with pytest.raises(DSLTypeError, match="i64 shared buffer"):
        @gpu_kernel(grid=(1,), block=(32,))
        def f32_barrier(Out: Buffer[N], s: Shared[2]):
            mbarrier_init(s[0], 32)
    with pytest.raises(DSLTypeError, match="4, 8 or 16 bytes"):
        @gpu_kernel(grid=(1,), block=(32,))
        def too_wide(A: Buffer[N], s: Shared[64]):
            async_copy(s[0], A[0], 8)
    with pytest.raises(ValueError, match="multiple of the cluster"):
        @gpu_kernel(grid=(3,), block=(32,), cluster=(2,))
        def odd(A: Buffer[N]):
            A[thread_id.x] = 1.0
