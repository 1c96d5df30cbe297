// A layout with a misspelled dims list (no closing bracket): a parse error at line 3.
func.func @row(%i: index, %j: index) -> index {
  %l = lego.row [4, 8 : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}
