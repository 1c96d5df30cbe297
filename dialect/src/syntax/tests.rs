//! Tests of the two public directions. Expected generic texts are written by hand from docs/generic-form.md;
//! the printed inputs of the snapshot and round-trip tests are real `mlir-opt --irdl-file=lego.irdl.mlir`
//! output.

use super::lexer::{tokenize, TokenKind};
use super::{to_custom, to_generic, SyntaxError};

const DYN: &str = "-9223372036854775808";

/// `to_generic` of a one-line op in file `f`, which must succeed.
fn generic(custom: &str) -> String {
    match to_generic("f", custom) {
        Ok(text) => text,
        Err(errors) => panic!("{custom}: {errors:?}"),
    }
}

/// The errors `to_generic` reports, as (line, column, message).
fn errors(text: &str) -> Vec<(usize, usize, String)> {
    match to_generic("f", text) {
        Ok(generic) => panic!("expected errors, got {generic}"),
        Err(errors) => errors.into_iter().map(|SyntaxError { line, column, message }| (line, column, message)).collect(),
    }
}

fn error(text: &str) -> (usize, usize, String) {
    errors(text).into_iter().next().unwrap_or_default()
}

/// One op in its written custom form, its generic form (docs/generic-form.md) and its canonical custom form
/// (what `to_custom` prints).
struct Case {
    custom: &'static str,
    generic: String,
    canonical: &'static str,
}

fn case(custom: &'static str, generic: &str, canonical: &'static str) -> Case {
    Case { custom, generic: generic.replace("DYN", DYN), canonical }
}

