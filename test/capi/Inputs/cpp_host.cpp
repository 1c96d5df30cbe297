// A C++ compiler embedding lego: it owns an mlir::MLIRContext and an mlir::PassManager (MLIR's C++ API, from
// libMLIR.so) and hands them to the lego C API through MLIR's wrap()/unwrap() (mlir/CAPI/*.h). Run by
// ../cpp-host.test.
#include "lego-c/Lego.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

static void print(MlirStringRef text, void *) { llvm::outs() << llvm::StringRef(text.data, text.length); }

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  auto file = llvm::MemoryBuffer::getFile(argv[1]);
  if (!file)
    return 2;
  llvm::StringRef text = (*file)->getBuffer();

  mlir::MLIRContext context;
  if (mlirLogicalResultIsFailure(legoRegisterDialect(wrap(&context))))
    return 1;
  MlirModule parsed = legoParseModule(wrap(&context), mlirStringRefCreate(text.data(), text.size()),
                                      mlirStringRefCreate(argv[1], strlen(argv[1])));
  if (mlirModuleIsNull(parsed))
    return 1;
  mlir::OwningOpRef<mlir::ModuleOp> module(unwrap(parsed));

  mlir::PassManager pm(&context);
  if (mlirLogicalResultIsFailure(
          legoBuildLowerPipeline(wrap(static_cast<mlir::OpPassManager *>(&pm)), mlirStringRefCreate("", 0),
                                 [](MlirStringRef message, void *) { print(message, nullptr); }, nullptr)))
    return 1;
  if (mlir::failed(pm.run(*module)))
    return 1;
  legoPrintOperation(wrap(module->getOperation()), false, print, nullptr);
  llvm::outs() << "\n";
  return 0;
}
