//===- LaunchPlan.cpp - Parse `// @ptxbench` launch plans -----------------===//
//
// Each `// @ptxbench` line is one statement: `kernel`, `args`, `tensormap`
// or `workspace`. Words are separated by whitespace outside parentheses, so
// expressions may hold spaces only inside parentheses. A wrong line is
// reported and the next one read, so every mistake is found in one pass.
// A Triton submission writes the same statements as `# @ptxbench` lines,
// with `num_warps`/`num_stages` on its one kernel line and `constexpr`
// lines for its constexpr parameters; what Triton decides (the block, the
// shared memory, a tensor map's swizzle) it may not give.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Task/LaunchPlan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using namespace llvm;
using namespace ptxbench::runtime;

static constexpr StringLiteral marker = "@ptxbench";

StringRef ptxbench::runtime::scalarTypeName(ScalarType type) {
  switch (type) {
  case ScalarType::I32:
    return "i32";
  case ScalarType::U32:
    return "u32";
  case ScalarType::I64:
    return "i64";
  case ScalarType::U64:
    return "u64";
  }
  llvm_unreachable("scalar type");
}

unsigned ptxbench::runtime::scalarTypeSize(ScalarType type) {
  return type == ScalarType::I32 || type == ScalarType::U32 ? 4 : 8;
}

namespace {

struct Word {
  StringRef text;
  unsigned col; // 1-based column of text[0]
};

/// Splits at whitespace (or at `sep` when given) outside parentheses.
Expected<std::vector<Word>> split(StringRef text, unsigned col,
                                  const SourceLoc &lineLoc, char sep = 0) {
  std::vector<Word> words;
  int depth = 0;
  size_t start = StringRef::npos;
  auto flush = [&](size_t end) {
    if (start != StringRef::npos) {
      StringRef w = text.slice(start, end);
      size_t lead = w.size() - w.ltrim().size();
      w = w.trim();
      if (!w.empty() || sep)
        words.push_back({w, unsigned(col + start + lead)});
      start = StringRef::npos;
    }
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(')
      ++depth;
    if (c == ')' && --depth < 0)
      return makeError(lineLoc.withCol(col + i), "unbalanced ')'");
    bool boundary = depth == 0 && (sep ? c == sep : isSpace(c));
    if (boundary) {
      if (sep && start == StringRef::npos)
        start = i; // empty item between separators
      flush(i);
      continue;
    }
    if (start == StringRef::npos)
      start = i;
  }
  if (depth > 0)
    return makeError(lineLoc.withCol(col + text.size()), "missing ')'");
  flush(text.size());
  return words;
}

} // namespace

bool ptxbench::runtime::isTritonSource(StringRef fileName) {
  return fileName.ends_with(".py");
}

namespace {

class PlanParser {
public:
  PlanParser(StringRef fileName) {
    plan.file = fileName.str();
    plan.triton = isTritonSource(fileName);
  }

  Error parseLine(StringRef body, SourceLoc loc) {
    auto words = split(body, loc.col, loc);
    if (!words)
      return words.takeError();
    if (words->empty())
      return makeError(loc, plan.triton
                                ? "empty @ptxbench line; expected kernel, "
                                  "args, constexpr, tensormap or workspace"
                                : "empty @ptxbench line; expected kernel, "
                                  "args, tensormap or workspace");
    Word keyword = words->front();
    SourceLoc kwLoc = loc.withCol(keyword.col);
    if (keyword.text == "kernel") {
      Error err = parseKernel(*words, kwLoc);
      kernelFailed = bool(err);
      return err;
    }
    if (keyword.text == "args") {
      // The args of a kernel line that was wrong: that line's error says
      // enough.
      if (kernelFailed)
        return Error::success();
      if (plan.kernels.empty())
        return makeError(kwLoc, "'args' before any 'kernel' line");
      size_t off = keyword.col - loc.col + keyword.text.size();
      return parseArgs(body.substr(off), loc.withCol(loc.col + off),
                       plan.kernels.back());
    }
    if (keyword.text == "constexpr") {
      if (kernelFailed)
        return Error::success();
      if (!plan.triton)
        return makeError(kwLoc, "'constexpr' lines are for Triton answers "
                                "(.py); a CUDA kernel takes its constants "
                                "as template arguments or literals");
      if (plan.kernels.empty())
        return makeError(kwLoc, "'constexpr' before any 'kernel' line");
      return parseConstexprs(ArrayRef<Word>(*words).drop_front(), loc,
                             plan.kernels.back());
    }
    if (keyword.text == "tensormap")
      return parseTensorMap(*words, kwLoc);
    if (keyword.text == "workspace")
      return parseWorkspace(*words, kwLoc);
    return makeError(kwLoc, "unknown statement '" + keyword.text +
                                (plan.triton
                                     ? "'; expected kernel, args, constexpr, "
                                       "tensormap or workspace"
                                     : "'; expected kernel, args, tensormap "
                                       "or workspace"));
  }