fn cases() -> Vec<Case> {
    vec![
        // Layout constructors.
        case("%l = lego.row [4, %n] : !lego.layout", "%l = \"lego.row\"(%n) {static_dims = array<i64: 4, DYN>} : (index) -> !lego.layout", "%l = lego.row[4, %n] : !lego.layout"),
        case(
            "%l = lego.row[%m, %n] : !lego.layout",
            "%l = \"lego.row\"(%m, %n) {static_dims = array<i64: DYN, DYN>} : (index, index) -> !lego.layout",
            "%l = lego.row[%m, %n] : !lego.layout",
        ),
        case("%l = lego.col [4, 8] : !lego.layout", "%l = \"lego.col\"() {static_dims = array<i64: 4, 8>} : () -> !lego.layout", "%l = lego.col[4, 8] : !lego.layout"),
        case("%l = lego.row [0, -5] : !lego.layout", "%l = \"lego.row\"() {static_dims = array<i64: 0, -5>} : () -> !lego.layout", "%l = lego.row[0, -5] : !lego.layout"),
        case("%l = lego.row [] : !lego.layout", "%l = \"lego.row\"() {static_dims = array<i64>} : () -> !lego.layout", "%l = lego.row[] : !lego.layout"),
        case(
            "%l = lego.reg_p perm [1, 0] dims [2, %n] : !lego.layout",
            "%l = \"lego.reg_p\"(%n) {perm = array<i64: 1, 0>, static_dims = array<i64: 2, DYN>} : (index) -> !lego.layout",
            "%l = lego.reg_p perm [1, 0] dims[2, %n] : !lego.layout",
        ),
        case(
            "%l = lego.reg_p perm[0, 1] dims[%c4, %c32] : !lego.layout",
            "%l = \"lego.reg_p\"(%c4, %c32) {perm = array<i64: 0, 1>, static_dims = array<i64: DYN, DYN>} : (index, index) -> !lego.layout",
            "%l = lego.reg_p perm [0, 1] dims[%c4, %c32] : !lego.layout",
        ),
        case(
            "%l = lego.order_by(%a, %b) : !lego.layout",
            "%l = \"lego.order_by\"(%a, %b) : (!lego.layout, !lego.layout) -> !lego.layout",
            "%l = lego.order_by(%a, %b) : !lego.layout",
        ),
        case("%l = lego.order_by (%r) : !lego.layout", "%l = \"lego.order_by\"(%r) : (!lego.layout) -> !lego.layout", "%l = lego.order_by(%r) : !lego.layout"),
        case(
            "%l = lego.group_by [6, %m](%a, %b) : !lego.layout",
            "%l = \"lego.group_by\"(%m, %a, %b) {operandSegmentSizes = array<i32: 1, 2>, static_dims = array<i64: 6, DYN>} : (index, !lego.layout, !lego.layout) -> !lego.layout",
            "%l = lego.group_by[6, %m] (%a, %b) : !lego.layout",
        ),
        case(
            "%l = lego.group_by[%c6](%o) : !lego.layout",
            "%l = \"lego.group_by\"(%c6, %o) {operandSegmentSizes = array<i32: 1, 1>, static_dims = array<i64: DYN>} : (index, !lego.layout) -> !lego.layout",
            "%l = lego.group_by[%c6] (%o) : !lego.layout",
        ),
        case(
            "%l = lego.group_by [6, 4] () : !lego.layout",
            "%l = \"lego.group_by\"() {operandSegmentSizes = array<i32: 0, 0>, static_dims = array<i64: 6, 4>} : () -> !lego.layout",
            "%l = lego.group_by[6, 4] () : !lego.layout",
        ),
        case(
            "%l = lego.tile_by %o tile_dims [[2, %t], [4, 3]] : !lego.layout",
            "%l = \"lego.tile_by\"(%o, %t) {static_tile_dims = [array<i64: 2, DYN>, array<i64: 4, 3>]} : (!lego.layout, index) -> !lego.layout",
            "%l = lego.tile_by %o tile_dims [[2, %t], [4, 3]] : !lego.layout",
        ),
        case(
            "%l = lego.tile_by %o tile_dims[[%a, 2], [%b, %c]] : !lego.layout",
            "%l = \"lego.tile_by\"(%o, %a, %b, %c) {static_tile_dims = [array<i64: DYN, 2>, array<i64: DYN, DYN>]} : (!lego.layout, index, index, index) -> !lego.layout",
            "%l = lego.tile_by %o tile_dims [[%a, 2], [%b, %c]] : !lego.layout",
        ),
        case(
            "%l = lego.expand_by %in dims [3, %n] to [4, %m] : !lego.layout",
            "%l = \"lego.expand_by\"(%in, %n, %m) {operandSegmentSizes = array<i32: 1, 1, 1>, static_dims = array<i64: 3, DYN>, static_to_dims = array<i64: 4, DYN>} : (!lego.layout, index, index) -> !lego.layout",
            "%l = lego.expand_by %in dims [3, %n] to [4, %m] : !lego.layout",
        ),
        case(
            "%l = lego.expand_by %in dims [3, 5] to [%m, 8] : !lego.layout",
            "%l = \"lego.expand_by\"(%in, %m) {operandSegmentSizes = array<i32: 1, 0, 1>, static_dims = array<i64: 3, 5>, static_to_dims = array<i64: DYN, 8>} : (!lego.layout, index) -> !lego.layout",
            "%l = lego.expand_by %in dims [3, 5] to [%m, 8] : !lego.layout",
        ),
        // Using layouts.
        case(
            "%f = lego.apply %l(%i, %j) : !lego.layout",
            "%f = \"lego.apply\"(%l, %i, %j) : (!lego.layout, index, index) -> index",
            "%f = lego.apply %l(%i, %j) : !lego.layout",
        ),
        case(
            "%i, %j = lego.apply_inverse %l(%f) : !lego.layout -> index, index",
            "%i, %j = \"lego.apply_inverse\"(%l, %f) : (!lego.layout, index) -> (index, index)",
            "%i, %j = lego.apply_inverse %l(%f) : !lego.layout -> index, index",
        ),
        case(
            "%r:2 = lego.apply_inverse %l(%f) : !lego.layout -> (index, index)",
            "%r:2 = \"lego.apply_inverse\"(%l, %f) : (!lego.layout, index) -> (index, index)",
            "%r:2 = lego.apply_inverse %l(%f) : !lego.layout -> index, index",
        ),
        case(
            "%i = lego.apply_inverse %l(%f) : !lego.layout -> index",
            "%i = \"lego.apply_inverse\"(%l, %f) : (!lego.layout, index) -> index",
            "%i = lego.apply_inverse %l(%f) : !lego.layout -> index",
        ),
        // Views.
        case(
            "%v = lego.cast_view %mem, %l : memref<100xf32>, !lego.layout -> !lego.view<f32>",
            "%v = \"lego.cast_view\"(%mem, %l) : (memref<100xf32>, !lego.layout) -> !lego.view<f32>",
            "%v = lego.cast_view %mem, %l : memref<100xf32>, !lego.layout -> !lego.view<f32>",
        ),
        case(
            "%v = lego.cast_view %mem, %l : memref<4x?xf32>, !lego.layout -> !lego.view<f32>",
            "%v = \"lego.cast_view\"(%mem, %l) : (memref<4x?xf32>, !lego.layout) -> !lego.view<f32>",
            "%v = lego.cast_view %mem, %l : memref<4x?xf32>, !lego.layout -> !lego.view<f32>",
        ),
        case(
            "%x = lego.load %v[%i, %j] : !lego.view<f32>, index, index",
            "%x = \"lego.load\"(%v, %i, %j) : (!lego.view<f32>, index, index) -> f32",
            "%x = lego.load %v[%i, %j] : !lego.view<f32>, index, index",
        ),
        case(
            "%x = lego.load %v[%r#1] : !lego.view<vector<4xf16>>, index",
            "%x = \"lego.load\"(%v, %r#1) : (!lego.view<vector<4xf16>>, index) -> vector<4xf16>",
            "%x = lego.load %v[%r#1] : !lego.view<vector<4xf16>>, index",
        ),
        case(
            "lego.store %x, %v[%i, %j] : f32, !lego.view<f32>, index, index",
            "\"lego.store\"(%x, %v, %i, %j) : (f32, !lego.view<f32>, index, index) -> ()",
            "lego.store %x, %v[%i, %j] : f32, !lego.view<f32>, index, index",
        ),
        // Verification and assumptions.
        case("lego.check %a {coalescing}", "\"lego.check\"(%a) {coalescing} : (index) -> ()", "lego.check %a {coalescing}"),
        case(
            "lego.check %a {bank_conflict_free, num_banks = 16 : i64, warp_size = 16 : i64}",
            "\"lego.check\"(%a) {bank_conflict_free, num_banks = 16 : i64, warp_size = 16 : i64} : (index) -> ()",
            "lego.check %a {bank_conflict_free, num_banks = 16 : i64, warp_size = 16 : i64}",
        ),
        case("lego.check %a", "\"lego.check\"(%a) : (index) -> ()", "lego.check %a"),
        case("lego.assume %c", "\"lego.assume\"(%c) : (i1) -> ()", "lego.assume %c"),
        case(
            "lego.assume_bounds %x lb : %lo ub : %hi",
            "\"lego.assume_bounds\"(%x, %lo, %hi) {operandSegmentSizes = array<i32: 1, 1, 1>} : (index, index, index) -> ()",
            "lego.assume_bounds %x lb : %lo ub : %hi",
        ),
        case(
            "lego.assume_bounds %x lb : %lo",
            "\"lego.assume_bounds\"(%x, %lo) {operandSegmentSizes = array<i32: 1, 1, 0>} : (index, index) -> ()",
            "lego.assume_bounds %x lb : %lo",
        ),
        case(
            "lego.assume_bounds %x ub : %hi",
            "\"lego.assume_bounds\"(%x, %hi) {operandSegmentSizes = array<i32: 1, 0, 1>} : (index, index) -> ()",
            "lego.assume_bounds %x ub : %hi",
        ),
        case(
            "lego.assume_bounds %x ub : %hi lb : %lo",
            "\"lego.assume_bounds\"(%x, %lo, %hi) {operandSegmentSizes = array<i32: 1, 1, 1>} : (index, index, index) -> ()",
            "lego.assume_bounds %x lb : %lo ub : %hi",
        ),
        case("lego.assume_bounds %x", "\"lego.assume_bounds\"(%x) {operandSegmentSizes = array<i32: 1, 0, 0>} : (index) -> ()", "lego.assume_bounds %x"),
        case(
            "lego.assert_apply_bounds %l(%i, %j) : !lego.layout",
            "\"lego.assert_apply_bounds\"(%l, %i, %j) : (!lego.layout, index, index) -> ()",
            "lego.assert_apply_bounds %l(%i, %j) : !lego.layout",
        ),
        case(
            "lego.assert_inv_bounds %l(%f) : !lego.layout",
            "\"lego.assert_inv_bounds\"(%l, %f) : (!lego.layout, index) -> ()",
            "lego.assert_inv_bounds %l(%f) : !lego.layout",
        ),
    ]
}

