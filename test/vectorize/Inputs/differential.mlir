// Kernels of the differential test (test/vectorize/differential.test, driver differential.py): each is
// compiled through the vector pipelines and through scalar lego-to-llvm and run on the same inputs; every
// buffer must come out identical. The argument list of each function is described in differential.py
// (KERNELS), which is the one place that knows how to call them. Inputs are multiples of 1/8 (see the driver),
// so sums are exact in any order and even reductions compare bit for bit.

// y = a·x + y.
func.func @saxpy(%x: memref<?xf32>, %y: memref<?xf32>, %a: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %w = memref.load %y[%i] : memref<?xf32>
    %m = arith.mulf %v, %a : f32
    %r = arith.addf %m, %w : f32
    memref.store %r, %y[%i] : memref<?xf32>
  }
  return
}

// An index guard on the induction variable (`i < m`): the published vectorizer compared lane 0 only (D1).
func.func @guard_lt(%a: memref<?xf32>, %b: memref<?xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %g = arith.cmpi ult, %i, %m : index
    %v = memref.load %a[%i] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    scf.if %g {
      memref.store %w, %b[%i] : memref<?xf32>
    }
  }
  return
}

// A guard from index arithmetic with a remainder (i mod 7 < 3), on a loop with a nonzero lower bound.
func.func @guard_mod(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  scf.for %i = %c3 to %n step %c1 {
    %r = arith.remui %i, %c7 : index
    %g = arith.cmpi ult, %r, %c3 : index
    %v = memref.load %a[%i] : memref<?xf32>
    scf.if %g {
      memref.store %v, %b[%i] : memref<?xf32>
    }
  }
  return
}

// cmpf + select (a leaky clamp).
func.func @select_leaky(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<?xf32>
    %p = arith.cmpf ogt, %v, %zero : f32
    %s = arith.mulf %v, %half : f32
    %r = arith.select %p, %v, %s : f32
    memref.store %r, %b[%i] : memref<?xf32>
  }
  return
}

// A dot product with a nonzero init; the result stored to out[0].
func.func @dot(%a: memref<?xf32>, %b: memref<?xf32>, %out: memref<?xf32>, %n: index) {
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
  memref.store %r, %out[%c0] : memref<?xf32>
  return
}

// Two integer reductions in one loop: a sum and a signed max.
func.func @sum_max_i32(%a: memref<?xi32>, %out: memref<?xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 7 : i32
  %low = arith.constant -5000 : i32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %zero, %m = %low) -> (i32, i32) {
    %v = memref.load %a[%i] : memref<?xi32>
    %s2 = arith.addi %s, %v : i32
    %m2 = arith.maxsi %m, %v : i32
    scf.yield %s2, %m2 : i32, i32
  }
  memref.store %r#0, %out[%c0] : memref<?xi32>
  memref.store %r#1, %out[%c1] : memref<?xi32>
  return
}

// Constant stride 3 with an offset (b[i] = a[3i + 1]).
func.func @stride3(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %n step %c1 {
    %j = arith.muli %i, %c3 : index
    %k = arith.addi %j, %c1 : index
    %v = memref.load %a[%k] : memref<?xf32>
    memref.store %v, %b[%i] : memref<?xf32>
  }
  return
}

// Non-affine gather and scatter through XOR swizzles: b[i] = a[i ^ 5]; c[i ^ 3] = b[i] + 1.
func.func @xor_swizzle(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %j = arith.xori %i, %c5 : index
    %v = memref.load %a[%j] : memref<?xf32>
    memref.store %v, %b[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %j = arith.xori %i, %c3 : index
    %v = memref.load %b[%i] : memref<?xf32>
    %w = arith.addf %v, %one : f32
    memref.store %w, %c[%j] : memref<?xf32>
  }
  return
}

