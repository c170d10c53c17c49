//===- ImportFunctionBody.cpp - PTX function bodies to the ptx dialect ----===//
//
// The body half of the importer: statements, register and variable
// declarations resolved through lexical scopes, labels as blocks, debug
// directives, and instructions with every operand form, each built as the
// op its ISA record names.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "ptxbench/ISA/ISA.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace ptxbench;
using namespace ptxbench::ptx;
using namespace ptxbench::ptximport;

namespace {

/// Special registers (`%tid.x` is `%tid` with a component). Names outside
/// this list that start with `%` must be declared.
bool isSpecialRegister(StringRef name) {
  static const llvm::StringSet<> names = {"%tid",
                                          "%ntid",
                                          "%laneid",
                                          "%warpid",
                                          "%nwarpid",
                                          "%ctaid",
                                          "%nctaid",
                                          "%smid",
                                          "%nsmid",
                                          "%gridid",
                                          "%lanemask_eq",
                                          "%lanemask_le",
                                          "%lanemask_lt",
                                          "%lanemask_ge",
                                          "%lanemask_gt",
                                          "%clock",
                                          "%clock_hi",
                                          "%clock64",
                                          "%pm0",
                                          "%pm1",
                                          "%pm2",
                                          "%pm3",
                                          "%pm4",
                                          "%pm5",
                                          "%pm6",
                                          "%pm7",
                                          "%pm0_64",
                                          "%pm1_64",
                                          "%pm2_64",
                                          "%pm3_64",
                                          "%pm4_64",
                                          "%pm5_64",
                                          "%pm6_64",
                                          "%pm7_64",
                                          "%globaltimer",
                                          "%globaltimer_lo",
                                          "%globaltimer_hi",
                                          "%total_smem_size",
                                          "%aggr_smem_size",
                                          "%dynamic_smem_size",
                                          "%reserved_smem_offset_begin",
                                          "%reserved_smem_offset_end",
                                          "%reserved_smem_offset_cap",
                                          "%reserved_smem_offset_0",
                                          "%reserved_smem_offset_1",
                                          "%clusterid",
                                          "%nclusterid",
                                          "%cluster_ctaid",
                                          "%cluster_nctaid",
                                          "%cluster_ctarank",
                                          "%cluster_nctarank",
                                          "%is_explicit_cluster",
                                          "%current_graph_exec",
                                          "%envreg"};
  StringRef base = name.take_until([](char c) { return c == '.'; });
  if (names.contains(base))
    return true;
  // %envreg0 .. %envreg31
  return base.starts_with("%envreg") &&
         llvm::all_of(base.drop_front(7), llvm::isDigit);
}

} // namespace

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

Block *Importer::mentionLabel(StringRef label, const Token &mention) {
  Scope &scope = scopes.back();
  if (auto it = scope.labels.find(label); it != scope.labels.end())
    return it->second.block;
  auto [it, inserted] = scope.pendingLabels.try_emplace(label);
  if (inserted) {
    it->second.block = new Block();
    it->second.token = mention;
    floatingBlocks.insert(it->second.block);
  }
  return it->second.block;
}

FailureOr<Block *> Importer::defineLabel(StringRef label,
                                         const Token &definition) {
  Scope &scope = scopes.back();
  if (auto it = scope.labels.find(label); it != scope.labels.end()) {
    error(definition, "redefinition of label '" + label + "' in the same scope")
            .attachNote(loc(it->second.token))
        << "previous definition is here";
    return failure();
  }
  Block *block;
  if (auto it = scope.pendingLabels.find(label);
      it != scope.pendingLabels.end()) {
    block = it->second.block;
    scope.pendingLabels.erase(it);
  } else {
    block = new Block();
    floatingBlocks.insert(block);
  }
  scope.labels[label] = LabelEntry{block, definition};
  return block;
}

void Importer::popScope() {
  Scope inner = scopes.pop_back_val();
  Scope &outer = scopes.back();
  for (auto &entry : inner.pendingLabels) {
    StringRef label = entry.first();
    Block *placeholder = entry.second.block;
    Block *target = nullptr;
    if (auto it = outer.labels.find(label); it != outer.labels.end())
      target = it->second.block;
    else if (auto it = outer.pendingLabels.find(label);
             it != outer.pendingLabels.end())
      target = it->second.block;
    if (!target) {
      outer.pendingLabels.try_emplace(label, entry.second);
      continue;
    }
    placeholder->replaceAllUsesWith(target);
    floatingBlocks.erase(placeholder);
    delete placeholder;
  }
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
    FallthroughOp::create(builder, func.getLoc(), ValueRange(), BlockRange());
  }
  for (auto &entry : scopes.front().pendingLabels) {
    error(entry.second.token, "use of undefined label '" + entry.first() +
                                  "' (labels are visible in their own scope "
                                  "and the scopes it encloses)");
    return failure();
  }
  return success();
}