/// 1-based column of the op name in a one-line custom op (where MLIR locates ops).
fn name_column(text: &str) -> usize {
    text.find("lego.").map_or(1, |offset| offset + 1)
}

#[test]
fn every_op_to_generic() {
    for case in cases() {
        assert_eq!(generic(case.custom), format!("{} loc(\"f\":1:{})", case.generic, name_column(case.custom)), "{}", case.custom);
    }
}

#[test]
fn every_op_to_custom() {
    for case in cases() {
        assert_eq!(to_custom(&case.generic), case.canonical, "{}", case.generic);
        // The canonical form is itself accepted and means the same.
        assert_eq!(generic(case.canonical), format!("{} loc(\"f\":1:{})", case.generic, name_column(case.canonical)), "{}", case.canonical);
    }
}

#[test]
fn every_op_keeps_a_printed_location_and_indentation() {
    for case in cases() {
        let printed = format!("    {} loc(#loc7)\n", case.generic);
        assert_eq!(to_custom(&printed), format!("    {} loc(#loc7)\n", case.canonical));
    }
}

// ---------------------------------------------------------------------------------------------------------
// gen_p and lego.yield.

const GEN_P: &str = "\
%l = lego.gen_p [%c4, 4] apply (%i: index, %j: index) {
  %c = arith.constant 4 : index
  %x = arith.muli %i, %c : index
  %f = arith.addi %x, %j : index
  lego.yield %f : index
} inv (%x: index) {
  %a = arith.divui %x, %c4 : index
  %b = arith.remui %x, %c4 : index
  lego.yield %a, %b : index, index
} : !lego.layout
";

#[test]
fn gen_p_to_generic_keeps_the_region_lines() {
    let expected = format!(
        "\
%l = \"lego.gen_p\"(%c4) ({{ ^bb0(%i: index, %j: index):
  %c = arith.constant 4 : index
  %x = arith.muli %i, %c : index
  %f = arith.addi %x, %j : index
  \"smt.yield\"(%f) : (index) -> () loc(\"f\":5:3)
}}, {{ ^bb0(%x: index):
  %a = arith.divui %x, %c4 : index
  %b = arith.remui %x, %c4 : index
  \"smt.yield\"(%a, %b) : (index, index) -> () loc(\"f\":9:3)
}}) {{static_dims = array<i64: {DYN}, 4>}} : (index) -> !lego.layout loc(\"f\":1:6)
"
    );
    assert_eq!(generic(GEN_P), expected);
}

#[test]
fn gen_p_without_inverse_and_without_spaces() {
    let text = "%b = lego.gen_p[%c4] apply(%i: index) {\n  lego.yield %i : index\n} : !lego.layout";
    let expected = format!(
        "%b = \"lego.gen_p\"(%c4) ({{ ^bb0(%i: index):\n  \"smt.yield\"(%i) : (index) -> () loc(\"f\":2:3)\n}}, {{}}) {{static_dims = array<i64: {DYN}>}} : (index) -> !lego.layout loc(\"f\":1:6)"
    );
    assert_eq!(generic(text), expected);
}

#[test]
fn gen_p_on_one_line_and_with_argument_locations() {
    let text = "%b = lego.gen_p [4] apply (%i: index loc(\"a\":1:2)) { lego.yield %i : index } : !lego.layout";
    let expected = "%b = \"lego.gen_p\"() ({ ^bb0(%i: index loc(\"a\":1:2)): \"smt.yield\"(%i) : (index) -> () loc(\"f\":1:54) }, {}) {static_dims = array<i64: 4>} : () -> !lego.layout loc(\"f\":1:6)";
    assert_eq!(generic(text), expected);
}

#[test]
fn gen_p_header_on_several_lines_is_padded() {
    let text = "%b = lego.gen_p [4]\n    apply (%i: index)\n {\n  lego.yield %i : index\n}\n : !lego.layout\n";
    let expected = "%b = \"lego.gen_p\"() ({ ^bb0(%i: index):\n\n\n  \"smt.yield\"(%i) : (index) -> () loc(\"f\":4:3)\n}, {}) {static_dims = array<i64: 4>} : () -> !lego.layout\n loc(\"f\":1:6)\n";
    assert_eq!(generic(text), expected);
}

#[test]
fn gen_p_regions_may_hold_lego_ops_and_nested_gen_p() {
    let text = "\
%g = lego.gen_p [4] apply (%i: index) {
  %r = lego.row [4] : !lego.layout
  %inner = lego.gen_p [2] apply (%k: index) {
    lego.yield %k : index
  } : !lego.layout
  %f = lego.apply %r(%i) : !lego.layout
  lego.yield %f : index
} : !lego.layout";
    let expected = "\
%g = \"lego.gen_p\"() ({ ^bb0(%i: index):
  %r = \"lego.row\"() {static_dims = array<i64: 4>} : () -> !lego.layout loc(\"f\":2:8)
  %inner = \"lego.gen_p\"() ({ ^bb0(%k: index):
    \"smt.yield\"(%k) : (index) -> () loc(\"f\":4:5)
  }, {}) {static_dims = array<i64: 2>} : () -> !lego.layout loc(\"f\":3:12)
  %f = \"lego.apply\"(%r, %i) : (!lego.layout, index) -> index loc(\"f\":6:8)
  \"smt.yield\"(%f) : (index) -> () loc(\"f\":7:3)
}, {}) {static_dims = array<i64: 4>} : () -> !lego.layout loc(\"f\":1:6)";
    assert_eq!(generic(text), expected);
}

