func.func @broken() {
  %l = lego.row [2, 3 : !lego.layout
  return
}