  /// The plan, or every mistake found in it (`errors`, from the lines,
  /// and the ones only the whole plan shows), in the order of the file.
  Expected<LaunchPlan> finish(SourceLoc fileLoc, Error errors) {
    if (plan.kernels.empty() && !errors && !kernelFailed)
      return makeError(fileLoc,
                       plan.triton
                           ? "no launch plan: expected a '# @ptxbench kernel "
                             "NAME grid=... num_warps=N' line (see "
                             "docs/triton.md)"
                           : "no launch plan: expected at least one "
                             "'// @ptxbench kernel NAME grid=... "
                             "block=...' line (see docs/launch-plan.md)");
    for (const KernelDecl &k : plan.kernels)
      if (!k.hasArgs)
        errors = joinErrors(
            std::move(errors),
            makeError(k.loc, "kernel '" + k.name +
                                 "' has no 'args' line (write 'args' alone "
                                 "for a kernel without parameters)"));
    if (errors)
      return std::move(errors);
    return std::move(plan);
  }

private:
  LaunchPlan plan;
  StringSet<> names;
  /// The last kernel line was wrong (its args line is not checked).
  bool kernelFailed = false;

  Error declare(StringRef name, const SourceLoc &loc, StringRef what) {
    if (name.empty() || !(isAlpha(name[0]) || name[0] == '_'))
      return makeError(loc, "expected a " + what + " name, got '" + name + "'");
    if (what != "kernel" && !names.insert(name).second)
      return makeError(loc, "'" + name + "' is declared twice");
    return Error::success();
  }

  /// `key=value` into key and value (with the value's column).
  Expected<std::pair<Word, Word>> keyValue(const Word &w,
                                           const SourceLoc &loc) {
    size_t eq = w.text.find('=');
    if (eq == StringRef::npos || eq == 0)
      return makeError(loc.withCol(w.col),
                       "expected key=value, got '" + w.text +
                           "' (spaces are allowed only inside parentheses)");
    return std::make_pair(
        Word{w.text.take_front(eq), w.col},
        Word{w.text.drop_front(eq + 1), unsigned(w.col + eq + 1)});
  }

  /// A value that is one expression or a parenthesized, comma-separated
  /// list of them.
  Expected<std::vector<Expr>> parseTuple(const Word &value,
                                         const SourceLoc &loc) {
    SourceLoc at = loc.withCol(value.col);
    if (value.text.empty())
      return makeError(at, "expected a value after '='");
    std::vector<Expr> out;
    StringRef t = value.text;
    bool wrapped = false;
    if (t.starts_with("(") && t.ends_with(")")) {
      int depth = 0;
      wrapped = true;
      for (size_t i = 0; i < t.size(); ++i) {
        depth += t[i] == '(' ? 1 : t[i] == ')' ? -1 : 0;
        if (depth == 0 && i + 1 < t.size())
          wrapped = false; // e.g. (a)*(b)
      }
    }
    if (!wrapped) {
      auto e = Expr::parse(t, at);
      if (!e)
        return e.takeError();
      out.push_back(*e);
      return out;
    }
    auto items = split(t.drop_front().drop_back(), value.col + 1, at, ',');
    if (!items)
      return items.takeError();
    for (const Word &item : *items) {
      if (item.text.empty())
        return makeError(loc.withCol(item.col), "empty element in list");
      auto e = Expr::parse(item.text, loc.withCol(item.col));
      if (!e)
        return e.takeError();
      out.push_back(*e);
    }
    return out;
  }