#[test]
fn gen_p_entry_label_avoids_user_labels() {
    let text = "%g = lego.gen_p [4] apply (%i: index) {\n  cf.br ^bb0\n^bb0:\n  lego.yield %i : index\n} : !lego.layout";
    let generic_text = generic(text);
    assert!(
        generic_text.starts_with("%g = \"lego.gen_p\"() ({ ^bb0_1(%i: index):\n  cf.br ^bb0\n^bb0:\n  \"smt.yield\"(%i)"),
        "{generic_text}"
    );
}

#[test]
fn yield_in_a_user_written_generic_gen_p() {
    let text = "%g = \"lego.gen_p\"() ({\n^bb0(%i: index):\n  lego.yield %i : index\n}, {}) {static_dims = array<i64: 4>} : () -> !lego.layout";
    let expected = "%g = \"lego.gen_p\"() ({\n^bb0(%i: index):\n  \"smt.yield\"(%i) : (index) -> () loc(\"f\":3:3)\n}, {}) {static_dims = array<i64: 4>} : () -> !lego.layout";
    assert_eq!(generic(text), expected);
    // An op right after a block label on the same line.
    let text = "%g = \"lego.gen_p\"() ({ ^bb0(%i: index): lego.yield %i : index }, {}) {static_dims = array<i64: 4>} : () -> !lego.layout";
    assert!(generic(text).contains("^bb0(%i: index): \"smt.yield\"(%i) : (index) -> () loc(\"f\":1:41) }"));
}

#[test]
fn gen_p_to_custom() {
    let printed = format!(
        "\
    %1 = \"lego.gen_p\"(%arg1) ({{
    ^bb0(%arg3: index, %arg4: index):
      %c4 = arith.constant 4 : index
      smt.yield %9 : index
    }}, {{
    ^bb0(%arg3: index):
      smt.yield %8, %9 : index, index
    }}) {{static_dims = array<i64: {DYN}, 4>}} : (index) -> !lego.layout loc(#loc6)
    %2 = \"lego.gen_p\"(%arg1) ({{
    ^bb0(%arg3: index):
      \"smt.yield\"(%arg3) : (index) -> ()
    }}, {{
    }}) {{static_dims = array<i64: {DYN}>}} : (index) -> !lego.layout
"
    );
    let expected = "\
    %1 = lego.gen_p[%arg1, 4] apply (%arg3: index, %arg4: index) {
      %c4 = arith.constant 4 : index
      lego.yield %9 : index
    } inv (%arg3: index) {
      lego.yield %8, %9 : index, index
    } : !lego.layout loc(#loc6)
    %2 = lego.gen_p[%arg1] apply (%arg3: index) {
      lego.yield %arg3 : index
    } : !lego.layout
";
    assert_eq!(to_custom(&printed), expected);
}

#[test]
fn only_direct_children_of_gen_p_regions_become_lego_yield() {
    let printed = "\
%0 = \"lego.gen_p\"() ({
^bb0(%arg0: index):
  %1 = scf.if %c -> (index) {
    smt.yield %arg0 : index
  } else {
    scf.yield %arg0 : index
  }
  smt.yield %1 : index
}, {
}) {static_dims = array<i64: 4>} : () -> !lego.layout
smt.yield %x : index
";
    let expected = "\
%0 = lego.gen_p[4] apply (%arg0: index) {
  %1 = scf.if %c -> (index) {
    smt.yield %arg0 : index
  } else {
    scf.yield %arg0 : index
  }
  lego.yield %1 : index
} : !lego.layout
smt.yield %x : index
";
    assert_eq!(to_custom(printed), expected);
}

#[test]
fn gen_p_with_an_entry_block_without_arguments() {
    let printed = "%0 = \"lego.gen_p\"() ({\n  smt.yield %c : index\n}, {\n  smt.yield %c : index\n}) {static_dims = array<i64>} : () -> !lego.layout";
    let custom = to_custom(printed);
    assert_eq!(
        custom,
        "%0 = lego.gen_p[] apply () {\n  lego.yield %c : index\n} inv () {\n  lego.yield %c : index\n} : !lego.layout"
    );
    assert_eq!(generic(&custom), "%0 = \"lego.gen_p\"() ({\n  \"smt.yield\"(%c) : (index) -> () loc(\"f\":2:3)\n}, {\n  \"smt.yield\"(%c) : (index) -> () loc(\"f\":4:3)\n}) {static_dims = array<i64>} : () -> !lego.layout loc(\"f\":1:6)");
}

// ---------------------------------------------------------------------------------------------------------
// Locations, lines, pass-through.

#[test]
fn location_points_at_the_op_name_and_escapes_the_file_name() {
    assert_eq!(
        to_generic("dir/a \"b\".mlir", "  lego.assume %c\n    %x = lego.apply %l() : !lego.layout"),
        Ok("  \"lego.assume\"(%c) : (i1) -> () loc(\"dir/a \\\"b\\\".mlir\":1:3)\n    %x = \"lego.apply\"(%l) : (!lego.layout) -> index loc(\"dir/a \\\"b\\\".mlir\":2:10)".to_string())
    );
}

#[test]
fn a_written_location_is_kept() {
    assert_eq!(generic("lego.assume %c loc(\"user.mlir\":7:1)"), "\"lego.assume\"(%c) : (i1) -> () loc(\"user.mlir\":7:1)");
    assert_eq!(generic("lego.assume %c loc(#loc3)"), "\"lego.assume\"(%c) : (i1) -> () loc(#loc3)");
}

