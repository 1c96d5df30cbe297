#!/usr/bin/env bash
# Benchmark (not a test): lego-opt start-up, and parse + verify + print of a generated file with 10 000 lego ops
# in custom syntax. Prints wall-clock seconds (best of N runs) for each.
#   bench/roundtrip.sh [ops] [runs]        (uses target/release/lego-opt if present, else target/debug)
set -euo pipefail
cd "$(dirname "$0")/.."
ops=${1:-10000}
runs=${2:-5}
bin=target/release/lego-opt
[ -x "$bin" ] || bin=target/debug/lego-opt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 10 000 ops: each group of 5 builds a small layout and applies it (row, reg_p, order_by, group_by, apply).
python3 - "$ops" > "$work/big.mlir" <<'PY'
import sys
ops = int(sys.argv[1])
groups = max(1, ops // 5)
print("func.func @big(%i: index, %j: index, %n: index) -> index {")
print("  %acc0 = arith.constant 0 : index")
for g in range(groups):
    print(f"  %r{g} = lego.row [%n, 8] : !lego.layout")
    print(f"  %p{g} = lego.reg_p perm [1, 0] dims [4, 2] : !lego.layout")
    print(f"  %o{g} = lego.order_by(%p{g}) : !lego.layout")
    print(f"  %g{g} = lego.group_by [2, 4](%o{g}) : !lego.layout")
    print(f"  %a{g} = lego.apply %r{g}(%i, %j) : !lego.layout")
print("  return %acc0 : index")
print("}")
PY
echo "binary: $bin; input: $(grep -c 'lego\.' "$work/big.mlir") lego ops, $(wc -c < "$work/big.mlir") bytes"

best() { # best wall time of $runs runs of "$@"
  local best=""
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s.%N); "$@" > /dev/null; end=$(date +%s.%N)
    best=$(python3 -c "t=$end-$start; b='$best'; print(t if not b or t<float(b) else b)")
  done
  printf '%.3f' "$best"
}
echo "start-up (--version):            $(best "$bin" --version) s"
echo "empty module round-trip:         $(echo 'module {}' > "$work/empty.mlir"; best "$bin" "$work/empty.mlir") s"
echo "10k-op round-trip (custom form): $(best "$bin" "$work/big.mlir") s"
echo "10k-op round-trip, generic out:  $(best "$bin" "$work/big.mlir" --mlir-print-op-generic) s"
