//===- ImportPTX.cpp - PTX text to the ptx dialect ------------------------===//
//
// A recursive-descent parser from PTX text to a ptx.module. This file parses
// the module level (.version/.target, .file, .section, globals, function
// signatures, aliases) and holds the entry points; ImportFunctionBody.cpp
// parses bodies. Errors stop the import at the first problem with
// `file:line:col: error: ...`; the result is verified.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Conversion/ImportPTX.h"

#include "Importer.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::ptx;
using namespace ptxbench::ptximport;

namespace {

/// Whether `buffer` has `.loc` directives (a cheap scan, before parsing).
bool hasLineInfo(StringRef buffer) {
  for (size_t pos = buffer.find(".loc"); pos != StringRef::npos;
       pos = buffer.find(".loc", pos + 4))
    if (pos + 4 < buffer.size() &&
        (buffer[pos + 4] == ' ' || buffer[pos + 4] == '\t'))
      return true;
  return false;
}

} // namespace

/// The `.file N "path"` directives of `buffer`, wherever they are: nvcc
/// and NVRTC write the file table after the functions whose `.loc`s name
/// it. A line scan, before parsing; the parser checks the directives
/// properly when it reaches them.
void Importer::prescanFiles(StringRef buffer) {
  // Line by line: the scan stays linear however many `.file`s one line has.
  for (StringRef rest = buffer; !rest.empty();) {
    auto [line, tail] = rest.split('\n');
    rest = tail;
    // `.file` must start its line (after blanks) and be followed by a blank.
    line = line.ltrim(" \t");
    if (!line.consume_front(".file") || line.empty() ||
        (line[0] != ' ' && line[0] != '\t'))
      continue;
    unsigned index = 0;
    line = line.ltrim(" \t");
    // The parser refuses an index past the attribute's range when it gets
    // there; it is no key here (~0u is DenseMap's empty key).
    if (line.consumeInteger(10, index) || index > kMaxI32)
      continue;
    line = line.ltrim(" \t");
    if (!line.consume_front("\""))
      continue;
    files[index] =
        builder.getStringAttr(line.take_until([](char c) { return c == '"'; }));
  }
}

Importer::Importer(llvm::SourceMgr &sourceMgr, MLIRContext *context)
    : context(context), builder(context),
      lexer(sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer()) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  StringRef name = buffer->getBufferIdentifier();
  fileName = builder.getStringAttr(name.empty() ? "<stdin>" : name);
  keepText = hasLineInfo(buffer->getBuffer());
  if (keepText)
    prescanFiles(buffer->getBuffer());
  builder.setListener(&firstOp);
  regOperand = RegOperandAttr::get(context, "");
  advance();
}

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
  // The texts are kept only for a module with line info: without one the
  // export regenerates every statement, as it will when it reads its own
  // export again (the printer stays a fixed point).
  if (keepText && !sawLoc)
    module->walk([](Operation *op) { op->removeAttr(kTextAttrName); });
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
  module =
      ptx::ModuleOp::create(builder, loc(start), version, target, addressSize);
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
    FailureOr<SmallVector<StringRef>> values = parsePragmaStrings();
    if (failed(values))
      return failure();
    ModulePragmaOp::create(builder, loc(start),
                           builder.getStrArrayAttr(*values));
    return success();
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

FailureOr<SmallVector<StringRef>> Importer::parsePragmaStrings() {
  SmallVector<StringRef> values;
  do {
    if (tok.kind != Token::String) {
      error("expected a string after .pragma, found " + describe(tok));
      return failure();
    }
    values.push_back(tok.text.drop_front().drop_back());
    advance();
  } while (consumeIf(','));
  if (failed(expect(';', "after .pragma")))
    return failure();
  return values;
}

