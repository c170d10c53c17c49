//===- ExportPTX.cpp - The ptx dialect to PTX text ------------------------===//
//
// Prints a ptx.module as PTX in nvcc's layout: module directives, then the
// items in order; in bodies, declarations and instructions indented by a
// tab, labels flush left. Fallthrough terminators print nothing, so blocks
// read as the straight-line code they came from.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Conversion/ExportPTX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::ptx;

namespace {

/// Forwards to another stream, counting lines, or captures into a string.
class LineCountingStream : public llvm::raw_ostream {
public:
  explicit LineCountingStream(llvm::raw_ostream &out) : out(out) {
    SetUnbuffered();
  }
  unsigned line() const { return lines + 1; }
  bool atLineStart() const { return lastChar == '\n'; }
  /// While `buffer` is set, output goes there and is not counted.
  void capture(std::string *buffer) { captured = buffer; }

private:
  void write_impl(const char *ptr, size_t size) override {
    if (captured) {
      captured->append(ptr, size);
      return;
    }
    if (size == 0)
      return;
    lines += std::count(ptr, ptr + size, '\n');
    lastChar = ptr[size - 1];
    out.write(ptr, size);
  }
  uint64_t current_pos() const override { return out.tell(); }

  llvm::raw_ostream &out;
  std::string *captured = nullptr;
  unsigned lines = 0;
  char lastChar = '\n';
};

/// A statement with comments, whitespace and zero address offsets removed,
/// to tell whether recorded text and the op still say the same thing.
std::string normalize(StringRef text) {
  std::string result;
  result.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n')
        ++i;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      size_t close = text.find("*/", i + 2);
      i = close == StringRef::npos ? text.size() : close + 1;
      continue;
    }
    if (llvm::isSpace(c))
      continue;
    if (c == '+' && i + 1 < text.size() && text[i + 1] == '0') {
      size_t j = i + 2;
      while (j < text.size() && llvm::isSpace(text[j]))
        ++j;
      if (j < text.size() && (text[j] == ']' || text[j] == ',')) {
        i += 1;
        continue;
      }
    }
    result += c;
  }
  return result;
}

class Exporter {
public:
  explicit Exporter(llvm::raw_ostream &out) : os(out) {}

  LogicalResult exportModule(ptx::ModuleOp module);

private:
  void printSignature(bool entry, StringRef linkage, StringRef name,
                      ArrayAttr results, ArrayAttr params,
                      ArrayAttr directives);
  void printParam(ParamAttr param);
  /// A module-scope variable's declaration, with its initializer if any.
  void printVariable(StringRef linkage, StringRef space, StringRef decl,
                     StringRef name, std::optional<ArrayRef<int64_t>> dims,
                     std::optional<StringRef> init);
  void printDims(ArrayRef<int64_t> dims);
  LogicalResult printBody(FuncOp func);
  LogicalResult printInstruction(Operation *op);
  LogicalResult printOperand(Attribute arg, Operation *op,
                             OperandRange::iterator &ref);
  /// Prints the constant added to an address or a register: as written
  /// when the import kept its text, else `+N` (ptxas takes `+-4`, not `-4`).
  void printOffset(int64_t offset, StringRef text) {
    if (!text.empty())
      os << text;
    else if (offset != 0)
      os << '+' << offset;
  }
  /// Prints the PTX name of a register, variable or parameter handle.
  void printName(Value value);
  StringRef labelOf(Block *block);

  /// The PTX line `loc` is on in the imported file, or 0.
  unsigned sourceLine(Location loc);
  unsigned sourceLine(Operation *op) { return sourceLine(op->getLoc()); }
  /// Prints `op` through `print`, on its source line: ptxas builds debug
  /// line tables from PTX line numbers, so ops are padded down to the line
  /// they came from. When the op carries its source text (ptx.text) and
  /// still says the same, the text is printed as written, since ptxas also
  /// embeds the text of each line in a cubin with line info.
  LogicalResult emit(Operation *op, llvm::function_ref<LogicalResult()> print);
  LogicalResult printModuleItem(Operation *item);
  LogicalResult printBodyOp(Operation *op);

