// Bad input: a located error naming the op (or function) and the language, exit status 1.
// RUN: not lego-translate --lego-to-c %s --split-input-file 2>&1 | FileCheck %s --check-prefix=ERR-C
// RUN: lego-translate --lego-to-glsl %s --split-input-file --verify-diagnostics
// RUN: not lego-translate --lego-to-glsl %s --split-input-file -o %t.glsl 2>&1 | FileCheck %s --check-prefix=ERR-GLSL

// A non-index signature.
// ERR-C: errors.mlir:[[@LINE+2]]:1: error: function @f32: argument #0 has type 'i32'; only 'index' arguments and results can be translated (translating to C)
// expected-error @+1 {{function @f32: argument #0 has type 'i32'; only 'index' arguments and results can be translated (translating to GLSL)}}
func.func @f32(%x: i32) -> index {
  %c = arith.constant 1 : index
  return %c : index
}

// -----

// A constant that does not fit the 32-bit shader index type.
func.func @big(%x: index) -> index {
  // expected-error @+1 {{'arith.constant' 4294967296: does not fit GLSL's 32-bit 'uint' (values below 2^32)}}
  %c = arith.constant 4294967296 : index
  %y = arith.addi %x, %c : index
  return %y : index
}

// -----

// A signed op the unsigned 32-bit type cannot express exactly.
func.func @signed(%x: index, %y: index) -> index {
  // expected-error @+1 {{'arith.divsi' cannot be expressed in GLSL: signed operations on the 32-bit unsigned index type are not exact}}
  %q = arith.divsi %x, %y : index
  return %q : index
}

// -----

// An op outside the translatable set.
func.func @loop(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // ERR-C: errors.mlir:[[@LINE+2]]:8: error: 'scf.for' op cannot be translated: lego-translate prints arith integer ops, arith.select, scf.if, math.ctlz/cttz/ctpop and affine.(de)linearize_index on 'index' values (translating to C)
  // expected-error @+1 {{'scf.for' op cannot be translated}}
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (index) {
    %b = arith.addi %a, %i : index
    scf.yield %b : index
  }
  return %s : index
}

// -----

// A function name the language cannot spell.
// expected-error @+1 {{function name @main is not a valid GLSL identifier}}
func.func @main(%x: index) -> index {
  return %x : index
}

// -----

// A shift amount beyond 32 bits.
func.func @shift(%x: index) -> index {
  %c40 = arith.constant 40 : index
  // expected-error @+1 {{'arith.shli' shifts by 40, out of GLSL's 32-bit range}}
  %y = arith.shli %x, %c40 : index
  return %y : index
}

// -----

// A non-index result.
func.func @flag(%x: index, %y: index) -> i1 {
  %p = arith.cmpi ult, %x, %y : index
  // ERR-C: errors.mlir:[[@LINE+2]]:3: error: function @flag: result #0 has type 'i1'; only 'index' arguments and results can be translated (translating to C)
  // expected-error @+1 {{function @flag: result #0 has type 'i1'; only 'index' arguments and results can be translated (translating to GLSL)}}
  return %p : i1
}

// ERR-GLSL-COUNT-7: error:
