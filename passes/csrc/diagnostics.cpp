// Emits MLIR diagnostics of any severity, optionally with one attached note. MLIR's C API has only
// mlirEmitError (mlir-c/Diagnostics.h in LLVM 22 declares no warning or remark emitter, and no way to
// attach notes), so the verification passes, whose "cannot verify" and "proved" messages must not be
// errors, go through this shim over mlir::emitError / emitWarning / emitRemark.
#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/Diagnostics.h"

extern "C" void legoEmitDiagnostic(MlirLocation location, int severity, const char *message,
                                   const MlirLocation *noteLocation, const char *note) {
  mlir::Location loc = unwrap(location);
  mlir::InFlightDiagnostic diagnostic = severity == 1   ? mlir::emitWarning(loc)
                                        : severity == 2 ? mlir::emitRemark(loc)
                                                        : mlir::emitError(loc);
  diagnostic << message;
  if (noteLocation && note)
    diagnostic.attachNote(unwrap(*noteLocation)) << note;
}

// Marks every analysis preserved by the external (Rust) pass `externalPass` (an MlirExternalPass: the C API's
// ExternalPass, a mlir::Pass subclass), as a C++ pass that changed nothing does: the pass manager then skips
// its verify-each verification of the unchanged IR. The C API has no such call, and
// mlir::Pass::markAllAnalysesPreserved is protected: a member pointer named through a derived class reaches it
// (the class is never instantiated).
#include "mlir/Pass/Pass.h"

namespace {
struct PassAccess : mlir::Pass {
  static void preserveAll(mlir::Pass *pass) { (pass->*(&PassAccess::markAllAnalysesPreserved))(); }
};
} // namespace

extern "C" void legoMarkAllAnalysesPreserved(void *externalPass) {
  PassAccess::preserveAll(static_cast<mlir::Pass *>(externalPass));
}

