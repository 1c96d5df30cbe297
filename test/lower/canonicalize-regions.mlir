// lego-lower's `canonicalize` is upstream's with region simplification (unreachable blocks, region DCE) run
// only after an iteration where it can change something (passes/csrc/canonicalize.cpp). Where a region has
// several blocks it runs as upstream's does: the unreachable block goes, and so does the block argument only
// a dead value flows into. The single-block twin takes the lazy path: a cast that an in-place fold of the loads
// leaves unused is erased (by region DCE within the iteration, as upstream does).
// The decision is per module (each split below is one).
// RUN: lego-opt %s --split-input-file --lego-lower | FileCheck %s

// CHECK-LABEL: func.func @blocks
// CHECK-SAME: (%[[A:.*]]: index, %[[P:.*]]: i1) -> index
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: cf.cond_br %[[P]], ^bb1(%[[A]] : index), ^bb2(%[[C1]] : index)
// CHECK-NEXT: ^bb1(%[[X:.*]]: index):
// CHECK-NEXT: %[[Y:.*]] = arith.addi %[[X]], %[[C1]] : index
// CHECK-NEXT: cf.br ^bb2(%[[Y]] : index)
// CHECK-NEXT: ^bb2(%[[R:.*]]: index):
// CHECK-NEXT: return %[[R]] : index
// CHECK-NEXT: }
func.func @blocks(%a: index, %p: i1) -> index {
  %c1 = arith.constant 1 : index
  cf.cond_br %p, ^bb1(%a : index), ^bb2(%c1 : index)
^bb1(%x: index):
  %y = arith.addi %x, %c1 : index
  cf.br ^bb3(%y, %x : index, index)
^bb2(%z: index):
  cf.br ^bb3(%z, %z : index, index)
^bb3(%r: index, %unused: index):
  return %r : index
^bb4:
  %d = arith.addi %a, %a : index
  cf.br ^bb3(%d, %d : index, index)
}

// -----

// CHECK-LABEL: func.func @single_block
// CHECK-SAME: (%[[M:.*]]: memref<8xf32>, %[[I:.*]]: index) -> f32
// CHECK-NOT: memref.cast
// CHECK: memref.load %[[M]][%[[I]]] : memref<8xf32>
// CHECK: memref.load %[[M]][%{{.*}}] : memref<8xf32>
// CHECK-NOT: memref.cast
// CHECK: return
func.func @single_block(%m: memref<8xf32>, %i: index) -> f32 {
  %c = memref.cast %m : memref<8xf32> to memref<?xf32>
  %v = memref.load %c[%i] : memref<?xf32>
  %c1 = arith.constant 1 : index
  %w = memref.load %c[%c1] : memref<?xf32>
  %s = arith.addf %v, %w : f32
  return %s : f32
}
