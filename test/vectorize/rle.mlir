// lego-vectorize-rle: the published sequence (docs/passes/lego-vectorize-rle.md): per strip `shuffle prev, v`
// with mask [L−1, L, …, 2L−2] (the previous strip's last element, then this strip's lanes 0 … L−2), the
// compare, `compressstore out[k]`, k += popcount, prev = v; after the loop prev = lane L−1. Form A (the if
// carries prev) as written, form B (prev by a select) after canonicalize; twins that must not fire.
// RUN: lego-opt %s --lego-vectorize-rle | FileCheck %s --check-prefix=A
// RUN: lego-opt %s --canonicalize --cse --lego-vectorize-rle='target=neon' | FileCheck %s --check-prefix=B

// A-LABEL: func.func @rle
// A-SAME: (%[[A:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<?xf32>, %[[P0:.*]]: f32, %[[N:.*]]: index)
// A: %[[PV:.*]] = vector.broadcast %[[P0]] : f32 to vector<16xf32>
// A: %[[R:.*]]:2 = scf.for %[[I:.*]] = %{{.*}} to %[[STRIP:.*]] step %{{.*}} iter_args(%[[K:.*]] = %{{.*}}, %[[PREV:.*]] = %[[PV]]) -> (index, vector<16xf32>) {
// A:   %[[V:.*]] = vector.transfer_read %[[A]][%[[I]]], %{{.*}} {in_bounds = [true]} : memref<?xf32>, vector<16xf32>
// A:   %[[SH:.*]] = vector.shuffle %[[PREV]], %[[V]] [15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30] : vector<16xf32>, vector<16xf32>
// A:   %[[M:.*]] = arith.cmpf une, %[[V]], %[[SH]] : vector<16xf32>
// A:   vector.compressstore %[[OUT]][%[[K]]], %[[M]], %[[V]] : memref<?xf32>, vector<16xi1>, vector<16xf32>
// A:   %[[BITS:.*]] = vector.bitcast %[[M]] : vector<16xi1> to vector<1xi16>
// A:   %[[W:.*]] = vector.extract %[[BITS]][0] : i16 from vector<1xi16>
// A:   %[[C:.*]] = math.ctpop %[[W]] : i16
// A:   %[[CI:.*]] = arith.index_cast %[[C]] : i16 to index
// A:   %[[K1:.*]] = arith.addi %[[K]], %[[CI]] : index
// A:   scf.yield %[[K1]], %[[V]] : index, vector<16xf32>
// A: } {lego.rle_done}
// A: %[[LAST:.*]] = vector.extract %[[R]]#1[15] : f32 from vector<16xf32>
// A: scf.for %{{.*}} = %[[STRIP]] to %[[N]] step %{{.*}} iter_args(%{{.*}} = %[[R]]#0, %{{.*}} = %[[LAST]]) -> (index, f32) {
// A: } {lego.rle_done}
// B-LABEL: func.func @rle
// B: vector.shuffle %{{.*}}, %{{.*}} [3, 4, 5, 6] : vector<4xf32>, vector<4xf32>
// B: vector.compressstore {{.*}} : memref<?xf32>, vector<4xi1>, vector<4xf32>
// B: } {lego.rle_done}
// B: vector.extract %{{.*}}[3] : f32 from vector<4xf32>
// B: scf.for
// B:   arith.select
// B: } {lego.rle_done}
func.func @rle(%a: memref<?xf32>, %out: memref<?xf32>, %p0: f32, %n: index) -> (index, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%k = %c0, %prev = %p0) -> (index, f32) {
    %e = memref.load %a[%i] : memref<?xf32>
    %p = arith.cmpf une, %e, %prev : f32
    %nk:2 = scf.if %p -> (index, f32) {
      memref.store %e, %out[%k] : memref<?xf32>
      %k1 = arith.addi %k, %c1 : index
      scf.yield %k1, %e : index, f32
    } else {
      scf.yield %k, %prev : index, f32
    }
    scf.yield %nk#0, %nk#1 : index, f32
  }
  return %r#0, %r#1 : index, f32
}

// Twin: `oeq` (keep the repeats) is not an edge detect.
// A-LABEL: func.func @keep_repeats
// A-NOT: vector.
// A-NOT: lego.rle_done
// A: return
func.func @keep_repeats(%a: memref<?xf32>, %out: memref<?xf32>, %p0: f32, %n: index) -> (index, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%k = %c0, %prev = %p0) -> (index, f32) {
    %e = memref.load %a[%i] : memref<?xf32>
    %p = arith.cmpf oeq, %e, %prev : f32
    %nk:2 = scf.if %p -> (index, f32) {
      memref.store %e, %out[%k] : memref<?xf32>
      %k1 = arith.addi %k, %c1 : index
      scf.yield %k1, %e : index, f32
    } else {
      scf.yield %k, %prev : index, f32
    }
    scf.yield %nk#0, %nk#1 : index, f32
  }
  return %r#0, %r#1 : index, f32
}

// Twin: the else branch resets prev to 0 instead of keeping it.
// A-LABEL: func.func @reset_prev
// A-NOT: vector.
// A-NOT: lego.rle_done
// A: return
func.func @reset_prev(%a: memref<?xf32>, %out: memref<?xf32>, %p0: f32, %n: index) -> (index, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%k = %c0, %prev = %p0) -> (index, f32) {
    %e = memref.load %a[%i] : memref<?xf32>
    %p = arith.cmpf une, %e, %prev : f32
    %nk:2 = scf.if %p -> (index, f32) {
      memref.store %e, %out[%k] : memref<?xf32>
      %k1 = arith.addi %k, %c1 : index
      scf.yield %k1, %e : index, f32
    } else {
      scf.yield %k, %zero : index, f32
    }
    scf.yield %nk#0, %nk#1 : index, f32
  }
  return %r#0, %r#1 : index, f32
}