LogicalResult Importer::parseStatement() {
  Token start = tok;
  if (tok.is('{')) {
    if (scopes.size() > kMaxNesting)
      return error("'{' scopes nested deeper than " + Twine(kMaxNesting) +
                   " levels");
    advance();
    builder.setInsertionPointToEnd(currentBlock());
    ScopeBeginOp::create(builder, loc(start));
    scopes.emplace_back();
    return success();
  }
  if (tok.is('}')) {
    advance();
    builder.setInsertionPointToEnd(currentBlock());
    ScopeEndOp::create(builder, loc(start));
    popScope();
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
    FailureOr<SmallVector<StringRef>> values = parsePragmaStrings();
    if (failed(values))
      return failure();
    builder.setInsertionPointToEnd(currentBlock());
    PragmaOp::create(builder, loc(start), builder.getStrArrayAttr(*values));
    return success();
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
      auto reg = RegOp::create(builder, loc(start), types, declAttr,
                               builder.getStringAttr(*name),
                               builder.getI32IntegerAttr(*count));
      scopes.back().ranges[*name] = reg;
    } else {
      auto reg =
          RegOp::create(builder, loc(start), TypeRange{RefType::get(context)},
                        declAttr, builder.getStringAttr(*name), IntegerAttr());
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
    Declarator d;
    if (failed(parseDeclarator(d)))
      return failure();
    auto var = VarOp::create(builder, loc(start), RefType::get(context),
                             builder.getStringAttr(space),
                             builder.getStringAttr(*decl),
                             builder.getStringAttr(d.name), d.dims, d.init);
    declare(d.name, var);
  } while (consumeIf(','));
  return expect(';', "after a variable declaration");
}

LogicalResult Importer::parseLoc() {
  sawLoc = true;
  Token start = tok;
  // Read before the lexer moves past this line's comments.
  bool inInlineAsm = lexer.inInlineAsm();
  advance();
  FailureOr<int64_t> file = parseInteger("a file index after .loc", 0, kMaxI32);
  if (failed(file))
    return failure();
  FailureOr<int64_t> line = parseInteger("a line number", 0, kMaxI32);
  if (failed(line))
    return failure();
  FailureOr<int64_t> column = parseInteger("a column number", 0, kMaxI32);
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
  LocOp::create(builder, loc(start), builder.getI32IntegerAttr(*file),
                builder.getI32IntegerAttr(*line),
                builder.getI32IntegerAttr(*column),
                builder.getStringAttr(rest));
  // Inside inline assembly LLVM numbers the assembly's lines from the
  // statement's: the statement's own `.loc` before it stays the source.
  if (inInlineAsm)
    return success();
  if (StringAttr path = files.lookup(*file))
    sourceLoc = FileLineColLoc::get(path, *line, *column);
  else
    sourceLoc.reset();
  // Code inlined from another function (`inlined_at F L C`): the call site
  // too, so findings can name the line the submission wrote (Triton's
  // library and the toolkit's headers are inlined into it).
  if (sourceLoc) {
    size_t at = rest.find("inlined_at");
    if (at != StringRef::npos) {
      SmallVector<StringRef, 4> words;
      rest.drop_front(at + sizeof("inlined_at") - 1)
          .split(words, ' ', -1, /*KeepEmpty=*/false);
      unsigned f = 0, l = 0, c = 0;
      if (words.size() >= 3 && !words[0].getAsInteger(10, f) &&
          !words[1].getAsInteger(10, l) &&
          !words[2].trim(",").getAsInteger(10, c))
        if (StringAttr callerPath = files.lookup(f))
          sourceLoc = CallSiteLoc::get(
              *sourceLoc, FileLineColLoc::get(callerPath, l, c));
    }
  }
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
        mentionLabel(*target, targetTok);
      }
    } while (consumeIf(','));
    builder.setInsertionPointToEnd(currentBlock());
    if (branch) {
      BranchTargetsOp::create(builder, loc(start), name,
                              builder.getStrArrayAttr(targets));
      branchTables[name] = targets;
    } else {
      CallTargetsOp::create(builder, loc(start), name,
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
    CallPrototypeOp::create(
        builder, loc(start), name,
        builder.getStringAttr(StringRef(begin, end - begin)));
    scopes.back().identifiers.insert(name);
    return expect(';', "after .callprototype");
  }
  // A label: it starts a block; the block before falls through into it.
  FailureOr<Block *> defined = defineLabel(name, start);
  if (failed(defined))
    return failure();
  Block *target = *defined;
  if (block) {
    builder.setInsertionPointToEnd(block);
    FallthroughOp::create(builder, loc(start), ValueRange(),
                          BlockRange{target});
  }
  body->push_back(target);
  floatingBlocks.erase(target);
  block = target;
  builder.setInsertionPointToEnd(block);
  LabelOp::create(builder, loc(start), name);
  return success();
}

