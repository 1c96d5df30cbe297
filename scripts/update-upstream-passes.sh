#!/usr/bin/env bash
# Regenerates passes/src/upstream_passes.txt (what `lego-opt --list-passes` shows for upstream MLIR) from
# Debian's mlir-opt: the passes and pass pipelines of `mlir-opt --help`. Test-only passes (test-*) are linked
# into mlir-opt but not registered by the C API's mlirRegisterAllPasses, so they are left out.
# Run after an LLVM upgrade.
set -euo pipefail
cd "$(dirname "$0")/.."
/usr/lib/llvm-22/bin/mlir-opt --help \
  | awk '/^    Passes:/{on=1; next} /^    Pass Pipelines:/{on=1; next} /^  --/{on=0} on' \
  | sed -n 's/^      --\([a-z0-9][a-z0-9._-]*\) *- *\(.*\)$/\1\t\2/p' \
  | grep -v '^test-' | sort -u > passes/src/upstream_passes.txt
wc -l passes/src/upstream_passes.txt
