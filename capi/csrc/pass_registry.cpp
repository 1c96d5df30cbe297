// Puts lego passes and pipelines into MLIR's global pass registry, by name, so that a host using only MLIR's
// C API (mlirParsePassPipeline, mlirOpPassManagerAddPipeline) or its Python bindings can write
// "builtin.module(lego-lower, canonicalize)". MLIR's C API cannot register a pass by name (only create pass
// instances), so this shim calls mlir::registerPassPipeline with a builder that hands the pass manager and
// the option text back to the Rust registry (legoInternalAddRegisteredElement), which adds the lego pass or
// expands the lego pipeline exactly as lego-opt does.
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <string>

extern "C" MlirLogicalResult legoInternalAddRegisteredElement(MlirOpPassManager passManager, MlirStringRef name,
                                                               MlirStringRef options,
                                                               MlirStringCallback errorCallback, void *userData);

static void appendTo(MlirStringRef text, void *userData) {
  static_cast<std::string *>(userData)->append(text.data, text.length);
}

extern "C" void legoInternalRegisterInMlirPassRegistry(MlirStringRef name, MlirStringRef description) {
  std::string arg(name.data, name.length);
  mlir::registerPassPipeline(
      arg, llvm::StringRef(description.data, description.length),
      [arg](mlir::OpPassManager &pm, llvm::StringRef options,
            llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler) -> mlir::LogicalResult {
        std::string error;
        MlirLogicalResult added = legoInternalAddRegisteredElement(
            wrap(&pm), MlirStringRef{arg.data(), arg.size()}, MlirStringRef{options.data(), options.size()},
            appendTo, &error);
        if (mlirLogicalResultIsFailure(added))
          return errorHandler(error);
        return mlir::success();
      },
      [](llvm::function_ref<void(const mlir::detail::PassOptions &)>) {});
}
