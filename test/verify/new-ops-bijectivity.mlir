// lego-verify-bijectivity on compose / inverse / strided: bijective by construction when their pieces are and
// the sizes match; a padded strided is injective only (not claimed).
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-verify-bijectivity='verbose=true'

func.func @compose_inverse_strided(%i: index) -> index {
  %a = lego.col [4, 8] : !lego.layout
  %b = lego.strided shape [(4, 2), 4] stride [(1, 16), 4] : !lego.layout
  %c = lego.compose %a, %b : !lego.layout
  %inv = lego.inverse %c : !lego.layout
  // expected-remark @below {{bijective: built only from bijective pieces with matching sizes (32 elements)}}
  %g = lego.group_by [32](%inv) : !lego.layout
  %f = lego.apply %g(%i) : !lego.layout
  return %f : index
}

// -----

func.func @padded(%i: index, %j: index) -> index {
  %p = lego.strided shape [4, 8] stride [9, 1] : !lego.layout
  // expected-remark @below {{bijectivity not established: a padded strided layout is injective, but not onto its extent}}
  %o = lego.order_by(%p) : !lego.layout
  %f = lego.apply %o(%i, %j) : !lego.layout
  return %f : index
}
