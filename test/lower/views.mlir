// lego.cast_view / lego.load / lego.store lowered to memref.load / memref.store, and views (and layouts)
// passed to functions: the callee takes the memref and the layout's SSA values instead.
// RUN: lego-opt %s --lego-to-arith | FileCheck %s

// A rank-1 memref is indexed by the flat position apply(layout, indices).
// CHECK-LABEL: func.func @rank1
// CHECK-SAME: (%[[M:.*]]: memref<32xf32>, %[[I:.*]]: index, %[[J:.*]]: index, %[[X:.*]]: f32)
// col [4, 8] (i, j) = i + j·4.
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[J]], %[[C4]] : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[I]], %[[S]] : index
// CHECK-NEXT: memref.store %[[X]], %[[M]][%[[F]]] : memref<32xf32>
// CHECK-NEXT: %[[T:.*]] = arith.muli %[[I]], %[[C4]] : index
// CHECK-NEXT: %[[G:.*]] = arith.addi %[[J]], %[[T]] : index
// CHECK-NEXT: %[[Y:.*]] = memref.load %[[M]][%[[G]]] : memref<32xf32>
// CHECK-NEXT: return %[[Y]]
func.func @rank1(%m: memref<32xf32>, %i: index, %j: index, %x: f32) -> f32 {
  %l = lego.col [4, 8] : !lego.layout
  %v = lego.cast_view %m, %l : memref<32xf32>, !lego.layout -> !lego.view<f32>
  lego.store %x, %v[%i, %j] : f32, !lego.view<f32>, index, index
  %y = lego.load %v[%j, %i] : !lego.view<f32>, index, index
  return %y : f32
}

// A higher-rank memref is indexed by B⁻¹(shape, flat).
// CHECK-LABEL: func.func @rank2
// CHECK-SAME: (%[[M:.*]]: memref<4x8xf16>, %[[I:.*]]: index, %[[J:.*]]: index)
// The flat i + j·4, unflattened over the memref's shape (4, 8): (f div 8, f mod 8).
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[S:.*]] = arith.muli %[[J]], %[[C4]] : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[I]], %[[S]] : index
// CHECK-NEXT: %[[P0:.*]] = arith.divui %[[F]], %[[C8]] : index
// CHECK-NEXT: %[[P1:.*]] = arith.remui %[[F]], %[[C8]] : index
// CHECK-NEXT: %[[Y:.*]] = memref.load %[[M]][%[[P0]], %[[P1]]] : memref<4x8xf16>
// CHECK-NEXT: return %[[Y]]
func.func @rank2(%m: memref<4x8xf16>, %i: index, %j: index) -> f16 {
  %l = lego.col [4, 8] : !lego.layout
  %v = lego.cast_view %m, %l : memref<4x8xf16>, !lego.layout -> !lego.view<f16>
  %y = lego.load %v[%i, %j] : !lego.view<f16>, index, index
  return %y : f16
}

// Dynamic extents come from memref.dim (emitted first).
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[M:.*]]: memref<?x?xi32>, %[[N:.*]]: index, %[[I:.*]]: index, %[[J:.*]]: index)
// Only the inner extent is a divisor (the outermost size never enters an unflatten): one memref.dim.
// CHECK: %[[D1:.*]] = memref.dim %[[M]], %{{.*}} : memref<?x?xi32>
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[J]], %[[S]] : index
// CHECK-NEXT: %[[P0:.*]] = arith.divui %[[F]], %[[D1]] : index
// CHECK-NEXT: %[[P1:.*]] = arith.remui %[[F]], %[[D1]] : index
// CHECK-NEXT: memref.load %[[M]][%[[P0]], %[[P1]]] : memref<?x?xi32>
func.func @dynamic(%m: memref<?x?xi32>, %n: index, %i: index, %j: index) -> i32 {
  %l = lego.row [%n, 8] : !lego.layout
  %v = lego.cast_view %m, %l : memref<?x?xi32>, !lego.layout -> !lego.view<i32>
  %y = lego.load %v[%i, %j] : !lego.view<i32>, index, index
  return %y : i32
}

