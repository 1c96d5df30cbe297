//! The C API called from Rust: coverage of the registry and the header, null handles, a round trip.

use super::*;
use std::collections::BTreeSet;

const HEADER: &str = include_str!("../include/lego-c/Lego.h");
const SOURCE: &str = include_str!("lib.rs");
const PUBLISHED_SOURCE: &str = include_str!("published.rs");

fn string_ref(text: &str) -> MlirStringRef {
    MlirStringRef { data: text.as_ptr() as *const c_char, length: text.len() }
}

fn last_error() -> String {
    let message = legoGetLastErrorMessage();
    text(message).unwrap_or_default().to_string()
}

fn header_functions() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (index, _) in HEADER.match_indices("lego") {
        let rest = &HEADER[index..];
        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        let after = rest[name.len()..].trim_start();
        if after.starts_with('(') && name.len() > 4 && name.chars().nth(4).is_some_and(|c| c.is_ascii_uppercase()) {
            names.insert(name);
        }
    }
    names
}

fn library_functions() -> BTreeSet<String> {
    let mut names: BTreeSet<String> = [SOURCE, PUBLISHED_SOURCE]
        .into_iter()
        .flat_map(|source| {
            source.match_indices("pub extern \"C\" fn ").map(move |(index, pattern)| {
                source[index + pattern.len()..].chars().take_while(|c| c.is_ascii_alphanumeric()).collect::<String>()
            })
        })
        // legoInternal*: called by the C++ shim, not part of the API.
        .filter(|name| name.starts_with("lego") && !name.starts_with("legoInternal"))
        .collect();
    names.extend(PASS_FUNCTIONS.iter().chain(PIPELINE_FUNCTIONS).map(|(function, _)| function.to_string()));
    names
}

#[test]
fn header_declares_exactly_the_exported_functions() {
    assert_eq!(header_functions(), library_functions());
    assert!(HEADER.contains(&format!("#define LEGO_C_API_VERSION {API_VERSION}\n")));
}

/// Every pass and pipeline of docs/reference/passes.md has its C function, naming a registered entry of the right kind
/// (internal helpers such as `lego-require-gpu-code` are reachable through `legoCreatePass`).
#[test]
fn c_functions_name_registered_passes_and_pipelines() {
    let registry = Registry::default();
    for (function, name) in PASS_FUNCTIONS {
        let entry = registry.lookup(name).map(|info| info.entry);
        assert!(matches!(entry, Some(Entry::Pass(_))), "{function}: '{name}' is not a registered pass");
    }
    for (function, name) in PIPELINE_FUNCTIONS {
        let entry = registry.lookup(name).map(|info| info.entry);
        assert!(matches!(entry, Some(Entry::Pipeline(_))), "{function}: '{name}' is not a registered pipeline");
    }
    assert_eq!(PASS_FUNCTIONS.len(), 10);
    assert_eq!(PIPELINE_FUNCTIONS.len(), 7);
}

#[test]
fn version() {
    assert_eq!(legoGetApiVersion(), 1);
    assert_eq!(text(legoGetVersion()), Some(env!("CARGO_PKG_VERSION")));
    assert_eq!(legoGetMlirMajorVersion(), 22);
}