FailureOr<Attribute> Importer::parseNameOperand(const Token &name,
                                                SmallVectorImpl<Value> &refs) {
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
  return Attribute(
      SymOperandAttr::get(context, FlatSymbolRefAttr::get(context, text)));
}

FailureOr<std::optional<StringRef>>
Importer::parseConstant(ConstantValue &value) {
  const char *begin = tok.text.data();
  ConstantExprResult result =
      parseConstantExpr(StringRef(begin, lexer.bufferEnd() - begin));
  if (result.kind == ConstantExprResult::Kind::NotConstant)
    return std::optional<StringRef>();
  const char *end = begin + result.length;
  if (!result.ok()) {
    // Point at the problem: the token that starts where the parser stopped.
    Token problem = tok;
    if (end >= lexer.position()) {
      Lexer at = lexer;
      at.skipTo(end);
      problem = at.next();
      if (problem.kind == Token::Eof)
        problem = tok;
    }
    error(problem, "invalid constant expression: " + result.message);
    return failure();
  }
  value = result.value;
  // The expression spans at least the current token; go on after it.
  lexer.skipTo(end);
  tok = lexer.next();
  prevEnd = end;
  return std::optional<StringRef>(StringRef(begin, end - begin));
}

LogicalResult Importer::parseOffset(int64_t &offset, StringRef &text) {
  Token plus = tok;
  ConstantValue value;
  FailureOr<std::optional<StringRef>> parsed = parseConstant(value);
  if (failed(parsed))
    return failure();
  if (!*parsed || !value.isInteger())
    return error(plus, "expected an integer constant after '+'");
  offset = value.asSigned();
  text = **parsed;
  if (text == ("+" + Twine(offset)).str())
    text = "";
  return success();
}

bool Importer::opensOperandList() {
  // A comma inside the parentheses, at their own depth, before they close.
  int depth = 0;
  for (const char *p = tok.text.data(); p < lexer.bufferEnd(); ++p) {
    char c = *p;
    if (c == '(')
      ++depth;
    else if (c == ')' && --depth == 0)
      return false;
    else if (c == ',' && depth == 1)
      return true;
    else if (c == ';')
      return false;
  }
  return false;
}