  Error parseDims(const Word &value, const SourceLoc &loc,
                  std::array<Expr, 3> &dims, StringRef what) {
    auto list = parseTuple(value, loc);
    if (!list)
      return list.takeError();
    if (list->size() > 3)
      return makeError(loc.withCol(value.col),
                       what + " takes 1 to 3 dimensions (x, y, z), got " +
                           Twine(list->size()));
    for (unsigned i = 0; i < 3; ++i)
      dims[i] = i < list->size() ? (*list)[i] : Expr::constant(1);
    return Error::success();
  }

  /// Marks the flag of `key` among `keys`; an error when it is not one of
  /// them or was given before.
  Error markKey(const Word &key, const SourceLoc &loc,
                ArrayRef<std::pair<StringRef, bool *>> keys) {
    for (const auto &[name, seen] : keys)
      if (key.text == name) {
        if (*seen)
          return makeError(loc, "'" + key.text + "' given twice");
        *seen = true;
        return Error::success();
      }
    std::vector<StringRef> names;
    for (const auto &entry : keys)
      names.push_back(entry.first);
    std::string expected = join(ArrayRef(names).drop_back(), ", ") + " or " +
                           names.back().str();
    return makeError(loc, "unknown kernel key '" + key.text + "'; expected " +
                              expected);
  }

  /// A small integer literal `value` in [lo, hi].
  Expected<unsigned> parseCount(const Word &value, const SourceLoc &loc,
                                StringRef key, unsigned lo, unsigned hi) {
    unsigned n = 0;
    if (value.text.getAsInteger(10, n) || n < lo || n > hi)
      return makeError(loc.withCol(value.col),
                       key + " must be an integer from " + Twine(lo) +
                           " to " + Twine(hi) + ", got '" + value.text + "'");
    return n;
  }

  /// `kernel NAME grid=DIMS [num_warps=N] [num_stages=N]` of a Triton plan.
  Error parseTritonKernel(ArrayRef<Word> words, const SourceLoc &loc,
                          KernelDecl &k) {
    TritonLaunch launch;
    bool hasGrid = false, hasWarps = false, hasStages = false;
    for (const Word &w : words.drop_front(2)) {
      auto kv = keyValue(w, loc);
      if (!kv)
        return kv.takeError();
      auto [key, value] = *kv;
      SourceLoc keyLoc = loc.withCol(key.col);
      if (key.text == "block" || key.text == "smem" || key.text == "cluster")
        return makeError(keyLoc,
                         "'" + key.text + "' is Triton's to decide: a Triton "
                         "kernel runs 32*num_warps threads per program with "
                         "the shared memory its compiler allocates, without "
                         "clusters; give grid, num_warps and num_stages");
      if (Error err = markKey(key, keyLoc,
                              {{"grid", &hasGrid},
                               {"num_warps", &hasWarps},
                               {"num_stages", &hasStages}}))
        return err;
      if (key.text == "grid") {
        if (Error err = parseDims(value, loc, k.grid, key.text))
          return err;
      } else if (key.text == "num_warps") {
        auto n = parseCount(value, loc, "num_warps", 1, 32);
        if (!n)
          return n.takeError();
        if (*n & (*n - 1))
          return makeError(loc.withCol(value.col),
                           "num_warps must be a power of two (1 to 32), got " +
                               Twine(*n));
        launch.numWarps = *n;
      } else {
        // Past a handful of stages the pipeliner only burns compile time
        // and shared memory.
        auto n = parseCount(value, loc, "num_stages", 1, 8);
        if (!n)
          return n.takeError();
        launch.numStages = *n;
      }
    }
    if (!hasGrid)
      return makeError(k.loc, "kernel '" + k.name + "' needs grid=...");
    if (!plan.kernels.empty())
      return makeError(k.loc, "a Triton answer launches one kernel; '" +
                                  plan.kernels.front().name +
                                  "' is declared already");
    for (Expr &e : k.block)
      e = Expr::constant(1);
    for (Expr &e : k.cluster)
      e = Expr::constant(1);
    k.triton = std::move(launch);
    plan.kernels.push_back(std::move(k));
    return Error::success();
  }

