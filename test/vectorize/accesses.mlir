// lego-vectorize's access kinds: broadcast (loop-invariant address or scalar argument), constant stride and
// non-affine (Morton bit interleaving) → vector.gather / vector.scatter with a per-lane index vector,
// guarded stores → vector.maskedstore whose mask is computed per lane, reductions, scalable SVE vectors.
// RUN: lego-opt %s --lego-vectorize | FileCheck %s
// RUN: lego-opt %s --lego-vectorize='target=sve' | FileCheck %s --check-prefix=SVE

// CHECK-LABEL: func.func @broadcast
// CHECK: scf.for
// CHECK: %[[S:.*]] = memref.load %{{.*}}[%c0] : memref<?xf64>
// CHECK: %[[V:.*]] = vector.load {{.*}} vector<8xf64>
// CHECK-DAG: vector.broadcast %[[S]] : f64 to vector<8xf64>
// CHECK-DAG: vector.broadcast %{{.*}} : f64 to vector<8xf64>
func.func @broadcast(%a: memref<?xf64>, %b: memref<?xf64>, %k: f64, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %s = memref.load %a[%c0] : memref<?xf64>
    %v = memref.load %b[%i] : memref<?xf64>
    %m = arith.mulf %s, %v : f64
    %r = arith.addf %m, %k : f64
    memref.store %r, %b[%i] : memref<?xf64>
  }
  return
}

// A stride of 3 elements: lane j reads 3·(i + j).
// CHECK-LABEL: func.func @strided
// CHECK: %[[STEP:.*]] = vector.step : vector<16xindex>
// CHECK: %[[IVS:.*]] = arith.addi %{{.*}}, %[[STEP]] : vector<16xindex>
// CHECK: %[[IDX:.*]] = arith.muli %[[IVS]], %{{.*}} : vector<16xindex>
// CHECK: vector.gather %{{.*}}[%{{.*}}] [%[[IDX]]], %{{.*}}, %{{.*}} : memref<?xf32>, vector<16xindex>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: vector.store
func.func @strided(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %n step %c1 {
    %j = arith.muli %i, %c3 : index
    %v = memref.load %a[%j] : memref<?xf32>
    memref.store %v, %b[%i] : memref<?xf32>
  }
  return
}

// Morton order of a 2-D index (i = y·4 + x, 4×4 tile): bit spreads → a gather; the scatter twin stores there.
// CHECK-LABEL: func.func @morton
// CHECK: arith.andi %{{.*}} : vector<16xindex>
// CHECK: vector.gather
// CHECK: vector.store
// CHECK: vector.load
// CHECK: vector.scatter %{{.*}}[%{{.*}}] [%{{.*}}], %{{.*}}, %{{.*}} : memref<?xf32>, vector<16xindex>, vector<16xi1>, vector<16xf32>
func.func @morton(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = arith.andi %i, %c3 : index
    %y = arith.shrui %i, %c2 : index
    %x0 = arith.andi %x, %c1 : index
    %x1 = arith.andi %x, %c2 : index
    %x1s = arith.shli %x1, %c1 : index
    %y0 = arith.andi %y, %c1 : index
    %y0s = arith.shli %y0, %c1 : index
    %y1 = arith.andi %y, %c2 : index
    %y1s = arith.shli %y1, %c2 : index
    %m0 = arith.ori %x0, %x1s : index
    %m1 = arith.ori %y0s, %y1s : index
    %m = arith.ori %m0, %m1 : index
    %v = memref.load %a[%m] : memref<?xf32>
    memref.store %v, %b[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %x = arith.andi %i, %c3 : index
    %y = arith.shrui %i, %c2 : index
    %ys = arith.shli %y, %c4 : index
    %m = arith.xori %x, %ys : index
    %v = memref.load %b[%i] : memref<?xf32>
    memref.store %v, %a[%m] : memref<?xf32>
  }
  return
}

