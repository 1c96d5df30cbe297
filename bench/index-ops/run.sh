#!/usr/bin/env bash
# Index-arithmetic benchmark: lowers bench/index-ops/corpus.mlir (the reference's worked examples, the paper's Table I
# layouts with static and symbolic sizes) and prints, per case, the arith ops (constants not counted) and the
# divisions/remainders among them, before and after `lego-lower`, plus the time `lego-lower` takes.
#   before: lego-normalization, lego-to-arith, canonicalize, cse, then upstream affine-expand-index-ops
#           (what the lowering gives without our index-arithmetic passes)
#   after:  lego-lower, then the same expansion of any affine index op left (none, in this corpus)
#   bench/index-ops/run.sh [runs]   (LEGO_OPT=path/to/lego-opt to pick a binary; default target/debug)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-3}
bin=${LEGO_OPT:-target/debug/lego-opt}
corpus=bench/index-ops/corpus.mlir
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin" "$corpus" --split-input-file --pass-pipeline='builtin.module(lego-normalization, lego-to-arith, canonicalize, cse, affine-expand-index-ops, canonicalize, cse)' > "$work/before.mlir"
best=""
for _ in $(seq "$runs"); do
  start=$(date +%s.%N)
  "$bin" "$corpus" --split-input-file --lego-lower > "$work/lowered.mlir"
  end=$(date +%s.%N)
  t=$(echo "$end - $start" | bc)
  if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
done
"$bin" "$work/lowered.mlir" --split-input-file --pass-pipeline='builtin.module(affine-expand-index-ops, canonicalize, cse)' > "$work/after.mlir"

python3 - "$work/before.mlir" "$work/after.mlir" "$best" "$bin" <<'PY'
import re, sys
def counts(path):
    out, name = {}, None
    for line in open(path):
        m = re.search(r'func\.func @(\w+)', line)
        if m:
            name = m.group(1); out[name] = [0, 0]; continue
        if name is None:
            continue
        op = re.search(r'= (arith|affine)\.(\w+)', line)
        if not op or op.group(2) == 'constant' or op.group(2) == 'cmpi' and False:
            continue
        out[name][0] += 1
        if re.match(r'(div|rem|floordiv|ceildiv)', op.group(2)) or op.group(2) in ('delinearize_index',):
            out[name][1] += 1
    return out
before, after = counts(sys.argv[1]), counts(sys.argv[2])
print(f"binary: {sys.argv[4]}; lego-lower on the whole corpus ({len(after)} functions): {float(sys.argv[3]):.3f} s (best run)")
print()
print("| case | sizes | arith ops before | after | div/rem before | after |")
print("|---|---|---:|---:|---:|---:|")
tb = ta = db = da = 0
for name, (ops_b, div_b) in before.items():
    ops_a, div_a = after.get(name, [0, 0])
    tb += ops_b; ta += ops_a; db += div_b; da += div_a
    sizes = "symbolic" if name.startswith("sym_") else "static"
    print(f"| {name} | {sizes} | {ops_b} | {ops_a} | {div_b} | {div_a} |")
print(f"| **total** | | **{tb}** | **{ta}** | **{db}** | **{da}** |")
PY
