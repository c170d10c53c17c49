//===- PTXDialect.td - The ptx dialect ---------------------*- tablegen -*-===//
//
// The ptx dialect: a faithful, round-trippable MLIR form of a PTX module.
// docs/dialect.md explains the design (registers as SSA handles, labels as
// blocks, operands as attributes).
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_DIALECT_PTX_PTXDIALECT_TD
#define PTXBENCH_DIALECT_PTX_PTXDIALECT_TD

include "mlir/IR/DialectBase.td"

def PTX_Dialect : Dialect {
  let name = "ptx";
  let cppNamespace = "::ptxbench::ptx";
  let summary = "A faithful representation of PTX modules";
  let description = [{
    Every PTX module construct has an op or attribute here: module directives,
    globals, kernels and functions with their parameters and performance
    directives, register and variable declarations, nested scopes, labels
    (as blocks), predicated instructions with all operand forms, and debug
    directives and sections. Importing PTX and exporting it again gives PTX
    that ptxas assembles to the same cubin.

    Registers and function-local variables are SSA values of type
    `!ptx.reg` / `!ptx.var` produced by their declarations; instructions take
    them as operands, so def-use questions are use-list walks and renaming a
    register is changing one attribute.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
}

#endif // PTXBENCH_DIALECT_PTX_PTXDIALECT_TD
