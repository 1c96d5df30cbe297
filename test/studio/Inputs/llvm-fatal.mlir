// A GPU kernel calling an x86 intrinsic: NVPTX instruction selection cannot select it, a real LLVM fatal error
// (`LLVM ERROR: Cannot select: intrinsic %llvm.x86.rdtsc`, then abort) in the ptx stage (test/studio/serve-robustness.test).
func.func @k(%n: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %t = llvm.call_intrinsic "llvm.x86.rdtsc"() : () -> i64
    gpu.terminator
  }
  return
}