  LineCountingStream os;
  /// The PTX file the module was imported from, if any.
  StringAttr sourceFile;
  /// The source line of the statement just printed from its text, which the
  /// next statement continues when it was written on the same line.
  unsigned lastTextLine = 0;
  /// Per function: parameter names, by entry-block argument number.
  SmallVector<StringRef> argNames;
};

} // namespace

LogicalResult Exporter::exportModule(ptx::ModuleOp module) {
  sourceFile = module.getSourceAttr();
  for (unsigned line = sourceLine(module); os.line() < line;)
    os << '\n';
  os << ".version " << module.getVersion() << "\n.target ";
  llvm::interleave(module.getTarget().getAsValueRange<StringAttr>(), os, ", ");
  os << "\n";
  if (std::optional<uint32_t> size = module.getAddressSize())
    os << ".address_size " << *size << "\n";
  for (Operation &item : module.getBody()->getOperations()) {
    auto func = llvm::dyn_cast<FuncOp>(item);
    if (!func) {
      if (failed(emit(&item, [&] { return printModuleItem(&item); })))
        return failure();
      continue;
    }
    if (failed(emit(func, [&] {
          printSignature(func.getEntry(), func.getLinkage(), func.getSymName(),
                         func.getResults(), func.getParams(),
                         func.getDirectives());
          if (func.isExternal())
            os << ";\n";
          return success();
        })))
      return failure();
    if (!func.isExternal() && failed(printBody(func)))
      return failure();
  }
  return success();
}

LogicalResult Exporter::printModuleItem(Operation *item) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(item)
      .Case([&](FileOp file) {
        os << "\t.file\t" << file.getIndex() << " \"" << file.getPath() << "\"";
        if (file.getTimestamp())
          os << ", " << *file.getTimestamp() << ", " << *file.getSize();
        os << "\n";
        return success();
      })
      .Case([&](SectionOp section) {
        // The header as it was written, else the usual form.
        if (std::optional<StringRef> header = section.getHeader())
          os << '\t' << *header;
        else
          os << "\t.section\t" << section.getName() << "\n\t";
        os << '{' << section.getContents() << "}\n";
        return success();
      })
      .Case([&](ModulePragmaOp pragma) {
        os << ".pragma ";
        llvm::interleave(
            pragma.getValues().getAsValueRange<StringAttr>(), os,
            [&](StringRef v) { os << '"' << v << '"'; }, ", ");
        os << ";\n";
        return success();
      })
      .Case([&](AliasOp alias) {
        os << ".alias " << alias.getSymName() << ", " << alias.getAliasee()
           << ";\n";
        return success();
      })
      .Case([&](GlobalOp global) {
        printVariable(global.getLinkage(), global.getSpace(), global.getDecl(),
                      global.getSymName(), global.getDims(),
                      global.getInit());
        return success();
      })
      .Case([&](GlobalDeclOp decl) {
        printVariable(decl.getLinkage(), decl.getSpace(), decl.getDecl(),
                      decl.getGlobal(), decl.getDims(), std::nullopt);
        return success();
      })
      .Case([&](PrototypeOp proto) {
        printSignature(proto.getEntry(), proto.getLinkage(), proto.getCallee(),
                       proto.getResults(), proto.getParams(),
                       proto.getDirectives());
        os << ";\n";
        return success();
      })
      .Default([&](Operation *op) {
        return op->emitOpError("cannot be exported to PTX");
      });
}

unsigned Exporter::sourceLine(Location loc) {
  if (auto fused = llvm::dyn_cast<FusedLoc>(loc))
    loc = fused.getLocations().front();
  auto fileLoc = llvm::dyn_cast<FileLineColLoc>(loc);
  if (!fileLoc || !sourceFile || fileLoc.getFilename() != sourceFile)
    return 0;
  return fileLoc.getLine();
}

