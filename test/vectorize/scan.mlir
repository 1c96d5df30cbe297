// lego-vectorize-scan: the published Hillis–Steele sequence (docs/passes/lego-vectorize-scan.md): per strip
// log2(L) stages `shuffle v, zero` (lane j takes L + j below 2^s, else j − 2^s) + addf, then the carry added,
// the strip written, the carry re-broadcast from lane L−1; twins that must not fire. Masks written by hand
// from that rule.
// RUN: lego-opt %s --canonicalize --cse --lego-vectorize-scan='target=avx2' | FileCheck %s
// RUN: lego-opt %s --lego-vectorize-scan | FileCheck %s --check-prefix=AVX512

// CHECK-LABEL: func.func @prefix_sum
// CHECK-SAME: (%[[A:.*]]: memref<?xf32>, %[[B:.*]]: memref<?xf32>, %[[N:.*]]: index)
// CHECK: %[[C0:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK: %[[Z:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK: %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[STRIP:.*]] step %{{.*}} iter_args(%[[CARRY:.*]] = %[[C0]]) -> (vector<8xf32>) {
// CHECK:   %[[X:.*]] = vector.transfer_read %[[A]][%[[I]]], %{{.*}} {in_bounds = [true]} : memref<?xf32>, vector<8xf32>
// CHECK:   %[[S1:.*]] = vector.shuffle %[[X]], %[[Z]] [8, 0, 1, 2, 3, 4, 5, 6] : vector<8xf32>, vector<8xf32>
// CHECK:   %[[P1:.*]] = arith.addf %[[X]], %[[S1]] : vector<8xf32>
// CHECK:   %[[S2:.*]] = vector.shuffle %[[P1]], %[[Z]] [8, 9, 0, 1, 2, 3, 4, 5] : vector<8xf32>, vector<8xf32>
// CHECK:   %[[P2:.*]] = arith.addf %[[P1]], %[[S2]] : vector<8xf32>
// CHECK:   %[[S3:.*]] = vector.shuffle %[[P2]], %[[Z]] [8, 9, 10, 11, 0, 1, 2, 3] : vector<8xf32>, vector<8xf32>
// CHECK:   %[[P3:.*]] = arith.addf %[[P2]], %[[S3]] : vector<8xf32>
// CHECK:   %[[OUT:.*]] = arith.addf %[[P3]], %[[CARRY]] : vector<8xf32>
// CHECK:   vector.transfer_write %[[OUT]], %[[B]][%[[I]]] {in_bounds = [true]} : vector<8xf32>, memref<?xf32>
// CHECK:   %[[LAST:.*]] = vector.extract %[[OUT]][7] : f32 from vector<8xf32>
// CHECK:   %[[NEXT:.*]] = vector.broadcast %[[LAST]] : f32 to vector<8xf32>
// CHECK:   scf.yield %[[NEXT]] : vector<8xf32>
// CHECK: } {lego.scan_done}
// CHECK: %[[TOTAL:.*]] = vector.extract %[[R]][7] : f32 from vector<8xf32>
// CHECK: %[[T:.*]] = scf.for %{{.*}} = %[[STRIP]] to %[[N]] step %{{.*}} iter_args(%{{.*}} = %[[TOTAL]]) -> (f32) {
// CHECK:   memref.store
// CHECK: } {lego.scan_done}
// CHECK: return %[[T]] : f32
// AVX512-LABEL: func.func @prefix_sum
// AVX512: vector.shuffle {{.*}} [16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14] : vector<16xf32>, vector<16xf32>
// AVX512: vector.shuffle {{.*}} [16, 17, 18, 19, 20, 21, 22, 23, 0, 1, 2, 3, 4, 5, 6, 7] : vector<16xf32>, vector<16xf32>
// AVX512-NOT: vector.shuffle
// AVX512: vector.transfer_write
func.func @prefix_sum(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> f32 {
    %e = memref.load %a[%i] : memref<?xf32>
    %s = arith.addf %acc, %e : f32
    memref.store %s, %b[%i] : memref<?xf32>
    scf.yield %s : f32
  }
  return %r : f32
}

// f64: 4 lanes on AVX2, two stages.
// CHECK-LABEL: func.func @prefix_sum_f64
// CHECK: vector.shuffle {{.*}} [4, 0, 1, 2] : vector<4xf64>, vector<4xf64>
// CHECK: vector.shuffle {{.*}} [4, 5, 0, 1] : vector<4xf64>, vector<4xf64>
// CHECK-NOT: vector.shuffle
// CHECK: } {lego.scan_done}
func.func @prefix_sum_f64(%a: memref<?xf64>, %b: memref<?xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> f64 {
    %e = memref.load %a[%i] : memref<?xf64>
    %s = arith.addf %e, %acc : f64
    memref.store %s, %b[%i] : memref<?xf64>
    scf.yield %s : f64
  }
  return %r : f64
}

// Twin: a running product is not the pattern (only addf, as published).
// CHECK-LABEL: func.func @prefix_product
// CHECK-NOT: vector.
// CHECK-NOT: lego.scan_done
// CHECK: return
func.func @prefix_product(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 1.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> f32 {
    %e = memref.load %a[%i] : memref<?xf32>
    %s = arith.mulf %acc, %e : f32
    memref.store %s, %b[%i] : memref<?xf32>
    scf.yield %s : f32
  }
  return %r : f32
}

// Twin: the sum is stored one element ahead (b[i + 1]), not at the IV.
// CHECK-LABEL: func.func @shifted_store
// CHECK-NOT: vector.
// CHECK-NOT: lego.scan_done
// CHECK: return
func.func @shifted_store(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> f32 {
    %e = memref.load %a[%i] : memref<?xf32>
    %s = arith.addf %acc, %e : f32
    %j = arith.addi %i, %c1 : index
    memref.store %s, %b[%j] : memref<?xf32>
    scf.yield %s : f32
  }
  return %r : f32
}
