//! The published LEGO dialect's C API (docs/reference/c-api.md, "The published entry points"), as thin wrappers
//! over ours, so hosts and Python bindings written against it link unchanged.
//!
//! - Dialect handles: `mlirGetDialectHandle__lego__` / `__math__` return an `MlirDialectHandle` whose hooks
//!   MLIR's `mlirDialectHandleRegisterDialect` / `LoadDialect` / `GetNamespace` call. lego is an IRDL dialect:
//!   it can only be *loaded* into a context (there is no C++ dialect class to insert into a registry), so the
//!   insert hook registers the upstream dialects lego IR uses and the load hook does what
//!   `legoRegisterDialect` does, then returns the `lego` dialect. Register *and* load (the usual
//!   `register_dialect(ctx, load=True)`).
//! - `legoRegisterCorePasses` / `legoRegisterPasses`: MLIR's upstream passes by name in MLIR's global
//!   registry, and the lego passes and pipelines by name in MLIR's global registry too, through the C++ shim
//!   `csrc/pass_registry.cpp` (MLIR's C API cannot register a pass by name). Built without a C++ compiler,
//!   the lego ones are available through lego's own registry only (`legoOpPassManagerAddPipeline`).
//! - Types: `!lego.layout` and `!lego.view<T>` are IRDL (dynamic) types, recognized by their TypeID in the
//!   type's own context.

use crate::{clear_last_error, guard, registry, set_last_error, with_context};
use lego_passes::{pipeline_text::{PassElement, PipelineElement}, Entry};
use mlir_sys::{
    MlirContext, MlirDialect, MlirDialectHandle, MlirDialectRegistry, MlirLogicalResult, MlirOpPassManager,
    MlirStringCallback, MlirStringRef, MlirType, MlirTypeID,
};
use std::ffi::c_void;

/// MLIR's `MlirDialectRegistrationHooks` (mlir/CAPI/Registration.h): what an `MlirDialectHandle` points to.
#[repr(C)]
struct DialectRegistrationHooks {
    insert: extern "C" fn(MlirDialectRegistry),
    load: extern "C" fn(MlirContext) -> MlirDialect,
    namespace: extern "C" fn() -> MlirStringRef,
}

fn static_string(text: &'static str) -> MlirStringRef {
    MlirStringRef { data: text.as_ptr() as *const _, length: text.len() }
}

fn null_dialect() -> MlirDialect {
    MlirDialect { ptr: std::ptr::null_mut() }
}

extern "C" fn insert_upstream_dialects(registry: MlirDialectRegistry) {
    guard((), || {
        if !registry.ptr.is_null() {
            unsafe { mlir_sys::mlirRegisterAllDialects(registry) }
        }
    })
}

extern "C" fn load_lego(context: MlirContext) -> MlirDialect {
    guard(null_dialect(), || {
        clear_last_error();
        let loaded = with_context(context, |melior_context| match lego_dialect::prepare_context(melior_context) {
            Ok(()) => {
                remember_type_ids(context);
                unsafe { mlir_sys::mlirContextGetOrLoadDialect(context, static_string("lego")) }
            }
            Err(error) => {
                set_last_error(&error.to_string());
                null_dialect()
            }
        });
        loaded.unwrap_or_else(null_dialect)
    })
}

extern "C" fn lego_namespace() -> MlirStringRef {
    static_string("lego")
}

extern "C" fn load_math(context: MlirContext) -> MlirDialect {
    guard(null_dialect(), || {
        if context.ptr.is_null() {
            return null_dialect();
        }
        unsafe {
            let registry = mlir_sys::mlirDialectRegistryCreate();
            mlir_sys::mlirRegisterAllDialects(registry);
            mlir_sys::mlirContextAppendDialectRegistry(context, registry);
            mlir_sys::mlirDialectRegistryDestroy(registry);
            mlir_sys::mlirContextGetOrLoadDialect(context, static_string("math"))
        }
    })
}

