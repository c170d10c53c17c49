//===- Importer.h - The PTX parser's state ----------------------*- C++ -*-===//
//
// The recursive-descent importer from PTX text to the ptx dialect, shared by
// ImportPTX.cpp (module level: directives, globals, function signatures) and
// ImportFunctionBody.cpp (bodies: declarations, labels, instructions and
// their operands). Private to lib/Conversion/ImportPTX.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_CONVERSION_IMPORTPTX_IMPORTER_H
#define PTXBENCH_LIB_CONVERSION_IMPORTPTX_IMPORTER_H

#include "PTXLexer.h"

#include "ptxbench/Dialect/PTX/ConstantExpr.h"
#include "ptxbench/Dialect/PTX/PTX.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace ptxbench::ptximport {

using namespace mlir;
using namespace ptxbench::ptx;

/// A label's block and the token that defined or first mentioned it.
struct LabelEntry {
  Block *block = nullptr;
  Token token;
};

/// Names declared in one `{ }` scope of a function body.
struct Scope {
  llvm::StringMap<Value> names;
  /// `%r<N>` ranges by prefix.
  llvm::StringMap<RegOp> ranges;
  /// Body-level named declarations that are not storage (call prototypes,
  /// branch and call target tables).
  llvm::StringSet<> identifiers;
  /// Labels defined in this scope. PTX scopes labels like other names: a
  /// branch goes to the label of its innermost enclosing scope, wherever in
  /// that scope the label stands.
  llvm::StringMap<LabelEntry> labels;
  /// Labels used in this scope (or in the scopes it encloses) and not yet
  /// defined in it: a placeholder block each, which becomes the label's
  /// block when this scope defines it, or moves to the enclosing scope when
  /// this one closes.
  llvm::StringMap<LabelEntry> pendingLabels;
};

/// How deep operands (`{`, `(`, `!`, `[`), constant expressions,
/// initializers and `{ }` scopes may nest. Compilers write a few levels;
/// past this a hostile text would only exhaust the stack of the parser and
/// of everything that walks its result.
constexpr unsigned kMaxNesting = 256;
/// The largest PTX text imported (nvcc's output for a large CUTLASS kernel
/// with line info is tens of megabytes).
constexpr size_t kMaxPTXBytes = size_t(256) << 20;

class Importer {
public:
  Importer(llvm::SourceMgr &sourceMgr, MLIRContext *context);
  ~Importer() { discardDanglingLabels(); }

  OwningOpRef<ptx::ModuleOp> run();

private:
  //===--------------------------------------------------------------------===//
  // Tokens and errors
  //===--------------------------------------------------------------------===//

  void advance() {
    prevEnd = tok.text.data() + tok.text.size();
    tok = lexer.next();
  }
  Location loc(const Token &t) {
    return FileLineColLoc::get(fileName, t.line, t.column);
  }
  InFlightDiagnostic error(const Token &t, const Twine &message) {
    return emitError(loc(t), message);
  }
  InFlightDiagnostic error(const Twine &message) { return error(tok, message); }
  /// The token as the user sees it in a message.
  std::string describe(const Token &t) {
    if (t.kind == Token::Eof)
      return "end of file";
    if (t.kind == Token::Error && t.text.starts_with("\""))
      return "an unterminated string";
    return ("'" + t.text.take_front(40) + "'").str();
  }
  LogicalResult expect(char punct, StringRef what) {
    if (!tok.is(punct))
      return error("expected '" + Twine(punct) + "' " + what + ", found " +
                   describe(tok));
    advance();
    return success();
  }
  bool consumeIf(char punct) {
    if (!tok.is(punct))
      return false;
    advance();
    return true;
  }
  /// A name being declared: a word that is not a directive.
  FailureOr<StringRef> parseName(StringRef what) {
    if (tok.kind != Token::Word || tok.text.starts_with(".")) {
      error("expected " + what + ", found " + describe(tok));
      return failure();
    }
    StringRef name = tok.text;
    advance();
    return name;
  }
  /// A constant expression at the current token (`42`, `-1`,
  /// `((128 >> 4) << 16)`, `WARP_SZ*2`), as written, or std::nullopt when
  /// the token does not start one (nothing is consumed then).
  FailureOr<std::optional<StringRef>> parseConstant(ConstantValue &value);
  /// Whether the current '(' opens an operand list (`(param0, 5)`) rather
  /// than a parenthesized expression.
  bool opensOperandList();
  /// `+ constant` after an address base or a register: the offset and its
  /// text when that is not the plain `+N`.
  LogicalResult parseOffset(int64_t &offset, StringRef &text);
  /// An integer literal, with an optional '-'. Outside [min, max] it is an
  /// error at its place: a value the dialect keeps in a narrower attribute,
  /// or uses as a map key, must never wrap (a `.loc` file index of
  /// 4294967295 was DenseMap's empty key).
  FailureOr<int64_t> parseInteger(StringRef what,
                                  int64_t min = INT64_MIN,
                                  int64_t max = INT64_MAX) {
    Token start = tok;
    bool negative = consumeIf('-');
    int64_t value = 0;
    StringRef text = tok.text;
    text.consume_back("U");
    if (tok.kind != Token::Number || text.getAsInteger(0, value)) {
      error("expected " + what + ", found " + describe(tok));
      return failure();
    }
    advance();
    if (negative)
      value = -value;
    if (value < min || value > max) {
      error(start, what + " must be between " + Twine(min) + " and " +
                       Twine(max) + ", not " + Twine(value));
      return failure();
    }
    return value;
  }
  /// The largest value of the 32-bit attributes `.loc` and `.file` keep.
  static constexpr int64_t kMaxI32 = INT32_MAX;

