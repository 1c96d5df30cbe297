// Well-formed text that breaks a lego rule: a 2-d layout applied to one index.
func.func @row(%i: index) -> index {
  %l = lego.row [4, 8] : !lego.layout
  %f = lego.apply %l(%i) : !lego.layout
  return %f : index
}
