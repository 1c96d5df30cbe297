#!/usr/bin/env bash
# Benchmark (not a test): lego-to-arith (and lego-normalization) on a generated file with N applies
# (default 10 000): a mix of shared and per-use layouts, apply and apply_inverse, a gen_p body, a
# symbolic order_by, tile_by and load/store through a view. Prints the wall-clock seconds of parse + verify
# only, and of each pass pipeline (best of R runs), with the same binary.
#   bench/lower.sh [applies] [runs]        (uses target/release/lego-opt if present, else target/debug)
set -euo pipefail
cd "$(dirname "$0")/.."
applies=${1:-10000}
runs=${2:-3}
bin=target/release/lego-opt
[ -x "$bin" ] || bin=target/debug/lego-opt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$applies" > "$work/applies.mlir" <<'PY'
import sys
applies = int(sys.argv[1])
groups = max(1, applies // 10)
print("func.func @big(%m: memref<4096xf32>, %i: index, %j: index, %n: index) -> index {")
print("  %shared = lego.row [%n, 8] : !lego.layout")
print("  %gen = lego.gen_p [16, 16] apply (%a: index, %b: index) {")
print("    %c16 = arith.constant 16 : index")
print("    %x = arith.muli %b, %c16 : index")
print("    %f = arith.addi %x, %a : index")
print("    lego.yield %f : index")
print("  } inv (%y: index) {")
print("    %c16 = arith.constant 16 : index")
print("    %a = arith.remui %y, %c16 : index")
print("    %b = arith.divui %y, %c16 : index")
print("    lego.yield %a, %b : index, index")
print("  } : !lego.layout")
print("  %acc0 = arith.constant 0 : index")
acc = "%acc0"
for g in range(groups):
    print(f"  %p{g} = lego.reg_p perm [1, 0] dims [%n, 4] : !lego.layout")
    print(f"  %c{g} = lego.col [4, %n] : !lego.layout")
    print(f"  %o{g} = lego.order_by(%p{g}, %c{g}) : !lego.layout")
    print(f"  %g{g} = lego.group_by [16, 16](%o{g}, %gen) : !lego.layout")
    print(f"  %r{g} = lego.row [64, 64] : !lego.layout")
    print(f"  %ob{g} = lego.order_by(%r{g}) : !lego.layout")
    print(f"  %t{g} = lego.tile_by %ob{g} tile_dims [[8, 8], [8, 8]] : !lego.layout")
    print(f"  %v{g} = lego.cast_view %m, %t{g} : memref<4096xf32>, !lego.layout -> !lego.view<f32>")
    uses = [
        f"%a{g}_0 = lego.apply %shared(%i, %j) : !lego.layout",
        f"%a{g}_1 = lego.apply %o{g}(%i, %j, %i, %j) : !lego.layout",
        f"%a{g}_2 = lego.apply %g{g}(%i, %j) : !lego.layout",
        f"%a{g}_3 = lego.apply %gen(%j, %i) : !lego.layout",
        f"%a{g}_4 = lego.apply %t{g}(%i, %j, %i, %j) : !lego.layout",
        f"%a{g}_5:2 = lego.apply_inverse %shared(%a{g}_0) : !lego.layout -> index, index",
        f"%a{g}_6:2 = lego.apply_inverse %g{g}(%a{g}_2) : !lego.layout -> index, index",
        f"%a{g}_7:4 = lego.apply_inverse %t{g}(%a{g}_4) : !lego.layout -> index, index, index, index",
        f"%a{g}_8 = lego.load %v{g}[%i, %j, %j, %i] : !lego.view<f32>, index, index, index, index",
    ]
    for use in uses:
        print("  " + use)
    print(f"  lego.store %a{g}_8, %v{g}[%j, %i, %i, %j] : f32, !lego.view<f32>, index, index, index, index")
    for k, value in enumerate([f"%a{g}_1", f"%a{g}_3", f"%a{g}_5#1", f"%a{g}_6#0", f"%a{g}_7#3"]):
        print(f"  %s{g}_{k} = arith.addi {acc}, {value} : index")
        acc = f"%s{g}_{k}"
print(f"  return {acc} : index")
print("}")
PY
echo "binary: $bin; input: $(grep -cE 'lego\.(apply|apply_inverse|load|store) ' "$work/applies.mlir") apply/apply_inverse/load/store ops, $(grep -c 'lego\.' "$work/applies.mlir") lego ops, $(wc -c < "$work/applies.mlir") bytes"

best() { # best wall time of $runs runs of "$@"
  local best=""
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s.%N); "$@" > /dev/null; end=$(date +%s.%N)
    best=$(python3 -c "t=$end-$start; b='$best'; print(t if not b or t<float(b) else b)")
  done
  printf '%.3f' "$best"
}

echo "parse + verify + print:                      $(best "$bin" "$work/applies.mlir") s"
echo "--lego-to-arith:                             $(best "$bin" "$work/applies.mlir" --lego-to-arith) s"
echo "--lego-normalization:                        $(best "$bin" "$work/applies.mlir" --lego-normalization) s"
echo "--lego-normalization --lego-to-arith:        $(best "$bin" "$work/applies.mlir" --lego-normalization --lego-to-arith) s"
echo "--lego-to-arith --canonicalize --cse:        $(best "$bin" "$work/applies.mlir" --lego-to-arith --canonicalize --cse) s"
"$bin" "$work/applies.mlir" --lego-to-arith --mlir-timing 2>&1 >/dev/null | grep -iE "lego|total" | sed 's/^/  timing: /' || true
