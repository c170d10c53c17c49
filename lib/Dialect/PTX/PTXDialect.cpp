//===- PTXDialect.cpp - The ptx dialect, its types and attributes ---------===//
//
// Registers the dialect's ops, types and attributes, and walks instruction
// operand attributes.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Dialect/PTX/PTX.h"

#include "ptxbench/Dialect/PTX/ConstantExpr.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ptxbench::ptx;

#include "ptxbench/Dialect/PTX/PTXOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "ptxbench/Dialect/PTX/PTXOpsTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "ptxbench/Dialect/PTX/PTXAttributes.cpp.inc"

#include "ptxbench/Dialect/PTX/PTXInterfaces.cpp.inc"

void PTXDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ptxbench/Dialect/PTX/PTXOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "ptxbench/Dialect/PTX/PTXOpsTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ptxbench/Dialect/PTX/PTXAttributes.cpp.inc"
      >();
}

void ptxbench::ptx::walkRegOperands(
    Attribute arg, llvm::function_ref<void(RegOperandAttr)> fn) {
  llvm::TypeSwitch<Attribute>(arg)
      .Case([&](RegOperandAttr reg) { fn(reg); })
      .Case([&](AddrOperandAttr addr) {
        walkRegOperands(addr.getBase(), fn);
        for (Attribute element : addr.getRest())
          walkRegOperands(element, fn);
      })
      .Case([&](OffsetOperandAttr sum) { walkRegOperands(sum.getBase(), fn); })
      .Case([&](ElementOperandAttr element) {
        walkRegOperands(element.getBase(), fn);
        walkRegOperands(element.getIndex(), fn);
      })
      .Case([&](VecOperandAttr vec) {
        for (Attribute element : vec.getElements())
          walkRegOperands(element, fn);
      })
      .Case([&](ListOperandAttr list) {
        for (Attribute element : list.getElements())
          walkRegOperands(element, fn);
      })
      .Case([&](PairOperandAttr pair) {
        walkRegOperands(pair.getFirst(), fn);
        walkRegOperands(pair.getSecond(), fn);
      })
      .Case([&](NotOperandAttr neg) { walkRegOperands(neg.getOperand(), fn); });
}

std::optional<int64_t> ImmOperandAttr::getIntegerValue() const {
  return evaluateIntegerExpr(getText());
}

unsigned ptxbench::ptx::countRegOperands(ArrayAttr args) {
  unsigned count = 0;
  for (Attribute arg : args)
    walkRegOperands(arg, [&](RegOperandAttr) { ++count; });
  return count;
}
