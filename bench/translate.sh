#!/usr/bin/env bash
# Benchmark (not a test): lego-translate's printers on K copies of two already-lowered functions (the unsigned
# ops every language takes, select, scf.if, affine index ops, bit counts), for K = 250, 1000, 4000. Prints the
# wall-clock seconds (best of R runs) of parse + print (--lego-to-mlir) and of each language, so growth can be
# read off: cost must be linear in K.
#   bench/translate.sh [runs]        (uses target/release/lego-translate if present, else target/debug)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
bin=target/release/lego-translate
[ -x "$bin" ] || bin=target/debug/lego-translate
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sizes=(250 1000 4000)
for k in "${sizes[@]}"; do
  python3 - "$k" > "$work/k$k.mlir" <<'PY'
import sys
k = int(sys.argv[1])
print("module {")
for copy in range(k):
    print(f"""
  func.func @mix_{copy}(%i: index, %j: index, %n: index) -> index {{
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c12 = arith.constant 12 : index
    %0 = arith.muli %i, %c12 : index
    %1 = arith.addi %0, %j : index
    %2 = arith.subi %1, %c1 : index
    %3 = arith.divui %2, %n : index
    %4 = arith.remui %2, %n : index
    %5 = arith.shli %4, %c3 : index
    %6 = arith.shrui %5, %c1 : index
    %7 = arith.andi %6, %c12 : index
    %8 = arith.ori %7, %3 : index
    %9 = arith.minui %8, %n : index
    %10 = math.ctpop %9 : index
    %p = arith.cmpi ult, %10, %n : index
    %11 = arith.select %p, %10, %9 : index
    return %11 : index
  }}
  func.func @split_{copy}(%x: index, %n: index) -> (index, index) {{
    %c0 = arith.constant 0 : index
    %zero = arith.cmpi eq, %n, %c0 : index
    %r:2 = scf.if %zero -> (index, index) {{
      scf.yield %c0, %c0 : index, index
    }} else {{
      %q = arith.divui %x, %n : index
      %r = arith.remui %x, %n : index
      scf.yield %q, %r : index, index
    }}
    %a:2 = affine.delinearize_index %x into (4, 6) : index, index
    %s = arith.addi %r#0, %a#1 : index
    return %s, %r#1 : index, index
  }}""")
print("}")
PY
done
best() {
  local best=""
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s.%N)
    "$@" > /dev/null || { echo "bench/translate.sh: failed: $*" >&2; exit 1; }
    end=$(date +%s.%N)
    best=$(python3 -c "t = $end - $start; b = '$best'; print(f'{min(t, float(b)) if b else t:.3f}')")
  done
  echo "$best"
}
echo "lego-translate ($bin), seconds, best of $runs; functions = 2 K"
printf '| flag |'; for k in "${sizes[@]}"; do printf ' K = %s |' "$k"; done; echo
printf '|---|'; for _ in "${sizes[@]}"; do printf -- '---|'; done; echo
for flag in mlir c cpp cuda rust fortran julia js glsl wgsl python; do
  printf '| --lego-to-%s |' "$flag"
  for k in "${sizes[@]}"; do printf ' %s |' "$(best "$bin" --no-lower "--lego-to-$flag" "$work/k$k.mlir")"; done
  echo
done