extern "C" fn math_namespace() -> MlirStringRef {
    static_string("math")
}

static LEGO_HOOKS: DialectRegistrationHooks =
    DialectRegistrationHooks { insert: insert_upstream_dialects, load: load_lego, namespace: lego_namespace };
static MATH_HOOKS: DialectRegistrationHooks =
    DialectRegistrationHooks { insert: insert_upstream_dialects, load: load_math, namespace: math_namespace };

/// The lego dialect's handle: `mlirDialectHandleRegisterDialect` registers the upstream dialects lego IR
/// uses, `mlirDialectHandleLoadDialect` loads lego (as `legoRegisterDialect`) and returns it.
#[no_mangle]
pub extern "C" fn mlirGetDialectHandle__lego__() -> MlirDialectHandle {
    MlirDialectHandle { ptr: &LEGO_HOOKS as *const DialectRegistrationHooks as *const c_void }
}

/// The upstream `math` dialect's handle, as the published library exports it (registering inserts the
/// upstream dialects, loading loads `math`).
#[no_mangle]
pub extern "C" fn mlirGetDialectHandle__math__() -> MlirDialectHandle {
    MlirDialectHandle { ptr: &MATH_HOOKS as *const DialectRegistrationHooks as *const c_void }
}

// ---------------------------------------------------------------------------------------------------------
// Passes.

#[cfg(not(lego_no_pass_registry_shim))]
extern "C" {
    fn legoInternalRegisterInMlirPassRegistry(name: MlirStringRef, description: MlirStringRef);
}

/// The lego passes and pipelines `legoRegisterCorePasses` registers (docs/reference/c-api.md): every lego pass, and the
/// pipelines lego-lower, lego-to-llvm, lego-to-spirv.
const CORE_PIPELINES: &[&str] = &["lego-lower", "lego-to-llvm", "lego-to-spirv"];

/// Registers `names` (all lego entries when `None`) in MLIR's global pass registry, once per name.
fn register_in_mlir(filter: impl Fn(&lego_passes::PassInfo) -> bool) {
    static REGISTERED: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    lego_passes::register_upstream_passes();
    let Ok(mut registered) = REGISTERED.lock() else { return };
    for info in registry().entries() {
        if !filter(info) || registered.contains(&info.name) {
            continue;
        }
        #[cfg(not(lego_no_pass_registry_shim))]
        unsafe {
            legoInternalRegisterInMlirPassRegistry(static_string(info.name), static_string(info.description))
        };
        registered.push(info.name);
    }
}

/// Registers, by name in MLIR's global pass registry: MLIR's passes (canonicalize, cse, the arith passes,
/// …), every lego pass, and the pipelines lego-lower, lego-to-llvm and lego-to-spirv. Idempotent.
#[no_mangle]
pub extern "C" fn legoRegisterCorePasses() {
    guard((), || {
        register_in_mlir(|info| matches!(info.entry, Entry::Pass(_)) || CORE_PIPELINES.contains(&info.name))
    })
}

/// Registers every lego pass and pipeline (and MLIR's passes) by name in MLIR's global registry. Idempotent.
#[no_mangle]
pub extern "C" fn legoRegisterPasses() {
    guard((), || register_in_mlir(|_| true))
}

/// Published: registers what the NVPTX target needs. The GPU passes and `#nvvm.target` serialization come
/// with MLIR's passes and the dialect extensions every lego context gets; this registers the passes and
/// the lego GPU pipelines. Idempotent.
#[no_mangle]
pub extern "C" fn legoRegisterNVPTXPlugin() {
    legoRegisterPasses()
}

/// Published: as `legoRegisterNVPTXPlugin`, for AMDGPU (ROCDL).
#[no_mangle]
pub extern "C" fn legoRegisterAMDGPUPlugin() {
    legoRegisterPasses()
}

/// Published: as `legoRegisterNVPTXPlugin`, for SPIR-V.
#[no_mangle]
pub extern "C" fn legoRegisterSPIRVPlugin() {
    legoRegisterPasses()
}

