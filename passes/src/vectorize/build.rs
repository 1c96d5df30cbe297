//! Creating ops, types and attributes with the raw C API, for the vectorizer's rewrite.
//!
//! Ops are built in generic form (name, operands, result types, attributes) and inserted before an anchor op
//! or appended to a block. Every op made here is recorded, so the rewrite can erase the ones left unused (both
//! a lane-0 scalar and a vector form of an index value are made where either may be needed).

use mlir_sys::{
    mlirAttributeParseGet, mlirBlockAppendOwnedOperation, mlirBlockCreate, mlirBlockInsertOwnedOperationBefore,
    mlirFloatAttrDoubleGet, mlirRegionAppendOwnedBlock, mlirRegionCreate,
    mlirIdentifierGet, mlirIndexTypeGet, mlirIntegerAttrGet, mlirIntegerTypeGet, mlirNamedAttributeGet, mlirOperationCreate,
    mlirOperationGetContext, mlirOperationGetLocation, mlirOperationStateAddAttributes, mlirOperationStateAddOperands,
    mlirOperationStateAddOwnedRegions, mlirOperationStateAddResults, mlirOperationStateGet,
    mlirVectorTypeGetScalable, MlirAttribute, MlirBlock, MlirContext, MlirLocation, MlirNamedAttribute, MlirOperation,
    MlirRegion, MlirType, MlirValue,
};

use crate::simplify::ir;

fn string_ref(text: &str) -> mlir_sys::MlirStringRef {
    // The C API copies or uniques the text before the call returns.
    mlir_sys::MlirStringRef { data: text.as_ptr() as *const _, length: text.len() }
}

/// Where new ops go.
#[derive(Clone, Copy)]
pub enum Place {
    /// Before this op, in its block.
    Before(MlirOperation),
    /// At the end of this block.
    End(MlirBlock),
}

/// Builds ops at one location, recording each.
pub struct Builder {
    pub context: MlirContext,
    pub location: MlirLocation,
    pub place: Place,
    pub created: Vec<MlirOperation>,
}

impl Builder {
    /// A builder at `anchor`'s location, inserting before it.
    pub fn before(anchor: MlirOperation) -> Builder {
        // SAFETY: `anchor` is a live op.
        let (context, location) = unsafe { (mlirOperationGetContext(anchor), mlirOperationGetLocation(anchor)) };
        Builder { context, location, place: Place::Before(anchor), created: Vec::new() }
    }

    pub fn insert(&mut self, op: MlirOperation) -> MlirOperation {
        // SAFETY: `op` is a new detached op; the block takes ownership of it.
        unsafe {
            match self.place {
                // The anchors are ops of a loop body or a function body: always in a block.
                Place::Before(anchor) => {
                    if let Some(block) = ir::op_block(anchor) {
                        mlirBlockInsertOwnedOperationBefore(block, anchor, op)
                    }
                }
                Place::End(block) => mlirBlockAppendOwnedOperation(block, op),
            }
        }
        self.created.push(op);
        op
    }

    /// A generic op: `name(operands) {attributes} : result types`, with owned `regions`.
    pub fn op(
        &mut self,
        name: &str,
        operands: &[MlirValue],
        results: &[MlirType],
        attributes: &[(&str, MlirAttribute)],
        regions: &[MlirRegion],
    ) -> MlirOperation {
        let named: Vec<MlirNamedAttribute> = attributes
            .iter()
            // SAFETY: the context is live; identifiers are uniqued by it.
            .map(|(key, value)| unsafe { mlirNamedAttributeGet(mlirIdentifierGet(self.context, string_ref(key)), *value) })
            .collect();
        // SAFETY: the state is filled with live handles and consumed by mlirOperationCreate.
        let op = unsafe {
            let mut state = mlirOperationStateGet(string_ref(name), self.location);
            mlirOperationStateAddOperands(&mut state, operands.len() as isize, operands.as_ptr());
            mlirOperationStateAddResults(&mut state, results.len() as isize, results.as_ptr());
            mlirOperationStateAddAttributes(&mut state, named.len() as isize, named.as_ptr());
            mlirOperationStateAddOwnedRegions(&mut state, regions.len() as isize, regions.as_ptr());
            mlirOperationCreate(&mut state)
        };
        self.insert(op)
    }

    /// `op` with one result: that result.
    pub fn value(&mut self, name: &str, operands: &[MlirValue], result: MlirType, attributes: &[(&str, MlirAttribute)]) -> MlirValue {
        let op = self.op(name, operands, &[result], attributes, &[]);
        ir::result(op, 0).expect("an op built with one result has it")
    }

    pub fn index_type(&self) -> MlirType {
        // SAFETY: live context.
        unsafe { mlirIndexTypeGet(self.context) }
    }

    pub fn i1_type(&self) -> MlirType {
        // SAFETY: live context.
        unsafe { mlirIntegerTypeGet(self.context, 1) }
    }

    pub fn attribute(&self, text: &str) -> MlirAttribute {
        // SAFETY: live context; a malformed text gives a null attribute (all texts here are fixed).
        unsafe { mlirAttributeParseGet(self.context, string_ref(text)) }
    }

    pub fn integer_attribute(&self, r#type: MlirType, value: i64) -> MlirAttribute {
        // SAFETY: `r#type` is an integer or index type.
        unsafe { mlirIntegerAttrGet(r#type, value) }
    }

    pub fn float_attribute(&self, r#type: MlirType, value: f64) -> MlirAttribute {
        // SAFETY: `r#type` is a float type.
        unsafe { mlirFloatAttrDoubleGet(self.context, r#type, value) }
    }

    pub fn index_constant(&mut self, value: i64) -> MlirValue {
        let r#type = self.index_type();
        let attribute = self.integer_attribute(r#type, value);
        self.value("arith.constant", &[], r#type, &[("value", attribute)])
    }

    pub fn constant(&mut self, r#type: MlirType, attribute: MlirAttribute) -> MlirValue {
        self.value("arith.constant", &[], r#type, &[("value", attribute)])
    }

    /// A new region holding one new block with arguments of `types` (located at the builder's location), for an
    /// op about to be built: the caller hands the region to that op, which then owns both.
    pub fn region_with_block(&self, types: &[MlirType]) -> (MlirRegion, MlirBlock) {
        let locations = vec![self.location; types.len()];
        // SAFETY: a new region and block; the block is handed to the region here, the region to the caller's op.
        unsafe {
            let region = mlirRegionCreate();
            let block = mlirBlockCreate(types.len() as isize, types.as_ptr(), locations.as_ptr());
            mlirRegionAppendOwnedBlock(region, block);
            (region, block)
        }
    }

    pub fn binary(&mut self, name: &str, lhs: MlirValue, rhs: MlirValue) -> MlirValue {
        let r#type = ir::value_type(lhs);
        self.value(name, &[lhs, rhs], r#type, &[])
    }
}

/// `vector<lanes x element>`, or `vector<[lanes] x element>` when `scalable`.
pub fn vector_type(element: MlirType, lanes: u32, scalable: bool) -> MlirType {
    let shape = [lanes as i64];
    let flags = [scalable];
    // SAFETY: `element` is a live int, index or float type.
    unsafe { mlirVectorTypeGetScalable(1, shape.as_ptr(), flags.as_ptr(), element) }
}
