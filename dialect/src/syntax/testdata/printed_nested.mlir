module {
  func.func @nested(%arg0: index, %arg1: i1) -> index {
    %0 = "lego.gen_p"(%arg0) ({
    ^bb0(%arg2: index):
      %4 = scf.if %arg1 -> (index) {
        scf.yield %arg2 : index
      } else {
        %6 = "lego.row"() {static_dims = array<i64: 4>} : () -> !lego.layout
        %7 = "lego.apply"(%6, %arg2) : (!lego.layout, index) -> index
        scf.yield %7 : index
      }
      cf.br ^bb1(%4 : index)
    ^bb1(%5: index):  // pred: ^bb0
      smt.yield %5 : index
    }, {
    ^bb0(%arg2: index):
      %4 = "lego.gen_p"() ({
      ^bb0(%arg3: index):
        smt.yield %arg3 : index
      }, {
      }) {static_dims = array<i64: 8>} : () -> !lego.layout
      smt.yield %arg2 : index
    }) {static_dims = array<i64: -9223372036854775808>} : (index) -> !lego.layout
    %1 = "lego.row"() {note = "kept", static_dims = array<i64: 4>} : () -> !lego.layout
    %2 = "lego.gen_p"() ({
    ^bb0(%arg2: index):
      smt.yield %arg2 : index
    }, {
    }) {note = 1 : i64, static_dims = array<i64: 4>} : () -> !lego.layout
    %3 = "lego.apply"(%0, %arg0) : (!lego.layout, index) -> index
    return %3 : index
  }
}