#[test]
fn multi_line_ops_keep_their_line_count() {
    let text =
        "lego.assert_apply_bounds %g(%n,\n     %c4)\n : !lego.layout loc(#l)\n%x = lego.row [4,\n 5] : !lego.layout\nreturn";
    let expected = "\"lego.assert_apply_bounds\"(%g, %n, %c4) : (!lego.layout, index, index) -> ()\n\n loc(#l)\n%x = \"lego.row\"() {static_dims = array<i64: 4, 5>} : () -> !lego.layout\n loc(\"f\":4:6)\nreturn";
    let generic_text = generic(text);
    assert_eq!(generic_text, expected);
    assert_eq!(generic_text.lines().count(), text.lines().count());
}

#[test]
fn everything_else_passes_through() {
    let text = "\
!v = !lego.view<f32>
#map = affine_map<(d0)[s0] -> (d0 + s0)>
// lego.row [4] : !lego.layout in a comment
func.func @k(%tid: index {lego.thread_id}, %m: memref<4x?xf32>) {
  %0 = \"lego.row\"(%n) {static_dims = array<i64: 4, -9223372036854775808>} : (index) -> !lego.layout
  %s = \"test.op\"() {name = \"lego.row\", lego.hint = 3} : () -> !llvm.ptr<1>
  %g = \"lego.gen_p\"() ({
  ^bb0(%i: index):
    smt.yield %i : index
  }, {}) {static_dims = array<i64: 4>} : () -> !lego.layout
  %big = arith.constant -0x7FFF : i64
  %f = arith.constant 1.5e-3 : f32
  return
}
";
    assert_eq!(generic(text), text);
}

#[test]
fn load_resolves_type_aliases() {
    let text = "!v = !lego.view<f32>\n!w = !v\n%x = lego.load %v[%i] : !w, index";
    assert_eq!(generic(text), "!v = !lego.view<f32>\n!w = !v\n%x = \"lego.load\"(%v, %i) : (!w, index) -> f32 loc(\"f\":3:6)");
}

#[test]
fn layout_type_may_be_an_alias() {
    let text = "!L = !lego.layout\n%l = lego.row [4] : !L";
    assert_eq!(generic(text), "!L = !lego.layout\n%l = \"lego.row\"() {static_dims = array<i64: 4>} : () -> !L loc(\"f\":2:6)");
}

// ---------------------------------------------------------------------------------------------------------
// Errors.

#[test]
fn error_messages_and_positions() {
    let expect = |text: &str, line: usize, column: usize, message: &str| {
        assert_eq!(error(text), (line, column, message.to_string()), "{text}");
    };
    expect("%l = lego.reg_p perm [1, 0] dims (2, 2) : !lego.layout", 1, 34, "expected '[' after 'dims'");
    expect("%l = lego.reg_p [1, 0] dims [2, 2] : !lego.layout", 1, 17, "expected 'perm' after 'lego.reg_p'");
    expect("%l = lego.reg_p perm [%a, 0] dims [2, 2] : !lego.layout", 1, 23, "reg_p 'perm' entries must be integer literals");
    expect("%l = lego.foo [4] : !lego.layout", 1, 6, "custom op 'lego.foo' is unknown");
    expect("func.func @f() {\n  lego.yield %x : index\n}", 2, 3, "'lego.yield' op expects parent op 'lego.gen_p'");
    expect("%l = lego.row [4] : index", 1, 21, "expected ':' followed by '!lego.layout'");
    expect("%l = lego.row [4]", 1, 18, "expected ':' followed by '!lego.layout'");
    expect("%l = lego.row 4 : !lego.layout", 1, 15, "expected '[' after 'lego.row'");
    expect("%l = lego.row [4; 5] : !lego.layout", 1, 17, "unexpected character ';'");
    expect("%l = lego.row [4 5] : !lego.layout", 1, 18, "expected ',' or ']' in list");
    expect("%l = lego.row [4, f32] : !lego.layout", 1, 19, "expected integer literal or SSA value in dimension list");
    expect("%l = lego.row [4 : !lego.layout", 1, 18, "expected ',' or ']' in list");
    expect("%l = lego.row 4, 8] : !lego.layout", 1, 15, "expected '[' after 'lego.row'");
    expect("func.func @f() {\n  %l = lego.row [4] : !lego.layout\n", 1, 16, "unbalanced '{': no matching '}'");
    expect(
        "%x = \"foo.bar\"(%a] : (index) -> index\n%l = lego.row [4] : !lego.layout",
        1,
        18,
        "expected ')' to match '(' at 1:15, found ']'",
    );
    expect("%l = lego.gen_p [4] apply (%i: index) {\n  lego.yield %i : index\n", 1, 39, "unbalanced '{'");
    expect("%l = \"lego.row", 1, 6, "unterminated string literal");
    expect(
        "%l = lego.row [99999999999999999999] : !lego.layout",
        1,
        16,
        "integer literal '99999999999999999999' does not fit in 64 bits",
    );
    expect(
        "%l = lego.row [-9223372036854775808] : !lego.layout",
        1,
        16,
        "dimension -9223372036854775808 is reserved for dynamic sizes",
    );
    expect("%l = lego.gen_p [4] (%i: index) {\n} : !lego.layout", 1, 21, "expected 'apply' after ']'");
    expect("%l = lego.gen_p [4] apply (%i: index) : !lego.layout", 1, 39, "expected '{' to begin the 'apply' region");
    expect("%l = lego.gen_p [4] apply (%i index) {\n}", 1, 31, "expected ':' and type for region argument");
    expect("%l = lego.tile_by %o tile_dims [2, 3] : !lego.layout", 1, 33, "expected '[' after 'tile_dims'");
    expect("%l = lego.expand_by %o dims [2] [4] : !lego.layout", 1, 33, "expected 'to' after 'dims [...]'");
    expect("%f = lego.apply %l[%i] : !lego.layout", 1, 19, "expected '(' after '%l'");
    expect("%f = lego.apply %l(%i, 4) : !lego.layout", 1, 24, "expected SSA operand");
    expect("%i = lego.apply_inverse %l(%f) : !lego.layout", 1, 46, "expected '->' followed by the result types");
    expect(
        "%x = lego.load %v[%i] : memref<4xf32>, index",
        1,
        25,
        "cannot determine the element type of 'lego.load': expected '!lego.view<T>', found 'memref<4xf32>'",
    );
    expect(
        "%x = lego.load %v[%i] : !v, index",
        1,
        25,
        "cannot determine the element type of 'lego.load': expected '!lego.view<T>', found '!v'",
    );
    expect("lego.store %x, %v[%i] : f32, !lego.view<f32>", 1, 25, "expected 3 types (one per operand), found 2");
    expect("lego.assume_bounds %x lb : %a lb : %b", 1, 31, "'lb' given twice");
    expect("lego.assume_bounds %x lb %a", 1, 26, "expected ':' after 'lb'");
    expect(
        "%v = lego.cast_view %m %l : memref<4xf32>, !lego.layout -> !lego.view<f32>",
        1,
        24,
        "expected ',' after the memref operand",
    );
    expect(
        "%g = lego.gen_p [4] apply (%i: index) {\n  lego.yield %i\n} : !lego.layout",
        3,
        1,
        "expected ':' followed by the types of the yielded values",
    );
}

