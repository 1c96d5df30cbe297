// A host written against the *published* LEGO C API, using only its entry points and MLIR's C API: the dialect
// handle registers and loads lego, a lego module (generic form: custom syntax needs legoParseModule, which the
// published API lacks) is parsed by MLIR, legoRegisterCorePasses() puts lego-lower into MLIR's global pass
// registry so mlirParsePassPipeline finds it by name, and the lowered module is printed. Then the type
// accessors on !lego.layout and !lego.view<f32>.
//
// RUN: %cc %s -o %t -I%lego_root/capi/include -I/usr/lib/llvm-22/include -L%lego_root/target/debug -llego_capi -Wl,-rpath,%lego_root/target/debug -L/usr/lib/llvm-22/lib -lMLIRCAPIIR -lMLIR -lLLVM -lstdc++ -Wl,-rpath,/usr/lib/llvm-22/lib
// RUN: %t | FileCheck %s

#include "lego-c/Lego.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdio.h>
#include <string.h>

static void print(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

// MLIR hands pipeline errors over in pieces.
static void printError(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

// apply(row [8, 12], %i, %k) = 12·i + k: lego-lower leaves muli/addi (or their fused form), no lego op.
static const char *kModule =
    "func.func @row(%i: index, %k: index) -> index {\n"
    "  %l = \"lego.row\"() {static_dims = array<i64: 8, 12>} : () -> !lego.layout\n"
    "  %f = \"lego.apply\"(%l, %i, %k) : (!lego.layout, index, index) -> index\n"
    "  return %f : index\n"
    "}\n";

int main(void) {
  MlirContext ctx = mlirContextCreate();

  // CHECK: namespace: lego
  MlirDialectHandle lego = mlirGetDialectHandle__lego__();
  MlirStringRef ns = mlirDialectHandleGetNamespace(lego);
  printf("namespace: %.*s\n", (int)ns.length, ns.data);
  mlirDialectHandleRegisterDialect(lego, ctx);
  MlirDialect dialect = mlirDialectHandleLoadDialect(lego, ctx);
  // CHECK-NEXT: loaded: 1, named: lego
  MlirStringRef loadedName = mlirDialectGetNamespace(dialect);
  printf("loaded: %d, named: %.*s\n", !mlirDialectIsNull(dialect), (int)loadedName.length, loadedName.data);

  // CHECK-NEXT: math: 1
  MlirDialectHandle math = mlirGetDialectHandle__math__();
  mlirDialectHandleRegisterDialect(math, ctx);
  printf("math: %d\n", !mlirDialectIsNull(mlirDialectHandleLoadDialect(math, ctx)));

  MlirModule module = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  // CHECK-NEXT: parsed: 1
  printf("parsed: %d\n", !mlirModuleIsNull(module));
  if (mlirModuleIsNull(module))
    return 1;

  legoRegisterCorePasses();
  legoRegisterCorePasses(); // idempotent
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirLogicalResult added = mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm),
                                                  mlirStringRefCreateFromCString("builtin.module(lego-lower, canonicalize)"),
                                                  printError, NULL);
  // CHECK-NEXT: pipeline: 1
  printf("pipeline: %d\n", mlirLogicalResultIsSuccess(added));
  MlirLogicalResult ran = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  // CHECK-NEXT: ran: 1
  printf("ran: %d\n", mlirLogicalResultIsSuccess(ran));
  // CHECK: func.func @row(%arg0: index, %arg1: index) -> index {
  // CHECK-NOT: lego.
  // CHECK: arith.muli
  // CHECK-NOT: lego.
  // CHECK: return
  mlirOperationPrint(mlirModuleGetOperation(module), print, NULL);
  printf("\n");

  // A lego pass with options, by name, through MLIR's registry; a bad option is reported, not a crash.
  MlirPassManager pm2 = mlirPassManagerCreate(ctx);
  // CHECK: options: 1
  printf("options: %d\n", mlirLogicalResultIsSuccess(mlirParsePassPipeline(
                              mlirPassManagerGetAsOpPassManager(pm2),
                              mlirStringRefCreateFromCString("builtin.module(lego-verify{model=strict fail-on-violation=true})"),
                              printError, NULL)));
  MlirPassManager pm3 = mlirPassManagerCreate(ctx);
  // CHECK-NEXT: 'lego-verify': invalid value 'fast' for option 'model' of 'lego-verify': expected 'published' or 'strict'
  // CHECK: bad option: 0
  printf("\nbad option: %d\n", mlirLogicalResultIsSuccess(mlirParsePassPipeline(
                                 mlirPassManagerGetAsOpPassManager(pm3),
                                 mlirStringRefCreateFromCString("builtin.module(lego-verify{model=fast})"), printError, NULL)));

  // Types.
  MlirType layout = mlirLegoLayoutTypeGet(ctx);
  MlirType f32 = mlirF32TypeGet(ctx);
  MlirType view = mlirLegoViewTypeGet(ctx, f32);
  // CHECK-NEXT: layout: !lego.layout
  printf("layout: ");
  mlirTypePrint(layout, print, NULL);
  // CHECK-NEXT: view: !lego.view<f32>
  printf("\nview: ");
  mlirTypePrint(view, print, NULL);
  // CHECK-NEXT: isa: layout 1 0, view 0 1, f32 0 0
  printf("\nisa: layout %d %d, view %d %d, f32 %d %d\n", mlirLegoTypeIsALayout(layout), mlirLegoTypeIsAView(layout),
         mlirLegoTypeIsALayout(view), mlirLegoTypeIsAView(view), mlirLegoTypeIsALayout(f32), mlirLegoTypeIsAView(f32));
  // CHECK-NEXT: element is f32: 1
  printf("element is f32: %d\n", mlirTypeEqual(mlirLegoViewTypeGetElementType(view), f32));
  // CHECK-NEXT: element of a layout is null: 1
  printf("element of a layout is null: %d\n", mlirTypeIsNull(mlirLegoViewTypeGetElementType(layout)));
  // CHECK-NEXT: type ids: 1 1 0
  printf("type ids: %d %d %d\n", mlirTypeIDEqual(mlirLegoLayoutTypeGetTypeID(), mlirTypeGetTypeID(layout)),
         mlirTypeIDEqual(mlirLegoViewTypeGetTypeID(), mlirTypeGetTypeID(view)),
         mlirTypeIDEqual(mlirLegoLayoutTypeGetTypeID(), mlirLegoViewTypeGetTypeID()));
  // The parsed and the built type are the same type.
  MlirType parsed = mlirTypeParseGet(ctx, mlirStringRefCreateFromCString("!lego.view<f32>"));
  // CHECK-NEXT: same view: 1
  printf("same view: %d\n", mlirTypeEqual(parsed, view));

  // The remaining published entry points exist and are harmless to call.
  legoRegisterPasses();
  legoRegisterNVPTXPlugin();
  legoRegisterAMDGPUPlugin();
  legoRegisterSPIRVPlugin();
  legoRegisterLLVMTranslations(ctx);
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  legoRegisterConvertToLLVMExtensions(registry);
  mlirDialectRegistryDestroy(registry);
  // CHECK-NEXT: done
  printf("done\n");

  mlirPassManagerDestroy(pm3);
  mlirPassManagerDestroy(pm2);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