LogicalResult Exporter::emit(Operation *op,
                             llvm::function_ref<LogicalResult()> print) {
  auto text = op->getAttrOfType<StringAttr>(ptx::kTextAttrName);
  unsigned line = sourceLine(op);
  // A statement that shared its source line with the previous one continues
  // it; anything else starts on its own line, padded to its source line.
  bool continuesLine =
      text && line && line == lastTextLine && !os.atLineStart();
  lastTextLine = 0;
  if (!continuesLine) {
    while (line && os.line() < line)
      os << '\n';
    if (!os.atLineStart())
      os << '\n';
  }
  if (!text)
    return print();
  std::string regenerated;
  os.capture(&regenerated);
  LogicalResult printed = print();
  os.capture(nullptr);
  if (failed(printed))
    return failure();
  if (normalize(regenerated) != normalize(text.getValue())) {
    os << regenerated;
    return success();
  }
  // Indent as the regenerated form would (ptxas ignores indentation).
  if (os.atLineStart() && !regenerated.empty() && regenerated[0] == '\t')
    os << '\t';
  os << text.getValue();
  lastTextLine = line;
  return success();
}

void Exporter::printDims(ArrayRef<int64_t> dims) {
  for (int64_t dim : dims) {
    os << '[';
    if (dim >= 0)
      os << dim;
    os << ']';
  }
}

void Exporter::printVariable(StringRef linkage, StringRef space,
                             StringRef decl, StringRef name,
                             std::optional<ArrayRef<int64_t>> dims,
                             std::optional<StringRef> init) {
  if (!linkage.empty())
    os << linkage << ' ';
  os << space << ' ' << decl << ' ' << name;
  if (dims)
    printDims(*dims);
  if (init)
    os << " = " << *init;
  os << ";\n";
}

void Exporter::printParam(ParamAttr param) {
  os << param.getSpace() << ' ' << param.getDecl();
  if (!param.getName().empty())
    os << ' ' << param.getName();
  printDims(param.getDims().asArrayRef());
}

void Exporter::printSignature(bool entry, StringRef linkage, StringRef name,
                              ArrayAttr results, ArrayAttr params,
                              ArrayAttr directives) {
  if (!linkage.empty())
    os << linkage << ' ';
  os << (entry ? ".entry " : ".func ");
  if (!entry && !results.empty()) {
    os << '(';
    llvm::interleave(
        results.getAsRange<ParamAttr>(), os,
        [&](ParamAttr p) { printParam(p); }, ", ");
    os << ") ";
  }
  os << name;
  // nvcc writes `()` for an empty parameter list; so do we.
  if (params.empty()) {
    os << "()";
  } else {
    os << "(\n";
    llvm::interleave(
        params.getAsRange<ParamAttr>(), os,
        [&](ParamAttr p) {
          os << '\t';
          printParam(p);
        },
        ",\n");
    os << "\n)";
  }
  for (DirectiveAttr directive : directives.getAsRange<DirectiveAttr>()) {
    os << "\n." << directive.getName();
    bool first = true;
    for (Attribute value : directive.getValues()) {
      os << (first ? " " : ", ");
      first = false;
      if (auto str = llvm::dyn_cast<StringAttr>(value))
        os << '"' << str.getValue() << '"';
      else
        os << llvm::cast<IntegerAttr>(value).getInt();
    }
    if (directive.getName() == "pragma")
      os << ';';
  }
  os << "\n";
}

void Exporter::printName(Value value) {
  if (auto arg = llvm::dyn_cast<BlockArgument>(value)) {
    os << argNames[arg.getArgNumber()];
    return;
  }
  Operation *def = value.getDefiningOp();
  if (auto reg = llvm::dyn_cast<RegOp>(def)) {
    // %r<N> ranges name their registers %r0 .. %r{N-1}.
    os << reg.getName();
    if (reg.getCount())
      os << llvm::cast<OpResult>(value).getResultNumber();
    return;
  }
  os << llvm::cast<VarOp>(def).getName();
}

StringRef Exporter::labelOf(Block *block) {
  if (!block->empty())
    if (auto label = llvm::dyn_cast<LabelOp>(block->front()))
      return label.getName();
  return {};
}