#[test]
fn yield_nested_below_a_gen_p_region_is_an_error() {
    let text = "%g = lego.gen_p [4] apply (%i: index) {\n  scf.if %c {\n    lego.yield %i : index\n  }\n  lego.yield %i : index\n} : !lego.layout";
    assert_eq!(errors(text), vec![(3, 5, "'lego.yield' op expects parent op 'lego.gen_p'".to_string())]);
}

#[test]
fn several_errors_are_reported_in_order_without_echoes() {
    let text = "%a = lego.row [4 5] : !lego.layout\n%b = lego.col [4] : !lego.layout\n%c = lego.nope\n%g = lego.gen_p [4] oops (%i: index) {\n  lego.yield %i : index\n} : !lego.layout\n%d = lego.row [x] : !lego.layout";
    let found: Vec<(usize, usize)> = errors(text).into_iter().map(|(line, column, _)| (line, column)).collect();
    assert_eq!(found, vec![(1, 18), (3, 6), (4, 21), (7, 16)]);
}

#[test]
fn invalid_values_are_not_syntax_errors() {
    // The verifier reports these, with MLIR's location machinery.
    assert_eq!(
        generic("%l = lego.reg_p perm [5, 5] dims [0] : !lego.layout"),
        "%l = \"lego.reg_p\"() {perm = array<i64: 5, 5>, static_dims = array<i64: 0>} : () -> !lego.layout loc(\"f\":1:6)"
    );
    assert_eq!(generic("%l = lego.tile_by %o tile_dims [[0], [2, 3]] : !lego.layout"), "%l = \"lego.tile_by\"(%o) {static_tile_dims = [array<i64: 0>, array<i64: 2, 3>]} : (!lego.layout) -> !lego.layout loc(\"f\":1:6)");
}

// ---------------------------------------------------------------------------------------------------------
// to_custom leaves alone what the custom form cannot say.

#[test]
fn ops_the_custom_form_cannot_express_stay_generic() {
    let unchanged = [
        // A discardable attribute.
        "%0 = \"lego.row\"() {note = \"kept\", static_dims = array<i64: 4>} : () -> !lego.layout",
        // A result type other than !lego.layout.
        "%0 = \"lego.row\"() {static_dims = array<i64: 4>} : () -> index",
        // More SSA operands than dynamic entries, or fewer.
        "%0 = \"lego.row\"(%a, %b) {static_dims = array<i64: 4, -9223372036854775808>} : (index, index) -> !lego.layout",
        "%0 = \"lego.row\"() {static_dims = array<i64: -9223372036854775808>} : () -> !lego.layout",
        // An index operand of another type.
        "%0 = \"lego.row\"(%a) {static_dims = array<i64: -9223372036854775808>} : (i32) -> !lego.layout",
        // Wrong segment sizes, missing attributes, properties.
        "%0 = \"lego.group_by\"(%a) {operandSegmentSizes = array<i32: 0, 1>, static_dims = array<i64: -9223372036854775808>} : (index) -> !lego.layout",
        "%0 = \"lego.reg_p\"() {static_dims = array<i64: 4>} : () -> !lego.layout",
        "%0 = \"lego.row\"() <{static_dims = array<i64: 4>}> : () -> !lego.layout",
        // A load whose result is not the view's element type.
        "%0 = \"lego.load\"(%v) : (!lego.view<f32>) -> i32",
        "\"lego.assume\"(%c) : (index) -> ()",
        // Unknown op, and a gen_p with one region or an empty apply region.
        "%0 = \"lego.frobnicate\"(%c) : (index) -> ()",
        "%0 = \"lego.gen_p\"() ({\n^bb0(%i: index):\n  smt.yield %i : index\n}) {static_dims = array<i64: 4>} : () -> !lego.layout",
        "%0 = \"lego.gen_p\"() ({\n}, {\n}) {static_dims = array<i64: 4>} : () -> !lego.layout",
        // A block label without arguments has no custom spelling.
        "%0 = \"lego.gen_p\"() ({\n^bb0:\n  smt.yield %c : index\n}, {\n}) {static_dims = array<i64: 4>} : () -> !lego.layout",
        // smt.yield outside gen_p, or with an attribute dictionary.
        "smt.yield %x : index",
        "%0 = \"lego.gen_p\"() ({\n^bb0(%i: index):\n  smt.yield %i : index {a}\n}, {\n}) {note, static_dims = array<i64: 4>} : () -> !lego.layout",
        // Not MLIR at all.
        "%0 = \"lego.row\"(%a",
    ];
    for text in unchanged {
        assert_eq!(to_custom(text), text);
    }
}

