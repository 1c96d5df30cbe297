/*===-- lego-c/Lego.h - C API of the lego layout dialect and passes -------===*\
|*                                                                            *|
|* The lego dialect (the LEGO layout algebra) and its passes for programs     *|
|* written against the MLIR C API. Everything here takes and returns MLIR C   *|
|* API handles: the host creates the MlirContext and pass managers with       *|
|* mlir-c/IR.h and mlir-c/Pass.h, lego adds its dialect and passes to them.   *|
|*                                                                            *|
|* One MLIR per process. liblego_capi.so is linked against the shared         *|
|* libMLIR.so of LLVM/MLIR 22 (Debian: /usr/lib/llvm-22/lib) and contains no  *|
|* copy of MLIR. Link the host against the same libMLIR.so, with the MLIR C   *|
|* API from Debian's libMLIRCAPI*.a archives. With LEGO the directory of      *|
|* the lego-rs checkout, after `make` (docs/embedding.md, "Link"):            *|
|*                                                                            *|
|*   cc host.c -o host -I"$LEGO/capi/include" -I/usr/lib/llvm-22/include \    *|
|*      -L"$LEGO/target/release" -llego_capi \                                *|
|*      -Wl,-rpath,"$LEGO/target/release" \                                   *|
|*      -L/usr/lib/llvm-22/lib -lMLIRCAPIIR -lMLIR -lLLVM -lstdc++ \          *|
|*      -Wl,-rpath,/usr/lib/llvm-22/lib                                       *|
|*                                                                            *|
|* (test/embedding/c-host.test checks that this command is the page's. The    *|
|* static liblego_capi.a needs -lMLIR -lLLVM *before* it on the link line.)   *|
|*                                                                            *|
|* Errors. No call aborts the host or lets a Rust panic escape. A failing     *|
|* call returns a failed MlirLogicalResult or a null handle; the reason is    *|
|*  - an error diagnostic on the context, for calls given a context, module   *|
|*    or operation (attach a handler with mlirContextAttachDiagnosticHandler);*|
|*  - passed to errorCallback, for calls given a pass manager (MLIR's own     *|
|*    convention, as in mlirOpPassManagerAddPipeline);                        *|
|*  - and always available from legoGetLastErrorMessage() on the same thread. *|
|* A null context, module, operation or pass manager is a failure, not a     *|
|* crash.                                                                     *|
\*===----------------------------------------------------------------------===*/

#ifndef LEGO_C_LEGO_H
#define LEGO_C_LEGO_H

#include <stdbool.h>
#include <stdint.h>

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef LEGO_CAPI_EXPORTED
#define LEGO_CAPI_EXPORTED __attribute__((visibility("default")))
#endif

/// Version of this header's API. legoGetApiVersion() returns the library's;
/// they must be equal.
#define LEGO_C_API_VERSION 1

/*===-- Version ------------------------------------------------------------===*/

/// LEGO_C_API_VERSION of the library.
LEGO_CAPI_EXPORTED int32_t legoGetApiVersion(void);

/// The lego release, e.g. "0.1.0" (static, NUL-terminated).
LEGO_CAPI_EXPORTED MlirStringRef legoGetVersion(void);

/// The LLVM/MLIR major version the library was built for (22).
LEGO_CAPI_EXPORTED int32_t legoGetMlirMajorVersion(void);

/// Message of the last failed lego call on this thread, "" after a success.
/// Valid until the next lego call on this thread.
LEGO_CAPI_EXPORTED MlirStringRef legoGetLastErrorMessage(void);

/*===-- Dialect ------------------------------------------------------------===*/

/// Makes `ctx` ready for lego IR, the way lego-opt sets up its own context:
/// registers and loads every upstream dialect (lego's gen_p regions end in
/// smt.yield; lowering creates arith/scf/memref/affine ops), registers the
/// LLVM IR translations, and registers the lego dialect (IRDL). Idempotent.
LEGO_CAPI_EXPORTED MlirLogicalResult legoRegisterDialect(MlirContext ctx);

/// Whether the lego dialect is registered on `ctx` (false for a null context).
LEGO_CAPI_EXPORTED bool legoIsDialectRegistered(MlirContext ctx);

/*===-- Text ---------------------------------------------------------------===*/

/// Parses lego IR written in the custom syntax (or the generic form), mixed
/// with any upstream IR, and verifies it (MLIR's verifier and the lego rules).
/// `fileName` names the text in diagnostic locations (may be empty). Returns
/// a module the caller destroys with mlirModuleDestroy, or a null module
/// after reporting the errors as diagnostics on `ctx`. (mlirModuleCreateParse
/// also works, for the generic form only.)
LEGO_CAPI_EXPORTED MlirModule legoParseModule(MlirContext ctx,
                                              MlirStringRef source,
                                              MlirStringRef fileName);

/// Runs MLIR's verifier and the lego rules on `op`; errors are diagnostics.
LEGO_CAPI_EXPORTED MlirLogicalResult legoVerifyOperation(MlirOperation op);

