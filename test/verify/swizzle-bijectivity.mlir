// A layout built from a lego.swizzle is bijective by construction (the swizzle permutes [0, n) when n is a
// multiple of its period, which the dialect verifier checks); with a symbolic size that is not known, so the
// chain is not claimed.
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-verify-bijectivity='verbose=true'

func.func @chain(%i: index, %j: index) -> index {
  %s = lego.swizzle bits 3 base 2 shift 3 dims [1024] : !lego.layout
  // expected-remark @below {{bijective: built only from bijective pieces with matching sizes (1024 elements)}}
  %g = lego.group_by [32, 32](%s) : !lego.layout
  %f = lego.apply %g(%i, %j) : !lego.layout
  return %f : index
}

// -----

// Twin: a symbolic size. The dialect verifier cannot check the period rule, so nothing is claimed.
func.func @symbolic_chain(%n: index, %i: index, %j: index) -> index {
  %s = lego.swizzle bits 3 base 2 shift 3 dims [%n] : !lego.layout
  // expected-remark @below {{bijectivity not established: a swizzle's element count is not known to be a multiple of its period 2^(bits+base+shift)}}
  %g = lego.group_by [32, 32](%s) : !lego.layout
  %f = lego.apply %g(%i, %j) : !lego.layout
  return %f : index
}