#[test]
fn null_handles_fail_without_crashing() {
    let null_context = MlirContext { ptr: std::ptr::null_mut() };
    assert_eq!(legoRegisterDialect(null_context).value, 0);
    assert!(last_error().contains("null MlirContext"), "{}", last_error());
    assert!(!legoIsDialectRegistered(null_context));
    assert!(legoParseModule(null_context, string_ref("module {}"), string_ref("x.mlir")).ptr.is_null());
    assert_eq!(legoVerifyOperation(MlirOperation { ptr: std::ptr::null_mut() }).value, 0);
    assert_eq!(legoPrintOperation(MlirOperation { ptr: std::ptr::null_mut() }, false, None, std::ptr::null_mut()).value, 0);
    assert_eq!(legoRunPipeline(null_module(), string_ref("lego-lower")).value, 0);
    let null_manager = MlirOpPassManager { ptr: std::ptr::null_mut() };
    assert_eq!(legoOpPassManagerAddPipeline(null_manager, string_ref("cse"), None, std::ptr::null_mut()).value, 0);
    assert_eq!(legoBuildLowerPipeline(null_manager, string_ref(""), None, std::ptr::null_mut()).value, 0);
    // Invalid UTF-8 and a null pointer with a length are rejected, not read.
    let bad = MlirStringRef { data: std::ptr::null(), length: 3 };
    assert!(legoCreatePass(bad, string_ref("")).ptr.is_null());
    let invalid = [0xffu8, 0xfe];
    let invalid = MlirStringRef { data: invalid.as_ptr() as *const c_char, length: 2 };
    assert!(legoCreatePass(invalid, string_ref("")).ptr.is_null());
}

#[test]
fn passes_by_name() {
    assert!(legoCreatePass(string_ref("no-such-pass"), string_ref("")).ptr.is_null());
    assert!(last_error().contains("not a registered lego pass"), "{}", last_error());
    assert!(legoCreatePass(string_ref("lego-lower"), string_ref("")).ptr.is_null());
    assert!(last_error().contains("pipeline"), "{}", last_error());
    assert!(legoCreatePass(string_ref("lego-strength-reduction"), string_ref("bogus=1")).ptr.is_null());
    assert!(last_error().contains("unknown option 'bogus'"), "{}", last_error());
    let pass = legoCreateStrengthReductionPass();
    assert!(!pass.ptr.is_null(), "{}", last_error());
    // Hand it to a pass manager, which owns and destroys it (the C API has no mlirPassDestroy).
    let context = Context::new();
    let manager = PassManager::new(&context);
    unsafe { mlir_sys::mlirPassManagerAddOwnedPass(manager.to_raw(), pass) };
}

unsafe extern "C" fn append(text: MlirStringRef, data: *mut c_void) {
    let buffer = unsafe { &mut *(data as *mut String) };
    buffer.push_str(super::text(text).unwrap_or("<bad utf-8>"));
}

#[test]
fn parse_run_print_round_trip() {
    let context = Context::new();
    let raw = context.to_raw();
    assert_eq!(legoRegisterDialect(raw).value, 1, "{}", last_error());
    assert_eq!(legoRegisterDialect(raw).value, 1, "idempotent");
    assert!(legoIsDialectRegistered(raw));
    let source = "func.func @f(%i: index, %j: index) -> index {\n  %l = lego.row [4, 8] : !lego.layout\n  \
                  %f = lego.apply %l(%i, %j) : !lego.layout\n  %c8 = arith.constant 8 : index\n  \
                  %m = arith.muli %f, %c8 : index\n  return %m : index\n}\n";
    let module = legoParseModule(raw, string_ref(source), string_ref("f.mlir"));
    assert!(!module.ptr.is_null(), "{}", last_error());
    let op = unsafe { mlir_sys::mlirModuleGetOperation(module) };
    assert_eq!(legoVerifyOperation(op).value, 1);

    let mut printed = String::new();
    assert_eq!(legoPrintOperation(op, false, Some(append), &mut printed as *mut String as *mut c_void).value, 1);
    assert!(printed.contains("lego.row[4, 8] : !lego.layout"), "{printed}");

    assert_eq!(legoRunPipeline(module, string_ref("lego-strength-reduction")).value, 1, "{}", last_error());
    let mut lowered = String::new();
    legoPrintOperation(op, false, Some(append), &mut lowered as *mut String as *mut c_void);
    assert!(lowered.contains("arith.shli"), "{lowered}");

    // A bad pipeline fails and reports a diagnostic on the context.
    let seen = std::rc::Rc::new(RefCell::new(Vec::<String>::new()));
    let sink = seen.clone();
    let handler = context.attach_diagnostic_handler(move |diagnostic| {
        sink.borrow_mut().push(diagnostic.to_string());
        true
    });
    assert_eq!(legoRunPipeline(module, string_ref("lego-lower{bogus=1}")).value, 0);
    assert_eq!(legoRunPipeline(module, string_ref("cse,,")).value, 0);
    context.detach_diagnostic_handler(handler);
    let seen = seen.borrow();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(seen[0].contains("invalid pass pipeline 'lego-lower{bogus=1}'"), "{seen:?}");
    unsafe { mlir_sys::mlirModuleDestroy(module) };

    // Parse errors are diagnostics too, and give a null module.
    let bad = legoParseModule(raw, string_ref("%l = lego.row [0] : !lego.layout\n"), string_ref("bad.mlir"));
    assert!(bad.ptr.is_null());
}

