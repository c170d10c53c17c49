//===- ImportPTX.cpp - PTX text to the ptx dialect ------------------------===//
//
// A recursive-descent parser from PTX text to a ptx.module. Module items
// become ops in order; in a function body, labels start blocks, registers
// and variables become SSA handles resolved through the lexical scopes, and
// every instruction is built as the op its ISA record names. Errors stop the
// import at the first problem with `file:line:col: error: ...`.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Conversion/ImportPTX.h"
#include "ptxbench/ISA/ISA.h"

#include "PTXLexer.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::ptx;
using ptxbench::ptximport::Lexer;
using ptxbench::ptximport::Token;

namespace {

/// Special registers (`%tid.x` is `%tid` with a component). Names outside
/// this list that start with `%` must be declared.
bool isSpecialRegister(StringRef name) {
  static const llvm::StringSet<> names = {
      "%tid", "%ntid", "%laneid", "%warpid", "%nwarpid", "%ctaid", "%nctaid",
      "%smid", "%nsmid", "%gridid", "%lanemask_eq", "%lanemask_le",
      "%lanemask_lt", "%lanemask_ge", "%lanemask_gt", "%clock", "%clock_hi",
      "%clock64", "%pm0", "%pm1", "%pm2", "%pm3", "%pm4", "%pm5", "%pm6",
      "%pm7", "%pm0_64", "%pm1_64", "%pm2_64", "%pm3_64", "%pm4_64",
      "%pm5_64", "%pm6_64", "%pm7_64", "%globaltimer", "%globaltimer_lo",
      "%globaltimer_hi", "%total_smem_size", "%aggr_smem_size",
      "%dynamic_smem_size", "%reserved_smem_offset_begin",
      "%reserved_smem_offset_end", "%reserved_smem_offset_cap",
      "%reserved_smem_offset_0", "%reserved_smem_offset_1", "%clusterid",
      "%nclusterid", "%cluster_ctaid", "%cluster_nctaid", "%cluster_ctarank",
      "%cluster_nctarank", "%is_explicit_cluster", "%current_graph_exec",
      "%envreg"};
  StringRef base = name.take_until([](char c) { return c == '.'; });
  if (names.contains(base))
    return true;
  // %envreg0 .. %envreg31
  return base.starts_with("%envreg") &&
         llvm::all_of(base.drop_front(7), llvm::isDigit);
}

/// Whether `buffer` has `.loc` directives (a cheap scan, before parsing).
bool hasLineInfo(StringRef buffer) {
  for (size_t pos = buffer.find(".loc"); pos != StringRef::npos;
       pos = buffer.find(".loc", pos + 4))
    if (pos + 4 < buffer.size() && (buffer[pos + 4] == ' ' || buffer[pos + 4] == '\t'))
      return true;
  return false;
}

/// Names declared in one `{ }` scope of a function body.
struct Scope {
  llvm::StringMap<Value> names;
  /// `%r<N>` ranges by prefix.
  llvm::StringMap<RegOp> ranges;
  /// Body-level named declarations that are not storage (call prototypes,
  /// branch and call target tables).
  llvm::StringSet<> identifiers;
};

class Importer {
public:
  Importer(llvm::SourceMgr &sourceMgr, MLIRContext *context)
      : context(context), builder(context),
        lexer(sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
                  ->getBuffer()) {
    StringRef name = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
                         ->getBufferIdentifier();
    fileName = builder.getStringAttr(name.empty() ? "<stdin>" : name);
    StringRef buffer =
        sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
    keepText = hasLineInfo(buffer);
    builder.setListener(&firstOp);
    regOperand = RegOperandAttr::get(context, "");
    advance();
  }
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
  FailureOr<int64_t> parseInteger(StringRef what) {
    bool negative = consumeIf('-');
    int64_t value = 0;
    StringRef text = tok.text;
    text.consume_back("U");
    if (tok.kind != Token::Number || text.getAsInteger(0, value)) {
      error("expected " + what + ", found " + describe(tok));
      return failure();
    }
    advance();
    return negative ? -value : value;
  }

  //===--------------------------------------------------------------------===//
  // Module level
  //===--------------------------------------------------------------------===//

  LogicalResult parseHeader();
  LogicalResult parseModuleItem();
  LogicalResult parseModuleItemWithText();
  LogicalResult parseFile();
  LogicalResult parseSection();
  LogicalResult parseAlias();
  LogicalResult parseGlobal(StringRef linkage, Token start);
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
  FailureOr<Attribute> parseAddress(SmallVectorImpl<Value> &refs);
  FailureOr<Attribute> parseNameOperand(const Token &name,
                                        SmallVectorImpl<Value> &refs);
  LogicalResult parseBranch(const Token &start, StringRef opcode, Value guard,
                            bool negated);
  LogicalResult parseBranchIndex(const Token &start, StringRef opcode,
                                 Value guard, bool negated);
  FailureOr<SmallVector<Attribute>> parseOperandList(
      SmallVectorImpl<Value> &refs);

  /// Deletes the blocks of labels that were mentioned but never defined.
  void discardDanglingLabels() {
    for (auto &entry : labels)
      if (!entry.second->getParent()) {
        entry.second->dropAllUses();
        delete entry.second;
      }
    labels.clear();
  }
  /// The block new ops go into; opens an unlabelled block after a
  /// terminator.
  Block *currentBlock();
  /// The block for `label`, created on first mention.
  Block *labelBlock(StringRef label, const Token &mention);
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
    const char *next = tok.kind == Token::Eof ? lexer.bufferEnd() : tok.text.data();
    StringRef gap(prevEnd, next - prevEnd);
    const char *end = next;
    size_t newline = gap.find('\n');
    if (newline != StringRef::npos)
      end = prevEnd + newline; // trailing blanks too: ptxas keeps them
    op->setAttr(kTextAttrName, builder.getStringAttr(StringRef(start, end - start)));
  }