  /// `NAME=VALUE ...` of a `constexpr` line: integers (constant
  /// expressions), floats, True or False.
  Error parseConstexprs(ArrayRef<Word> words, const SourceLoc &loc,
                        KernelDecl &k) {
    if (words.empty())
      return makeError(loc, "expected 'constexpr NAME=VALUE ...'");
    for (const Word &w : words) {
      auto kv = keyValue(w, loc);
      if (!kv)
        return kv.takeError();
      auto [key, value] = *kv;
      SourceLoc keyLoc = loc.withCol(key.col), at = loc.withCol(value.col);
      if (Error err = declare(key.text, keyLoc, "constexpr"))
        return err;
      for (const ConstexprDecl &c : k.triton->constexprs)
        if (c.name == key.text)
          return makeError(keyLoc, "constexpr '" + key.text + "' given twice");
      ConstexprDecl c{key.text.str(), keyLoc, nullptr};
      double real = 0;
      if (value.text == "True" || value.text == "False") {
        c.value = value.text == "True";
      } else if (value.text.find_first_of(".eE") != StringRef::npos &&
                 !value.text.getAsDouble(real) && std::isfinite(real)) {
        c.value = real;
      } else {
        auto e = Expr::parse(value.text, at);
        if (!e)
          return e.takeError();
        if (!e->names().empty())
          return makeError(at, "constexpr '" + key.text + "' must be a "
                               "constant (it is compiled once for every "
                               "workload); '" + e->names().front() +
                               "' is a name");
        auto v = e->evaluate({});
        if (!v)
          return v.takeError();
        c.value = *v;
      }
      k.triton->constexprs.push_back(std::move(c));
    }
    return Error::success();
  }

  Error parseKernel(ArrayRef<Word> words, const SourceLoc &loc) {
    if (words.size() < 2)
      return makeError(loc, plan.triton
                                ? "expected 'kernel NAME grid=... "
                                  "num_warps=N'"
                                : "expected 'kernel NAME grid=... block=...'");
    KernelDecl k;
    k.name = words[1].text.str();
    k.loc = loc.withCol(words[1].col);
    if (Error err = declare(k.name, k.loc, "kernel"))
      return err;
    k.smem = Expr::constant(0);
    if (plan.triton)
      return parseTritonKernel(words, loc, k);
    bool hasGrid = false, hasBlock = false, hasSmem = false;
    for (const Word &w : words.drop_front(2)) {
      auto kv = keyValue(w, loc);
      if (!kv)
        return kv.takeError();
      auto [key, value] = *kv;
      SourceLoc keyLoc = loc.withCol(key.col);
      if (Error err = markKey(key, keyLoc,
                              {{"grid", &hasGrid},
                               {"block", &hasBlock},
                               {"cluster", &k.hasCluster},
                               {"smem", &hasSmem}}))
        return err;
      if (key.text == "smem") {
        auto e = Expr::parse(value.text, loc.withCol(value.col));
        if (!e)
          return e.takeError();
        k.smem = *e;
        continue;
      }
      std::array<Expr, 3> &dims = key.text == "grid"    ? k.grid
                                  : key.text == "block" ? k.block
                                                        : k.cluster;
      if (Error err = parseDims(value, loc, dims, key.text))
        return err;
    }
    if (!hasGrid)
      return makeError(k.loc, "kernel '" + k.name + "' needs grid=...");
    if (!hasBlock)
      return makeError(k.loc, "kernel '" + k.name + "' needs block=...");
    if (!k.hasCluster)
      for (Expr &e : k.cluster)
        e = Expr::constant(1);
    plan.kernels.push_back(std::move(k));
    return Error::success();
  }

