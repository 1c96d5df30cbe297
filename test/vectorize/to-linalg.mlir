// convert-lego-to-linalg (docs/passes/convert-lego-to-linalg.md): a loop over [0, N) with N a constant
// multiple of 64, identity-indexed loads and one store, becomes a linalg.generic (reads as ins in first-load
// order, the store's memref as outs, identity maps, one parallel iterator, the stored value's cone as body);
// with vectorize=true it is tiled by 64 and vectorized upstream (vector<64xT> transfers). Twins that must stay
// loops, and the option errors. Expected lines written from the published raising rule.
// RUN: lego-opt %s --convert-lego-to-linalg | FileCheck %s
// RUN: lego-opt %s --convert-lego-to-linalg=vectorize=true --canonicalize | FileCheck %s --check-prefix=VEC
// RUN: not lego-opt %s --convert-lego-to-linalg=vectorize=maybe 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not lego-opt %s --convert-lego-to-linalg=vectorise=true 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// BAD: error: invalid value 'maybe' for option 'vectorize' of 'convert-lego-to-linalg': expected true or false
// UNKNOWN: error: unknown option 'vectorise' for pass 'convert-lego-to-linalg' (valid options: vectorize)

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @saxpy
// CHECK-SAME: (%[[X:.*]]: memref<?xf32>, %[[Y:.*]]: memref<?xf32>, %[[A:.*]]: f32)
// CHECK-NOT: scf.for
// CHECK: %[[XV:.*]] = memref.subview %[[X]][0] [128] [1] : memref<?xf32> to memref<128xf32, strided<[1]>>
// CHECK: %[[YV:.*]] = memref.subview %[[Y]][0] [128] [1] : memref<?xf32> to memref<128xf32, strided<[1]>>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel"]} ins(%[[XV]], %[[YV]] : memref<128xf32, strided<[1]>>, memref<128xf32, strided<[1]>>) outs(%[[YV]] : memref<128xf32, strided<[1]>>) {
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[IN2:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[M:.*]] = arith.mulf %[[A]], %[[IN]] : f32
// CHECK:   %[[S:.*]] = arith.addf %[[M]], %[[IN2]] : f32
// CHECK:   linalg.yield %[[S]] : f32
// CHECK: }
// CHECK-NOT: scf.for
// CHECK: return
// VEC-LABEL: func.func @saxpy
// VEC: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// VEC:   vector.transfer_read {{.*}} : memref<64xf32, strided<[1], offset: ?>>, vector<64xf32>
// VEC:   vector.transfer_read {{.*}} : memref<64xf32, strided<[1], offset: ?>>, vector<64xf32>
// VEC:   arith.mulf {{.*}} : vector<64xf32>
// VEC:   arith.addf {{.*}} : vector<64xf32>
// VEC:   vector.transfer_write {{.*}} : vector<64xf32>, memref<64xf32, strided<[1], offset: ?>>
// VEC: }
// VEC-NOT: linalg.generic
// VEC-NOT: lego.linalg_raised
// VEC: return
func.func @saxpy(%x: memref<?xf32>, %y: memref<?xf32>, %a: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  scf.for %i = %c0 to %c128 step %c1 {
    %xv = memref.load %x[%i] : memref<?xf32>
    %yv = memref.load %y[%i] : memref<?xf32>
    %m = arith.mulf %a, %xv : f32
    %s = arith.addf %m, %yv : f32
    memref.store %s, %y[%i] : memref<?xf32>
  }
  return
}

// A static memref of exactly the trip count is used as is; a copy's body is only the yield of the input.
// CHECK-LABEL: func.func @copy
// CHECK-NOT: memref.subview
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<64xf64>) outs(%{{.*}} : memref<64xf64>) {
// CHECK: ^bb0(%[[IN:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT: linalg.yield %[[IN]] : f64
// VEC-LABEL: func.func @copy
// VEC: vector.transfer_read {{.*}} vector<64xf64>
// VEC: vector.transfer_write {{.*}} vector<64xf64>
func.func @copy(%x: memref<64xf64>, %y: memref<64xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %xv = memref.load %x[%i] : memref<64xf64>
    memref.store %xv, %y[%i] : memref<64xf64>
  }
  return
}

