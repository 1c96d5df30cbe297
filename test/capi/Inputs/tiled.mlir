// Input of lower.c: worked example 3 of docs/reference/semantics.md, tile_by (order_by(row [8, 12])) tile_dims [[2, 4], [4, 3]];
// apply(1, 2, 3, 1) = (1·4+3)·12 + 2·3+1 = 91.
func.func @tiled(%ti: index, %tk: index, %i: index, %k: index) -> index {
  %row = lego.row [8, 12] : !lego.layout
  %order = lego.order_by(%row) : !lego.layout
  %tiled = lego.tile_by %order tile_dims [[2, 4], [4, 3]] : !lego.layout
  %flat = lego.apply %tiled(%ti, %tk, %i, %k) : !lego.layout
  return %flat : index
}
