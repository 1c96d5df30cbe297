// The C API from a C host that shares one MLIR with liblego_capi.so: the host creates the context and the
// pass manager with its own MLIR C API (Debian's libMLIRCAPIIR.a over libMLIR.so), lego registers its
// dialect on that context, parses, lowers with lego-lower and prints; bad input fails without aborting.
//
// RUN: %cc %s -o %t -I%lego_root/capi/include -I/usr/lib/llvm-22/include -L%lego_root/target/debug -llego_capi -Wl,-rpath,%lego_root/target/debug -L/usr/lib/llvm-22/lib -lMLIRCAPIIR -lMLIR -lLLVM -lstdc++ -Wl,-rpath,/usr/lib/llvm-22/lib
// RUN: %t %S/Inputs/tiled.mlir | FileCheck %s
//
// The static library works the same way; libMLIR.so and libLLVM.so must come before it on the link line.
// RUN: %cc %s -o %t.static -I%lego_root/capi/include -I/usr/lib/llvm-22/include -L/usr/lib/llvm-22/lib -Wl,--no-as-needed -lMLIR -lLLVM %lego_root/target/debug/liblego_capi.a -lz3 -lstdc++ -lm -ldl -lpthread -Wl,-rpath,/usr/lib/llvm-22/lib
// RUN: %t.static %S/Inputs/tiled.mlir | FileCheck %s

#include "lego-c/Lego.h"
#include "mlir-c/Diagnostics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static void printError(MlirStringRef text, void *userData) {
  printf("%s: %.*s\n", (const char *)userData, (int)text.length, text.data);
}