#[test]
fn a_generic_gen_p_left_alone_still_converts_what_it_contains() {
    let printed = "%0 = \"lego.gen_p\"() ({\n^bb0(%i: index):\n  %1 = \"lego.apply\"(%l, %i) : (!lego.layout, index) -> index\n  smt.yield %1 : index\n}, {\n}) {note, static_dims = array<i64: 4>} : () -> !lego.layout";
    let expected = "%0 = \"lego.gen_p\"() ({\n^bb0(%i: index):\n  %1 = lego.apply %l(%i) : !lego.layout\n  smt.yield %1 : index\n}, {\n}) {note, static_dims = array<i64: 4>} : () -> !lego.layout";
    assert_eq!(to_custom(printed), expected);
}

// ---------------------------------------------------------------------------------------------------------
// Printed files: snapshots and the round-trip property.

/// `mlir-opt --irdl-file=dialect/src/lego.irdl.mlir` on a file using every op.
const PRINTED: &str = include_str!("testdata/printed.mlir");
/// The same with `--mlir-print-debuginfo`.
const PRINTED_DEBUGINFO: &str = include_str!("testdata/printed_debuginfo.mlir");
/// The same with `--mlir-print-op-generic`.
const PRINTED_GENERIC: &str = include_str!("testdata/printed_generic.mlir");
/// Nested regions, several blocks, ops that must stay generic.
const PRINTED_NESTED: &str = include_str!("testdata/printed_nested.mlir");

#[test]
fn snapshot_printed() {
    insta::assert_snapshot!(to_custom(PRINTED));
}

#[test]
fn snapshot_printed_debuginfo() {
    insta::assert_snapshot!(to_custom(PRINTED_DEBUGINFO));
}

#[test]
fn snapshot_printed_generic() {
    insta::assert_snapshot!(to_custom(PRINTED_GENERIC));
}

#[test]
fn snapshot_printed_nested() {
    insta::assert_snapshot!(to_custom(PRINTED_NESTED));
}

/// Tokens of `text` without locations, with MLIR's custom `smt.yield %a : t` spelled generically, so that
/// two texts of the same IR compare equal whatever their spacing and locations.
fn normalized_tokens(text: &str) -> Vec<(TokenKind, String)> {
    let lexed = tokenize(text);
    assert!(lexed.errors.is_empty(), "{:?}", lexed.errors);
    let tokens: Vec<_> =
        lexed.tokens.into_iter().filter(|token| !matches!(token.kind, TokenKind::Loc | TokenKind::Comment)).collect();
    let mut normalized = Vec::new();
    let mut index = 0;
    while index < tokens.len() {
        let token = tokens[index];
        index += 1;
        if !token.is_word("smt.yield") {
            normalized.push((token.kind, token.text.split_whitespace().collect()));
            continue;
        }
        // `smt.yield a, b : t, u` (one line) → `"smt.yield"(a, b) : (t, u) -> ()`.
        let line_end =
            tokens[index..].iter().position(|next| next.line != token.line).map_or(tokens.len(), |offset| index + offset);
        let colon = tokens[index..line_end].iter().position(|next| next.is_punct(":")).map_or(line_end, |offset| index + offset);
        let punct = |text: &str| (TokenKind::Punct, text.to_string());
        normalized.push((TokenKind::String, "\"smt.yield\"".to_string()));
        normalized.push(punct("("));
        normalized.extend(tokens[index..colon].iter().map(|token| (token.kind, token.text.to_string())));
        normalized.extend([punct(")"), punct(":"), punct("(")]);
        normalized.extend(tokens[(colon + 1).min(line_end)..line_end].iter().map(|token| (token.kind, token.text.to_string())));
        normalized.extend([punct(")"), punct("->"), punct("("), punct(")")]);
        index = line_end;
    }
    normalized
}

/// A hand-written corpus of generic ops covering every op and variant.
fn generic_corpus() -> String {
    let mut corpus: Vec<String> = cases().into_iter().map(|case| case.generic).collect();
    corpus.push(format!(
        "%g = \"lego.gen_p\"(%c4) ({{\n^bb0(%i: index, %j: index):\n  smt.yield %i : index\n}}, {{\n^bb0(%x: index):\n  \"smt.yield\"(%x, %x) : (index, index) -> ()\n}}) {{static_dims = array<i64: {DYN}, 4>}} : (index) -> !lego.layout"
    ));
    corpus.push("%g = \"lego.gen_p\"() ({\n^bb0(%i: index loc(\"f\":1:1)):\n  smt.yield %i : index\n}, {\n}) {static_dims = array<i64: 4>} : () -> !lego.layout loc(#loc)".to_string());
    corpus.join("\n")
}

#[test]
fn round_trip_generic_custom_generic() {
    for printed in [PRINTED, PRINTED_DEBUGINFO, PRINTED_GENERIC, PRINTED_NESTED, &generic_corpus()] {
        let custom = to_custom(printed);
        let again = to_generic("f", &custom).unwrap_or_else(|errors| panic!("{custom}\n{errors:?}"));
        assert_eq!(normalized_tokens(&again), normalized_tokens(printed), "{custom}");
        // And printing the re-parsed text gives the same custom form.
        assert_eq!(to_custom(&again).lines().count(), custom.lines().count());
    }
}

#[test]
fn round_trip_custom_generic_custom() {
    for case in cases() {
        assert_eq!(to_custom(&generic(case.custom)), format!("{} loc(\"f\":1:{})", case.canonical, name_column(case.custom)));
    }
    let custom = to_custom(PRINTED);
    let generic_text = generic(&custom);
    assert_eq!(to_custom(&generic_text).lines().map(strip_loc).collect::<Vec<_>>(), custom.lines().collect::<Vec<_>>());
}