FailureOr<Attribute> Importer::parseAddress(SmallVectorImpl<Value> &refs) {
  advance(); // '['
  Attribute base;
  Token baseTok = tok;
  ConstantValue value;
  FailureOr<std::optional<StringRef>> constant = parseConstant(value);
  if (failed(constant))
    return failure();
  if (*constant) {
    // An absolute address, itself a constant expression ([0x100+8]).
    base = ImmOperandAttr::get(context, **constant);
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
  StringRef offsetText;
  if (tok.is('-'))
    return error("an address offset is written '+-N' in PTX, not '-N'"),
           failure();
  if (!*constant && tok.is('+') && failed(parseOffset(offset, offsetText)))
    return failure();
  SmallVector<Attribute> rest;
  while (consumeIf(',')) {
    FailureOr<Attribute> element = parseNestedOperand(refs);
    if (failed(element))
      return failure();
    rest.push_back(*element);
  }
  if (failed(expect(']', "to close the address")))
    return failure();
  return Attribute(AddrOperandAttr::get(context, base, offset,
                                        builder.getArrayAttr(rest),
                                        offsetText));
}

FailureOr<Attribute>
Importer::parseNestedOperand(SmallVectorImpl<Value> &refs) {
  if (operandDepth >= kMaxNesting) {
    error("operand nested deeper than " + Twine(kMaxNesting) + " levels");
    return failure();
  }
  ++operandDepth;
  FailureOr<Attribute> operand = parseOperand(refs);
  --operandDepth;
  return operand;
}

FailureOr<Attribute> Importer::parseOperand(SmallVectorImpl<Value> &refs) {
  Token start = tok;
  if (tok.is('[')) {
    return parseAddress(refs);
  }
  // A constant expression: a number, WARP_SZ, or an operator or '(' that
  // starts one. '(' may open a call's operand list instead, and '!' may
  // negate a predicate: those are not constant, and nothing is consumed.
  if (tok.kind == Token::Number || tok.is('(') || tok.is('-') ||
      tok.is('+') || tok.is('~') || tok.is('!') || tok.isWord("WARP_SZ")) {
    ConstantValue value;
    FailureOr<std::optional<StringRef>> constant =
        tok.is('(') && opensOperandList() ? std::optional<StringRef>()
                                          : parseConstant(value);
    if (failed(constant))
      return failure();
    if (*constant)
      return Attribute(ImmOperandAttr::get(context, **constant));
  }
  if (tok.is('{') || tok.is('(')) {
    bool isVector = tok.is('{');
    char close = isVector ? '}' : ')';
    advance();
    SmallVector<Attribute> elements;
    if (!tok.is(close)) {
      do {
        FailureOr<Attribute> element = parseNestedOperand(refs);
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
    FailureOr<Attribute> inner = parseNestedOperand(refs);
    if (failed(inner))
      return failure();
    return Attribute(NotOperandAttr::get(context, *inner));
  }
  if (tok.is('-')) {
    advance();
    error("expected a number after '-', found " + describe(tok));
    return failure();
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
    // An array element: a[1], a[N-1], a[%r2], a[%r2+4].
    bool isArray = llvm::isa<SymOperandAttr>(*first) ||
                   (llvm::isa<RegOperandAttr>(*first) &&
                    refs.back().getDefiningOp<VarOp>());
    if (isArray && tok.is('[')) {
      advance();
      FailureOr<Attribute> index = parseNestedOperand(refs);
      if (failed(index) || failed(expect(']', "to close the array index")))
        return failure();
      return Attribute(ElementOperandAttr::get(context, *first, *index));
    }
    // A register or a symbol plus a constant, outside brackets
    // (add.u32 %r1, %r2+4, 1; mov.u64 %rd1, sym+8).
    auto reg = llvm::dyn_cast<RegOperandAttr>(*first);
    bool summable = (reg && reg.getComponent().empty()) ||
                    llvm::isa<SymOperandAttr>(*first);
    if (summable && tok.is('+')) {
      int64_t offset = 0;
      StringRef offsetText;
      if (failed(parseOffset(offset, offsetText)))
        return failure();
      return Attribute(
          OffsetOperandAttr::get(context, *first, offset, offsetText));
    }
    if (summable && tok.is('-')) {
      error("a constant is added to a register or symbol as '+-N' in PTX, "
            "not '-N'");
      return failure();
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
  Block *target = mentionLabel(*label, labelTok);
  if (failed(expect(';', "after the branch target")))
    return failure();
  SmallVector<Block *, 2> dests{target};
  Block *fallthrough = guard ? new Block() : nullptr;
  if (fallthrough)
    dests.push_back(fallthrough);
  builder.setInsertionPointToEnd(currentBlock());
  BraOp::create(
      builder, instructionLoc(start), guard, negated, opcode, ValueRange(),
      builder.getArrayAttr({LabelOperandAttr::get(context, 0)}), dests);
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
    dests.push_back(mentionLabel(label, start));
  Block *fallthrough = guard ? new Block() : nullptr;
  if (fallthrough)
    dests.push_back(fallthrough);
  builder.setInsertionPointToEnd(currentBlock());
  BrxOp::create(builder, instructionLoc(start), guard, negated, opcode, refs,
                builder.getArrayAttr(*args), dests);
  block = fallthrough;
  if (fallthrough)
    body->push_back(fallthrough);
  return success();
}

LogicalResult Importer::parseInstruction() {
  Value guard;
  bool negated = false;
  if (consumeIf('@')) {
    negated = consumeIf('!');
    if (tok.kind != Token::Word)
      return error("expected a predicate after '@', found " + describe(tok));
    guard = lookupStorage(tok.text);
    if (!guard)
      return error("use of undeclared predicate '" + tok.text + "'");
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
    OpTy::create(builder, opLoc, guard, negated, opcodeAttr, refs, argsAttr);
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
    RetOp::create(builder, opLoc, guard, negated, opcodeAttr, refs, argsAttr,
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
  return success();
}
