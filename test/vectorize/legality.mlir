// Which loops lego-vectorize leaves scalar, and why (report=true: a remark on every candidate loop), next to
// their twins that it vectorizes.
// RUN: lego-opt %s --lego-vectorize='report=true' --verify-diagnostics --split-input-file | FileCheck %s

// A[i] = A[i−1]: each iteration reads what the previous one wrote.
// CHECK-LABEL: func.func @recurrence
// CHECK-NOT: vector
func.func @recurrence(%a: memref<?xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  // expected-remark@+1 {{lego-vectorize: loop not vectorized: a store and another access to the same buffer are one iteration apart}}
  scf.for %i = %c1 to %n step %c1 {
    %im = arith.subi %i, %c1 : index
    %v = memref.load %a[%im] : memref<?xf32>
    memref.store %v, %a[%i] : memref<?xf32>
  }
  return
}

// -----

// Twin: A[i] = A[i+1] reads before the write of the later iteration (an anti-dependence): any width is right.
// CHECK-LABEL: func.func @forward_read
// CHECK: vector.load {{.*}} vector<16xf32>
func.func @forward_read(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark@+1 {{lego-vectorize: vectorized with 16 lanes (load unit, store unit)}}
  scf.for %i = %c0 to %n step %c1 {
    %ip = arith.addi %i, %c1 : index
    %v = memref.load %a[%ip] : memref<?xf32>
    memref.store %v, %a[%i] : memref<?xf32>
  }
  return
}

// -----

// A[i] = A[i−4]: a distance of 4 iterations bounds the lanes to 4.
// CHECK-LABEL: func.func @distance_4
// CHECK: vector.load {{.*}} vector<4xf32>
func.func @distance_4(%a: memref<?xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-remark@+1 {{lego-vectorize: vectorized with 4 lanes (load unit, store unit)}}
  scf.for %i = %c4 to %n step %c1 {
    %im = arith.subi %i, %c4 : index
    %v = memref.load %a[%im] : memref<?xf32>
    memref.store %v, %a[%i] : memref<?xf32>
  }
  return
}

// -----

// A[i + n] vs A[i]: the distance is not known at compile time.
// CHECK-LABEL: func.func @unknown_distance
// CHECK-NOT: vector
func.func @unknown_distance(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark@+1 {{lego-vectorize: loop not vectorized: cannot prove the distance between a store (unit) and another access (unit) to the same buffer}}
  scf.for %i = %c0 to %n step %c1 {
    %j = arith.addi %i, %n : index
    %v = memref.load %a[%j] : memref<?xf32>
    memref.store %v, %a[%i] : memref<?xf32>
  }
  return
}

// -----

// A running sum stored every iteration is a scan, not a reduction.
// CHECK-LABEL: func.func @scan
// CHECK-NOT: vector
func.func @scan(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  // expected-remark@+1 {{lego-vectorize: loop not vectorized: iter_arg #0 is read or its running value used other than by one 'arith.addf' (a scan, not a reduction)}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> f32 {
    %v = memref.load %a[%i] : memref<?xf32>
    %s = arith.addf %acc, %v : f32
    memref.store %s, %b[%i] : memref<?xf32>
    scf.yield %s : f32
  }
  return %r : f32
}

// -----

// C[0] += A[i]: a reduction through memory.
// CHECK-LABEL: func.func @memory_reduction
// CHECK-NOT: vector
func.func @memory_reduction(%a: memref<?xf32>, %c: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark@+1 {{lego-vectorize: loop not vectorized: a store writes the same address in every iteration (a reduction through memory)}}
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<?xf32>
    %s = memref.load %c[%c0] : memref<?xf32>
    %t = arith.addf %s, %v : f32
    memref.store %t, %c[%c0] : memref<?xf32>
  }
  return
}

// -----

// An else branch; a call; a nested loop (the inner one is vectorized, the outer one refused).
// CHECK-LABEL: func.func @shapes
// CHECK: vector.store
func.func private @g(f32) -> f32
func.func @shapes(%a: memref<?xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark@+1 {{lego-vectorize: loop not vectorized: body contains an scf.if with an else branch}}
  scf.for %i = %c0 to %n step %c1 {
    %g = arith.cmpi ult, %i, %m : index
    %v = memref.load %a[%i] : memref<?xf32>
    scf.if %g {
      memref.store %v, %a[%i] : memref<?xf32>
    } else {
      %w = arith.addf %v, %v : f32
      memref.store %w, %a[%i] : memref<?xf32>
    }
  }
  // expected-remark@+1 {{lego-vectorize: loop not vectorized: body contains 'func.call'}}
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<?xf32>
    %w = func.call @g(%v) : (f32) -> f32
    memref.store %w, %a[%i] : memref<?xf32>
  }
  // expected-remark@+1 {{lego-vectorize: loop not vectorized: body contains a nested loop (inner loops are vectorized instead)}}
  scf.for %j = %c0 to %n step %c1 {
    // expected-remark@+1 {{lego-vectorize: vectorized with 16 lanes (load unit, store unit)}}
    scf.for %i = %c0 to %m step %c1 {
      %v = memref.load %a[%i] : memref<?xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %a[%i] : memref<?xf32>
    }
  }
  return
}

// -----

// Pure gathers of f64 on AVX-512 (8 lanes, non-affine cost 10): refused by the cost model; no remark at all
// for a loop without memory accesses.
// CHECK-LABEL: func.func @gathers_only
func.func @gathers_only(%a: memref<?xf64>, %b: memref<?xf64>, %n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  // expected-remark@+1 {{lego-vectorize: loop not vectorized: cost model: only gathers/scatters and 8 lanes (score 0.80 <= 1.0)}}
  scf.for %i = %c0 to %n step %c1 {
    %j = arith.xori %i, %c5 : index
    %v = memref.load %a[%j] : memref<?xf64>
    memref.store %v, %b[%j] : memref<?xf64>
  }
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0) -> index {
    %t = arith.addi %s, %i : index
    scf.yield %t : index
  }
  return %r : index
}