// Views across calls: @scale takes the memref and the symbolic size instead of the view (the size 4 is
// the same constant at both call sites, so it is rebuilt in the callee); each call passes its own.
// CHECK-LABEL: func.func private @scale
// CHECK-SAME: (%[[M:.*]]: memref<?xf32>, %[[N:.*]]: index, %[[I:.*]]: index, %[[J:.*]]: index)
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[I]], %[[C4]] : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[J]], %[[S]] : index
// CHECK-NEXT: memref.load %[[M]][%[[F]]] : memref<?xf32>
// CHECK: memref.store %{{.*}}, %[[M]][%{{.*}}] : memref<?xf32>
func.func private @scale(%v: !lego.view<f32>, %i: index, %j: index) {
  %x = lego.load %v[%i, %j] : !lego.view<f32>, index, index
  %y = arith.addf %x, %x : f32
  lego.store %y, %v[%i, %j] : f32, !lego.view<f32>, index, index
  return
}

// CHECK-LABEL: func.func @caller
// CHECK-SAME: (%[[A:.*]]: memref<?xf32>, %[[B:.*]]: memref<?xf32>, %[[N:.*]]: index, %[[M:.*]]: index, %[[I:.*]]: index)
// CHECK: call @scale(%[[A]], %[[N]], %[[I]], %[[I]]) : (memref<?xf32>, index, index, index) -> ()
// CHECK: call @scale(%[[B]], %[[M]], %[[I]], %[[I]]) : (memref<?xf32>, index, index, index) -> ()
// CHECK-NOT: lego.
func.func @caller(%a: memref<?xf32>, %b: memref<?xf32>, %n: index, %m: index, %i: index) {
  %c4 = arith.constant 4 : index
  %la = lego.row [%n, %c4] : !lego.layout
  %va = lego.cast_view %a, %la : memref<?xf32>, !lego.layout -> !lego.view<f32>
  func.call @scale(%va, %i, %i) : (!lego.view<f32>, index, index) -> ()
  %c4b = arith.constant 4 : index
  %lb = lego.row [%m, %c4b] : !lego.layout
  %vb = lego.cast_view %b, %lb : memref<?xf32>, !lego.layout -> !lego.view<f32>
  func.call @scale(%vb, %i, %i) : (!lego.view<f32>, index, index) -> ()
  return
}

// CHECK-LABEL: func.func private @inner
// CHECK-SAME: (%[[M:.*]]: memref<15xi32>, %[[X:.*]]: index) -> index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C14:.*]] = arith.constant 14 : index
// CHECK: %[[S:.*]] = arith.muli %[[X]], %[[C3]] : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[X]], %[[S]] : index
// CHECK-NEXT: %[[P:.*]] = arith.subi %[[C14]], %[[F]] : index
// CHECK-NEXT: memref.load %[[M]][%[[P]]] : memref<15xi32>
func.func private @inner(%l: !lego.layout, %v: !lego.view<i32>, %x: index) -> index {
  %f = lego.apply %l(%x, %x) : !lego.layout
  %y = lego.load %v[%f] : !lego.view<i32>, index
  %z = arith.index_cast %y : i32 to index
  return %z : index
}

// CHECK-LABEL: func.func private @middle
// CHECK-SAME: (%[[M:.*]]: memref<15xi32>, %[[X:.*]]: index) -> index
// CHECK-NEXT: call @inner(%[[M]], %[[X]]) : (memref<15xi32>, index) -> index
func.func private @middle(%v: !lego.view<i32>, %x: index) -> index {
  %l = lego.col [3, 5] : !lego.layout
  %r = func.call @inner(%l, %v, %x) : (!lego.layout, !lego.view<i32>, index) -> index
  return %r : index
}

// CHECK-LABEL: func.func @outer
// CHECK-SAME: (%[[M:.*]]: memref<15xi32>, %[[X:.*]]: index) -> index
// CHECK-NEXT: call @middle(%[[M]], %[[X]]) : (memref<15xi32>, index) -> index
// CHECK-NOT: lego.
func.func @outer(%m: memref<15xi32>, %x: index) -> index {
  %g = lego.gen_p [15] apply (%a: index) {
    %c14 = arith.constant 14 : index
    %r = arith.subi %c14, %a : index
    lego.yield %r : index
  } inv (%b: index) {
    %c14 = arith.constant 14 : index
    %r = arith.subi %c14, %b : index
    lego.yield %r : index
  } : !lego.layout
  %v = lego.cast_view %m, %g : memref<15xi32>, !lego.layout -> !lego.view<i32>
  %r = func.call @middle(%v, %x) : (!lego.view<i32>, index) -> index
  return %r : index
}