// Morton (Z-order) gather of a 2-D tile: x = i & 15, y = i >> 4, interleave the low 2 bits of each.
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
    %yh = arith.shrui %y, %c2 : index
    %yhs = arith.shli %yh, %c4 : index
    %m0 = arith.ori %x0, %x1s : index
    %m1 = arith.ori %y0s, %y1s : index
    %m2 = arith.ori %m0, %m1 : index
    %m = arith.ori %m2, %yhs : index
    %v = memref.load %a[%m] : memref<?xf32>
    memref.store %v, %b[%i] : memref<?xf32>
  }
  return
}

// An indirect gather b[i] = a[idx[i]] (idx holds i32 values in [0, n)).
func.func @indirect(%idx: memref<?xi32>, %a: memref<?xf32>, %b: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %k = memref.load %idx[%i] : memref<?xi32>
    %j = arith.index_cast %k : i32 to index
    %v = memref.load %a[%j] : memref<?xf32>
    memref.store %v, %b[%i] : memref<?xf32>
  }
  return
}

// A loop-carried dependence at distance 4 through memory: a[i + 4] = a[i] + 1 (at most 4 lanes are legal).
func.func @dependence4(%a: memref<?xi32>, %n: index) {
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

// A static trip count of 37 (no multiple of any lane count) and a step-2 loop over the same buffers.
func.func @static37(%a: memref<37xf64>, %b: memref<37xf64>, %c: memref<37xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c37 = arith.constant 37 : index
  scf.for %i = %c0 to %c37 step %c1 {
    %v = memref.load %a[%i] : memref<37xf64>
    %w = arith.mulf %v, %v : f64
    memref.store %w, %b[%i] : memref<37xf64>
  }
  scf.for %i = %c1 to %c37 step %c2 {
    %v = memref.load %a[%i] : memref<37xf64>
    memref.store %v, %c[%i] : memref<37xf64>
  }
  return
}

// i8 lanes (64 per AVX-512 register), wrapping addition.
func.func @add_i8(%a: memref<?xi8>, %b: memref<?xi8>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<?xi8>
    %w = memref.load %b[%i] : memref<?xi8>
    %s = arith.addi %v, %w : i8
    memref.store %s, %b[%i] : memref<?xi8>
  }
  return
}

// Mixed precision: b[i] += extf(a[i]) · s (f32 read, f64 arithmetic).
func.func @mixed(%a: memref<?xf32>, %b: memref<?xf64>, %s: f64, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<?xf32>
    %e = arith.extf %v : f32 to f64
    %w = memref.load %b[%i] : memref<?xf64>
    %m = arith.mulf %e, %s : f64
    %r = arith.addf %m, %w : f64
    memref.store %r, %b[%i] : memref<?xf64>
  }
  return
}

// Layouts: a transpose written with lego.apply (row-major [t, 16] into column-major [16, t]); the inner loop
// reads unit stride and writes stride t (a scatter).
func.func @transpose_layout(%a: memref<?xf32>, %b: memref<?xf32>, %t: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %row = lego.row [%t, 16] : !lego.layout
  %col = lego.col [%t, 16] : !lego.layout
  scf.for %r = %c0 to %t step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %src = lego.apply %row(%r, %j) : !lego.layout
      %dst = lego.apply %col(%r, %j) : !lego.layout
      %v = memref.load %a[%src] : memref<?xf32>
      memref.store %v, %b[%dst] : memref<?xf32>
    }
  }
  return
}

// Layouts: a tiled layout of [n/8 tiles, 8] whose div/mod lego-lower removes, read over a flat loop with a
// symbolic tile count.
func.func @tiled_layout(%a: memref<?xf32>, %b: memref<?xf32>, %tiles: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %l = lego.row [%tiles, 8] : !lego.layout
  scf.for %tile = %c0 to %tiles step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %k = lego.apply %l(%tile, %j) : !lego.layout
      %v = memref.load %a[%k] : memref<?xf32>
      %w = arith.mulf %v, %v : f32
      memref.store %w, %b[%k] : memref<?xf32>
    }
  }
  return
}