fn strip_loc(line: &str) -> &str {
    line.find(" loc(\"f\"").map_or(line, |at| &line[..at])
}

// ---------------------------------------------------------------------------------------------------------
// Robustness: no input makes either direction panic.

/// xorshift64*: a deterministic source of garbage without a dependency.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, bound: usize) -> usize {
        usize::try_from(self.next() % u64::try_from(bound.max(1)).unwrap_or(1)).unwrap_or(0)
    }
}

fn exercise(text: &str) {
    let _ = to_generic("f", text);
    let _ = to_custom(text);
}

#[test]
fn truncations_of_valid_inputs_do_not_panic() {
    let corpus = [
        GEN_P,
        PRINTED,
        PRINTED_NESTED,
        &generic_corpus(),
        &cases().iter().map(|case| case.custom).collect::<Vec<_>>().join("\n"),
    ];
    for text in corpus {
        for (end, _) in text.char_indices() {
            exercise(&text[..end]);
            exercise(&text[end..]);
        }
    }
}

#[test]
fn random_garbage_does_not_panic() {
    let mut random = Random(0x9E37_79B9_7F4A_7C15);
    for _ in 0..3000 {
        let bytes: Vec<u8> = (0..random.below(160)).map(|_| (random.next() & 0xFF) as u8).collect();
        exercise(&String::from_utf8_lossy(&bytes));
    }
    // Garbage made of MLIR's own pieces reaches deeper into the parsers.
    let pieces = [
        "%a",
        "%r:2",
        "%r#1",
        " = ",
        "lego.row",
        "lego.gen_p",
        "lego.yield",
        "lego.load",
        "lego.tile_by",
        "lego.assume_bounds",
        "\"lego.gen_p\"",
        "\"smt.yield\"",
        "smt.yield",
        "[",
        "]",
        "(",
        ")",
        "{",
        "}",
        "<",
        ">",
        ",",
        ":",
        "->",
        "\n",
        " ",
        "4",
        "-5",
        "apply",
        "inv",
        "dims",
        "perm",
        "to",
        "tile_dims",
        "lb",
        "ub",
        "!lego.layout",
        "!lego.view<f32>",
        "index",
        "^bb0",
        "loc(#l)",
        "\"",
        "array<i64: 1>",
        "// c\n",
    ];
    for _ in 0..5000 {
        let text: String = (0..random.below(40)).map(|_| pieces[random.below(pieces.len())]).collect();
        exercise(&text);
    }
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    exercise(&"{".repeat(100_000));
    let at_bound = format!("x = {}{}", "[".repeat(1000), "]".repeat(1000));
    assert!(to_generic("f", &at_bound).is_ok());
    let over_bound = format!("x = {}{}", "[".repeat(1001), "]".repeat(1001));
    let errors = to_generic("f", &over_bound).expect_err("too deep");
    assert_eq!((errors[0].line, errors[0].column), (1, 1005));
    let in_body = format!("!t = !llvm.struct<{}{}>", "(".repeat(1001), ")".repeat(1001));
    assert!(to_generic("f", &in_body).expect_err("too deep")[0].message.starts_with("brackets nested more than"));
    let deep_type = format!("{}{}", "(".repeat(50_000), ")".repeat(50_000));
    let result = to_generic("f", &format!("%a = lego.apply_inverse %l(%f) : !lego.layout -> {deep_type}"));
    // Rejected by the nesting bound of the whole text (MLIR's parser would overflow on it) before the custom op
    // parser's own bound on type nesting is reached.
    assert!(matches!(&result, Err(errors) if errors[0].message.starts_with("brackets nested more than 1000 deep")), "{result:?}");
    exercise(&format!("%a = \"lego.apply\"(%l) : ({deep_type}) -> index"));
    let nested_gen_p =
        "%g = lego.gen_p [1] apply (%i: index) {\n".repeat(500) + &"lego.yield %i : index\n} : !lego.layout\n".repeat(500);
    let result = to_generic("f", &nested_gen_p);
    assert!(matches!(&result, Err(errors) if errors[0].message == "'lego.gen_p' regions are nested too deeply"), "{result:?}");
    let printed_nested = "%0 = \"lego.gen_p\"() ({\n^bb0(%i: index):\n".repeat(500)
        + &"smt.yield %i : index\n}, {\n}) {static_dims = array<i64: 1>} : () -> !lego.layout\n".repeat(500);
    let custom = to_custom(&printed_nested);
    assert!(custom.contains("lego.gen_p[1] apply"));
}

#[test]
fn a_location_the_parser_gives_the_op_itself_is_left_out() {
    // `"lego.assume"` and `"lego.apply"` start where `lego.assume` and `lego.apply` did, so MLIR's parser
    // locates them there; the results of the third op are respaced, which moves its name one column right.
    let text = "  lego.assume %c\n    %x = lego.apply %l() : !lego.layout\n%a,%b = lego.apply_inverse %l(%x) : !lego.layout -> index, index";
    assert_eq!(
        super::to_generic_parsed_as("f", text),
        Ok("  \"lego.assume\"(%c) : (i1) -> ()\n    %x = \"lego.apply\"(%l) : (!lego.layout) -> index\n%a, %b = \"lego.apply_inverse\"(%l, %x) : (!lego.layout, index) -> (index, index) loc(\"f\":3:9)".to_string())
    );
    // Only the locations differ from `to_generic`'s.
    let explicit = to_generic("f", text).unwrap_or_default();
    assert_eq!(explicit.lines().filter(|line| line.contains(" loc(\"f\":")).count(), 3);
}

#[test]
fn a_location_is_left_out_only_at_the_end_of_a_line() {
    // The first `lego.yield` stands where it stood, but `}` and the second region follow it on its line.
    let text = "%l = lego.gen_p [4] apply (%a: index) { lego.yield %a : index } inv (%x: index) { lego.yield %x : index } : !lego.layout";
    assert_eq!(super::to_generic_parsed_as("f", text), to_generic("f", text));
}
