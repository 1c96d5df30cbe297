// math bit counts (allowed in gen_p bodies): their CUDA C helpers pick CUDA's device intrinsics on the GPU and
// the compiler builtins on the host (bits_check.py runs both with nvcc).
func.func @bit_counts(%x: index) -> (index, index, index) {
  %a = math.ctlz %x : index
  %b = math.cttz %x : index
  %c = math.ctpop %x : index
  return %a, %b, %c : index, index, index
}
