// lego-vectorize-argmin: the published op sequence (docs/passes/lego-vectorize-argmin.md) after
// --canonicalize --cse as in the published test, lanes by target, the select shape canonicalize makes when the
// then-block reuses the compared load, the marker on both loops, and twins that must not fire. Expected lines
// written from the description (per lane a select on the strict compare; after the loop the extreme, the
// smallest index holding it, and that lane's value seed the scalar remainder).
// RUN: lego-opt %s --canonicalize --cse --lego-vectorize-argmin | FileCheck %s
// RUN: lego-opt %s --canonicalize --cse --lego-vectorize-argmin='target=neon' | FileCheck %s --check-prefix=NEON
// RUN: not lego-opt %s --lego-vectorize-argmin='target=avx' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: invalid value 'avx' for option 'target' of 'lego-vectorize-argmin': expected one of avx512, avx2, neon, sve

// CHECK-LABEL: func.func @argmin
// CHECK-SAME: (%[[A:.*]]: memref<?xf32>, %[[N:.*]]: index)
// CHECK: %[[V0:.*]] = vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK: %[[I0:.*]] = vector.broadcast %{{.*}} : index to vector<16xindex>
// CHECK: %[[IOTA:.*]] = vector.step : vector<16xindex>
// CHECK: %[[R:.*]]:2 = scf.for %[[I:.*]] = %{{.*}} to %[[STRIP:.*]] step %{{.*}} iter_args(%[[AV:.*]] = %[[V0]], %[[AI:.*]] = %[[I0]]) -> (vector<16xf32>, vector<16xindex>) {
// CHECK:   %[[X:.*]] = vector.transfer_read %[[A]][%[[I]]], %{{.*}} {in_bounds = [true]} : memref<?xf32>, vector<16xf32>
// CHECK:   %[[B:.*]] = vector.broadcast %[[I]] : index to vector<16xindex>
// CHECK:   %[[LANES:.*]] = arith.addi %[[IOTA]], %[[B]] : vector<16xindex>
// CHECK:   %[[M:.*]] = arith.cmpf olt, %[[X]], %[[AV]] : vector<16xf32>
// CHECK:   %[[NV:.*]] = arith.select %[[M]], %[[X]], %[[AV]] : vector<16xi1>, vector<16xf32>
// CHECK:   %[[NI:.*]] = arith.select %[[M]], %[[LANES]], %[[AI]] : vector<16xi1>, vector<16xindex>
// CHECK:   scf.yield %[[NV]], %[[NI]] : vector<16xf32>, vector<16xindex>
// CHECK: } {lego.argmin_done}
// CHECK: %[[MIN:.*]] = vector.reduction <minimumf>, %[[R]]#0 : vector<16xf32> into f32
// CHECK: %[[MINS:.*]] = vector.broadcast %[[MIN]] : f32 to vector<16xf32>
// CHECK: %[[AT:.*]] = arith.cmpf ueq, %[[R]]#0, %[[MINS]] : vector<16xf32>
// CHECK: %[[UB:.*]] = vector.broadcast %[[N]] : index to vector<16xindex>
// CHECK: %[[CAND:.*]] = arith.select %[[AT]], %[[R]]#1, %[[UB]] : vector<16xi1>, vector<16xindex>
// CHECK: %[[FIRST:.*]] = vector.reduction <minui>, %[[CAND]] : vector<16xindex> into index
// CHECK: %[[FS:.*]] = vector.broadcast %[[FIRST]] : index to vector<16xindex>
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %[[R]]#1, %[[FS]] : vector<16xindex>
// CHECK: %[[WIN:.*]] = arith.andi %[[SAME]], %[[AT]] : vector<16xi1>
// CHECK: %[[PICK:.*]] = arith.select %[[WIN]], %[[R]]#0, %{{.*}} : vector<16xi1>, vector<16xf32>
// CHECK: %[[VAL:.*]] = vector.reduction <minimumf>, %[[PICK]] : vector<16xf32> into f32
// CHECK: %[[T:.*]]:2 = scf.for %{{.*}} = %[[STRIP]] to %[[N]] step %{{.*}} iter_args(%{{.*}} = %[[VAL]], %{{.*}} = %[[FIRST]]) -> (f32, index) {
// CHECK:   arith.cmpf olt
// CHECK:   scf.if
// CHECK: } {lego.argmin_done}
// CHECK: return %[[T]]#0, %[[T]]#1 : f32, index
// NEON-LABEL: func.func @argmin
// NEON: scf.for {{.*}} -> (vector<4xf32>, vector<4xindex>)
func.func @argmin(%a: memref<?xf32>, %n: index) -> (f32, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %inf = arith.constant 0x7F800000 : f32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%v = %inf, %x = %c0) -> (f32, index) {
    %e = memref.load %a[%i] : memref<?xf32>
    %p = arith.cmpf olt, %e, %v : f32
    %nx = arith.select %p, %i, %x : index
    %nv = scf.if %p -> f32 {
      %e2 = memref.load %a[%i] : memref<?xf32>
      scf.yield %e2 : f32
    } else {
      scf.yield %v : f32
    }
    scf.yield %nv, %nx : f32, index
  }
  return %r#0, %r#1 : f32, index
}