LogicalResult Importer::parseFile() {
  Token start = tok;
  advance();
  FailureOr<int64_t> index = parseInteger("a file index", 0, kMaxI32);
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
  FileOp::create(builder, loc(start), builder.getI32IntegerAttr(*index),
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
  // The header as written (its text and its line breaks are in a cubin
  // with line info), unless it is the exporter's own form.
  StringRef header(start.text.data(), tok.text.data() - start.text.data());
  std::string usual = (".section\t" + name + "\n\t").str();
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
  SectionOp::create(builder, loc(start), builder.getStringAttr(name),
                    builder.getStringAttr(StringRef(open, cur - open)),
                    header == usual ? StringAttr()
                                    : builder.getStringAttr(header));
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
  auto op = AliasOp::create(builder, loc(start), builder.getStringAttr(*alias),
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
    FailureOr<int64_t> dim = parseInteger("an array size", 0);
    if (failed(dim) || failed(expect(']', "after the array size")))
      return failure();
    dims.push_back(*dim);
  }
  if (dims.empty())
    return DenseI64ArrayAttr();
  return builder.getDenseI64ArrayAttr(dims);
}

LogicalResult Importer::parseDeclarator(Declarator &d) {
  d.nameTok = tok;
  FailureOr<StringRef> name = parseName("a variable name");
  if (failed(name))
    return failure();
  d.name = *name;
  FailureOr<DenseI64ArrayAttr> dims = parseDims();
  if (failed(dims))
    return failure();
  d.dims = *dims;
  if (consumeIf('=') && failed(parseInitializer(d.init, d.refs)))
    return failure();
  return success();
}

LogicalResult Importer::parseInitializer(StringAttr &init,
                                         SmallVectorImpl<Attribute> &refs) {
  const char *begin = tok.text.data();
  const char *end = begin;
  int depth = 0;
  while (tok.kind != Token::Eof) {
    if (depth == 0 && (tok.is(';') || tok.is(',')))
      break;
    if (tok.is('{') || tok.is('(')) {
      if (++depth > int(kMaxNesting))
        return error("initializer nested deeper than " + Twine(kMaxNesting) +
                     " levels");
    } else if (tok.is('}') || tok.is(')'))
      --depth;
    else if (tok.kind == Token::Word && symbols.count(tok.text))
      refs.push_back(FlatSymbolRefAttr::get(context, tok.text));
    else if (tok.kind == Token::Error) {
      return error("unexpected character " + describe(tok) + " in initializer");
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
    Declarator d;
    if (failed(parseDeclarator(d)))
      return failure();
    // A variable may be declared `.extern` again, before or after its
    // definition; each further declaration stays in place as a
    // ptx.global_decl of the symbol.
    if (Operation *previous = symbols.lookup(d.name)) {
      auto prevGlobal = llvm::dyn_cast<GlobalOp>(previous);
      bool prevExtern = prevGlobal && prevGlobal.getLinkage() == ".extern";
      if (prevGlobal && linkage == ".extern" && !d.init) {
        GlobalDeclOp::create(builder, loc(start),
                             FlatSymbolRefAttr::get(context, d.name),
                             builder.getStringAttr(linkage),
                             builder.getStringAttr(space),
                             builder.getStringAttr(*decl), d.dims);
        continue;
      }
      if (!prevExtern) {
        error(d.nameTok, "redefinition of '" + d.name + "'")
                .attachNote(previous->getLoc())
            << "previous definition is here";
        return failure();
      }
      demoteToDeclaration(prevGlobal);
    }
    auto op = GlobalOp::create(
        builder, loc(start), builder.getStringAttr(d.name),
        builder.getStringAttr(linkage), builder.getStringAttr(space),
        builder.getStringAttr(*decl), d.dims, d.init,
        d.refs.empty() ? ArrayAttr() : builder.getArrayAttr(d.refs));
    symbols[d.name] = op;
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
      params.push_back(
          ParamAttr::get(context, space, *decl, name,
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
      FailureOr<SmallVector<StringRef>> strings = parsePragmaStrings();
      if (failed(strings))
        return failure();
      for (StringRef value : *strings)
        values.push_back(builder.getStringAttr(value));
    } else if (tok.kind == Token::Number) {
      do {
        FailureOr<int64_t> value = parseInteger("a number after " + word.str());
        if (failed(value))
          return failure();
        values.push_back(builder.getI64IntegerAttr(*value));
      } while (consumeIf(','));
    }
    directives.push_back(DirectiveAttr::get(context, word.drop_front(),
                                            builder.getArrayAttr(values)));
  }
  return builder.getArrayAttr(directives);
}

void Importer::demoteToDeclaration(GlobalOp global) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(global);
  auto decl = GlobalDeclOp::create(
      builder, global.getLoc(), FlatSymbolRefAttr::get(context, global.getSymName()),
      global.getLinkageAttr(), global.getSpaceAttr(), global.getDeclAttr(),
      global.getDimsAttr());
  decl->setDiscardableAttrs(global->getDiscardableAttrDictionary());
  global.erase();
}

void Importer::demoteToPrototype(FuncOp func) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(func);
  auto proto = PrototypeOp::create(
      builder, func.getLoc(),
      FlatSymbolRefAttr::get(context, func.getSymName()), func.getEntryAttr(),
      func.getLinkageAttr(), func.getResultsAttr(), func.getParamsAttr(),
      func.getDirectivesAttr());
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

  // PTX lets a function be declared any number of times before its
  // definition. A further declaration stays in place as a ptx.prototype of
  // the symbol; so do the declarations before a definition.
  Operation *previous = symbols.lookup(*name);
  bool hasBody = tok.is('{');
  if (previous) {
    auto prevFunc = llvm::dyn_cast<FuncOp>(previous);
    if (!prevFunc || !prevFunc.isExternal()) {
      error(nameTok, "redefinition of '" + *name + "'")
              .attachNote(previous->getLoc())
          << (prevFunc ? "its definition is here (PTX allows declarations "
                         "before the definition, not after it)"
                       : "previous declaration is here");
      return failure();
    }
    if (!hasBody) {
      auto proto = PrototypeOp::create(
          builder, loc(start), FlatSymbolRefAttr::get(context, *name),
          isEntry ? builder.getUnitAttr() : UnitAttr(),
          builder.getStringAttr(linkage), results, params, *directives);
      if (failed(expect(';', "or '{' after the function signature")))
        return failure();
      recordText(proto, start.text.data());
      return success();
    }
    demoteToPrototype(prevFunc);
  }
  auto func = FuncOp::create(builder, loc(start), builder.getStringAttr(*name),
                             isEntry, builder.getStringAttr(linkage), results,
                             params, *directives, LocationAttr());
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
// Entry points
//===----------------------------------------------------------------------===//

OwningOpRef<ptx::ModuleOp> ptxbench::importPTX(llvm::SourceMgr &sourceMgr,
                                               MLIRContext *context) {
  context->loadDialect<PTXDialect>();
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  if (buffer->getBufferSize() > kMaxPTXBytes) {
    StringRef name = buffer->getBufferIdentifier();
    emitError(
        FileLineColLoc::get(context, name.empty() ? "<stdin>" : name, 1, 1),
        "the PTX text is " + Twine(buffer->getBufferSize()) +
            " bytes; the importer reads at most " + Twine(kMaxPTXBytes));
    return nullptr;
  }
  Importer importer(sourceMgr, context);
  return importer.run();
}

void ptxbench::registerImportPTXTranslation() {
  TranslateToMLIRRegistration registration(
      "import-ptx", "import PTX into the ptx dialect",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        OwningOpRef<ptx::ModuleOp> module = importPTX(sourceMgr, context);
        if (!module)
          return nullptr;
        return OwningOpRef<Operation *>(module.release());
      },
      [](DialectRegistry &registry) { registry.insert<PTXDialect>(); });
}