  Error parseArgs(StringRef text, const SourceLoc &loc, KernelDecl &k) {
    k.hasArgs = true;
    if (text.trim().empty())
      return Error::success();
    auto items = split(text, loc.col, loc, ',');
    if (!items)
      return items.takeError();
    for (const Word &item : *items) {
      SourceLoc at = loc.withCol(item.col);
      if (item.text.empty())
        return makeError(at, "empty argument");
      PlanArg arg;
      arg.loc = at;
      StringRef exprText = item.text;
      size_t colon = item.text.rfind(':');
      if (colon != StringRef::npos) {
        StringRef ty = item.text.drop_front(colon + 1).trim();
        auto type = StringSwitch<std::optional<ScalarType>>(ty)
                        .Case("i32", ScalarType::I32)
                        .Case("u32", ScalarType::U32)
                        .Case("i64", ScalarType::I64)
                        .Case("u64", ScalarType::U64)
                        .Default(std::nullopt);
        if (!type)
          return makeError(loc.withCol(item.col + colon + 1),
                           "unknown scalar type '" + ty +
                               "'; expected i32, u32, i64 or u64");
        arg.type = type;
        exprText = item.text.take_front(colon);
      }
      auto e = Expr::parse(exprText, at);
      if (!e)
        return e.takeError();
      arg.value = *e;
      k.args.push_back(std::move(arg));
    }
    return Error::success();
  }

  template <typename E>
  Error parseEnum(const Word &value, const SourceLoc &loc, StringRef key,
                  ArrayRef<std::pair<StringRef, E>> options, E &out) {
    for (const auto &[name, v] : options)
      if (value.text.equals_insensitive(name)) {
        out = v;
        return Error::success();
      }
    std::string known;
    for (const auto &[name, v] : options)
      known += (known.empty() ? "" : ", ") + name.str();
    return makeError(loc.withCol(value.col), "unknown " + key + " '" +
                                                 value.text + "'; expected " +
                                                 known);
  }

  Error parseTensorMap(ArrayRef<Word> words, const SourceLoc &loc) {
    if (words.size() < 2)
      return makeError(loc, "expected 'tensormap NAME tensor=T box=(...)'");
    TensorMapDecl m;
    m.name = words[1].text.str();
    m.loc = loc.withCol(words[1].col);
    if (Error err = declare(m.name, m.loc, "tensor map"))
      return err;
    for (const Word &w : words.drop_front(2)) {
      auto kv = keyValue(w, loc);
      if (!kv)
        return kv.takeError();
      auto [key, value] = *kv;
      if (key.text == "tensor") {
        m.tensor = value.text.str();
        m.tensorLoc = loc.withCol(value.col);
      } else if (key.text == "box") {
        auto list = parseTuple(value, loc);
        if (!list)
          return list.takeError();
        m.box = *list;
      } else if (plan.triton &&
                 (key.text == "swizzle" || key.text == "interleave" ||
                  key.text == "l2")) {
        return makeError(loc.withCol(key.col),
                         "'" + key.text + "' is Triton's to decide: it "
                         "encodes a descriptor's swizzle from the kernel's "
                         "shared-memory layout (give tensor, box and oob)");
      } else if (key.text == "swizzle") {
        if (Error e = parseEnum<Swizzle>(value, loc, "swizzle",
                                         {{"none", Swizzle::None},
                                          {"32B", Swizzle::B32},
                                          {"64B", Swizzle::B64},
                                          {"128B", Swizzle::B128}},
                                         m.swizzle))
          return e;
      } else if (key.text == "interleave") {
        if (Error e = parseEnum<Interleave>(value, loc, "interleave",
                                            {{"none", Interleave::None},
                                             {"16B", Interleave::B16},
                                             {"32B", Interleave::B32}},
                                            m.interleave))
          return e;
      } else if (key.text == "l2") {
        if (Error e = parseEnum<L2Promotion>(value, loc, "l2 promotion",
                                             {{"none", L2Promotion::None},
                                              {"64B", L2Promotion::B64},
                                              {"128B", L2Promotion::B128},
                                              {"256B", L2Promotion::B256}},
                                             m.l2))
          return e;
      } else if (key.text == "oob") {
        if (Error e = parseEnum<OobFill>(
                value, loc, "oob fill",
                {{"zero", OobFill::Zero}, {"nan", OobFill::NaN}}, m.oob))
          return e;
      } else {
        return makeError(loc.withCol(key.col),
                         "unknown tensormap key '" + key.text +
                             "'; expected tensor, box, swizzle, interleave, "
                             "l2 or oob");
      }
    }
    if (m.tensor.empty())
      return makeError(m.loc, "tensormap '" + m.name + "' needs tensor=NAME");
    if (m.box.empty())
      return makeError(m.loc, "tensormap '" + m.name + "' needs box=(...)");
    m.blockShape = plan.triton;
    if (plan.triton)
      for (const Expr &b : m.box)
        if (!b.names().empty())
          return makeError(b.loc(), "a Triton descriptor's box is its "
                                    "block_shape, part of the kernel's "
                                    "signature: a constant, not '" +
                                    b.text() + "'");

    plan.tensorMaps.push_back(std::move(m));
    return Error::success();
  }

