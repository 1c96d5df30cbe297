// The pattern passes lego-vectorize-compact and lego-vectorize-filtered-reduce: the published op sequences
// (docs/passes/lego-vectorize-compact.md, lego-vectorize-filtered-reduce.md), lanes by target, the marker on
// both loops, and twins that must not fire. Expected lines written from the published description.
// RUN: lego-opt %s --lego-vectorize-compact | FileCheck %s --check-prefix=COMPACT
// RUN: lego-opt %s --lego-vectorize-filtered-reduce='target=avx2' | FileCheck %s --check-prefix=REDUCE
// RUN: not lego-opt %s --lego-vectorize-compact='target=sse' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: invalid value 'sse' for option 'target' of 'lego-vectorize-compact': expected one of avx512, avx2, neon, sve

// COMPACT-LABEL: func.func @compact
// COMPACT: %[[T:.*]] = vector.broadcast %{{.*}} : f32 to vector<16xf32>
// COMPACT: %[[C16:.*]] = arith.constant 16 : index
// COMPACT: %[[K:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[STRIP:.*]] step %[[C16]] iter_args(%[[KK:.*]] = %{{.*}}) -> (index) {
// COMPACT:   %[[V:.*]] = vector.transfer_read %{{.*}}[%[[I]]], %{{.*}} {in_bounds = [true]} : memref<?xf32>, vector<16xf32>
// COMPACT:   %[[C:.*]] = vector.transfer_read %{{.*}}[%[[I]]], %{{.*}} {in_bounds = [true]} : memref<?xf32>, vector<16xf32>
// COMPACT:   %[[M:.*]] = arith.cmpf ogt, %[[C]], %[[T]] : vector<16xf32>
// COMPACT:   vector.compressstore %{{.*}}[%[[KK]]], %[[M]], %[[V]] : memref<?xf32>, vector<16xi1>, vector<16xf32>
// COMPACT:   %[[B:.*]] = vector.bitcast %[[M]] : vector<16xi1> to vector<1xi16>
// COMPACT:   %[[W:.*]] = vector.extract %[[B]][0] : i16 from vector<1xi16>
// COMPACT:   %[[P:.*]] = math.ctpop %[[W]] : i16
// COMPACT:   %[[PI:.*]] = arith.index_cast %[[P]] : i16 to index
// COMPACT:   %[[N:.*]] = arith.addi %[[KK]], %[[PI]] : index
// COMPACT:   scf.yield %[[N]] : index
// COMPACT: } {lego.compact_done}
// COMPACT: scf.for %{{.*}} = %[[STRIP]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[K]]) -> (index) {
// COMPACT:   scf.if
// COMPACT: } {lego.compact_done}
func.func @compact(%a: memref<?xf32>, %c: memref<?xf32>, %out: memref<?xf32>, %t: f32, %n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%k = %c0) -> index {
    %x = memref.load %c[%i] : memref<?xf32>
    %p = arith.cmpf ogt, %x, %t : f32
    %k2 = scf.if %p -> index {
      %v = memref.load %a[%i] : memref<?xf32>
      memref.store %v, %out[%k] : memref<?xf32>
      %k1 = arith.addi %k, %c1 : index
      scf.yield %k1 : index
    } else {
      scf.yield %k : index
    }
    scf.yield %k2 : index
  }
  return %r : index
}

// Twin: the count advances by 2 (not a compaction): untouched.
// COMPACT-LABEL: func.func @not_compact
// COMPACT-NOT: compressstore
// COMPACT-NOT: lego.compact_done
// COMPACT: return
func.func @not_compact(%a: memref<?xf32>, %c: memref<?xf32>, %out: memref<?xf32>, %t: f32, %n: index) -> index {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%k = %c0) -> index {
    %x = memref.load %c[%i] : memref<?xf32>
    %p = arith.cmpf ogt, %x, %t : f32
    %k2 = scf.if %p -> index {
      %v = memref.load %a[%i] : memref<?xf32>
      memref.store %v, %out[%k] : memref<?xf32>
      %k1 = arith.addi %k, %c2 : index
      scf.yield %k1 : index
    } else {
      scf.yield %k : index
    }
    scf.yield %k2 : index
  }
  return %r : index
}