  //===--------------------------------------------------------------------===//
  // Module level
  //===--------------------------------------------------------------------===//

  LogicalResult parseHeader();
  LogicalResult parseModuleItem();
  LogicalResult parseModuleItemWithText();
  LogicalResult parseFile();
  /// Fills `files` from the `.file` directives before parsing.
  void prescanFiles(StringRef buffer);
  /// The strings of a `.pragma "a", "b";` after the directive, through the
  /// semicolon.
  FailureOr<SmallVector<StringRef>> parsePragmaStrings();
  LogicalResult parseSection();
  LogicalResult parseAlias();
  LogicalResult parseGlobal(StringRef linkage, Token start);
  /// Turns the `.extern` variable `global` into a ptx.global_decl: its
  /// definition follows.
  void demoteToDeclaration(GlobalOp global);
  LogicalResult parseFunction(StringRef linkage, Token start);
  /// Turns the external function `func` into a ptx.prototype: a definition
  /// or an alias of the same name follows.
  void demoteToPrototype(FuncOp func);
  FailureOr<ArrayAttr> parseParamList(bool allowEmptyNames);
  FailureOr<ArrayAttr> parsePerfDirectives();
  /// The declaration words between a state space and the name, joined by
  /// spaces (`.align 8 .b8`, `.u64 .ptr.global.align 16`).
  FailureOr<std::string> parseDeclWords(StringRef what);
  FailureOr<DenseI64ArrayAttr> parseDims();
  /// One declarator of a variable declaration: `name[dims] = init`.
  struct Declarator {
    Token nameTok;
    StringRef name;
    DenseI64ArrayAttr dims;
    StringAttr init;
    SmallVector<Attribute> refs; // symbols the initializer names
  };
  LogicalResult parseDeclarator(Declarator &d);
  /// `= initializer` up to the end of the declarator, verbatim.
  LogicalResult parseInitializer(StringAttr &init,
                                 SmallVectorImpl<Attribute> &refs);

  //===--------------------------------------------------------------------===//
  // Function bodies
  //===--------------------------------------------------------------------===//

  LogicalResult parseBody(FuncOp func);
  LogicalResult parseStatement();
  LogicalResult parseRegDecl();
  LogicalResult parseVarDecl();
  LogicalResult parseLoc();
  LogicalResult parseLabelOrNamedDirective();
  LogicalResult parseInstruction();
  FailureOr<Attribute> parseOperand(SmallVectorImpl<Value> &refs);
  /// parseOperand() one level deeper, refused past kMaxNesting.
  FailureOr<Attribute> parseNestedOperand(SmallVectorImpl<Value> &refs);
  FailureOr<Attribute> parseAddress(SmallVectorImpl<Value> &refs);
  FailureOr<Attribute> parseNameOperand(const Token &name,
                                        SmallVectorImpl<Value> &refs);
  LogicalResult parseBranch(const Token &start, StringRef opcode, Value guard,
                            bool negated);
  LogicalResult parseBranchIndex(const Token &start, StringRef opcode,
                                 Value guard, bool negated);
  FailureOr<SmallVector<Attribute>>
  parseOperandList(SmallVectorImpl<Value> &refs);

