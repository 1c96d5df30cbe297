// lego-vectorize on unit-stride loops: lane count from the element size and the target (avx512 64 bytes,
// avx2 32, neon 16), a vector loop over the aligned part and the original loop as the scalar remainder.
// RUN: lego-opt %s --lego-vectorize | FileCheck %s --check-prefix=AVX512
// RUN: lego-opt %s --lego-vectorize='target=avx2' | FileCheck %s --check-prefix=AVX2
// RUN: lego-opt %s --lego-vectorize='target=neon' | FileCheck %s --check-prefix=NEON
// RUN: not lego-opt %s --lego-vectorize='target=sse' 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: invalid value 'sse' for option 'target' of 'lego-vectorize': expected one of avx512, avx2, neon, sve

// AVX512-LABEL: func.func @copy_f64
// AVX512: %[[C8:.*]] = arith.constant 8 : index
// AVX512: %[[STEP:.*]] = arith.muli %{{.*}}, %[[C8]] : index
// AVX512: %[[EXT:.*]] = arith.subi %[[N:.*]], %{{.*}} : index
// AVX512: %[[POS:.*]] = arith.maxsi %[[EXT]], %{{.*}} : index
// AVX512: %[[Q:.*]] = arith.divui %[[POS]], %[[STEP]] : index
// AVX512: %[[QS:.*]] = arith.muli %[[Q]], %[[STEP]] : index
// AVX512: %[[ALIGNED:.*]] = arith.addi %{{.*}}, %[[QS]] : index
// AVX512: scf.for %[[I:.*]] = %{{.*}} to %[[ALIGNED]] step %[[STEP]] {
// AVX512:   %[[V:.*]] = vector.load %{{.*}}[%[[I]]] : memref<?xf64>, vector<8xf64>
// AVX512:   vector.store %[[V]], %{{.*}}[%[[I]]] : memref<?xf64>, vector<8xf64>
// AVX512: }
// AVX512: scf.for %[[J:.*]] = %[[ALIGNED]] to %[[N]] step %{{.*}} {
// AVX512:   memref.load %{{.*}}[%[[J]]] : memref<?xf64>
// AVX512:   memref.store
// AVX2-LABEL: func.func @copy_f64
// AVX2: vector.load %{{.*}} : memref<?xf64>, vector<4xf64>
// NEON-LABEL: func.func @copy_f64
// NEON: vector.load %{{.*}} : memref<?xf64>, vector<2xf64>
func.func @copy_f64(%a: memref<?xf64>, %b: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<?xf64>
    memref.store %v, %b[%i] : memref<?xf64>
  }
  return
}

// f32 and i32: 16 lanes on AVX-512, 8 on AVX2.
// AVX512-LABEL: func.func @add_i32
// AVX512: vector.load {{.*}} vector<16xi32>
// AVX512: arith.addi {{.*}} : vector<16xi32>
// AVX2-LABEL: func.func @add_i32
// AVX2: arith.addi {{.*}} : vector<8xi32>
func.func @add_i32(%a: memref<?xi32>, %b: memref<?xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<?xi32>
    %w = arith.addi %v, %v : i32
    memref.store %w, %b[%i] : memref<?xi32>
  }
  return
}

// A static trip count of 100 (not a multiple of 16): the vector loop covers 96, the remainder loop the rest.
// A tile offset `t·16 + i` of an outer loop is still unit stride in i.
// AVX512-LABEL: func.func @static_100
// AVX512: scf.for
// AVX512: vector.load {{.*}} vector<16xf32>
// AVX512: scf.for
// AVX512: memref.load
func.func @static_100(%a: memref<100xf32>, %b: memref<100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  scf.for %i = %c0 to %c100 step %c1 {
    %v = memref.load %a[%i] : memref<100xf32>
    memref.store %v, %b[%i] : memref<100xf32>
  }
  return
}

// AVX512-LABEL: func.func @tile_offset
// AVX512: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 {
// AVX512: scf.for %[[I:.*]] =
// AVX512: %[[M:.*]] = arith.muli %{{.*}}, %c16 : index
// AVX512: %[[A:.*]] = arith.addi %[[M]], %[[I]] : index
// AVX512: vector.load %{{.*}}[%[[A]]] : memref<?xf32>, vector<16xf32>
func.func @tile_offset(%a: memref<?xf32>, %b: memref<?xf32>, %t: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %tile = %c0 to %t step %c1 {
    scf.for %i = %c0 to %c16 step %c1 {
      %base = arith.muli %tile, %c16 : index
      %idx = arith.addi %base, %i : index
      %v = memref.load %a[%idx] : memref<?xf32>
      memref.store %v, %b[%idx] : memref<?xf32>
    }
  }
  return
}