LogicalResult Exporter::printBody(FuncOp func) {
  argNames.clear();
  for (ArrayAttr list : {func.getResults(), func.getParams()})
    for (ParamAttr param : list.getAsRange<ParamAttr>())
      argNames.push_back(param.getName());
  if (!os.atLineStart())
    os << '\n';
  os << "{\n";
  for (Block &block : func.getBody())
    for (Operation &op : block)
      if (!llvm::isa<FallthroughOp>(op) &&
          failed(emit(&op, [&] { return printBodyOp(&op); })))
        return failure();
  if (!os.atLineStart())
    os << '\n';
  // The closing brace keeps its line only when the body's ops kept theirs.
  if (std::optional<LocationAttr> end = func.getBodyEnd();
      end && sourceLine(func))
    for (unsigned line = sourceLine(*end); os.line() < line;)
      os << '\n';
  os << "}\n";
  return success();
}

LogicalResult Exporter::printBodyOp(Operation *bodyOp) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(bodyOp)
      .Case([&](LabelOp label) {
        os << label.getName() << ":\n";
        return success();
      })
      .Case([&](RegOp reg) {
        os << "\t.reg " << reg.getDecl() << " \t" << reg.getName();
        if (std::optional<uint32_t> count = reg.getCount())
          os << '<' << *count << '>';
        os << ";\n";
        return success();
      })
      .Case([&](VarOp var) {
        os << '\t' << var.getSpace() << ' ' << var.getDecl() << ' '
           << var.getName();
        if (std::optional<ArrayRef<int64_t>> dims = var.getDims())
          printDims(*dims);
        if (std::optional<StringRef> init = var.getInit())
          os << " = " << *init;
        os << ";\n";
        return success();
      })
      .Case([&](ScopeBeginOp) {
        os << "\t{\n";
        return success();
      })
      .Case([&](ScopeEndOp) {
        os << "\t}\n";
        return success();
      })
      .Case([&](LocOp loc) {
        os << "\t.loc\t" << loc.getFile() << ' ' << loc.getLine() << ' '
           << loc.getColumn();
        if (!loc.getRest().empty())
          os << loc.getRest();
        os << "\n";
        return success();
      })
      .Case([&](PragmaOp pragma) {
        os << "\t.pragma ";
        llvm::interleave(
            pragma.getValues().getAsValueRange<StringAttr>(), os,
            [&](StringRef v) { os << '"' << v << '"'; }, ", ");
        os << ";\n";
        return success();
      })
      .Case([&](BranchTargetsOp table) {
        os << table.getName() << ": .branchtargets ";
        llvm::interleave(table.getLabels().getAsValueRange<StringAttr>(), os,
                         ", ");
        os << ";\n";
        return success();
      })
      .Case([&](CallTargetsOp table) {
        os << table.getName() << ": .calltargets ";
        llvm::interleave(
            table.getCallees().getAsRange<FlatSymbolRefAttr>(), os,
            [&](FlatSymbolRefAttr f) { os << f.getValue(); }, ", ");
        os << ";\n";
        return success();
      })
      .Case([&](CallPrototypeOp proto) {
        os << proto.getName() << " : .callprototype " << proto.getSignature()
           << ";\n";
        return success();
      })
      .Case([&](FallthroughOp) { return success(); })
      .Default([&](Operation *inst) { return printInstruction(inst); });
}

LogicalResult Exporter::printInstruction(Operation *op) {
  auto inst = llvm::dyn_cast<InstructionOpInterface>(op);
  if (!inst)
    return op->emitOpError("cannot be exported to PTX");
  os << '\t';
  if (Value guard = inst.getGuard()) {
    os << '@' << (inst.getNegated() ? "!" : "");
    printName(guard);
    os << ' ';
  }
  os << inst.getOpcode();
  OperandRange refs = inst.getRefs();
  OperandRange::iterator ref = refs.begin();
  bool first = true;
  for (Attribute arg : inst.getArgs()) {
    os << (first ? " \t" : ", ");
    first = false;
    if (failed(printOperand(arg, op, ref)))
      return failure();
  }
  os << ";\n";
  return success();
}

