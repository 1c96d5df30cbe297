"""Memory analysis and bounds checks of the GPU puzzles (docs/gpu-dsl.md, "Memory analysis").

* Every puzzle kernel's shared and global accesses go through ``lego-analyze-memory`` (one ``lego-opt`` run for
  all of them); each access's cost — the bank-conflict degree of a shared access, the sectors per warp request
  (and the ideal) of a global one — must equal the record python/examples/puzzles/memory_analysis.json, so a
  change that adds a bank conflict or an uncoalesced access fails here. After an intended change, regenerate
  it (``python python/tests/test_gpu_puzzle_analysis.py --update``) and check the diff.
* Several recorded values are derived by hand below (not read from our output), and
  ``test_pass_matches_brute_force_lane_enumeration`` recomputes every access's cost by enumerating all blocks,
  threads and loop iterations (``lane_costs``: an interpreter of the kernel's index arithmetic lowered by
  ``lego-to-arith``, independent of the pass's Z3 encoding) and requires the pass's value.
* Puzzle 32's chosen layout (``lego-choose-smem-layout``) removes the column walk's conflict.
* Puzzle 10's unguarded map is reported by the bounds checks; its guarded kernels are not.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from pathlib import Path

import pytest

PUZZLES = Path(__file__).resolve().parents[1] / "examples" / "puzzles"
RECORD = PUZZLES / "memory_analysis.json"
sys.path.insert(0, str(PUZZLES))

from lego.backend.gpu_dsl import F_CLUSTER, Buffer, gpu_kernel  # noqa: E402
from lego.backend.gpu_dsl_analysis import analyze_memory, bounds_violations, lane_costs  # noqa: E402

STEMS = sorted(p.stem for p in PUZZLES.glob("puzzle_*.py"))


def _kernels():
    kernels = {}
    for stem in STEMS:
        module = importlib.import_module(stem)
        for case in module.build(*module.ARGS):
            kernels[f"{stem}.{case['kernel'].name}"] = case["kernel"]
    return kernels


def _describe(access):
    head = f"{access['space']} {access['op'].split('.')[-1]} {access['bytes']} B"
    if "error" in access:
        return f"{head}: not analyzed ({access['error']})"
    proved = "" if access.get("proved", True) else " (at least)"
    if access["space"] == "shared":
        return f"{head}: degree {access['degree']}{proved}"
    return f"{head}: {access['sectors']} sectors (ideal {access['ideal_sectors']}){proved}"


def measure():
    """``{"puzzle.kernel": ["<space> <load|store> <bytes> B: degree d" | "…: s sectors (ideal i)", …]}``, the
    accesses in program order (the traced kernel's; an unrolled loop gives one entry per copy)."""
    kernels = _kernels()
    names = {k.replace(".", "__"): k for k in kernels}
    report = analyze_memory({n: kernels[k] for n, k in names.items()})
    return {names[n]: [_describe(a) for a in report.get(n, [])] for n in names}


@pytest.fixture(scope="module")
def measured():
    return measure()


def test_every_puzzle_kernel_is_recorded_and_unchanged(measured):
    recorded = json.loads(RECORD.read_text())
    assert sorted(measured) == sorted(recorded), "kernels added or removed: regenerate memory_analysis.json"
    changed = {k: (recorded[k], measured[k]) for k in measured if measured[k] != recorded[k]}
    assert not changed, f"memory costs changed (recorded, now): {json.dumps(changed, indent=1)}"


def test_hand_derived_costs(measured):
    # Puzzle 32, column_conflict: thread t stores/loads flat slot 16·(t & 15) + (t >> 4). In warp 0, lanes
    # 0..15 hit slots 0, 16, …, 240: banks (slot mod 32) 0 and 16 alternate, so the 8 even lanes put 8
    # distinct words (0, 32, …, 224) in bank 0 (and the odd ones 8 in bank 16); lanes 16..31 likewise in banks
    # 1 and 17: 8-way. no_conflict: lane t → word t, 32 banks: degree 1.
    conflict = measured["puzzle_32_bank_conflicts.column_conflict"]
    assert conflict[1] == "shared store 4 B: degree 8" and conflict[2] == "shared load 4 B: degree 8"
    for kernel in ("no_conflict", "column_chosen"):
        assert all(a.endswith("degree 1") for a in measured[f"puzzle_32_bank_conflicts.{kernel}"]
                   if a.startswith("shared"))
    # A coalesced fp32 warp access: 32 lanes × 4 B = 128 contiguous aligned bytes = 4 sectors of 32 B (ideal).
    assert measured["puzzle_01_map.map_add10"] == ["global load 4 B: 4 sectors (ideal 4)",
                                                    "global store 4 B: 4 sectors (ideal 4)"]
    # Puzzle 3 (guards): a 32-thread block, only lanes i < SIZE (20) access: 80 contiguous bytes from 0 =
    # 3 sectors, also the ideal.
    module = importlib.import_module("puzzle_03_guards")
    size = module.ARGS[0]
    sectors = -(-size * 4 // 32)
    assert measured["puzzle_03_guards.add_10_guard"] == [f"global load 4 B: {sectors} sectors (ideal {sectors})",
                                                          f"global store 4 B: {sectors} sectors (ideal {sectors})"]
    # Puzzle 10's race fix: one shared word, written by one thread and read by all (a broadcast): degree 1.
    race = measured["puzzle_10_memory_errors.shared_memory_race_fix"]
    assert [a for a in race if a.startswith("shared")] == ["shared store 4 B: degree 1", "shared load 4 B: degree 1"]


# Kernels whose enumeration exceeds lane_costs' work bound (many blocks; 16×16 tiles × 16-step loops).
TOO_BIG_TO_ENUMERATE = {"puzzle_07_2dblocks.add_10_2d_blocks", "puzzle_07_2dblocks.add_10_2d_blocks_x4",
                        "puzzle_16_matmul.tiled_matmul", "puzzle_16_matmul.register_tiled",
                        "puzzle_33_tensor_cores.tiled_matmul"}


def test_pass_matches_brute_force_lane_enumeration(measured):
    compared = 0
    skipped = set()
    for name, kernel in _kernels().items():
        if F_CLUSTER in kernel.features():  # traced outlined: neither the pass nor the enumeration reads it
            assert measured[name] == ["any * 0 B: not analyzed (an outlined cluster kernel)"], name
            continue
        brute = lane_costs(kernel)
        if brute is None:
            skipped.add(name)
            continue
        assert len(brute) == len(measured[name]), name
        for k, (ours, theirs) in enumerate(zip(measured[name], brute)):
            value = re.search(r": (?:degree )?(\d+)", ours)
            if value is None or theirs is None:  # not analyzed by the pass / an index of a loaded value
                continue
            assert int(value.group(1)) == theirs, f"{name}, access {k}: pass {ours!r}, enumeration {theirs}"
            compared += 1
    assert skipped == TOO_BIG_TO_ENUMERATE
    assert compared > 300


def test_chosen_layout_removes_the_conflict():
    module = importlib.import_module("puzzle_32_bank_conflicts")
    from lego.backend.gpu_dsl_analysis import choose_shared_layout
    cases = {c["label"]: c["kernel"] for c in module.build(*module.ARGS)}
    chosen = choose_shared_layout(cases["column_conflict"])
    assert chosen["original_degree"] == 8 and chosen["degree"] == 1 and chosen["extra_bytes"] == 0
    report = analyze_memory({"chosen": cases["column_chosen"]})["chosen"]
    assert [a["degree"] for a in report if a["space"] == "shared"] == [1, 1]


def test_unguarded_access_is_reported_guarded_ones_are_not():
    module = importlib.import_module("puzzle_10_memory_errors")
    found = bounds_violations(module.unguarded(*module.ARGS))
    assert len(found) == 2, found
    assert all(f.startswith("Out-of-bounds access is possible (proven by Z3)") for f in found)
    assert "memref.load %arg0" in found[0] and "memref.store" in found[1] and "%arg1" in found[1]
    for case in module.build(*module.ARGS):
        assert bounds_violations(case["kernel"]) == [], case["label"]



def test_bounds_checks_follow_if_and_else():
    @gpu_kernel(grid=(1,), block=(8,))
    def branches(A: Buffer[6], Out: Buffer[6]):
        i = thread_id.x
        x = 0.0
        if i < 6:
            x = A[i]  # in bounds: i < 6 here
        else:
            x = A[i]  # out of bounds: i = 6, 7 reach it
        if i < 6:
            Out[i] = x

    found = bounds_violations(branches)
    assert len(found) == 1 and "memref.load %arg0" in found[0], found


def test_a_failing_lego_opt_raises_with_its_diagnostic(monkeypatch):
    """When lego-opt cannot run the analysis (here: text it cannot parse, through the real tool), each entry
    point raises with the tool's diagnostic instead of returning an empty report that would read as "no
    conflict" or "no violation"."""
    from lego.backend import gpu_dsl_analysis as analysis

    @gpu_kernel(grid=(1,), block=(8,))
    def copy(A: Buffer[8], Out: Buffer[8]):
        Out[thread_id.x] = A[thread_id.x]

    broken = "func.func @broken( {\n"
    monkeypatch.setattr(analysis, "analysis_text", lambda kernel, name="": broken)
    monkeypatch.setattr(analysis, "_guarded_text", lambda kernel: broken)
    with pytest.raises(RuntimeError, match="lego-analyze-memory failed:(.|\n)*error"):
        analyze_memory({"copy": copy})
    with pytest.raises(RuntimeError, match="lego-choose-smem-layout failed"):
        analysis.choose_shared_layout(copy)
    # The bounds checks read errors as violations; a failure with no located diagnostic is not one.
    monkeypatch.setattr(analysis, "_lego_opt", lambda text, args: (1, "", "LLVM ERROR: out of memory\n"))
    with pytest.raises(RuntimeError, match="without a diagnostic"):
        bounds_violations(copy)
    # A run that succeeds but prints no report is not an empty report either.
    monkeypatch.setattr(analysis, "_lego_opt", lambda text, args: (0, "", ""))
    with pytest.raises(RuntimeError, match="no report"):
        analyze_memory({"copy": copy})


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: test_gpu_puzzle_analysis.py --update  (rewrites memory_analysis.json)")
    RECORD.write_text(json.dumps(measure(), indent=1) + "\n")
    print(f"wrote {RECORD}")