  /// Deletes the label blocks that never made it into a body (a failed
  /// import).
  void discardDanglingLabels() {
    for (Block *block : floatingBlocks) {
      block->dropAllUses();
      delete block;
    }
    floatingBlocks.clear();
  }
  /// The block new ops go into; opens an unlabelled block after a
  /// terminator.
  Block *currentBlock();
  /// The block a branch in the current scope to `label` goes to: the
  /// scope's own label, or a placeholder until the scope closes.
  Block *mentionLabel(StringRef label, const Token &mention);
  /// Defines `label` in the current scope; its block is not yet placed.
  FailureOr<Block *> defineLabel(StringRef label, const Token &definition);
  /// Closes the innermost scope: its unresolved label uses go to the
  /// enclosing scope.
  void popScope();
  Value lookupStorage(StringRef name);
  void declare(StringRef name, Value value) {
    scopes.back().names[name] = value;
  }
  Location instructionLoc(const Token &t);

  /// Remembers the first op a statement creates, to attach its text to.
  struct FirstOpListener : OpBuilder::Listener {
    Operation *first = nullptr;
    void notifyOperationInserted(Operation *op,
                                 OpBuilder::InsertPoint) override {
      if (!first && !llvm::isa<FallthroughOp>(op))
        first = op;
    }
  };

  /// With debug line info, ptxas embeds the PTX text of every line in the
  /// cubin, so the exporter must be able to print each statement exactly as
  /// written. Records the statement that began at `start` on `op` as
  /// `ptx.text`: up to the next statement when it follows on the same line,
  /// else up to the end of the line (a trailing comment included).
  void recordText(Operation *op, const char *start) {
    if (!keepText || !op)
      return;
    const char *next =
        tok.kind == Token::Eof ? lexer.bufferEnd() : tok.text.data();
    StringRef gap(prevEnd, next - prevEnd);
    const char *end = next;
    size_t newline = gap.find('\n');
    if (newline != StringRef::npos)
      end = prevEnd + newline; // trailing blanks too: ptxas keeps them
    op->setAttr(kTextAttrName,
                builder.getStringAttr(StringRef(start, end - start)));
  }

  MLIRContext *context;
  OpBuilder builder;
  FirstOpListener firstOp;
  Lexer lexer;
  Token tok;
  const char *prevEnd = nullptr;
  /// Whether ops keep their source text (the module has .loc line info).
  bool keepText = false;
  /// A `.loc` directive was parsed: keepText came from a scan of the raw
  /// text, which a `.loc` in a comment also satisfies.
  bool sawLoc = false;
  StringAttr fileName;
  RegOperandAttr regOperand;

  /// The module being built. The destructor discards dangling label blocks
  /// before the module (and the terminators that use them) goes away.
  OwningOpRef<ptx::ModuleOp> moduleOwner;
  ptx::ModuleOp module;
  /// Module symbols seen so far, and symbols used before their declaration.
  llvm::StringMap<Operation *> symbols;
  llvm::StringMap<Token> pendingSymbolUses;
  /// `.file` paths by index, for CUDA source locations.
  llvm::DenseMap<unsigned, StringAttr> files;

  // Per function.
  Region *body = nullptr;
  Block *block = nullptr;
  SmallVector<Scope, 4> scopes;
  /// Operands being parsed inside each other.
  unsigned operandDepth = 0;
  /// Label blocks not (yet) in the body: placeholders and defined labels
  /// whose block is about to be placed.
  llvm::SmallPtrSet<Block *, 16> floatingBlocks;
  llvm::StringMap<SmallVector<StringRef>> branchTables;
  std::optional<Location> sourceLoc;
};

} // namespace ptxbench::ptximport

#endif // PTXBENCH_LIB_CONVERSION_IMPORTPTX_IMPORTER_H