  MLIRContext *context;
  OpBuilder builder;
  FirstOpListener firstOp;
  Lexer lexer;
  Token tok;
  const char *prevEnd = nullptr;
  /// Whether ops keep their source text (the module has .loc line info).
  bool keepText = false;
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
  llvm::StringMap<Block *> labels;
  llvm::StringMap<Token> labelMentions;
  llvm::StringMap<SmallVector<StringRef>> branchTables;
  std::optional<Location> sourceLoc;
};

} // namespace

//===----------------------------------------------------------------------===//
// Module level
//===----------------------------------------------------------------------===//

OwningOpRef<ptx::ModuleOp> Importer::run() {
  if (failed(parseHeader()))
    return nullptr;
  builder.setInsertionPointToEnd(module.getBody());
  while (tok.kind != Token::Eof)
    if (failed(parseModuleItemWithText()))
      return nullptr;
  for (auto &use : pendingSymbolUses)
    if (!symbols.count(use.first())) {
      error(use.second, "use of undeclared identifier '" + use.first() + "'");
      return nullptr;
    }
  if (failed(verify(module)))
    return nullptr;
  return std::move(moduleOwner);
}

LogicalResult Importer::parseHeader() {
  Token start = tok;
  std::string version;
  SmallVector<StringRef> target;
  std::optional<uint32_t> addressSize;
  // .version, .target and .address_size come first, in any order.
  while (tok.kind == Token::Word) {
    if (tok.text == ".version") {
      advance();
      if (tok.kind != Token::Number)
        return error("expected a version such as 8.7 after .version, found " +
                     describe(tok));
      version = tok.text.str();
      advance();
    } else if (tok.text == ".target") {
      advance();
      do {
        FailureOr<StringRef> name = parseName("a target such as sm_90a");
        if (failed(name))
          return failure();
        target.push_back(*name);
      } while (consumeIf(','));
    } else if (tok.text == ".address_size") {
      advance();
      Token sizeTok = tok;
      FailureOr<int64_t> size = parseInteger("32 or 64");
      if (failed(size))
        return failure();
      if (*size != 32 && *size != 64)
        return error(sizeTok, ".address_size must be 32 or 64");
      addressSize = *size;
    } else {
      break;
    }
  }
  if (version.empty())
    return error(start, "expected .version at the start of a PTX module");
  if (target.empty())
    return error("expected .target after .version, found " + describe(tok));
  module = builder.create<ptx::ModuleOp>(loc(start), version, target,
                                         addressSize);
  moduleOwner = module;
  module.setSourceAttr(fileName);
  return success();
}

LogicalResult Importer::parseModuleItemWithText() {
  const char *start = tok.text.data();
  firstOp.first = nullptr;
  if (failed(parseModuleItem()))
    return failure();
  // Functions record their signature's text themselves, before the body.
  Operation *item = firstOp.first;
  if (item && item->getParentOp() == module &&
      !llvm::isa<FuncOp, PrototypeOp>(item))
    recordText(item, start);
  return success();
}

LogicalResult Importer::parseModuleItem() {
  Token start = tok;
  if (tok.kind != Token::Word)
    return error("expected a directive, found " + describe(tok));
  StringRef word = tok.text;
  if (word == ".file")
    return parseFile();
  if (word == ".section")
    return parseSection();
  if (word == ".alias")
    return parseAlias();
  if (word == ".pragma") {
    advance();
    SmallVector<StringRef> values;
    do {
      if (tok.kind != Token::String)
        return error("expected a string after .pragma, found " + describe(tok));
      values.push_back(tok.text.drop_front().drop_back());
      advance();
    } while (consumeIf(','));
    builder.create<ModulePragmaOp>(loc(start), builder.getStrArrayAttr(values));
    return expect(';', "after .pragma");
  }
  StringRef linkage;
  if (word == ".visible" || word == ".extern" || word == ".weak" ||
      word == ".common") {
    linkage = word;
    advance();
    if (tok.kind != Token::Word)
      return error("expected a declaration after " + linkage);
  }
  if (tok.text == ".entry" || tok.text == ".func")
    return parseFunction(linkage, start);
  if (tok.text == ".global" || tok.text == ".const" || tok.text == ".shared" ||
      tok.text == ".local" || tok.text == ".tex" || tok.text == ".param")
    return parseGlobal(linkage, start);
  return error("unknown module-level directive " + describe(tok));
}

LogicalResult Importer::parseFile() {
  Token start = tok;
  advance();
  FailureOr<int64_t> index = parseInteger("a file index");
  if (failed(index))
    return failure();
  if (tok.kind != Token::String)
    return error("expected a file name string after .file " + Twine(*index));
  StringRef path = tok.text.drop_front().drop_back();
  advance();
  IntegerAttr timestamp, size;
  if (consumeIf(',')) {
    FailureOr<int64_t> ts = parseInteger("a timestamp");
    if (failed(ts) || failed(expect(',', "after the timestamp")))
      return failure();
    FailureOr<int64_t> sz = parseInteger("a file size");
    if (failed(sz))
      return failure();
    timestamp = builder.getI64IntegerAttr(*ts);
    size = builder.getI64IntegerAttr(*sz);
  }
  StringAttr pathAttr = builder.getStringAttr(path);
  files[*index] = pathAttr;
  builder.create<FileOp>(loc(start), builder.getI32IntegerAttr(*index),
                         pathAttr, timestamp, size);
  return success();
}