// Argmax over f64 where the then-block yields the compared load: canonicalize makes the if a select; 8 lanes.
// CHECK-LABEL: func.func @argmax_f64
// CHECK: scf.for {{.*}} -> (vector<8xf64>, vector<8xindex>) {
// CHECK:   arith.cmpf ogt, %{{.*}} : vector<8xf64>
// CHECK: } {lego.argmin_done}
// CHECK: vector.reduction <maximumf>
// CHECK: vector.reduction <minui>
// NEON-LABEL: func.func @argmax_f64
// NEON: scf.for {{.*}} -> (vector<2xf64>, vector<2xindex>)
func.func @argmax_f64(%a: memref<?xf64>, %n: index) -> (f64, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.constant -1.0 : f64
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%v = %m, %x = %c0) -> (f64, index) {
    %e = memref.load %a[%i] : memref<?xf64>
    %p = arith.cmpf ogt, %e, %v : f64
    %nx = arith.select %p, %i, %x : index
    %nv = scf.if %p -> f64 {
      scf.yield %e : f64
    } else {
      scf.yield %v : f64
    }
    scf.yield %nv, %nx : f64, index
  }
  return %r#0, %r#1 : f64, index
}

// Twin: `ole` keeps the last index of the minimum, which the lane combination (smallest index) would not.
// CHECK-LABEL: func.func @argmin_ole
// CHECK-NOT: vector.
// CHECK-NOT: lego.argmin_done
// CHECK: return
func.func @argmin_ole(%a: memref<?xf32>, %n: index) -> (f32, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %inf = arith.constant 0x7F800000 : f32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%v = %inf, %x = %c0) -> (f32, index) {
    %e = memref.load %a[%i] : memref<?xf32>
    %p = arith.cmpf ole, %e, %v : f32
    %nx = arith.select %p, %i, %x : index
    %nv = arith.select %p, %e, %v : f32
    scf.yield %nv, %nx : f32, index
  }
  return %r#0, %r#1 : f32, index
}

// Twin: the index recorded is i + 1, not the IV.
// CHECK-LABEL: func.func @argmin_shifted_index
// CHECK-NOT: vector.
// CHECK-NOT: lego.argmin_done
// CHECK: return
func.func @argmin_shifted_index(%a: memref<?xf32>, %n: index) -> (f32, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %inf = arith.constant 0x7F800000 : f32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%v = %inf, %x = %c0) -> (f32, index) {
    %e = memref.load %a[%i] : memref<?xf32>
    %p = arith.cmpf olt, %e, %v : f32
    %j = arith.addi %i, %c1 : index
    %nx = arith.select %p, %j, %x : index
    %nv = arith.select %p, %e, %v : f32
    scf.yield %nv, %nx : f32, index
  }
  return %r#0, %r#1 : f32, index
}