// Twins: each breaks one condition of the rule and stays an scf.for.
// CHECK-LABEL: func.func @trip_100
// CHECK: scf.for
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @trip_100(%x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  scf.for %i = %c0 to %c100 step %c1 {
    %xv = memref.load %x[%i] : memref<?xf32>
    memref.store %xv, %y[%i] : memref<?xf32>
  }
  return
}

// CHECK-LABEL: func.func @dynamic_trip
// CHECK: scf.for
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @dynamic_trip(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %xv = memref.load %x[%i] : memref<?xf32>
    memref.store %xv, %y[%i] : memref<?xf32>
  }
  return
}

// CHECK-LABEL: func.func @offset_index
// CHECK: scf.for
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @offset_index(%x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %j = arith.addi %i, %c1 : index
    %xv = memref.load %x[%j] : memref<?xf32>
    memref.store %xv, %y[%i] : memref<?xf32>
  }
  return
}

// CHECK-LABEL: func.func @lower_bound_one
// CHECK: scf.for
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @lower_bound_one(%x: memref<?xf32>, %y: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  %c65 = arith.constant 65 : index
  scf.for %i = %c1 to %c65 step %c1 {
    %xv = memref.load %x[%i] : memref<?xf32>
    memref.store %xv, %y[%i] : memref<?xf32>
  }
  return
}

// CHECK-LABEL: func.func @reduction
// CHECK: scf.for
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @reduction(%x: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %z) -> f32 {
    %xv = memref.load %x[%i] : memref<?xf32>
    %s = arith.addf %acc, %xv : f32
    scf.yield %s : f32
  }
  return %r : f32
}

// Two stores.
// CHECK-LABEL: func.func @two_stores
// CHECK: scf.for
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @two_stores(%x: memref<?xf32>, %y: memref<?xf32>, %z: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %xv = memref.load %x[%i] : memref<?xf32>
    memref.store %xv, %y[%i] : memref<?xf32>
    memref.store %xv, %z[%i] : memref<?xf32>
  }
  return
}

// A read through a shifted view of the written buffer (two memref.view of one byte buffer, 4 bytes apart:
// y[i] = y[i + 1] in disguise): a recurrence, not element-wise.
// CHECK-LABEL: func.func @aliased_view
// CHECK: scf.for
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @aliased_view(%buf: memref<1024xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %out = memref.view %buf[%c0][] : memref<1024xi8> to memref<128xf32>
  %in = memref.view %buf[%c4][] : memref<1024xi8> to memref<128xf32>
  scf.for %i = %c0 to %c128 step %c1 {
    %xv = memref.load %in[%i] : memref<128xf32>
    memref.store %xv, %out[%i] : memref<128xf32>
  }
  return
}

// Twin of the twin: the same views, read and written through one of them only — raised.
// CHECK-LABEL: func.func @one_view
// CHECK-NOT: scf.for
// CHECK: linalg.generic
func.func @one_view(%buf: memref<1024xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %out = memref.view %buf[%c0][] : memref<1024xi8> to memref<128xf32>
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %c128 step %c1 {
    %xv = memref.load %out[%i] : memref<128xf32>
    %d = arith.mulf %xv, %two : f32
    memref.store %d, %out[%i] : memref<128xf32>
  }
  return
}

// An op with a region in the body.
// CHECK-LABEL: func.func @guarded
// CHECK: scf.for
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @guarded(%x: memref<?xf32>, %y: memref<?xf32>, %p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %xv = memref.load %x[%i] : memref<?xf32>
    scf.if %p {
      memref.store %xv, %y[%i] : memref<?xf32>
    }
  }
  return
}