LogicalResult Importer::parseSection() {
  Token start = tok;
  advance();
  if (tok.kind != Token::Word)
    return error("expected a section name, found " + describe(tok));
  StringRef name = tok.text;
  advance();
  if (!tok.is('{'))
    return error("expected '{' after .section " + name);
  // The contents, verbatim, up to the matching brace, skipping strings and
  // comments. Sections hold DWARF data and can be megabytes long.
  const char *open = lexer.position();
  const char *cur = open;
  const char *bufferEnd = lexer.bufferEnd();
  int depth = 1;
  while (cur < bufferEnd && depth > 0) {
    char c = *cur;
    if (c == '"') {
      ++cur;
      while (cur < bufferEnd && *cur != '"' && *cur != '\n') {
        if (*cur == '\\')
          ++cur;
        ++cur;
      }
    } else if (c == '/' && cur + 1 < bufferEnd && cur[1] == '/') {
      while (cur < bufferEnd && *cur != '\n')
        ++cur;
      continue;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (--depth == 0)
        break;
    }
    ++cur;
  }
  if (depth != 0)
    return error(start, "unterminated .section " + name);
  builder.create<SectionOp>(loc(start), builder.getStringAttr(name),
                            builder.getStringAttr(StringRef(open, cur - open)));
  lexer.skipTo(cur + 1);
  advance();
  return success();
}

LogicalResult Importer::parseAlias() {
  Token start = tok;
  advance();
  FailureOr<StringRef> alias = parseName("an alias name");
  if (failed(alias) || failed(expect(',', "after the alias name")))
    return failure();
  Token aliaseeTok = tok;
  FailureOr<StringRef> aliasee = parseName("the aliased function");
  if (failed(aliasee))
    return failure();
  if (!symbols.count(*aliasee))
    return error(aliaseeTok, "use of undeclared identifier '" + *aliasee + "'");
  // `.alias a, b;` follows a prototype of `a`, which stays in place.
  if (auto proto = llvm::dyn_cast_or_null<FuncOp>(symbols.lookup(*alias));
      proto && proto.isExternal())
    demoteToPrototype(proto);
  else if (symbols.count(*alias))
    return error(start, "redefinition of '" + *alias + "'");
  auto op = builder.create<AliasOp>(loc(start), builder.getStringAttr(*alias),
                                    FlatSymbolRefAttr::get(context, *aliasee));
  symbols[*alias] = op;
  return expect(';', "after .alias");
}

FailureOr<std::string> Importer::parseDeclWords(StringRef what) {
  std::string decl;
  // Directive words, the number after .align, and .attribute(...). Words
  // written together (`.ptr.global.align`) stay together.
  const char *last = nullptr;
  while (tok.kind == Token::Word && tok.text.starts_with(".")) {
    if (!decl.empty() && tok.text.data() != last)
      decl += ' ';
    decl += tok.text;
    last = tok.text.data() + tok.text.size();
    bool takesNumber = tok.text == ".align";
    if (tok.text == ".attribute") {
      advance();
      if (!tok.is('('))
        return error("expected '(' after .attribute"), failure();
      const char *begin = tok.text.data();
      while (tok.kind != Token::Eof && !tok.is(')'))
        advance();
      if (tok.kind == Token::Eof)
        return error("unterminated .attribute(...)"), failure();
      decl += StringRef(begin, tok.text.data() + 1 - begin);
      advance();
      continue;
    }
    advance();
    if (takesNumber) {
      if (tok.kind != Token::Number)
        return error("expected an alignment after .align, found " +
                     describe(tok)),
               failure();
      decl += ' ';
      decl += tok.text;
      advance();
    }
  }
  if (decl.empty())
    return error("expected a type for " + what + ", found " + describe(tok)),
           failure();
  return decl;
}

FailureOr<DenseI64ArrayAttr> Importer::parseDims() {
  SmallVector<int64_t> dims;
  while (consumeIf('[')) {
    if (consumeIf(']')) {
      dims.push_back(-1);
      continue;
    }
    FailureOr<int64_t> dim = parseInteger("an array size");
    if (failed(dim) || failed(expect(']', "after the array size")))
      return failure();
    dims.push_back(*dim);
  }
  if (dims.empty())
    return DenseI64ArrayAttr();
  return builder.getDenseI64ArrayAttr(dims);
}

LogicalResult Importer::parseInitializer(StringAttr &init,
                                         SmallVectorImpl<Attribute> &refs) {
  const char *begin = tok.text.data();
  const char *end = begin;
  int depth = 0;
  while (tok.kind != Token::Eof) {
    if (depth == 0 && (tok.is(';') || tok.is(',')))
      break;
    if (tok.is('{') || tok.is('('))
      ++depth;
    else if (tok.is('}') || tok.is(')'))
      --depth;
    else if (tok.kind == Token::Word && symbols.count(tok.text))
      refs.push_back(FlatSymbolRefAttr::get(context, tok.text));
    else if (tok.kind == Token::Error) {
      return error("unexpected character " + describe(tok) +
                   " in initializer");
    }
    end = tok.text.data() + tok.text.size();
    advance();
  }
  if (end == begin)
    return error("expected an initializer after '='");
  init = builder.getStringAttr(StringRef(begin, end - begin));
  return success();
}

