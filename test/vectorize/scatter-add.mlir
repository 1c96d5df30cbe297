// lego-vectorize-scatter-add: the published sequence (docs/passes/lego-vectorize-scatter-add.md): per strip
// the bins, L−1 lane rotations compared and OR-ed, `vector.reduction <or>`, then `scf.if` — repeated bin: the
// original loop over the strip; all distinct: gather, add, scatter. Lanes: 8 for 4-byte counts on AVX-512
// and AVX2, 4 on NEON/SVE. Twins that must not fire, and the x86 pipeline leaves it out (as published).
// RUN: lego-opt %s --lego-vectorize-scatter-add | FileCheck %s
// RUN: lego-opt %s --lego-vectorize-scatter-add='target=sve' | FileCheck %s --check-prefix=SVE
// RUN: lego-opt %s --lego-to-x86-vector='isa=avx2' --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=PIPE
// PIPE-NOT: lego-vectorize-scatter-add
// PIPE: IR Dump After func.func(lego-vectorize{target=avx2})
// PIPE-NOT: lego-vectorize-scatter-add

// CHECK-LABEL: func.func @hist
// CHECK-SAME: (%[[BIN:.*]]: memref<?xi32>, %[[H:.*]]: memref<?xf32>, %[[W:.*]]: memref<?xf32>, %[[N:.*]]: index)
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[STRIP:.*]] step %{{.*}} {
// CHECK:   %[[B:.*]] = vector.transfer_read %[[BIN]][%[[I]]], %{{.*}} {in_bounds = [true]} : memref<?xi32>, vector<8xi32>
// CHECK:   vector.shuffle %[[B]], %[[B]] [1, 2, 3, 4, 5, 6, 7, 0] : vector<8xi32>, vector<8xi32>
// CHECK:   arith.cmpi eq
// CHECK:   arith.ori
// CHECK:   vector.shuffle %[[B]], %[[B]] [2, 3, 4, 5, 6, 7, 0, 1]
// CHECK:   vector.shuffle %[[B]], %[[B]] [3, 4, 5, 6, 7, 0, 1, 2]
// CHECK:   vector.shuffle %[[B]], %[[B]] [4, 5, 6, 7, 0, 1, 2, 3]
// CHECK:   vector.shuffle %[[B]], %[[B]] [5, 6, 7, 0, 1, 2, 3, 4]
// CHECK:   vector.shuffle %[[B]], %[[B]] [6, 7, 0, 1, 2, 3, 4, 5]
// CHECK:   vector.shuffle %[[B]], %[[B]] [7, 0, 1, 2, 3, 4, 5, 6]
// CHECK:   %[[OR:.*]] = arith.ori
// CHECK:   %[[ANY:.*]] = vector.reduction <or>, %[[OR]] : vector<8xi1> into i1
// CHECK:   scf.if %[[ANY]] {
// CHECK:     %[[END:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK:     scf.for %{{.*}} = %[[I]] to %[[END]] step %{{.*}} {
// CHECK:       memref.store
// CHECK:     } {lego.scatter_add_done}
// CHECK:   } else {
// CHECK:     %[[IDX:.*]] = arith.index_cast %[[B]] : vector<8xi32> to vector<8xindex>
// CHECK:     %[[OLD:.*]] = vector.gather %[[H]][%{{.*}}] [%[[IDX]]], %{{.*}}, %{{.*}} : memref<?xf32>, vector<8xindex>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK:     %[[D:.*]] = vector.transfer_read %[[W]][%[[I]]], %{{.*}} {in_bounds = [true]} : memref<?xf32>, vector<8xf32>
// CHECK:     %[[NEW:.*]] = arith.addf %[[OLD]], %[[D]] : vector<8xf32>
// CHECK:     vector.scatter %[[H]][%{{.*}}] [%[[IDX]]], %{{.*}}, %[[NEW]] : memref<?xf32>, vector<8xindex>, vector<8xi1>, vector<8xf32>
// CHECK:   }
// CHECK: } {lego.scatter_add_done}
// CHECK: scf.for %{{.*}} = %[[STRIP]] to %[[N]] step
// CHECK: } {lego.scatter_add_done}
// SVE-LABEL: func.func @hist
// SVE: vector.transfer_read {{.*}} : memref<?xi32>, vector<4xi32>
// SVE: vector.scatter {{.*}} : memref<?xf32>, vector<4xindex>, vector<4xi1>, vector<4xf32>
func.func @hist(%bin: memref<?xi32>, %h: memref<?xf32>, %w: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %b = memref.load %bin[%i] : memref<?xi32>
    %j = arith.index_cast %b : i32 to index
    %o = memref.load %h[%j] : memref<?xf32>
    %d = memref.load %w[%i] : memref<?xf32>
    %s = arith.addf %o, %d : f32
    memref.store %s, %h[%j] : memref<?xf32>
  }
  return
}

// A loop-invariant delta (the argument %d): broadcast once before the loop; f64 counts: 4 lanes.
// CHECK-LABEL: func.func @count_f64
// CHECK-SAME: %[[DELTA:[^:]*]]: f64
// CHECK: %[[DV:.*]] = vector.broadcast %[[DELTA]] : f64 to vector<4xf64>
// CHECK: scf.for
// CHECK:   vector.transfer_read {{.*}} : memref<?xi64>, vector<4xi64>
// CHECK:   vector.reduction <or>, %{{.*}} : vector<4xi1> into i1
// CHECK:   vector.gather
// CHECK:   arith.addf %[[DV]], %{{.*}} : vector<4xf64>
// CHECK:   vector.scatter
func.func @count_f64(%bin: memref<?xi64>, %h: memref<?xf64>, %n: index, %d: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %b = memref.load %bin[%i] : memref<?xi64>
    %j = arith.index_cast %b : i64 to index
    %o = memref.load %h[%j] : memref<?xf64>
    %s = arith.addf %d, %o : f64
    memref.store %s, %h[%j] : memref<?xf64>
  }
  return
}

// Twin: the delta w[i + 1] is an in-loop value but no load on the IV (the published pass broadcast it from
// the erased loop, D9).
// CHECK-LABEL: func.func @delta_ahead
// CHECK-NOT: vector.
// CHECK-NOT: lego.scatter_add_done
// CHECK: return
func.func @delta_ahead(%bin: memref<?xi32>, %h: memref<?xf32>, %w: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %b = memref.load %bin[%i] : memref<?xi32>
    %j = arith.index_cast %b : i32 to index
    %o = memref.load %h[%j] : memref<?xf32>
    %i1 = arith.addi %i, %c1 : index
    %d = memref.load %w[%i1] : memref<?xf32>
    %s = arith.addf %o, %d : f32
    memref.store %s, %h[%j] : memref<?xf32>
  }
  return
}

// Twin: the store goes to another histogram than the one read (g[bin[i]] = h[bin[i]] + w[i]).
// CHECK-LABEL: func.func @other_histogram
// CHECK-NOT: vector.
// CHECK-NOT: lego.scatter_add_done
// CHECK: return
func.func @other_histogram(%bin: memref<?xi32>, %h: memref<?xf32>, %g: memref<?xf32>, %w: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %b = memref.load %bin[%i] : memref<?xi32>
    %j = arith.index_cast %b : i32 to index
    %o = memref.load %h[%j] : memref<?xf32>
    %d = memref.load %w[%i] : memref<?xf32>
    %s = arith.addf %o, %d : f32
    memref.store %s, %g[%j] : memref<?xf32>
  }
  return
}