LogicalResult Exporter::printOperand(Attribute arg, Operation *op,
                                     OperandRange::iterator &ref) {
  auto printList = [&](ArrayRef<Attribute> elements, char open, char close) {
    os << open;
    bool first = true;
    for (Attribute element : elements) {
      if (!first)
        os << ", ";
      first = false;
      if (failed(printOperand(element, op, ref)))
        return failure();
    }
    os << close;
    return success();
  };
  return llvm::TypeSwitch<Attribute, LogicalResult>(arg)
      .Case([&](RegOperandAttr reg) {
        printName(*ref++);
        if (!reg.getComponent().empty())
          os << '.' << reg.getComponent();
        return success();
      })
      .Case([&](ImmOperandAttr imm) {
        os << imm.getText();
        return success();
      })
      .Case([&](SymOperandAttr sym) {
        os << sym.getName().getValue();
        return success();
      })
      .Case([&](IdOperandAttr id) {
        os << id.getName();
        return success();
      })
      .Case([&](LabelOperandAttr label) -> LogicalResult {
        if (label.getIndex() >= op->getNumSuccessors())
          return op->emitOpError("names successor ")
                 << label.getIndex() << " but has " << op->getNumSuccessors();
        StringRef name = labelOf(op->getSuccessor(label.getIndex()));
        if (name.empty())
          return op->emitOpError("branches to a block without a label");
        os << name;
        return success();
      })
      .Case([&](AddrOperandAttr addr) {
        os << '[';
        if (failed(printOperand(addr.getBase(), op, ref)))
          return failure();
        printOffset(addr.getOffset(), addr.getOffsetText());
        for (Attribute element : addr.getRest()) {
          os << ", ";
          if (failed(printOperand(element, op, ref)))
            return failure();
        }
        os << ']';
        return success();
      })
      .Case([&](ElementOperandAttr element) -> LogicalResult {
        if (failed(printOperand(element.getBase(), op, ref)))
          return failure();
        os << '[';
        if (failed(printOperand(element.getIndex(), op, ref)))
          return failure();
        os << ']';
        return success();
      })
      .Case([&](OffsetOperandAttr sum) {
        if (failed(printOperand(sum.getBase(), op, ref)))
          return failure();
        printOffset(sum.getOffset(), sum.getOffsetText());
        return success();
      })
      .Case([&](VecOperandAttr vec) {
        return printList(vec.getElements().getValue(), '{', '}');
      })
      .Case([&](ListOperandAttr list) {
        return printList(list.getElements().getValue(), '(', ')');
      })
      .Case([&](PairOperandAttr pair) {
        if (failed(printOperand(pair.getFirst(), op, ref)))
          return failure();
        os << '|';
        return printOperand(pair.getSecond(), op, ref);
      })
      .Case([&](NotOperandAttr neg) {
        os << '!';
        return printOperand(neg.getOperand(), op, ref);
      })
      .Default([&](Attribute) -> LogicalResult {
        return op->emitOpError("has an operand that is not a PTX operand: ")
               << arg;
      });
}

LogicalResult ptxbench::exportPTX(ptx::ModuleOp module, llvm::raw_ostream &os) {
  return Exporter(os).exportModule(module);
}

LogicalResult ptxbench::exportPTX(Operation *op, llvm::raw_ostream &os) {
  if (auto module = llvm::dyn_cast<ptx::ModuleOp>(op))
    return exportPTX(module, os);
  SmallVector<ptx::ModuleOp> modules;
  op->walk([&](ptx::ModuleOp module) { modules.push_back(module); });
  if (modules.size() != 1)
    return op->emitError("expected exactly one ptx.module to export, found ")
           << modules.size();
  return exportPTX(modules.front(), os);
}

void ptxbench::registerExportPTXTranslation() {
  TranslateFromMLIRRegistration registration(
      "export-ptx", "export the ptx dialect as PTX",
      [](Operation *op, llvm::raw_ostream &os) { return exportPTX(op, os); },
      [](DialectRegistry &registry) { registry.insert<PTXDialect>(); });
}
