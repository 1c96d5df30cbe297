// Parses a text of several top-level ops into a new module, every location MLIR's own (the user's file, line and
// column). The C API has only mlirOperationCreateParse, which wants a single top-level op; without this shim
// the text is parsed again wrapped in `module {` on a line of its own, and every op's and block argument's
// location is then moved back a line (a walk and a new location per op: ~6 % of a no-pass run on a file of
// 10 000 functions). See `parse_into_module` in src/source.rs.
#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

// The same parse as mlirOperationCreateParse (parseSourceString with a ParserConfig of the context: the
// parser verifies its own temporary module holding all the ops, symbol table included), the ops then moved into
// a new `builtin.module` at `moduleLocation`. Null where the parse failed (its diagnostics went to the
// context's handlers).
extern "C" MlirOperation legoParseIntoModule(MlirContext context, MlirStringRef source, MlirStringRef sourceName,
                                             MlirLocation moduleLocation) {
  mlir::MLIRContext *ctx = unwrap(context);
  mlir::ParserConfig config(ctx);
  mlir::Block block;
  if (mlir::failed(mlir::parseSourceString(unwrap(source), &block, config, unwrap(sourceName))))
    return MlirOperation{nullptr};
  mlir::ModuleOp module = mlir::ModuleOp::create(unwrap(moduleLocation));
  mlir::Block *body = module.getBody();
  body->getOperations().splice(body->end(), block.getOperations());
  return wrap(module.getOperation());
}