LogicalResult Importer::parseGlobal(StringRef linkage, Token start) {
  StringRef space = tok.text;
  advance();
  FailureOr<std::string> decl = parseDeclWords("the variable");
  if (failed(decl))
    return failure();
  do {
    Token nameTok = tok;
    FailureOr<StringRef> name = parseName("a variable name");
    if (failed(name))
      return failure();
    FailureOr<DenseI64ArrayAttr> dims = parseDims();
    if (failed(dims))
      return failure();
    StringAttr init;
    SmallVector<Attribute> refs;
    if (consumeIf('=') && failed(parseInitializer(init, refs)))
      return failure();
    if (symbols.count(*name))
      return error(nameTok, "redefinition of '" + *name + "'");
    auto op = builder.create<GlobalOp>(
        loc(start), builder.getStringAttr(*name),
        builder.getStringAttr(linkage), builder.getStringAttr(space),
        builder.getStringAttr(*decl), *dims, init,
        refs.empty() ? ArrayAttr() : builder.getArrayAttr(refs));
    symbols[*name] = op;
  } while (consumeIf(','));
  return expect(';', "after a variable declaration");
}

FailureOr<ArrayAttr> Importer::parseParamList(bool allowEmptyNames) {
  SmallVector<Attribute> params;
  if (failed(expect('(', "to open a parameter list")))
    return failure();
  if (!consumeIf(')')) {
    do {
      if (tok.kind != Token::Word ||
          (tok.text != ".param" && tok.text != ".reg"))
        return error("expected .param or .reg in a parameter list, found " +
                     describe(tok)),
               failure();
      StringRef space = tok.text;
      advance();
      FailureOr<std::string> decl = parseDeclWords("the parameter");
      if (failed(decl))
        return failure();
      StringRef name;
      if (!(allowEmptyNames && (tok.is(',') || tok.is(')')))) {
        FailureOr<StringRef> parsed = parseName("a parameter name");
        if (failed(parsed))
          return failure();
        name = *parsed;
      }
      FailureOr<DenseI64ArrayAttr> dims = parseDims();
      if (failed(dims))
        return failure();
      params.push_back(ParamAttr::get(
          context, space, *decl, name,
          *dims ? *dims : builder.getDenseI64ArrayAttr({})));
    } while (consumeIf(','));
    if (failed(expect(')', "to close the parameter list")))
      return failure();
  }
  return builder.getArrayAttr(params);
}

FailureOr<ArrayAttr> Importer::parsePerfDirectives() {
  SmallVector<Attribute> directives;
  while (tok.kind == Token::Word) {
    StringRef word = tok.text;
    if (word != ".maxntid" && word != ".reqntid" && word != ".minnctapersm" &&
        word != ".maxnctapersm" && word != ".maxnreg" &&
        word != ".maxclusterrank" && word != ".reqnctapercluster" &&
        word != ".explicitcluster" && word != ".noreturn" &&
        word != ".pragma" && word != ".blocksareclusters")
      break;
    advance();
    SmallVector<Attribute> values;
    if (word == ".pragma") {
      do {
        if (tok.kind != Token::String)
          return error("expected a string after .pragma, found " + describe(tok)),
                 failure();
        values.push_back(builder.getStringAttr(tok.text.drop_front().drop_back()));
        advance();
      } while (consumeIf(','));
      if (failed(expect(';', "after .pragma")))
        return failure();
    } else if (tok.kind == Token::Number) {
      do {
        FailureOr<int64_t> value = parseInteger("a number after " + word.str());
        if (failed(value))
          return failure();
        values.push_back(builder.getI64IntegerAttr(*value));
      } while (consumeIf(','));
    }
    directives.push_back(
        DirectiveAttr::get(context, word.drop_front(),
                           builder.getArrayAttr(values)));
  }
  return builder.getArrayAttr(directives);
}

void Importer::demoteToPrototype(FuncOp func) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(func);
  auto proto = builder.create<PrototypeOp>(
      func.getLoc(), FlatSymbolRefAttr::get(context, func.getSymName()),
      func.getEntryAttr(), func.getLinkageAttr(), func.getResultsAttr(),
      func.getParamsAttr(), func.getDirectivesAttr());
  proto->setDiscardableAttrs(func->getDiscardableAttrDictionary());
  func.erase();
}

LogicalResult Importer::parseFunction(StringRef linkage, Token start) {
  bool isEntry = tok.text == ".entry";
  advance();
  ArrayAttr results = builder.getArrayAttr({});
  if (!isEntry && tok.is('(')) {
    FailureOr<ArrayAttr> parsed = parseParamList(false);
    if (failed(parsed))
      return failure();
    results = *parsed;
  }
  Token nameTok = tok;
  FailureOr<StringRef> name = parseName("a function name");
  if (failed(name))
    return failure();
  ArrayAttr params = builder.getArrayAttr({});
  if (tok.is('(')) {
    FailureOr<ArrayAttr> parsed = parseParamList(false);
    if (failed(parsed))
      return failure();
    params = *parsed;
  }
  FailureOr<ArrayAttr> directives = parsePerfDirectives();
  if (failed(directives))
    return failure();

  // A definition after a prototype: the prototype stays where it was as a
  // ptx.prototype naming the definition.
  Operation *previous = symbols.lookup(*name);
  bool hasBody = tok.is('{');
  if (previous) {
    auto prevFunc = llvm::dyn_cast<FuncOp>(previous);
    if (!hasBody || !prevFunc || !prevFunc.isExternal())
      return error(nameTok, "redefinition of '" + *name + "'");
    demoteToPrototype(prevFunc);
  }
  auto func = builder.create<FuncOp>(
      loc(start), builder.getStringAttr(*name), isEntry,
      builder.getStringAttr(linkage), results, params, *directives,
      LocationAttr());
  symbols[*name] = func;
  if (!hasBody) {
    if (failed(expect(';', "or '{' after the function signature")))
      return failure();
    recordText(func, start.text.data());
    return success();
  }
  recordText(func, start.text.data());
  return parseBody(func);
}