/// Published: registers every dialect's LLVM IR translation on `ctx` (needed by gpu-module-to-binary and
/// mlir-translate style export). Null contexts are ignored.
#[no_mangle]
pub extern "C" fn legoRegisterLLVMTranslations(ctx: MlirContext) {
    guard((), || {
        if !ctx.ptr.is_null() {
            unsafe { mlir_sys::mlirRegisterAllLLVMTranslations(ctx) }
        }
    })
}

/// Published: adds the convert-to-LLVM dialect interfaces to `registry`. MLIR's C API has no call for those
/// extensions alone, so this inserts every upstream dialect with all its extensions (a superset).
#[no_mangle]
pub extern "C" fn legoRegisterConvertToLLVMExtensions(registry: MlirDialectRegistry) {
    insert_upstream_dialects(registry)
}

/// Called by the C++ shim when MLIR's pass registry builds a lego entry: adds the pass or expands the
/// pipeline `name` with option text `options` to `passManager`. Internal (not in Lego.h).
#[no_mangle]
pub extern "C" fn legoInternalAddRegisteredElement(
    passManager: MlirOpPassManager,
    name: MlirStringRef,
    options: MlirStringRef,
    errorCallback: MlirStringCallback,
    userData: *mut c_void,
) -> MlirLogicalResult {
    guard(MlirLogicalResult { value: 0 }, || {
        let (Some(name), Some(options)) = (crate::text(name), crate::text(options)) else {
            crate::report_to_callback(errorCallback, userData, "lego pass name or options are not valid UTF-8");
            return MlirLogicalResult { value: 0 };
        };
        if passManager.ptr.is_null() {
            crate::report_to_callback(errorCallback, userData, "null MlirOpPassManager");
            return MlirLogicalResult { value: 0 };
        }
        let element = PipelineElement::Pass(PassElement {
            name: name.to_string(),
            options: (!options.trim().is_empty()).then(|| options.to_string()),
            offset: 0,
        });
        let manager = unsafe { melior::pass::OperationPassManager::from_raw(passManager) };
        match lego_passes::registry::build_pass_manager(registry(), manager, &[element], false) {
            Ok(()) => MlirLogicalResult { value: 1 },
            Err(error) => {
                crate::report_to_callback(errorCallback, userData, &format!("'{name}': {error}"));
                MlirLogicalResult { value: 0 }
            }
        }
    })
}

// ---------------------------------------------------------------------------------------------------------
// Types.

fn null_type() -> MlirType {
    MlirType { ptr: std::ptr::null_mut() }
}

fn null_type_id() -> MlirTypeID {
    MlirTypeID { ptr: std::ptr::null_mut() }
}

fn parse_type(context: MlirContext, text: &str) -> MlirType {
    let registered = with_context(context, lego_dialect::is_registered).unwrap_or(false);
    if !registered {
        set_last_error("the lego dialect is not loaded in this context (load mlirGetDialectHandle__lego__ first)");
        return null_type();
    }
    unsafe { mlir_sys::mlirTypeParseGet(context, MlirStringRef { data: text.as_ptr() as *const _, length: text.len() }) }
}

