// lego-gpu-launch-sink-index-computations: what upstream gpu-launch-sink-index-computations does (constants, and
// memref.dim / arith.select / arith.cmpi whose operands the kernel has anyway, are cloned into each launch body
// that uses them, so they do not become kernel parameters), in time linear in the number of launches.
// RUN: lego-opt %s --lego-gpu-launch-sink-index-computations | FileCheck %s
// The IR is upstream's, op for op, with locations (generic form):
// RUN: lego-opt %s --lego-gpu-launch-sink-index-computations --mlir-print-op-generic --mlir-print-debuginfo > %t.ours
// RUN: lego-opt %s --gpu-launch-sink-index-computations --mlir-print-op-generic --mlir-print-debuginfo > %t.upstream
// RUN: diff %t.ours %t.upstream
// The GPU pipelines use it (and not upstream's) where the C++ shim is built, as lego-opt is here:
// RUN: lego-opt %S/Inputs/gpu-facts.mlir --lego-to-nvvm=format=assembly --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: lego-gpu-launch-sink-index-computations
// PIPELINE-NOT: GpuLaunchSinkIndexComputations
// One difference from upstream: a clone whose location is unknown (MLIR's folder leaves a constant it hoisted
// so) takes the location of its first located user in the launch (else the launch's), so a target that cannot
// convert it names a line of the user's file (test/fuzz-findings/unlocated-error-5f98d0be49-*.mlir). The
// f32 2.0 takes the mulf's (line 11), the 3.0, used only by an op with no location, the launch's.
// RUN: lego-opt %S/Inputs/sink-unknown-location.mlir --lego-gpu-launch-sink-index-computations --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// LOC: gpu.launch
// LOC-NEXT: %[[F:.*]] = arith.constant 2.000000e+00 : f32 loc(#[[FLOC:loc[0-9]+]])
// LOC-NEXT: arith.constant 3.000000e+00 : f32 loc(#[[GLOC:loc[0-9]+]])
// LOC-NEXT: memref.load
// LOC-NEXT: arith.mulf %{{.*}}, %[[F]] : f32 loc(#[[FLOC]])
// LOC: gpu.terminator
// LOC-NEXT: } loc(#[[GLOC]])
// LOC-DAG: #[[FLOC]] = loc("{{.*}}sink-unknown-location.mlir":11:10)
// LOC-DAG: #[[GLOC]] = loc("{{.*}}sink-unknown-location.mlir":8:3)
// Error path: the pass takes no options.
// RUN: not lego-opt %s --lego-gpu-launch-sink-index-computations=bad=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: error: unknown option 'bad' for pass 'lego-gpu-launch-sink-index-computations' (it takes no options)

// First launch. Sunk, in upstream's order (the body's uses walked inner ops first; each op after what it
// uses): %c0 and the memref.dim (its memref is a kernel parameter anyway), the f32 constant, and the select
// with its cmpi (%n is used in the body, so it is a parameter anyway). Not sunk (twins): %last (an arith.subi:
// not an index computation upstream sinks) stays a parameter, and so does %dim's memref.
// CHECK-LABEL: func.func @two
// CHECK: %[[LAST:.*]] = arith.subi
// CHECK: gpu.launch
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[BIG:.*]] = arith.cmpi ugt, %arg1, %[[C32]] : index
// CHECK-NEXT: %[[PICK:.*]] = arith.select %[[BIG]], %[[C32]], %arg1 : index
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[DIM:.*]] = memref.dim %arg0, %[[C0]] : memref<?xf32>
// CHECK-NEXT: %[[F:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %[[I:.*]] = arith.addi %{{.*}}, %[[PICK]] : index
// CHECK-NEXT: %[[J:.*]] = arith.addi %[[I]], %arg1 : index
// CHECK-NEXT: arith.cmpi ult, %[[J]], %[[DIM]] : index
// CHECK: arith.mulf %{{.*}}, %[[F]] : f32
// CHECK-NEXT: memref.store %{{.*}}, %arg0[%[[LAST]]] : memref<?xf32>
// Second launch: its own clones of the constants it uses.
// CHECK: gpu.launch
// CHECK-NEXT: %[[C0B:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[FB:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %[[C1B:.*]] = arith.constant 1 : index
// CHECK-NEXT: arith.addi %{{.*}}, %[[C0B]] : index
// CHECK: arith.addf %{{.*}}, %[[FB]] : f32
// CHECK-NEXT: memref.store %{{.*}}, %arg0[%[[C1B]]] : memref<?xf32>
func.func @two(%m: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 2.0 : f32
  %dim = memref.dim %m, %c0 : memref<?xf32>
  %last = arith.subi %dim, %c1 : index
  %big = arith.cmpi ugt, %n, %c32 : index
  %pick = arith.select %big, %c32, %n : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %i = arith.addi %tx, %pick : index
    %j = arith.addi %i, %n : index
    %ok = arith.cmpi ult, %j, %dim : index
    scf.if %ok {
      %x = memref.load %m[%j] : memref<?xf32>
      %y = arith.mulf %x, %f : f32
      memref.store %y, %m[%last] : memref<?xf32>
    }
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %i = arith.addi %tx, %c0 : index
    %x = memref.load %m[%i] : memref<?xf32>
    %y = arith.addf %x, %f : f32
    memref.store %y, %m[%c1] : memref<?xf32>
    gpu.terminator
  }
  return
}
