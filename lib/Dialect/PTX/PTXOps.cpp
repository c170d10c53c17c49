//===- PTXOps.cpp - Structural ops of the ptx dialect ---------------------===//
//
// Builders, custom assembly and verifiers of the module-structure and
// declaration ops. Instruction ops are verified in PTXInstructionOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Dialect/PTX/PTX.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace ptxbench::ptx;

#define GET_OP_CLASSES
#include "ptxbench/Dialect/PTX/PTXOps.cpp.inc"

//===----------------------------------------------------------------------===//
// ModuleOp
//===----------------------------------------------------------------------===//

void ModuleOp::build(OpBuilder &builder, OperationState &state,
                     StringRef version, ArrayRef<StringRef> target,
                     std::optional<uint32_t> addressSize) {
  state.getOrAddProperties<Properties>().version =
      builder.getStringAttr(version);
  state.getOrAddProperties<Properties>().target =
      builder.getStrArrayAttr(target);
  if (addressSize)
    state.getOrAddProperties<Properties>().address_size =
        builder.getI32IntegerAttr(*addressSize);
  state.addRegion()->emplaceBlock();
}

LogicalResult ModuleOp::verify() {
  if (getTarget().empty())
    return emitOpError("needs a .target");
  if (std::optional<uint32_t> size = getAddressSize();
      size && *size != 32 && *size != 64)
    return emitOpError(".address_size must be 32 or 64, not ") << *size;
  return success();
}

//===----------------------------------------------------------------------===//
// FuncOp
//===----------------------------------------------------------------------===//

LogicalResult FuncOp::verify() {
  if (isExternal())
    return success();
  Block &entry = getBody().front();
  size_t expected = getResults().size() + getParams().size();
  if (entry.getNumArguments() != expected)
    return emitOpError("entry block needs one argument per return parameter "
                       "and parameter (")
           << expected << "), has " << entry.getNumArguments();
  if (getEntry() && !getResults().empty())
    return emitOpError("a kernel (.entry) cannot return values");
  return success();
}

void FuncOp::getAsmBlockArgumentNames(Region &region,
                                      OpAsmSetValueNameFn setNameFn) {
  if (region.empty())
    return;
  unsigned index = 0;
  for (ArrayAttr list : {getResults(), getParams()})
    for (Attribute attr : list)
      if (index < region.getNumArguments())
        setNameFn(region.getArgument(index++),
                  llvm::cast<ParamAttr>(attr).getName());
}

//===----------------------------------------------------------------------===//
// RegOp
//===----------------------------------------------------------------------===//

/// A PTX name as an MLIR value name: `%r` -> `r`.
static StringRef valueName(StringRef ptxName) {
  ptxName.consume_front("%");
  return ptxName;
}

std::string RegOp::getRegName(unsigned index) {
  if (!getCount())
    return getName().str();
  return (getName() + Twine(index)).str();
}

void RegOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  // Ranges print as %r:N and are used as %r#k, which reads like PTX's %rk.
  if (!getRegs().empty())
    setNameFn(getRegs().front(), valueName(getName()));
}

LogicalResult RegOp::verify() {
  unsigned expected = getCount() ? *getCount() : 1;
  if (getNumResults() != expected)
    return emitOpError("declares ") << expected << " registers but has "
                                    << getNumResults() << " results";
  return success();
}

// Custom form: %r:100 = ptx.reg ".b32" "%r" <100>
ParseResult RegOp::parse(OpAsmParser &parser, OperationState &result) {
  std::string decl, name;
  if (parser.parseString(&decl) || parser.parseString(&name))
    return failure();
  Builder &builder = parser.getBuilder();
  auto &props = result.getOrAddProperties<Properties>();
  props.decl = builder.getStringAttr(decl);
  props.name = builder.getStringAttr(name);
  unsigned count = 1;
  if (succeeded(parser.parseOptionalLess())) {
    if (parser.parseInteger(count) || parser.parseGreater())
      return failure();
    props.count = builder.getI32IntegerAttr(count);
  }
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  result.addTypes(SmallVector<Type>(count, RefType::get(builder.getContext())));
  return success();
}

void RegOp::print(OpAsmPrinter &printer) {
  printer << ' ';
  printer.printString(getDecl());
  printer << ' ';
  printer.printString(getName());
  if (std::optional<uint32_t> count = getCount())
    printer << " <" << *count << '>';
  printer.printOptionalAttrDict((*this)->getAttrs(), {"decl", "name", "count"});
}

//===----------------------------------------------------------------------===//
// VarOp
//===----------------------------------------------------------------------===//

void VarOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getVar(), valueName(getName()));
}

//===----------------------------------------------------------------------===//
// LabelOp
//===----------------------------------------------------------------------===//

LogicalResult LabelOp::verify() {
  if (&(*this)->getBlock()->front() != getOperation())
    return emitOpError("must start its block");
  return success();
}
