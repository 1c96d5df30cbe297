// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-analyze-memory
// What the analysis cannot model is a located warning, never a crash; the pass does not fail.

func.func @dynamic_block(%n: index) {
  %one = arith.constant 1 : index
  // expected-warning @below {{cannot analyze this kernel's memory accesses: the launch's block size is not a positive constant}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %one, %sz = %one)
             workgroup(%tile : memref<64xf32, #gpu.address_space<workgroup>>) {
    %x = memref.load %tile[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

func.func @dynamic_shape(%m: memref<?xf32>) {
  %one = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one) {
    // expected-warning @below {{cannot analyze 'memref.load': memref with a dynamic shape}}
    %x = memref.load %m[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// A loop whose bounds depend on the thread id: its iterations differ between lanes of one request.
func.func @lane_dependent_loop(%m: memref<64xf32>) {
  %one = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one)
             workgroup(%tile : memref<64xf32, #gpu.address_space<workgroup>>) {
    scf.for %i = %tx to %c32 step %one {
      // expected-warning @below {{cannot analyze shared load of 4 bytes per lane: a loop bound or assumption depends on the thread id}}
      %x = memref.load %tile[%i] : memref<64xf32, #gpu.address_space<workgroup>>
    }
    gpu.terminator
  }
  return
}

// -----

func.func @float_address(%m: memref<64xf32>) {
  %one = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one)
             workgroup(%tile : memref<64xf32, #gpu.address_space<workgroup>>) {
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    %g = arith.fptosi %f : f32 to i32
    %j = arith.index_cast %g : i32 to index
    // expected-warning @below {{cannot analyze shared load of 4 bytes per lane: the address is computed with float math}}
    %x = memref.load %tile[%j] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}