/// Prints `op` with lego ops in their custom syntax (or everything in the
/// generic form if `generic`), passing the text to `callback`.
LEGO_CAPI_EXPORTED MlirLogicalResult
legoPrintOperation(MlirOperation op, bool generic, MlirStringCallback callback,
                   void *userData);

/*===-- Passes -------------------------------------------------------------===*/
/* Each returns a new pass (add it with mlirPassManagerAddOwnedPass or
 * mlirOpPassManagerAddOwnedPass), or a null pass (`pass.ptr == NULL`) when
 * the pass cannot be created (an unknown name or a bad option value); see
 * legoGetLastErrorMessage(). */

LEGO_CAPI_EXPORTED MlirPass legoCreateNormalizationPass(void);
LEGO_CAPI_EXPORTED MlirPass legoCreateToArithPass(void);
LEGO_CAPI_EXPORTED MlirPass legoCreateArithSimplificationPass(void);
LEGO_CAPI_EXPORTED MlirPass legoCreateStrengthReductionPass(void);
LEGO_CAPI_EXPORTED MlirPass legoCreateMaterializeAssumeBoundsPass(void);
LEGO_CAPI_EXPORTED MlirPass legoCreateGenerateBoundsChecksPass(void);
LEGO_CAPI_EXPORTED MlirPass legoCreateVerifyPass(void);
LEGO_CAPI_EXPORTED MlirPass legoCreateVerifyBijectivityPass(void);
LEGO_CAPI_EXPORTED MlirPass legoCreateExternalSmtVerifierPass(void);
/// The lego canonicalization patterns (docs/reference/passes.md); lego-opt's `canonicalize`
/// runs them too, upstream canonicalize alone does not.
LEGO_CAPI_EXPORTED MlirPass legoCreateCanonicalizePass(void);

/// Creates any registered lego pass by name ("lego-materialize-assume-bounds")
/// with option text ("cleanup=true"; may be empty), through the registry
/// lego-opt uses. Null for unknown names, pipelines and bad options.
LEGO_CAPI_EXPORTED MlirPass legoCreatePass(MlirStringRef name,
                                           MlirStringRef options);

/*===-- Pipelines ----------------------------------------------------------===*/

/// Adds pipeline text to `passManager`: lego and upstream passes and
/// pipelines mixed, nesting explicit ("lego-lower, func.func(cse)"); a whole
/// "builtin.module(...)" pipeline is accepted as the manager's own elements.
/// On failure the message goes to `errorCallback` (may be NULL), as with
/// mlirOpPassManagerAddPipeline. Syntax errors and bad lego names or options
/// are found before anything is added; an unknown upstream pass only when it
/// is reached, so discard the pass manager after a failure.
LEGO_CAPI_EXPORTED MlirLogicalResult
legoOpPassManagerAddPipeline(MlirOpPassManager passManager,
                             MlirStringRef pipeline,
                             MlirStringCallback errorCallback, void *userData);

/* Pipeline builders: add the named pipeline of docs/passes to `passManager`
 * (usually mlirPassManagerGetAsOpPassManager(pm) of a builtin.module pass
 * manager) with option text such as "chip=sm_90 features=+ptx80" (may be
 * empty). A pipeline this build does not provide yet fails with a message. */

/// lego-lower: normalization, to-arith, canonicalize/CSE, simplification,
/// verify, strength reduction, canonicalize/CSE.
LEGO_CAPI_EXPORTED MlirLogicalResult
legoBuildLowerPipeline(MlirOpPassManager passManager, MlirStringRef options,
                       MlirStringCallback errorCallback, void *userData);
/// lego-to-llvm: lego-lower, then the upstream CPU path to the LLVM dialect.
LEGO_CAPI_EXPORTED MlirLogicalResult
legoBuildToLLVMPipeline(MlirOpPassManager passManager, MlirStringRef options,
                        MlirStringCallback errorCallback, void *userData);
/// lego-to-nvvm (options chip, features, opt-level, format).
LEGO_CAPI_EXPORTED MlirLogicalResult
legoBuildToNVVMPipeline(MlirOpPassManager passManager, MlirStringRef options,
                        MlirStringCallback errorCallback, void *userData);
/// lego-to-rocdl (options chip, features, opt-level, format).
LEGO_CAPI_EXPORTED MlirLogicalResult
legoBuildToROCDLPipeline(MlirOpPassManager passManager, MlirStringRef options,
                         MlirStringCallback errorCallback, void *userData);
/// lego-to-spirv (options version, client-api).
LEGO_CAPI_EXPORTED MlirLogicalResult
legoBuildToSPIRVPipeline(MlirOpPassManager passManager, MlirStringRef options,
                         MlirStringCallback errorCallback, void *userData);
/// lego-to-xevm.
LEGO_CAPI_EXPORTED MlirLogicalResult
legoBuildToXeVMPipeline(MlirOpPassManager passManager, MlirStringRef options,
                        MlirStringCallback errorCallback, void *userData);