//===----------------------------------------------------------------------===//
// Function bodies
//===----------------------------------------------------------------------===//

Block *Importer::currentBlock() {
  if (!block) {
    block = new Block();
    body->push_back(block);
  }
  return block;
}

Block *Importer::labelBlock(StringRef label, const Token &mention) {
  Block *&target = labels[label];
  if (!target) {
    target = new Block();
    labelMentions[label] = mention;
  }
  return target;
}

Value Importer::lookupStorage(StringRef name) {
  for (Scope &scope : llvm::reverse(scopes)) {
    if (Value value = scope.names.lookup(name))
      return value;
    // %r57 in a %r<N> range.
    size_t digits = name.size();
    while (digits > 0 && llvm::isDigit(name[digits - 1]))
      --digits;
    if (digits == name.size() || digits == 0)
      continue;
    RegOp range = scope.ranges.lookup(name.take_front(digits));
    unsigned index = 0;
    if (!range || name.drop_front(digits).getAsInteger(10, index) ||
        index >= *range.getCount() ||
        (name.size() - digits > 1 && name[digits] == '0'))
      continue;
    return range.getResult(index);
  }
  return {};
}

Location Importer::instructionLoc(const Token &t) {
  Location ptxLoc = loc(t);
  if (!sourceLoc)
    return ptxLoc;
  return FusedLoc::get(context, {ptxLoc, *sourceLoc});
}

LogicalResult Importer::parseBody(FuncOp func) {
  body = &func.getBody();
  Block *entry = new Block();
  body->push_back(entry);
  block = entry;
  scopes.clear();
  scopes.emplace_back();
  discardDanglingLabels();
  labelMentions.clear();
  branchTables.clear();
  sourceLoc.reset();
  for (ArrayAttr list : {func.getResults(), func.getParams()})
    for (Attribute attr : list) {
      StringRef name = llvm::cast<ParamAttr>(attr).getName();
      declare(name, entry->addArgument(RefType::get(context), func.getLoc()));
    }
  OpBuilder::InsertionGuard guard(builder);
  advance(); // '{'
  while (!(tok.is('}') && scopes.size() == 1)) {
    if (tok.kind == Token::Eof)
      return error("unexpected end of file in the body of '" +
                   func.getSymName() + "'");
    const char *start = tok.text.data();
    firstOp.first = nullptr;
    if (failed(parseStatement()))
      return failure();
    recordText(firstOp.first, start);
  }
  func.setBodyEndAttr(loc(tok));
  advance(); // '}'
  if (block) {
    builder.setInsertionPointToEnd(block);
    builder.create<FallthroughOp>(func.getLoc(), ValueRange(), BlockRange());
  }
  for (auto &entry : labels)
    if (!entry.second->getParent()) {
      error(labelMentions.lookup(entry.first()),
            "use of undefined label '" + entry.first() + "'");
      return failure();
    }
  labels.clear();
  return success();
}

LogicalResult Importer::parseStatement() {
  Token start = tok;
  if (tok.is('{')) {
    advance();
    builder.setInsertionPointToEnd(currentBlock());
    builder.create<ScopeBeginOp>(loc(start));
    scopes.emplace_back();
    return success();
  }
  if (tok.is('}')) {
    advance();
    builder.setInsertionPointToEnd(currentBlock());
    builder.create<ScopeEndOp>(loc(start));
    scopes.pop_back();
    return success();
  }
  if (tok.is('@'))
    return parseInstruction();
  if (tok.kind != Token::Word)
    return error("expected an instruction, found " + describe(tok));
  StringRef word = tok.text;
  if (word == ".reg")
    return parseRegDecl();
  if (word == ".local" || word == ".shared" || word == ".param" ||
      word == ".const" || word == ".global")
    return parseVarDecl();
  if (word == ".loc")
    return parseLoc();
  if (word == ".pragma") {
    advance();
    SmallVector<StringRef> values;
    do {
      if (tok.kind != Token::String)
        return error("expected a string after .pragma, found " + describe(tok));
      values.push_back(tok.text.drop_front().drop_back());
      advance();
    } while (consumeIf(','));
    builder.setInsertionPointToEnd(currentBlock());
    builder.create<PragmaOp>(loc(start), builder.getStrArrayAttr(values));
    return expect(';', "after .pragma");
  }
  if (word.starts_with("."))
    return error("unknown directive " + describe(tok) + " in a function body");
  // `name:` starts a label or a named declaration.
  Lexer saved = lexer;
  Token savedTok = tok;
  advance();
  bool isLabel = tok.is(':');
  lexer = saved;
  tok = savedTok;
  if (isLabel)
    return parseLabelOrNamedDirective();
  return parseInstruction();
}

LogicalResult Importer::parseRegDecl() {
  Token start = tok;
  advance();
  FailureOr<std::string> decl = parseDeclWords("the register");
  if (failed(decl))
    return failure();
  StringAttr declAttr = builder.getStringAttr(*decl);
  builder.setInsertionPointToEnd(currentBlock());
  do {
    FailureOr<StringRef> name = parseName("a register name");
    if (failed(name))
      return failure();
    if (consumeIf('<')) {
      FailureOr<int64_t> count = parseInteger("a register count");
      if (failed(count) || failed(expect('>', "after the register count")))
        return failure();
      if (*count <= 0 || *count > (1 << 24))
        return error(start, "register count must be positive");
      SmallVector<Type> types(*count, RefType::get(context));
      auto reg = builder.create<RegOp>(loc(start), types, declAttr,
                                       builder.getStringAttr(*name),
                                       builder.getI32IntegerAttr(*count));
      scopes.back().ranges[*name] = reg;
    } else {
      auto reg = builder.create<RegOp>(loc(start),
                                       TypeRange{RefType::get(context)},
                                       declAttr, builder.getStringAttr(*name),
                                       IntegerAttr());
      declare(*name, reg.getResult(0));
    }
  } while (consumeIf(','));
  return expect(';', "after a register declaration");
}

