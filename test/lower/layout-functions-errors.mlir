// Functions returning !lego.layout that cannot be inlined: located errors at the call.
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-to-arith

module {
  func.func private @external() -> !lego.layout
  func.func @user(%i: index) -> index {
    // expected-error @+1 {{'func.call' op cannot inline @external: it has no body}}
    %l = func.call @external() : () -> !lego.layout
    %f = lego.apply %l(%i) : !lego.layout
    return %f : index
  }
}

// -----

module {
  func.func @loop(%n: index) -> !lego.layout {
    // expected-error @+1 {{'func.call' op calls a function returning !lego.layout recursively: it cannot be inlined}}
    %l = func.call @loop(%n) : (index) -> !lego.layout
    return %l : !lego.layout
  }
  func.func @user(%n: index, %i: index) -> index {
    %l = func.call @loop(%n) : (index) -> !lego.layout
    %f = lego.apply %l(%i) : !lego.layout
    return %f : index
  }
}

// -----

// Twin of the first: a definition with a body inlines, and a wrong index count is then reported at the apply.
module {
  func.func private @tile() -> !lego.layout {
    %r = lego.row [4, 4] : !lego.layout
    return %r : !lego.layout
  }
  func.func @user(%i: index) -> index {
    %l = func.call @tile() : () -> !lego.layout
    // expected-error @+1 {{'lego.apply' op number of indices (1) does not match layout rank (2)}}
    %f = lego.apply %l(%i) : !lego.layout
    return %f : index
  }
}