// REDUCE-LABEL: func.func @filtered_sum
// REDUCE: %[[INIT:.*]] = arith.constant 2.000000e+00 : f32
// REDUCE: %[[ZERO:.*]] = arith.constant -0.000000e+00 : f32
// REDUCE: %[[ID:.*]] = vector.broadcast %[[ZERO]] : f32 to vector<8xf32>
// REDUCE: %[[T:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// REDUCE: %[[ACC:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[STRIP:.*]] step %{{.*}} iter_args(%[[A:.*]] = %[[ID]]) -> (vector<8xf32>) {
// REDUCE:   %[[V:.*]] = vector.transfer_read %{{.*}}[%[[I]]], %{{.*}} {in_bounds = [true]} : memref<?xf32>, vector<8xf32>
// REDUCE:   %[[C:.*]] = vector.transfer_read
// REDUCE:   %[[M:.*]] = arith.cmpf olt, %[[C]], %[[T]] : vector<8xf32>
// REDUCE:   %[[S:.*]] = arith.select %[[M]], %[[V]], %[[ID]] : vector<8xi1>, vector<8xf32>
// REDUCE:   %[[N:.*]] = arith.addf %[[A]], %[[S]] : vector<8xf32>
// REDUCE:   scf.yield %[[N]] : vector<8xf32>
// REDUCE: } {lego.filtered_reduce_done}
// REDUCE: %[[R:.*]] = vector.reduction <add>, %[[ACC]], %[[INIT]] : vector<8xf32> into f32
// REDUCE: scf.for %{{.*}} = %[[STRIP]] to %{{.*}} iter_args(%{{.*}} = %[[R]]) -> (f32) {
// REDUCE: } {lego.filtered_reduce_done}
func.func @filtered_sum(%a: memref<?xf32>, %c: memref<?xf32>, %t: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 2.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> f32 {
    %x = memref.load %c[%i] : memref<?xf32>
    %p = arith.cmpf olt, %x, %t : f32
    %s = scf.if %p -> f32 {
      %v = memref.load %a[%i] : memref<?xf32>
      %w = arith.addf %acc, %v : f32
      scf.yield %w : f32
    } else {
      scf.yield %acc : f32
    }
    scf.yield %s : f32
  }
  return %r : f32
}

// f64 max: 4 lanes on AVX2, identity −∞.
// REDUCE-LABEL: func.func @filtered_max_f64
// REDUCE: arith.constant 0xFFF0000000000000 : f64
// REDUCE: arith.maximumf {{.*}} : vector<4xf64>
// REDUCE: vector.reduction <maximumf>
func.func @filtered_max_f64(%a: memref<?xf64>, %c: memref<?xf64>, %t: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> f64 {
    %x = memref.load %c[%i] : memref<?xf64>
    %p = arith.cmpf oge, %x, %t : f64
    %s = scf.if %p -> f64 {
      %v = memref.load %a[%i] : memref<?xf64>
      %w = arith.maximumf %acc, %v : f64
      scf.yield %w : f64
    } else {
      scf.yield %acc : f64
    }
    scf.yield %s : f64
  }
  return %r : f64
}

// Twin: the threshold varies with i (c[i] < a[i]): not the pattern, untouched.
// REDUCE-LABEL: func.func @threshold_varies
// REDUCE-NOT: vector.
// REDUCE-NOT: lego.filtered_reduce_done
// REDUCE: return
func.func @threshold_varies(%a: memref<?xf32>, %c: memref<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> f32 {
    %x = memref.load %c[%i] : memref<?xf32>
    %y = memref.load %a[%i] : memref<?xf32>
    %p = arith.cmpf olt, %x, %y : f32
    %s = scf.if %p -> f32 {
      %w = arith.addf %acc, %y : f32
      scf.yield %w : f32
    } else {
      scf.yield %acc : f32
    }
    scf.yield %s : f32
  }
  return %r : f32
}
