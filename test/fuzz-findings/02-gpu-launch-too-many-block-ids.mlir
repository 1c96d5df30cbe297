// Finding 02: upstream gpu.launch parsing copies the `blocks(...)`/`threads(...)`/`clusters(...)` id list
// into a fixed array of 3 (docs/known-upstream-bugs.md): 32 ids segfaulted, 4-8 were silently accepted, 1 id
// gave a garbage column. Our syntax layer rejects any other count than 3 at the keyword. Bound: 60 s.
// RUN: %outcome --timeout 60 --expect error -- lego-opt %s --split-input-file | FileCheck %s
// CHECK: outcome: error
func.func @f() {
  %c1 = arith.constant 1 : index
  // CHECK: 02-gpu-launch-too-many-block-ids.mlir:[[@LINE+1]]:14: error: 'gpu.launch' expects 3 ids in 'blocks(...)', found 32
  gpu.launch blocks(%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7, %b8, %b9, %b10, %b11, %b12, %b13, %b14, %b15, %b16, %b17, %b18, %b19, %b20, %b21, %b22, %b23, %b24, %b25, %b26, %b27, %b28, %b29, %b30, %b31) in (%x = %c1, %y = %c1, %z = %c1) threads(%t0, %t1, %t2) in (%p = %c1, %q = %c1, %r = %c1) {
    gpu.terminator
  }
  return
}

// -----

func.func @four_ids() {
  %c1 = arith.constant 1 : index
  // CHECK: 02-gpu-launch-too-many-block-ids.mlir:[[@LINE+1]]:70: error: 'gpu.launch' expects 3 ids in 'threads(...)', found 4
  gpu.launch blocks(%b0, %b1, %b2) in (%x = %c1, %y = %c1, %z = %c1) threads(%t0, %t1, %t2, %t3) in (%p = %c1, %q = %c1, %r = %c1) {
    gpu.terminator
  }
  return
}

// -----

func.func @one_id() {
  %c1 = arith.constant 1 : index
  // CHECK: 02-gpu-launch-too-many-block-ids.mlir:[[@LINE+1]]:14: error: 'gpu.launch' expects 3 ids in 'blocks(...)', found 1
  gpu.launch blocks(%b0) in (%x = %c1, %y = %c1, %z = %c1) threads(%t0, %t1, %t2) in (%p = %c1, %q = %c1, %r = %c1) {
    gpu.terminator
  }
  return
}

// -----

// Three ids still parse (the twin that must not fire).
// CHECK-NOT: error:
func.func @three_ids(%m: memref<4xindex>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%x = %c1, %y = %c1, %z = %c1) threads(%t0, %t1, %t2) in (%p = %c1, %q = %c1, %r = %c1) {
    memref.store %t0, %m[%b0] : memref<4xindex>
    gpu.terminator
  }
  return
}