// A guard on the induction variable (i < m) is evaluated for every lane (the published vectorizer
// compared lane 0's index for all lanes).
// CHECK-LABEL: func.func @guarded
// CHECK: %[[STEP:.*]] = vector.step : vector<16xindex>
// CHECK: %[[IVS:.*]] = arith.addi %{{.*}}, %[[STEP]] : vector<16xindex>
// CHECK: %[[M:.*]] = vector.broadcast %{{.*}} : index to vector<16xindex>
// CHECK: %[[MASK:.*]] = arith.cmpi ult, %[[IVS]], %[[M]] : vector<16xindex>
// CHECK: vector.maskedstore %{{.*}}[%{{.*}}], %[[MASK]], %{{.*}} : memref<?xf32>, vector<16xi1>, vector<16xf32>
func.func @guarded(%a: memref<?xf32>, %b: memref<?xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %g = arith.cmpi ult, %i, %m : index
    %v = memref.load %a[%i] : memref<?xf32>
    scf.if %g {
      memref.store %v, %b[%i] : memref<?xf32>
    }
  }
  return
}

// Reductions: a vector accumulator from the identity, one vector.reduction combined with the init, and the
// remainder loop continuing from it.
// CHECK-LABEL: func.func @dot
// CHECK: %[[INIT:.*]] = arith.constant 1.500000e+00 : f32
// CHECK: %[[ID:.*]] = arith.constant -0.000000e+00 : f32
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[ID]] : f32 to vector<16xf32>
// CHECK: %[[ACC:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[SPLAT]]) -> (vector<16xf32>)
// CHECK:   arith.mulf {{.*}} : vector<16xf32>
// CHECK:   %[[S:.*]] = arith.addf %[[A]], %{{.*}} : vector<16xf32>
// CHECK:   scf.yield %[[S]] : vector<16xf32>
// CHECK: %[[R:.*]] = vector.reduction <add>, %[[ACC]], %[[INIT]] : vector<16xf32> into f32
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[R]]) -> (f32)
// CHECK-LABEL: func.func @max_i32
// CHECK: arith.constant -2147483648 : i32
// CHECK: arith.maxsi {{.*}} : vector<16xi32>
// CHECK: vector.reduction <maxsi>
func.func @dot(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant 1.5 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> f32 {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = memref.load %b[%i] : memref<?xf32>
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    scf.yield %s : f32
  }
  return %r : f32
}
func.func @max_i32(%a: memref<?xi32>, %n: index, %init: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> i32 {
    %x = memref.load %a[%i] : memref<?xi32>
    %s = arith.maxsi %x, %acc : i32
    scf.yield %s : i32
  }
  return %r : i32
}

// target=sve: scalable vectors, the strip length (16 bytes / element) · vscale.
// SVE-LABEL: func.func @broadcast
// SVE: %[[C2:.*]] = arith.constant 2 : index
// SVE: %[[VS:.*]] = vector.vscale
// SVE: %[[L:.*]] = arith.muli %[[C2]], %[[VS]] : index
// SVE: vector.load {{.*}} vector<[2]xf64>
// SVE-LABEL: func.func @strided
// SVE: vector.step : vector<[4]xindex>
// SVE: vector.gather {{.*}} vector<[4]xf32>
// SVE-LABEL: func.func @dot
// SVE: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<[4]xf32> into f32

// A dependence distance (a[i + 4] = a[i] + 1) bounds the lanes, so SVE uses fixed vectors: vscale × 4 lanes
// would read a[i + 4] before this strip wrote it once vscale > 1 (found by the differential test at 64-byte
// vectors). The twin without a dependence (@dot above) stays scalable.
// SVE-LABEL: func.func @distance4
// SVE-NOT: vector.vscale
// SVE: vector.load {{.*}} vector<4xi32>
// SVE-NOT: vector<[4]xi32>
// SVE: return
// CHECK-LABEL: func.func @distance4
// CHECK: vector.load {{.*}} vector<4xi32>
func.func @distance4(%a: memref<?xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<?xi32>
    %w = arith.addi %v, %one : i32
    %j = arith.addi %i, %c4 : index
    memref.store %w, %a[%j] : memref<?xi32>
  }
  return
}