LogicalResult Importer::parseVarDecl() {
  Token start = tok;
  StringRef space = tok.text;
  advance();
  FailureOr<std::string> decl = parseDeclWords("the variable");
  if (failed(decl))
    return failure();
  builder.setInsertionPointToEnd(currentBlock());
  do {
    FailureOr<StringRef> name = parseName("a variable name");
    if (failed(name))
      return failure();
    FailureOr<DenseI64ArrayAttr> dims = parseDims();
    if (failed(dims))
      return failure();
    StringAttr init;
    SmallVector<Attribute> refs;
    if (consumeIf('=') && failed(parseInitializer(init, refs)))
      return failure();
    auto var = builder.create<VarOp>(loc(start), RefType::get(context),
                                     builder.getStringAttr(space),
                                     builder.getStringAttr(*decl),
                                     builder.getStringAttr(*name), *dims, init);
    declare(*name, var);
  } while (consumeIf(','));
  return expect(';', "after a variable declaration");
}

LogicalResult Importer::parseLoc() {
  Token start = tok;
  advance();
  FailureOr<int64_t> file = parseInteger("a file index after .loc");
  if (failed(file))
    return failure();
  FailureOr<int64_t> line = parseInteger("a line number");
  if (failed(line))
    return failure();
  FailureOr<int64_t> column = parseInteger("a column number");
  if (failed(column))
    return failure();
  // The rest of the line (`, function_name ..., inlined_at ...`) verbatim.
  StringRef rest;
  if (tok.is(',') && tok.line == start.line) {
    const char *begin = tok.text.data();
    const char *end = begin;
    while (tok.kind != Token::Eof && tok.line == start.line) {
      end = tok.text.data() + tok.text.size();
      advance();
    }
    rest = StringRef(begin, end - begin);
  }
  builder.setInsertionPointToEnd(currentBlock());
  builder.create<LocOp>(loc(start), builder.getI32IntegerAttr(*file),
                        builder.getI32IntegerAttr(*line),
                        builder.getI32IntegerAttr(*column),
                        builder.getStringAttr(rest));
  if (StringAttr path = files.lookup(*file))
    sourceLoc = FileLineColLoc::get(path, *line, *column);
  else
    sourceLoc.reset();
  return success();
}

LogicalResult Importer::parseLabelOrNamedDirective() {
  Token start = tok;
  StringRef name = tok.text;
  advance(); // name
  advance(); // ':'
  if (tok.isWord(".branchtargets") || tok.isWord(".calltargets")) {
    bool branch = tok.text == ".branchtargets";
    advance();
    SmallVector<StringRef> targets;
    SmallVector<Attribute> callees;
    do {
      Token targetTok = tok;
      FailureOr<StringRef> target = parseName("a target name");
      if (failed(target))
        return failure();
      targets.push_back(*target);
      if (!branch) {
        if (!symbols.count(*target))
          pendingSymbolUses.try_emplace(*target, targetTok);
        callees.push_back(FlatSymbolRefAttr::get(context, *target));
      } else {
        labelBlock(*target, targetTok);
      }
    } while (consumeIf(','));
    builder.setInsertionPointToEnd(currentBlock());
    if (branch) {
      builder.create<BranchTargetsOp>(loc(start), name,
                                      builder.getStrArrayAttr(targets));
      branchTables[name] = targets;
    } else {
      builder.create<CallTargetsOp>(loc(start), name,
                                    builder.getArrayAttr(callees));
    }
    scopes.back().identifiers.insert(name);
    return expect(';', "after a target list");
  }
  if (tok.isWord(".callprototype")) {
    advance();
    const char *begin = tok.text.data();
    const char *end = begin;
    while (tok.kind != Token::Eof && !tok.is(';')) {
      end = tok.text.data() + tok.text.size();
      advance();
    }
    builder.setInsertionPointToEnd(currentBlock());
    builder.create<CallPrototypeOp>(
        loc(start), name, builder.getStringAttr(StringRef(begin, end - begin)));
    scopes.back().identifiers.insert(name);
    return expect(';', "after .callprototype");
  }
  // A label: it starts a block; the block before falls through into it.
  Block *target = labelBlock(name, start);
  if (target->getParent())
    return error(start, "redefinition of label '" + name + "'");
  if (block) {
    builder.setInsertionPointToEnd(block);
    builder.create<FallthroughOp>(loc(start), ValueRange(), BlockRange{target});
  }
  body->push_back(target);
  block = target;
  builder.setInsertionPointToEnd(block);
  builder.create<LabelOp>(loc(start), name);
  return success();
}

FailureOr<Attribute>
Importer::parseNameOperand(const Token &name, SmallVectorImpl<Value> &refs) {
  StringRef text = name.text;
  if (text == "_")
    return Attribute(IdOperandAttr::get(context, text));
  if (Value value = lookupStorage(text)) {
    refs.push_back(value);
    return Attribute(regOperand);
  }
  // %v.x: an element of a vector register.
  size_t dot = text.rfind('.');
  if (dot != StringRef::npos && dot > 0) {
    StringRef component = text.drop_front(dot + 1);
    if (Value value = lookupStorage(text.take_front(dot));
        value && (component == "x" || component == "y" || component == "z" ||
                  component == "w" || component == "r" || component == "g" ||
                  component == "b" || component == "a")) {
      refs.push_back(value);
      return Attribute(RegOperandAttr::get(context, component));
    }
  }
  for (Scope &scope : llvm::reverse(scopes))
    if (scope.identifiers.contains(text))
      return Attribute(IdOperandAttr::get(context, text));
  if (text.starts_with("%")) {
    if (isSpecialRegister(text))
      return Attribute(IdOperandAttr::get(context, text));
    error(name, "use of undeclared register '" + text + "'");
    return failure();
  }
  if (text.starts_with(".")) {
    error(name, "expected an operand, found " + describe(name));
    return failure();
  }
  // A module symbol: a global or a function, possibly declared later.
  if (!symbols.count(text))
    pendingSymbolUses.try_emplace(text, name);
  return Attribute(SymOperandAttr::get(context,
                                       FlatSymbolRefAttr::get(context, text)));
}