// Stream compaction (lego-vectorize-compact in lego-to-x86-vector): out[k++] = a[i] where c[i] > t; the count
// is stored to cnt[0].
func.func @compact(%a: memref<?xf32>, %c: memref<?xf32>, %out: memref<?xf32>, %cnt: memref<?xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = arith.constant 0.5 : f32
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
  %ri = arith.index_cast %r : index to i32
  memref.store %ri, %cnt[%c0] : memref<?xi32>
  return
}

// A filtered reduction (lego-vectorize-filtered-reduce in lego-to-x86-vector): the max of a[i] where c[i] < t.
func.func @filtered_max(%a: memref<?xf32>, %c: memref<?xf32>, %out: memref<?xf32>, %t: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant -100.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> f32 {
    %x = memref.load %c[%i] : memref<?xf32>
    %p = arith.cmpf olt, %x, %t : f32
    %s = scf.if %p -> f32 {
      %v = memref.load %a[%i] : memref<?xf32>
      %w = arith.maximumf %acc, %v : f32
      scf.yield %w : f32
    } else {
      scf.yield %acc : f32
    }
    scf.yield %s : f32
  }
  memref.store %r, %out[%c0] : memref<?xf32>
  return
}

// Argmin (lego-vectorize-argmin), the published shape (the then-block loads a[i] again): the first index of the
// minimum of a[i] (few distinct values: many ties) against an init of 3.0 at index n, which a[i] = 3.0 must not
// replace (strict olt). Value to out[0], index to idx[0].
func.func @argmin_f32(%a: memref<?xf32>, %out: memref<?xf32>, %idx: memref<?xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant 3.0 : f32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%v = %init, %x = %n) -> (f32, index) {
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
  memref.store %r#0, %out[%c0] : memref<?xf32>
  %ri = arith.index_cast %r#1 : index to i32
  memref.store %ri, %idx[%c0] : memref<?xi32>
  return
}

// Argmax in the select shape, f64 (half the lanes), init −2.0 at index 7.
func.func @argmax_f64(%a: memref<?xf64>, %out: memref<?xf64>, %idx: memref<?xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %init = arith.constant -2.0 : f64
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%v = %init, %x = %c7) -> (f64, index) {
    %e = memref.load %a[%i] : memref<?xf64>
    %p = arith.cmpf ogt, %e, %v : f64
    %nx = arith.select %p, %i, %x : index
    %nv = arith.select %p, %e, %v : f64
    scf.yield %nv, %nx : f64, index
  }
  memref.store %r#0, %out[%c0] : memref<?xf64>
  %ri = arith.index_cast %r#1 : index to i32
  memref.store %ri, %idx[%c0] : memref<?xi32>
  return
}

// Inclusive prefix sum (lego-vectorize-scan) from 0.5: b[i] = 0.5 + a[0] + … + a[i]; the total to out[0].
func.func @scan_f32(%a: memref<?xf32>, %b: memref<?xf32>, %out: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant 0.5 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> f32 {
    %e = memref.load %a[%i] : memref<?xf32>
    %s = arith.addf %acc, %e : f32
    memref.store %s, %b[%i] : memref<?xf32>
    scf.yield %s : f32
  }
  memref.store %r, %out[%c0] : memref<?xf32>
  return
}

// An in-place prefix sum over f64 (the store overwrites the element just read).
func.func @scan_inplace_f64(%a: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant -1.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> f64 {
    %e = memref.load %a[%i] : memref<?xf64>
    %s = arith.addf %e, %acc : f64
    memref.store %s, %a[%i] : memref<?xf64>
    scf.yield %s : f64
  }
  return
}

// Run-length compaction (lego-vectorize-rle) of a[i] with runs (3 distinct values): out[k++] = a[i] where
// a[i] != prev, prev from 1.0; the count to cnt[0] and the last prev to last[0].
func.func @rle_f32(%a: memref<?xf32>, %out: memref<?xf32>, %cnt: memref<?xi32>, %last: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p0 = arith.constant 1.0 : f32
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
  %ri = arith.index_cast %r#0 : index to i32
  memref.store %ri, %cnt[%c0] : memref<?xi32>
  memref.store %r#1, %last[%c0] : memref<?xf32>
  return
}