fn print_type(r#type: MlirType) -> String {
    unsafe { melior::ir::Type::from_raw(r#type) }.to_string()
}

/// Whether `r#type` has the TypeID of `prototype` (parsed in the type's own context).
fn has_type_id_of(r#type: MlirType, prototype: &str) -> bool {
    if r#type.ptr.is_null() {
        return false;
    }
    let context = unsafe { mlir_sys::mlirTypeGetContext(r#type) };
    if !with_context(context, lego_dialect::is_registered).unwrap_or(false) {
        return false;
    }
    let reference = parse_type(context, prototype);
    !reference.ptr.is_null()
        && unsafe { mlir_sys::mlirTypeIDEqual(mlir_sys::mlirTypeGetTypeID(r#type), mlir_sys::mlirTypeGetTypeID(reference)) }
}

/// `!lego.layout`?
#[no_mangle]
pub extern "C" fn mlirLegoTypeIsALayout(r#type: MlirType) -> bool {
    guard(false, || has_type_id_of(r#type, "!lego.layout"))
}

/// `!lego.view<T>` (any T)?
#[no_mangle]
pub extern "C" fn mlirLegoTypeIsAView(r#type: MlirType) -> bool {
    guard(false, || has_type_id_of(r#type, "!lego.view<f32>"))
}

/// TypeIDs of the IRDL types, from the first context lego was loaded into through this library (IRDL gives
/// dynamic types a fresh TypeID in every context, and these getters take no context).
static TYPE_IDS: std::sync::OnceLock<(usize, usize)> = std::sync::OnceLock::new();

fn remember_type_ids(context: MlirContext) {
    if TYPE_IDS.get().is_some() {
        return;
    }
    let (layout, view) = (parse_type(context, "!lego.layout"), parse_type(context, "!lego.view<f32>"));
    if layout.ptr.is_null() || view.ptr.is_null() {
        return;
    }
    let id = |r#type| unsafe { mlir_sys::mlirTypeGetTypeID(r#type) }.ptr as usize;
    let _ = TYPE_IDS.set((id(layout), id(view)));
}

/// TypeID of `!lego.layout` in the first context lego was loaded into by this library (null before).
#[no_mangle]
pub extern "C" fn mlirLegoLayoutTypeGetTypeID() -> MlirTypeID {
    TYPE_IDS.get().map_or_else(null_type_id, |(layout, _)| MlirTypeID { ptr: *layout as *const c_void })
}

/// TypeID of `!lego.view<T>` in the first context lego was loaded into by this library (null before).
#[no_mangle]
pub extern "C" fn mlirLegoViewTypeGetTypeID() -> MlirTypeID {
    TYPE_IDS.get().map_or_else(null_type_id, |(_, view)| MlirTypeID { ptr: *view as *const c_void })
}

/// `!lego.layout` in `ctx` (null if lego is not loaded there).
#[no_mangle]
pub extern "C" fn mlirLegoLayoutTypeGet(ctx: MlirContext) -> MlirType {
    guard(null_type(), || {
        clear_last_error();
        if ctx.ptr.is_null() {
            set_last_error("mlirLegoLayoutTypeGet: null MlirContext");
            return null_type();
        }
        parse_type(ctx, "!lego.layout")
    })
}

/// `!lego.view<elem>` in `ctx` (null if lego is not loaded there or `elem` is null).
#[no_mangle]
pub extern "C" fn mlirLegoViewTypeGet(ctx: MlirContext, elem: MlirType) -> MlirType {
    guard(null_type(), || {
        clear_last_error();
        if ctx.ptr.is_null() || elem.ptr.is_null() {
            set_last_error("mlirLegoViewTypeGet: null MlirContext or element type");
            return null_type();
        }
        parse_type(ctx, &format!("!lego.view<{}>", print_type(elem)))
    })
}

/// The element type `T` of `!lego.view<T>` (null for any other type).
#[no_mangle]
pub extern "C" fn mlirLegoViewTypeGetElementType(r#type: MlirType) -> MlirType {
    guard(null_type(), || {
        if !has_type_id_of(r#type, "!lego.view<f32>") {
            set_last_error("mlirLegoViewTypeGetElementType: not a !lego.view type");
            return null_type();
        }
        let text = print_type(r#type);
        let Some(element) = text.strip_prefix("!lego.view<").and_then(|rest| rest.strip_suffix('>')) else {
            return null_type();
        };
        let context = unsafe { mlir_sys::mlirTypeGetContext(r#type) };
        unsafe {
            mlir_sys::mlirTypeParseGet(context, MlirStringRef { data: element.as_ptr() as *const _, length: element.len() })
        }
    })
}