FailureOr<Attribute> Importer::parseAddress(SmallVectorImpl<Value> &refs) {
  advance(); // '['
  Attribute base;
  Token baseTok = tok;
  if (tok.kind == Token::Number) {
    base = ImmOperandAttr::get(context, tok.text);
    advance();
  } else if (tok.kind == Token::Word) {
    advance();
    FailureOr<Attribute> parsed = parseNameOperand(baseTok, refs);
    if (failed(parsed))
      return failure();
    base = *parsed;
  } else {
    error("expected an address, found " + describe(tok));
    return failure();
  }
  int64_t offset = 0;
  if (tok.is('+') || tok.is('-')) {
    bool minus = tok.is('-');
    advance();
    FailureOr<int64_t> value = parseInteger("an address offset");
    if (failed(value))
      return failure();
    offset = minus ? -*value : *value;
  }
  SmallVector<Attribute> rest;
  while (consumeIf(',')) {
    FailureOr<Attribute> element = parseOperand(refs);
    if (failed(element))
      return failure();
    rest.push_back(*element);
  }
  if (failed(expect(']', "to close the address")))
    return failure();
  return Attribute(AddrOperandAttr::get(context, base, offset,
                                        builder.getArrayAttr(rest)));
}

FailureOr<Attribute> Importer::parseOperand(SmallVectorImpl<Value> &refs) {
  Token start = tok;
  if (tok.is('[')) {
    return parseAddress(refs);
  }
  if (tok.is('{') || tok.is('(')) {
    bool isVector = tok.is('{');
    char close = isVector ? '}' : ')';
    advance();
    SmallVector<Attribute> elements;
    if (!tok.is(close)) {
      do {
        FailureOr<Attribute> element = parseOperand(refs);
        if (failed(element))
          return failure();
        elements.push_back(*element);
      } while (consumeIf(','));
    }
    if (failed(expect(close, isVector ? "to close the vector operand"
                                      : "to close the operand list")))
      return failure();
    ArrayAttr list = builder.getArrayAttr(elements);
    if (isVector)
      return Attribute(VecOperandAttr::get(context, list));
    return Attribute(ListOperandAttr::get(context, list));
  }
  if (tok.is('!')) {
    advance();
    FailureOr<Attribute> inner = parseOperand(refs);
    if (failed(inner))
      return failure();
    return Attribute(NotOperandAttr::get(context, *inner));
  }
  if (tok.is('-') || tok.kind == Token::Number) {
    const char *begin = tok.text.data();
    if (tok.is('-')) {
      advance();
      if (tok.kind != Token::Number) {
        error("expected a number after '-', found " + describe(tok));
        return failure();
      }
    }
    StringRef text(begin, tok.text.data() + tok.text.size() - begin);
    advance();
    return Attribute(ImmOperandAttr::get(context, text));
  }
  if (tok.kind == Token::Word) {
    advance();
    FailureOr<Attribute> first = parseNameOperand(start, refs);
    if (failed(first))
      return failure();
    if (tok.is('|')) {
      advance();
      Token secondTok = tok;
      if (tok.kind != Token::Word) {
        error("expected a predicate after '|', found " + describe(tok));
        return failure();
      }
      advance();
      FailureOr<Attribute> second = parseNameOperand(secondTok, refs);
      if (failed(second))
        return failure();
      return Attribute(PairOperandAttr::get(context, *first, *second));
    }
    // sym+4 outside brackets (mov.u64 %rd1, sym+4).
    if ((tok.is('+') || tok.is('-')) && llvm::isa<SymOperandAttr>(*first)) {
      bool minus = tok.is('-');
      advance();
      FailureOr<int64_t> value = parseInteger("an offset");
      if (failed(value))
        return failure();
      return Attribute(AddrOperandAttr::get(context, *first,
                                            minus ? -*value : *value,
                                            builder.getArrayAttr({})));
    }
    return first;
  }
  if (tok.kind == Token::Error)
    error("unexpected character " + describe(tok));
  else
    error("expected an operand, found " + describe(tok));
  return failure();
}

FailureOr<SmallVector<Attribute>>
Importer::parseOperandList(SmallVectorImpl<Value> &refs) {
  SmallVector<Attribute> args;
  if (tok.is(';'))
    return args;
  do {
    FailureOr<Attribute> arg = parseOperand(refs);
    if (failed(arg))
      return failure();
    args.push_back(*arg);
  } while (consumeIf(','));
  if (!tok.is(';')) {
    error("expected ',' or ';' after an operand, found " + describe(tok));
    return failure();
  }
  return args;
}