// A histogram with 3 bins (lego-vectorize-scatter-add, added to every vector build by the driver): nearly
// every strip has a repeated bin and takes the scalar path; hist[bin[i]] += w[i].
func.func @hist_conflict(%bin: memref<?xi32>, %h: memref<?xf32>, %w: memref<?xf32>, %n: index) {
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

// A histogram with 4096 bins and a constant delta (delta + hist operand order): most strips scatter.
func.func @hist_wide(%bin: memref<?xi32>, %h: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = arith.constant 0.25 : f32
  scf.for %i = %c0 to %n step %c1 {
    %b = memref.load %bin[%i] : memref<?xi32>
    %j = arith.index_cast %b : i32 to index
    %o = memref.load %h[%j] : memref<?xf32>
    %s = arith.addf %d, %o : f32
    memref.store %s, %h[%j] : memref<?xf32>
  }
  return
}

// convert-lego-to-linalg{vectorize=true} in lego-to-x86-vector: a static trip count of 128 (two tiles of 64),
// y = 1.5·x + y over buffers of exactly 128.
func.func @linalg_saxpy128(%x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %a = arith.constant 1.5 : f32
  scf.for %i = %c0 to %c128 step %c1 {
    %xv = memref.load %x[%i] : memref<?xf32>
    %yv = memref.load %y[%i] : memref<?xf32>
    %m = arith.mulf %a, %xv : f32
    %s = arith.addf %m, %yv : f32
    memref.store %s, %y[%i] : memref<?xf32>
  }
  return
}

// The raised loop covers [0, 192) of buffers of 200 f64: the last 8 elements of b must stay as they were.
func.func @linalg_window(%a: memref<?xf64>, %b: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c192 = arith.constant 192 : index
  %one = arith.constant 1.0 : f64
  scf.for %i = %c0 to %c192 step %c1 {
    %v = memref.load %a[%i] : memref<?xf64>
    %sq = arith.mulf %v, %v : f64
    %r = arith.subf %sq, %one : f64
    memref.store %r, %b[%i] : memref<?xf64>
  }
  return
}

// Argmin over zeros of both signs (t[i] = a[i] · −0, written by a first loop): the first zero wins with its
// sign, also when a −0 sits in another lane (the published minimumf-based combination returned −0 there).
func.func @argmin_signed_zero(%a: memref<?xf32>, %t: memref<?xf32>, %out: memref<?xf32>, %idx: memref<?xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %mz = arith.constant -0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %e = memref.load %a[%i] : memref<?xf32>
    %z = arith.mulf %e, %mz : f32
    memref.store %z, %t[%i] : memref<?xf32>
  }
  %init = arith.constant 1.0 : f32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%v = %init, %x = %n) -> (f32, index) {
    %e = memref.load %t[%i] : memref<?xf32>
    %p = arith.cmpf olt, %e, %v : f32
    %nx = arith.select %p, %i, %x : index
    %nv = arith.select %p, %e, %v : f32
    scf.yield %nv, %nx : f32, index
  }
  memref.store %r#0, %out[%c0] : memref<?xf32>
  %ri = arith.index_cast %r#1 : index to i32
  memref.store %ri, %idx[%c0] : memref<?xi32>
  return
}

// Argmax from a NaN init: nothing compares greater, so the scalar loop returns the init and its index 3.
func.func @argmax_nan_init(%a: memref<?xf32>, %out: memref<?xf32>, %idx: memref<?xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %init = arith.constant 0x7FC00000 : f32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%v = %init, %x = %c3) -> (f32, index) {
    %e = memref.load %a[%i] : memref<?xf32>
    %p = arith.cmpf ogt, %e, %v : f32
    %nx = arith.select %p, %i, %x : index
    %nv = arith.select %p, %e, %v : f32
    scf.yield %nv, %nx : f32, index
  }
  memref.store %r#0, %out[%c0] : memref<?xf32>
  %ri = arith.index_cast %r#1 : index to i32
  memref.store %ri, %idx[%c0] : memref<?xi32>
  return
}
