// The `lego` dialect, registered at run time with mlirLoadIRDLDialects.
// IRDL checks operand/result types, arities and segment sizes; every rule it cannot express (permutations,
// positive sizes, ranks, volumes, region shapes) lives in `verify.rs`, which runs after parsing and after
// every pass. Each constraint value (`%x = irdl.…`) binds: two uses of one value must be equal, so every
// attribute gets its own. The generic form of each op is documented in docs/generic-form.md.
irdl.dialect @lego {
  irdl.type @layout {
    irdl.parameters()
  }
  irdl.type @view {
    %element = irdl.any
    irdl.parameters(element_type: %element)
  }

  // Layout constructors. Dimension lists are `static_dims` (kDynamic for SSA entries) + index operands.
  irdl.operation @row {
    %index = irdl.is index
    %layout = irdl.base @lego::@layout
    %array = irdl.base "#builtin.dense_array"
    irdl.operands(dims: variadic %index)
    irdl.results(result: %layout)
    irdl.attributes { "static_dims" = %array }
  }
  irdl.operation @col {
    %index = irdl.is index
    %layout = irdl.base @lego::@layout
    %array = irdl.base "#builtin.dense_array"
    irdl.operands(dims: variadic %index)
    irdl.results(result: %layout)
    irdl.attributes { "static_dims" = %array }
  }
  irdl.operation @reg_p {
    %index = irdl.is index
    %layout = irdl.base @lego::@layout
    %perm = irdl.base "#builtin.dense_array"
    %array = irdl.base "#builtin.dense_array"
    irdl.operands(dims: variadic %index)
    irdl.results(result: %layout)
    irdl.attributes { "perm" = %perm, "static_dims" = %array }
  }
  irdl.operation @gen_p {
    %index = irdl.is index
    %layout = irdl.base @lego::@layout
    %array = irdl.base "#builtin.dense_array"
    %apply = irdl.region
    %inv = irdl.region
    irdl.operands(dims: variadic %index)
    irdl.results(result: %layout)
    irdl.attributes { "static_dims" = %array }
    irdl.regions(apply: %apply, inv: %inv)
  }
  irdl.operation @order_by {
    %layout = irdl.base @lego::@layout
    irdl.operands(objects: variadic %layout)
    irdl.results(result: %layout)
  }
  irdl.operation @group_by {
    %index = irdl.is index
    %layout = irdl.base @lego::@layout
    %array = irdl.base "#builtin.dense_array"
    irdl.operands(dims: variadic %index, objects: variadic %layout)
    irdl.results(result: %layout)
    irdl.attributes { "static_dims" = %array }
  }
  irdl.operation @tile_by {
    %index = irdl.is index
    %layout = irdl.base @lego::@layout
    %levels = irdl.base "#builtin.array"
    irdl.operands(inner: %layout, tile_dims: variadic %index)
    irdl.results(result: %layout)
    irdl.attributes { "static_tile_dims" = %levels }
  }
  irdl.operation @expand_by {
    %index = irdl.is index
    %layout = irdl.base @lego::@layout
    %array = irdl.base "#builtin.dense_array"
    %to_array = irdl.base "#builtin.dense_array"
    irdl.operands(inner: %layout, dims: variadic %index, to_dims: variadic %index)
    irdl.results(result: %layout)
    irdl.attributes { "static_dims" = %array, "static_to_dims" = %to_array }
  }
  // CuTe's Swizzle<B, M, S> over the row-major flat index of its dims: `swizzle = array<i64: B, M, S>`.
  irdl.operation @swizzle {
    %index = irdl.is index
    %layout = irdl.base @lego::@layout
    %array = irdl.base "#builtin.dense_array"
    %swizzle = irdl.base "#builtin.dense_array"
    irdl.operands(dims: variadic %index)
    irdl.results(result: %layout)
    irdl.attributes { "static_dims" = %array, "swizzle" = %swizzle }
  }
  // `outer` after `inner` (CuTe's composition(outer, inner)); the result has `inner`'s dims.
  irdl.operation @compose {
    %layout = irdl.base @lego::@layout
    irdl.operands(outer: %layout, inner: %layout)
    irdl.results(result: %layout)
  }
  // The inverse of a bijection, as a layout over [numel(inner)].
  irdl.operation @inverse {
    %layout = irdl.base @lego::@layout
    irdl.operands(inner: %layout)
    irdl.results(result: %layout)
  }
  // CuTe's shape:stride: `modes` holds the number of leaves of each logical dim, `shape` and `stride` the
  // leaves' sizes and strides, mode by mode (literals only: injectivity is checked at compile time).
  irdl.operation @strided {
    %layout = irdl.base @lego::@layout
    %modes = irdl.base "#builtin.dense_array"
    %shape = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    irdl.operands()
    irdl.results(result: %layout)
    irdl.attributes { "modes" = %modes, "shape" = %shape, "stride" = %stride }
  }

  // Using layouts.
  irdl.operation @apply {
    %index = irdl.is index
    %layout = irdl.base @lego::@layout
    irdl.operands(layout: %layout, indices: variadic %index)
    irdl.results(flat: %index)
  }
  irdl.operation @apply_inverse {
    %index = irdl.is index
    %layout = irdl.base @lego::@layout
    irdl.operands(layout: %layout, flat: %index)
    irdl.results(indices: variadic %index)
  }

  // Views.
  irdl.operation @cast_view {
    %memref = irdl.base "!builtin.memref"
    %layout = irdl.base @lego::@layout
    %view = irdl.base @lego::@view
    irdl.operands(memref: %memref, layout: %layout)
    irdl.results(view: %view)
  }
  irdl.operation @load {
    %index = irdl.is index
    %view = irdl.base @lego::@view
    %any = irdl.any
    irdl.operands(view: %view, indices: variadic %index)
    irdl.results(value: %any)
  }
  irdl.operation @store {
    %index = irdl.is index
    %view = irdl.base @lego::@view
    %any = irdl.any
    irdl.operands(value: %any, view: %view, indices: variadic %index)
    irdl.results()
  }

  // Verification and assumption ops.
  irdl.operation @check {
    %index = irdl.is index
    irdl.operands(address: %index)
    irdl.results()
  }
  irdl.operation @assume {
    %i1 = irdl.is i1
    irdl.operands(condition: %i1)
    irdl.results()
  }
  irdl.operation @assume_bounds {
    %index = irdl.is index
    irdl.operands(value: %index, lb: optional %index, ub: optional %index)
    irdl.results()
  }
  irdl.operation @assert_apply_bounds {
    %index = irdl.is index
    %layout = irdl.base @lego::@layout
    irdl.operands(layout: %layout, indices: variadic %index)
    irdl.results()
  }
  irdl.operation @assert_inv_bounds {
    %index = irdl.is index
    %layout = irdl.base @lego::@layout
    irdl.operands(layout: %layout, flat: %index)
    irdl.results()
  }
}