/// An upstream pass that emits an error and still succeeds (lower-affine on `mod 0`) makes legoRunPipeline
/// fail, as it makes lego-opt exit 1; the host's handler still gets the diagnostic, and a pipeline with no
/// error still succeeds on the same context.
#[test]
fn an_error_diagnostic_during_the_run_is_a_failure() {
    let context = Context::new();
    let raw = context.to_raw();
    assert_eq!(legoRegisterDialect(raw).value, 1, "{}", last_error());
    let seen = std::rc::Rc::new(RefCell::new(Vec::<String>::new()));
    let sink = seen.clone();
    let handler = context.attach_diagnostic_handler(move |diagnostic| {
        sink.borrow_mut().push(diagnostic.to_string());
        true
    });
    let source = "func.func @f(%a: index) -> index {\n  %y = affine.apply affine_map<(d0) -> (d0 mod 0)>(%a)\n  \
                  return %y : index\n}\n";
    let module = legoParseModule(raw, string_ref(source), string_ref("mod0.mlir"));
    assert!(!module.ptr.is_null(), "{}", last_error());
    assert_eq!(legoRunPipeline(module, string_ref("cse")).value, 1, "{}", last_error());
    assert!(seen.borrow().is_empty(), "{:?}", seen.borrow());
    assert_eq!(legoRunPipeline(module, string_ref("lower-affine")).value, 0);
    assert!(last_error().contains("pipeline 'lower-affine' reported 1 error(s)"), "{}", last_error());
    assert_eq!(seen.borrow().len(), 1, "{:?}", seen.borrow());
    assert!(seen.borrow()[0].contains("modulo by non-positive value is not supported"), "{:?}", seen.borrow());
    // The counter is gone after the run: a clean pipeline succeeds again.
    assert_eq!(legoRunPipeline(module, string_ref("cse")).value, 1, "{}", last_error());
    context.detach_diagnostic_handler(handler);
    unsafe { mlir_sys::mlirModuleDestroy(module) };
}

/// The published C API (docs/reference/c-api.md): every entry point is declared in Lego.h and defined here.
#[test]
fn published_entry_points_are_declared_and_defined() {
    for name in [
        "mlirGetDialectHandle__lego__",
        "mlirGetDialectHandle__math__",
        "legoRegisterCorePasses",
        "legoRegisterNVPTXPlugin",
        "legoRegisterAMDGPUPlugin",
        "legoRegisterSPIRVPlugin",
        "legoRegisterPasses",
        "legoRegisterLLVMTranslations",
        "legoRegisterConvertToLLVMExtensions",
        "mlirLegoTypeIsALayout",
        "mlirLegoTypeIsAView",
        "mlirLegoLayoutTypeGetTypeID",
        "mlirLegoViewTypeGetTypeID",
        "mlirLegoLayoutTypeGet",
        "mlirLegoViewTypeGet",
        "mlirLegoViewTypeGetElementType",
    ] {
        assert!(HEADER.contains(&format!("{name}(")), "Lego.h does not declare {name}");
        assert!(PUBLISHED_SOURCE.contains(&format!("pub extern \"C\" fn {name}(")), "{name} is not defined");
    }
}
