//! Embedding lego in a Rust compiler: build a tiled layout in code, lower it, print the index arithmetic.
//!
//! ```sh
//! cargo run -p lego-passes --example tiled_layout                 # lego-lower
//! cargo run -p lego-passes --example tiled_layout -- 'lego-normalization, lego-to-arith, canonicalize, cse'
//! ```
//!
//! The layout is the paper's Fig. 1 / Table I tiling of an M × K row-major matrix into BM × BK blocks,
//! `tile_by (order_by(row [M, K])) tile_dims [[M/BM, K/BK], [BM, BK]]`, whose
//! `apply(ti, tk, i, k) = (ti·BM + i)·K + tk·BK + k` (docs/embedding.md walks through this file).

use lego_dialect::ops::{self, Dim, OpKind};
use lego_passes::Registry;
use melior::{
    dialect::func,
    ir::{
        attribute::{StringAttribute, TypeAttribute},
        block::BlockLike,
        operation::OperationLike,
        r#type::FunctionType,
        Block, Location, Module, Region, RegionLike, Type, Value,
    },
    pass::PassManager,
};

const M: i64 = 64;
const K: i64 = 32;
const BM: i64 = 16;
const BK: i64 = 8;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let pipeline = std::env::args().nth(1).unwrap_or_else(|| "lego-lower".to_string());

    // 1. A melior context with the upstream dialects and lego registered (for a context you already have:
    //    `lego_dialect::prepare_context(&context)`).
    let context = lego_dialect::create_context()?;
    let location = Location::unknown(&context);
    let index = Type::index(&context);
    let mut module = Module::new(location);

    // 2. func.func @tiled(%ti, %tk, %i, %k) -> index, built with the typed builders of lego_dialect::ops.
    let region = Region::new();
    let block = region.append_block(Block::new(&[(index, location); 4]));
    let static_dims = |sizes: &[i64]| sizes.iter().map(|size| Dim::Static(*size)).collect::<Vec<_>>();
    let row = block.append_operation(ops::build_permutation_layout(&context, location, OpKind::Row, None, &static_dims(&[M, K])));
    let order = block.append_operation(ops::build_order_by(&context, location, &[row.result(0)?.into()]));
    let levels = [static_dims(&[M / BM, K / BK]), static_dims(&[BM, BK])];
    let tiled = block.append_operation(ops::build_tile_by(&context, location, order.result(0)?.into(), &levels));
    let indices = (0..4).map(|position| block.argument(position).map(Value::from)).collect::<Result<Vec<_>, _>>()?;
    let flat = block.append_operation(ops::build_apply(&context, location, tiled.result(0)?.into(), &indices));
    block.append_operation(func::r#return(&[flat.result(0)?.into()], location));
    let signature = FunctionType::new(&context, &[index; 4], &[index]);
    module.body().append_operation(func::func(
        &context,
        StringAttribute::new(&context, "tiled"),
        TypeAttribute::new(signature.into()),
        region,
        &[],
        location,
    ));
    if !lego_dialect::verify::verify_and_emit(&module.as_operation()) || !module.as_operation().verify() {
        return Err("the built module does not verify".into());
    }
    println!("// built in code:\n{}", lego_dialect::source::print(&module.as_operation(), Default::default()));

    // 3. Lower: pipelines by name, through the registry lego-opt uses (lego and upstream passes mixed, nested
    //    as written; `lower-affine` turns any `affine.linearize_index` left into plain arith), then one more
    //    pass by value.
    let registry = Registry::default();
    let manager = PassManager::new(&context);
    registry.add_pipeline(manager.as_operation_pass_manager(), &pipeline)?;
    registry.add_pipeline(manager.as_operation_pass_manager(), "lower-affine")?;
    let strength_reduction = registry.create_pass("lego-strength-reduction", None).ok_or("no such pass")??;
    manager.add_pass(strength_reduction);
    registry.add_pipeline(manager.as_operation_pass_manager(), "canonicalize, cse")?;
    manager.run(&mut module).map_err(|error| format!("'{pipeline}' failed: {error}"))?;

    println!("// after {pipeline}, lower-affine, lego-strength-reduction:\n{}", lego_dialect::source::print(&module.as_operation(), Default::default()));

    // 4. What the arithmetic must compute, from the reference algebra.
    let reference = lego_algebra::examples::fig1_tiled(M as u64, K as u64, BM as u64, BK as u64)?;
    let sample = [1, 2, 3, 4];
    println!(
        "// reference: apply{sample:?} = ({}·{BM} + {})·{K} + {}·{BK} + {} = {}",
        sample[0],
        sample[2],
        sample[1],
        sample[3],
        reference.apply(&sample)?
    );
    Ok(())
}