  Error parseWorkspace(ArrayRef<Word> words, const SourceLoc &loc) {
    if (words.size() < 2)
      return makeError(loc,
                       "expected 'workspace NAME bytes=EXPR [zero|zero=once]'");
    WorkspaceDecl w;
    w.name = words[1].text.str();
    w.loc = loc.withCol(words[1].col);
    if (Error err = declare(w.name, w.loc, "workspace"))
      return err;
    for (const Word &word : words.drop_front(2)) {
      if (word.text == "zero") {
        w.zero = ZeroFill::EveryLaunch;
        continue;
      }
      auto kv = keyValue(word, loc);
      if (!kv)
        return kv.takeError();
      auto [key, value] = *kv;
      if (key.text == "zero") {
        if (value.text != "once")
          return makeError(loc.withCol(value.col),
                           "unknown zero fill '" + value.text +
                               "'; expected zero (before every launch) or "
                               "zero=once (at allocation)");
        w.zero = ZeroFill::Once;
        continue;
      }
      if (key.text != "bytes")
        return makeError(loc.withCol(key.col),
                         "unknown workspace key '" + key.text +
                             "'; expected bytes=EXPR, zero or zero=once");
      auto e = Expr::parse(value.text, loc.withCol(value.col));
      if (!e)
        return e.takeError();
      w.bytes = *e;
    }
    if (w.bytes.isNull())
      return makeError(w.loc, "workspace '" + w.name + "' needs bytes=EXPR");
    plan.workspaces.push_back(std::move(w));
    return Error::success();
  }
};

} // namespace

Expected<LaunchPlan> ptxbench::runtime::parseLaunchPlan(StringRef source,
                                                        StringRef fileName) {
  PlanParser parser(fileName);
  // Every line is parsed, so one answer hears of every mistake at once.
  Error errors = Error::success();
  unsigned lineNo = 0;
  size_t planBytes = 0;
  for (StringRef rest = source; !rest.empty() || lineNo == 0;) {
    auto [line, tail] = rest.split('\n');
    rest = tail;
    ++lineNo;
    line = line.rtrim("\r");
    StringRef t = line.ltrim();
    if (t.consume_front(isTritonSource(fileName) ? "#" : "//")) {
      StringRef afterSlashes = t.ltrim();
      if (afterSlashes.starts_with(marker)) {
        StringRef body = afterSlashes.drop_front(marker.size());
        unsigned col = line.size() - body.size() + 1;
        if (!body.empty() && !isSpace(body[0]))
          continue; // e.g. @ptxbenchmark: not ours
        SourceLoc loc{fileName.str(), lineNo, col};
        // Every term of an expression is a tree node a hundred times its
        // text's size, and every mistake a message: bounded here.
        planBytes += line.size();
        if (planBytes > kMaxPlanBytes) {
          errors = joinErrors(
              std::move(errors),
              makeError(loc.withCol(1),
                        "the launch plan's lines hold more than " +
                            Twine(kMaxPlanBytes) +
                            " bytes; a plan is a few declarations (the "
                            "lines from here on are not read)"));
          break;
        }
        if (Error err = parser.parseLine(body, loc))
          errors = joinErrors(std::move(errors), std::move(err));
      }
    }
    if (tail.empty())
      break;
  }
  return parser.finish(SourceLoc{fileName.str(), 0, 0}, std::move(errors));
}
