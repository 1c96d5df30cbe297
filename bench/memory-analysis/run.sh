#!/usr/bin/env bash
# Times lego-analyze-memory + lego-choose-smem-layout on ten-accesses.mlir (10 accesses: 8 shared, 2 global):
# best of 5 runs of `lego-opt --lego-choose-smem-layout --lego-analyze-memory`, wall and CPU (user + sys) seconds.
# A benchmark, not a test: the target (under 1 s) depends on the machine.
#   bench/memory-analysis/run.sh [path/to/lego-opt]     (default: target/release/lego-opt, else target/debug)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
opt=${1:-}
if [ -z "$opt" ]; then
  if [ -x "$root/target/release/lego-opt" ]; then opt=$root/target/release/lego-opt; else opt=$root/target/debug/lego-opt; fi
fi
input=$root/bench/memory-analysis/ten-accesses.mlir
TIMEFORMAT='%R %U %S'
best_wall=999; best_cpu=999
for i in 1 2 3 4 5; do
  times=$( { time "$opt" "$input" --lego-choose-smem-layout --lego-analyze-memory -o /dev/null 2>/dev/null; } 2>&1 )
  read -r wall user sys <<<"$times"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
  best_wall=$(awk -v a="$wall" -v b="$best_wall" 'BEGIN { print (a < b) ? a : b }')
  best_cpu=$(awk -v a="$cpu" -v b="$best_cpu" 'BEGIN { print (a < b) ? a : b }')
done
echo "lego-opt: $opt"
"$opt" "$input" --lego-choose-smem-layout --lego-analyze-memory -o /dev/null 2>&1 | grep -o 'lego-choose-smem-layout: [^;]*' | head -1
echo "analysis + choice of 10 accesses: best of 5: ${best_wall} s wall, ${best_cpu} s CPU"