/// lego-to-llvmspirv.
LEGO_CAPI_EXPORTED MlirLogicalResult legoBuildToLLVMSPIRVPipeline(
    MlirOpPassManager passManager, MlirStringRef options,
    MlirStringCallback errorCallback, void *userData);

/// Convenience: runs pipeline text (as for legoOpPassManagerAddPipeline) on
/// `module` with a new pass manager on the module's context, verifier on.
/// A bad pipeline or a failing pass is reported as diagnostics on the context
/// and is a failure; so is any error diagnostic emitted during the run (some
/// upstream passes, such as lower-affine, report an error and succeed), as
/// lego-opt exits 1 on it. The diagnostics still reach the context's handlers.
LEGO_CAPI_EXPORTED MlirLogicalResult legoRunPipeline(MlirModule module,
                                                     MlirStringRef pipeline);

/*===-- The published LEGO dialect's C API --------------------------------===*/
/* The entry points of the published C++ LEGO dialect's C API, so that hosts
 * and Python bindings written against it link unchanged (thin wrappers over
 * the functions above). With these and MLIR's C API alone a host can load the
 * dialect, parse lego IR in the generic form (mlirModuleCreateParse; the
 * custom syntax needs legoParseModule), run lego passes and pipelines by name
 * and print. See docs/embedding.md. */

/// The lego dialect's handle. mlirDialectHandleRegisterDialect registers the
/// upstream dialects lego IR uses; mlirDialectHandleLoadDialect loads lego
/// (as legoRegisterDialect does) and returns it. lego is an IRDL dialect, so
/// it exists in a context only once *loaded*: register and load.
LEGO_CAPI_EXPORTED MlirDialectHandle mlirGetDialectHandle__lego__(void);
/// The upstream math dialect's handle (registering inserts the upstream
/// dialects, loading loads math).
LEGO_CAPI_EXPORTED MlirDialectHandle mlirGetDialectHandle__math__(void);

/// Registers by name in MLIR's global pass registry (so mlirParsePassPipeline
/// and mlirOpPassManagerAddPipeline accept them, with their options): MLIR's
/// passes (canonicalize, cse, the arith passes, ...), every lego pass, and the
/// pipelines lego-lower, lego-to-llvm and lego-to-spirv. Idempotent.
LEGO_CAPI_EXPORTED void legoRegisterCorePasses(void);
/// Every lego pass and pipeline (and MLIR's passes). Idempotent.
LEGO_CAPI_EXPORTED void legoRegisterPasses(void);
/// Target plugins of the published library: here the GPU passes and targets
/// come with MLIR's passes and the dialect extensions every lego context
/// gets; each registers the passes and all lego pipelines. Idempotent.
LEGO_CAPI_EXPORTED void legoRegisterNVPTXPlugin(void);
LEGO_CAPI_EXPORTED void legoRegisterAMDGPUPlugin(void);
LEGO_CAPI_EXPORTED void legoRegisterSPIRVPlugin(void);
/// Registers every dialect's LLVM IR translation on `ctx`.
LEGO_CAPI_EXPORTED void legoRegisterLLVMTranslations(MlirContext ctx);
/// Adds the convert-to-LLVM interfaces to `registry` (MLIR's C API offers no
/// call for those alone: every upstream dialect and extension is inserted).
LEGO_CAPI_EXPORTED void
legoRegisterConvertToLLVMExtensions(MlirDialectRegistry registry);

/// Whether `type` is !lego.layout / !lego.view<T>.
LEGO_CAPI_EXPORTED bool mlirLegoTypeIsALayout(MlirType type);
LEGO_CAPI_EXPORTED bool mlirLegoTypeIsAView(MlirType type);
/// TypeIDs of !lego.layout / !lego.view. IRDL gives dynamic types a new
/// TypeID in every context; these are the ones of the first context lego was
/// loaded into through this library (null before). With several contexts,
/// compare mlirTypeGetTypeID of a type made in the same context instead.
LEGO_CAPI_EXPORTED MlirTypeID mlirLegoLayoutTypeGetTypeID(void);
LEGO_CAPI_EXPORTED MlirTypeID mlirLegoViewTypeGetTypeID(void);
/// !lego.layout in `ctx` (null if lego is not loaded there).
LEGO_CAPI_EXPORTED MlirType mlirLegoLayoutTypeGet(MlirContext ctx);
/// !lego.view<elem> in `ctx` (null if lego is not loaded there).
LEGO_CAPI_EXPORTED MlirType mlirLegoViewTypeGet(MlirContext ctx,
                                                MlirType elem);
/// T of !lego.view<T> (null for other types).
LEGO_CAPI_EXPORTED MlirType mlirLegoViewTypeGetElementType(MlirType type);

#ifdef __cplusplus
}
#endif

#endif // LEGO_C_LEGO_H