LogicalResult Importer::parseBranch(const Token &start, StringRef opcode,
                                    Value guard, bool negated) {
  Token labelTok = tok;
  FailureOr<StringRef> label = parseName("a branch target label");
  if (failed(label))
    return failure();
  Block *target = labelBlock(*label, labelTok);
  if (failed(expect(';', "after the branch target")))
    return failure();
  SmallVector<Block *, 2> dests{target};
  Block *fallthrough = guard ? new Block() : nullptr;
  if (fallthrough)
    dests.push_back(fallthrough);
  builder.setInsertionPointToEnd(currentBlock());
  builder.create<BraOp>(instructionLoc(start), guard, negated, opcode,
                        ValueRange(),
                        builder.getArrayAttr({LabelOperandAttr::get(context, 0)}),
                        dests);
  block = fallthrough;
  if (fallthrough)
    body->push_back(fallthrough);
  return success();
}

LogicalResult Importer::parseBranchIndex(const Token &start, StringRef opcode,
                                         Value guard, bool negated) {
  SmallVector<Value> refs;
  FailureOr<SmallVector<Attribute>> args = parseOperandList(refs);
  if (failed(args))
    return failure();
  advance(); // ';'
  auto table = args->size() == 2 ? llvm::dyn_cast<IdOperandAttr>((*args)[1])
                                 : IdOperandAttr();
  auto it = table ? branchTables.find(table.getName()) : branchTables.end();
  if (it == branchTables.end())
    return error(start, "brx.idx needs an index and a .branchtargets table");
  SmallVector<Block *> dests;
  for (StringRef label : it->second)
    dests.push_back(labels.lookup(label));
  Block *fallthrough = guard ? new Block() : nullptr;
  if (fallthrough)
    dests.push_back(fallthrough);
  builder.setInsertionPointToEnd(currentBlock());
  builder.create<BrxOp>(instructionLoc(start), guard, negated, opcode, refs,
                        builder.getArrayAttr(*args), dests);
  block = fallthrough;
  if (fallthrough)
    body->push_back(fallthrough);
  return success();
}

LogicalResult Importer::parseInstruction() {
  Token start = tok;
  Value guard;
  bool negated = false;
  if (consumeIf('@')) {
    negated = consumeIf('!');
    Token predTok = tok;
    if (tok.kind != Token::Word)
      return error("expected a predicate after '@', found " + describe(tok));
    guard = lookupStorage(tok.text);
    if (!guard)
      return error("use of undeclared predicate '" + tok.text + "'");
    (void)predTok;
    advance();
  }
  Token opTok = tok;
  if (tok.kind != Token::Word || tok.text.starts_with(".") ||
      tok.text.starts_with("%"))
    return error("expected an instruction, found " + describe(tok));
  StringRef opcode = tok.text;
  const isa::InstrInfo *info = isa::lookup(opcode);
  if (!info)
    return error("unknown instruction '" + opcode + "'");
  advance();

  switch (info->kind) {
  case isa::OpKind::Branch:
    return parseBranch(opTok, opcode, guard, negated);
  case isa::OpKind::BranchIndex:
    return parseBranchIndex(opTok, opcode, guard, negated);
  default:
    break;
  }

  SmallVector<Value, 8> refs;
  FailureOr<SmallVector<Attribute>> args = parseOperandList(refs);
  if (failed(args))
    return failure();
  advance(); // ';'
  Location opLoc = instructionLoc(opTok);
  ArrayAttr argsAttr = builder.getArrayAttr(*args);
  StringAttr opcodeAttr = builder.getStringAttr(opcode);
  builder.setInsertionPointToEnd(currentBlock());
  auto build = [&](auto tag) {
    using OpTy = decltype(tag);
    builder.create<OpTy>(opLoc, guard, negated, opcodeAttr, refs, argsAttr);
  };
  switch (info->kind) {
  case isa::OpKind::Generic:
    build(InstOp());
    break;
  case isa::OpKind::Wgmma:
    build(WgmmaOp());
    break;
  case isa::OpKind::Tma:
    build(TmaOp());
    break;
  case isa::OpKind::Mbarrier:
    build(MbarrierOp());
    break;
  case isa::OpKind::Tcgen05:
    build(Tcgen05Op());
    break;
  case isa::OpKind::SetMaxNReg:
    build(SetMaxNRegOp());
    break;
  case isa::OpKind::MmaSync:
    build(MmaSyncOp());
    break;
  case isa::OpKind::CpAsync:
    build(CpAsyncOp());
    break;
  case isa::OpKind::MatrixMove:
    build(MatrixMoveOp());
    break;
  case isa::OpKind::Call:
    build(CallOp());
    break;
  case isa::OpKind::Return: {
    Block *fallthrough = guard ? new Block() : nullptr;
    SmallVector<Block *, 1> dests;
    if (fallthrough)
      dests.push_back(fallthrough);
    builder.create<RetOp>(opLoc, guard, negated, opcodeAttr, refs, argsAttr,
                          dests);
    block = fallthrough;
    if (fallthrough)
      body->push_back(fallthrough);
    break;
  }
  case isa::OpKind::Branch:
  case isa::OpKind::BranchIndex:
    llvm_unreachable("handled above");
  }
  (void)start;
  return success();
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

OwningOpRef<ptx::ModuleOp> ptxbench::importPTX(llvm::SourceMgr &sourceMgr,
                                          MLIRContext *context) {
  context->loadDialect<PTXDialect>();
  Importer importer(sourceMgr, context);
  return importer.run();
}

void ptxbench::registerImportPTXTranslation() {
  TranslateToMLIRRegistration registration(
      "import-ptx", "import PTX into the ptx dialect",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *context) -> OwningOpRef<Operation *> {
        OwningOpRef<ptx::ModuleOp> module = importPTX(sourceMgr, context);
        if (!module)
          return nullptr;
        return OwningOpRef<Operation *>(module.release());
      },
      [](DialectRegistry &registry) { registry.insert<PTXDialect>(); });
}
