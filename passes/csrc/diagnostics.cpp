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
