// lego-kernel-parameters-in-argument-order (after gpu-kernel-outlining in every GPU pipeline): an outlined
// kernel takes the arguments of the function it is launched from, in argument order — unused ones too, so
// that a caller passing the signature's buffers by position (CuPy, the CUDA driver, @gpu_kernel's callers)
// hits the right parameter — then the values computed on the host, in first-use order. Upstream outlining
// alone orders the parameters by the body's first use (OUTLINED below: %c, %a, host value, %n).
// RUN: lego-opt %s --split-input-file --gpu-kernel-outlining | FileCheck %s --check-prefix=OUTLINED
// RUN: lego-opt %s --split-input-file --gpu-kernel-outlining --lego-kernel-parameters-in-argument-order | FileCheck %s
// Through lego-to-nvvm: the PTX entry has the five parameters, and the store of zero (to %c, the third
// argument) goes through param_2.
// RUN: lego-opt %S/Inputs/first-use-order.mlir --lego-to-nvvm='chip=sm_90 features=+ptx80 format=assembly' | FileCheck %s --check-prefix=PTX
// PTX: .entry first_use_kernel(
// PTX-SAME: first_use_kernel_param_4\0A)
// PTX-SAME: ld.param.b64 \09%[[C:rd[0-9]+]], [first_use_kernel_param_2];
// PTX-SAME: cvta.to.global.u64 \09%[[CG:rd[0-9]+]], %[[C]];
// PTX-SAME: add.s64 \09%[[Z:rd[0-9]+]], %[[CG]], %rd{{[0-9]+}};\0A\09st.global.b32 \09[%[[Z]]], 0;
// Error path: the pass takes no options.
// RUN: not lego-opt %s --split-input-file --lego-kernel-parameters-in-argument-order=bad=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: error: unknown option 'bad' for pass 'lego-kernel-parameters-in-argument-order' (it takes no options)

// Firing: the body stores to %c first, then loads %a; %unused is not used; %host is computed on the host. The
// workgroup attribution stays after the parameters, and its uses follow it.
// OUTLINED-LABEL: func.func @first_use
// OUTLINED: gpu.launch_func  @first_use_kernel::@first_use_kernel {{.*}} args(%arg2 : memref<64xf32>, %arg0 : memref<64xf32>, %0 : index, %arg3 : index)
// CHECK-LABEL: func.func @first_use
// CHECK: gpu.launch_func  @first_use_kernel::@first_use_kernel {{.*}} args(%arg0 : memref<64xf32>, %arg1 : memref<64xf32>, %arg2 : memref<64xf32>, %arg3 : index, %0 : index)
// CHECK: gpu.func @first_use_kernel(%[[A:.*]]: memref<64xf32>, %[[U:.*]]: memref<64xf32>, %[[C:.*]]: memref<64xf32>, %[[N:.*]]: index, %[[H:.*]]: index) workgroup(%[[T:.*]] : memref<64xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: memref.store %{{.*}}, %[[C]][%{{.*}}] : memref<64xf32>
// CHECK: %[[V:.*]] = memref.load %[[A]][%[[H]]] : memref<64xf32>
// CHECK: memref.store %[[V]], %[[T]][%[[N]]]
// CHECK: memref.load %[[T]]
// CHECK: memref.store %{{.*}}, %[[C]][%[[N]]] : memref<64xf32>
module attributes {gpu.container_module} {
  func.func @first_use(%a: memref<64xf32>, %unused: memref<64xf32>, %c: memref<64xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %host = arith.addi %n, %n : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
               workgroup(%tile : memref<64xf32, #gpu.address_space<workgroup>>) {
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %c[%tx] : memref<64xf32>
      %v = memref.load %a[%host] : memref<64xf32>
      memref.store %v, %tile[%n] : memref<64xf32, #gpu.address_space<workgroup>>
      %w = memref.load %tile[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %w, %c[%n] : memref<64xf32>
      gpu.terminator
    }
    return
  }
}

// -----

// Twin: a body that first uses its buffers in argument order, every argument used — nothing changes.
// OUTLINED-LABEL: func.func @in_order
// CHECK-LABEL: func.func @in_order
// CHECK: gpu.launch_func  @in_order_kernel::@in_order_kernel {{.*}} args(%arg0 : memref<64xf32>, %arg1 : memref<64xf32>)
// CHECK: gpu.func @in_order_kernel(%arg0: memref<64xf32>, %arg1: memref<64xf32>) kernel
module attributes {gpu.container_module} {
  func.func @in_order(%a: memref<64xf32>, %b: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %v = memref.load %a[%tx] : memref<64xf32>
      memref.store %v, %b[%tx] : memref<64xf32>
      gpu.terminator
    }
    return
  }
}

// -----

// Twin: a kernel launched from two places has no one signature to follow, and a launch passing one value twice
// has no one position to move it to: both stay as they are (already outlined, hand-written).
// OUTLINED-LABEL: func.func @shared
// CHECK-LABEL: func.func @shared
// CHECK: gpu.launch_func  @kernels::@k {{.*}} args(%arg1 : memref<64xf32>, %arg0 : memref<64xf32>)
// CHECK: gpu.launch_func  @kernels::@k {{.*}} args(%arg1 : memref<64xf32>, %arg0 : memref<64xf32>)
// CHECK-LABEL: func.func @twice
// CHECK: gpu.launch_func  @kernels::@k2 {{.*}} args(%arg1 : memref<64xf32>, %arg1 : memref<64xf32>)
// CHECK: gpu.func @k(%arg0: memref<64xf32>, %arg1: memref<64xf32>) kernel
// CHECK: gpu.func @k2(%arg0: memref<64xf32>, %arg1: memref<64xf32>) kernel
module attributes {gpu.container_module} {
  func.func @shared(%a: memref<64xf32>, %b: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<64xf32>, %a : memref<64xf32>)
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<64xf32>, %a : memref<64xf32>)
    return
  }
  func.func @twice(%a: memref<64xf32>, %b: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k2 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<64xf32>, %b : memref<64xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @k(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %y[%c0] : memref<64xf32>
      memref.store %v, %x[%c0] : memref<64xf32>
      gpu.return
    }
    gpu.func @k2(%x: memref<64xf32>, %y: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %y[%c0] : memref<64xf32>
      memref.store %v, %x[%c0] : memref<64xf32>
      gpu.return
    }
  }
}
