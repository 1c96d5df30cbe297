// convert-lego-to-linalg{vectorize=true} first (use-linalg-vectorize, default true; false leaves it out), then
// the pattern passes in lego-to-x86-vector, in the published order (compact, argmin, scan, filtered-reduce,
// rle), each followed by canonicalize and cse, before lego-vectorize, with the pipeline's ISA as target;
// scatter-add in none of the pipelines; the NEON and SVE pipelines without pattern passes (as published).
// RUN: lego-opt %s --lego-to-x86-vector='isa=avx2' --mlir-print-ir-after-all 2>&1 | FileCheck %s
// RUN: lego-opt %s --lego-to-x86-vector='isa=avx2 use-linalg-vectorize=false' --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=NOLINALG
// NOLINALG-NOT: convert-lego-to-linalg
// NOLINALG: IR Dump After func.func(lego-vectorize-compact{target=avx2})
// NOLINALG-NOT: convert-lego-to-linalg
// RUN: lego-opt %s --lego-to-arm-neon --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=NEON
// RUN: lego-opt %s --lego-to-arm-sve --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=NEON
// CHECK: IR Dump After func.func(convert-lego-to-linalg{vectorize=true})
// CHECK: IR Dump After canonicalize
// CHECK: IR Dump After cse
// CHECK: IR Dump After func.func(lego-vectorize-compact{target=avx2})
// CHECK-NEXT: module
// CHECK: IR Dump After canonicalize
// CHECK-NEXT: module
// CHECK: IR Dump After cse
// CHECK-NEXT: module
// CHECK: IR Dump After func.func(lego-vectorize-argmin{target=avx2})
// CHECK: IR Dump After canonicalize
// CHECK: IR Dump After cse
// CHECK: IR Dump After func.func(lego-vectorize-scan{target=avx2})
// CHECK: IR Dump After canonicalize
// CHECK: IR Dump After cse
// CHECK: IR Dump After func.func(lego-vectorize-filtered-reduce{target=avx2})
// CHECK: IR Dump After canonicalize
// CHECK: IR Dump After cse
// CHECK: IR Dump After func.func(lego-vectorize-rle{target=avx2})
// CHECK: IR Dump After canonicalize
// CHECK: IR Dump After cse
// CHECK: IR Dump After func.func(lego-vectorize{target=avx2})
// CHECK-NOT: lego-vectorize-scatter-add
// NEON-NOT: {{lego-vectorize-[a-z-]+{|convert-lego-to-linalg}}
// NEON: IR Dump After func.func(lego-vectorize{target={{neon|sve}}})
// NEON-NOT: {{lego-vectorize-[a-z-]+{|convert-lego-to-linalg}}
func.func @empty() {
  return
}