static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic, void *userData) {
  (void)userData;
  printf("diagnostic: ");
  mlirLocationPrint(mlirDiagnosticGetLocation(diagnostic), print, NULL);
  printf(": ");
  mlirDiagnosticPrint(diagnostic, print, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static char *readFile(const char *path, size_t *length) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  *length = fread(text, 1, (size_t)size, file);
  text[*length] = '\0';
  fclose(file);
  return text;
}

static MlirStringRef str(const char *text) { return mlirStringRefCreateFromCString(text); }

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: %s input.mlir [pipeline, default: lego-lower]\n", argv[0]);
    return 2;
  }
  // CHECK: api version 1 (header 1), mlir 22
  printf("api version %d (header %d), mlir %d\n", legoGetApiVersion(), LEGO_C_API_VERSION,
         legoGetMlirMajorVersion());
  MlirStringRef version = legoGetVersion();
  // CHECK-NEXT: lego version {{[0-9]+\.[0-9]+\.[0-9]+}}
  printf("lego version %.*s\n", (int)version.length, version.data);

  // Bad input: null handles fail, nothing aborts.
  MlirContext nullContext = {NULL};
  MlirModule nullModule = {NULL};
  MlirOpPassManager nullManager = {NULL};
  // CHECK-NEXT: null context: failure (legoRegisterDialect: null MlirContext)
  MlirStringRef message;
  int ok = mlirLogicalResultIsSuccess(legoRegisterDialect(nullContext));
  message = legoGetLastErrorMessage();
  printf("null context: %s (%.*s)\n", ok ? "success" : "failure", (int)message.length, message.data);
  // CHECK-NEXT: null parse: 1
  printf("null parse: %d\n", mlirModuleIsNull(legoParseModule(nullContext, str("module {}"), str(""))));
  // CHECK-NEXT: null module: failure
  printf("null module: %s\n",
         mlirLogicalResultIsSuccess(legoRunPipeline(nullModule, str("lego-lower"))) ? "success" : "failure");
  // CHECK-NEXT: null pass manager: building 'lego-lower': null MlirOpPassManager
  legoBuildLowerPipeline(nullManager, str(""), printError, "null pass manager");
  // CHECK-NEXT: unknown pass: 1 ('lego-frobnicate' is not a registered lego pass)
  MlirPass unknown = legoCreatePass(str("lego-frobnicate"), str(""));
  message = legoGetLastErrorMessage();
  printf("unknown pass: %d (%.*s)\n", unknown.ptr == NULL, (int)message.length, message.data);

  // The host's context, with the host's diagnostic handler.
  MlirContext context = mlirContextCreate();
  mlirContextAttachDiagnosticHandler(context, printDiagnostic, NULL, NULL);
  if (mlirLogicalResultIsFailure(legoRegisterDialect(context)) || !legoIsDialectRegistered(context)) {
    fprintf(stderr, "legoRegisterDialect failed\n");
    return 1;
  }

  // Parse errors are diagnostics at the position in the text.
  // CHECK-NEXT: diagnostic: loc("bad.mlir":1:6): 'lego.row' op Dimension 0 must be strictly positive
  // CHECK-NEXT: bad module: 1
  MlirModule bad = legoParseModule(context, str("%l = lego.row [0] : !lego.layout\n"), str("bad.mlir"));
  printf("bad module: %d\n", mlirModuleIsNull(bad));

  size_t length = 0;
  char *text = readFile(argv[1], &length);
  if (!text) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  MlirModule module = legoParseModule(context, mlirStringRefCreate(text, length), str(argv[1]));
  free(text);
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "parse failed\n");
    return 1;
  }
  MlirOperation op = mlirModuleGetOperation(module);

  // A bad pipeline string: failure, a diagnostic on the module's context, the module untouched.
  // CHECK-NEXT: diagnostic: loc({{.*}}tiled.mlir{{.*}}): invalid pass pipeline 'lego-lower{bogus=1}': unknown option 'bogus' for pass 'lego-lower'
  // CHECK-NEXT: bad pipeline: failure
  printf("bad pipeline: %s\n",
         mlirLogicalResultIsSuccess(legoRunPipeline(module, str("lego-lower{bogus=1}"))) ? "success" : "failure");
  // The same through a pass manager: the message goes to the callback, as with mlirOpPassManagerAddPipeline.
  MlirPassManager pm = mlirPassManagerCreate(context);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  // CHECK-NEXT: add pipeline: invalid pass pipeline 'lego-lower, func.func(cse': {{.*}}
  legoOpPassManagerAddPipeline(opm, str("lego-lower, func.func(cse"), printError, "add pipeline");

  // Lower: lego-lower (or the pipeline given), then strength reduction created by value, on the host's
  // pass manager.
  MlirLogicalResult built = argc == 3 ? legoOpPassManagerAddPipeline(opm, str(argv[2]), printError, "pipeline")
                                      : legoBuildLowerPipeline(opm, str(""), printError, "lego-lower");
  if (mlirLogicalResultIsFailure(built))
    return 1;
  MlirPass strength = legoCreateStrengthReductionPass();
  if (strength.ptr == NULL) {
    message = legoGetLastErrorMessage();
    fprintf(stderr, "%.*s\n", (int)message.length, message.data);
    return 1;
  }
  mlirPassManagerAddOwnedPass(pm, strength);
  // The lego canonicalization patterns by value (lego-lower's canonicalize runs them too).
  MlirPass canonicalize = legoCreateCanonicalizePass();
  // CHECK: canonicalize pass: 1
  printf("canonicalize pass: %d\n", canonicalize.ptr != NULL);
  if (canonicalize.ptr == NULL)
    return 1;
  mlirPassManagerAddOwnedPass(pm, canonicalize);
  if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, op))) {
    fprintf(stderr, "lowering failed\n");
    return 1;
  }
  // The lowered function is plain index arithmetic: (ti·4 + i)·12 + tk·3 + k.
  // CHECK-LABEL: func.func @tiled
  // CHECK-NOT: lego.
  // CHECK: {{(arith|affine)\.}}
  // CHECK-NOT: lego.
  // CHECK: return
  legoPrintOperation(op, false, print, NULL);
  printf("\n");
  // CHECK: verified: 1
  printf("verified: %d\n", mlirLogicalResultIsSuccess(legoVerifyOperation(op)));

  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
  // CHECK-NEXT: done
  printf("done\n");
  return 0;
}
