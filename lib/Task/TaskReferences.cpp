//===- TaskReferences.cpp - Built-in references and a task's operands -----===//
//
// The table of built-in references (gemm, rmsnorm, attention_fwd,
// attention_bwd): the tensor operands each computes with, their roles and
// ranks, its options, and its library baseline. Reads a task's "reference",
// "baseline" and "operands" against it: every operand names a tensor of the
// right rank and role, every output is an operand (so it is checked), only
// what the reference computes may be "derived", and the options are valid.
// A Python reference ("reference": "python") takes the tensors by name: its
// "python" object names a module beside task.json or in a sibling folder (a
// family's; never outside the tasks folder, by its name or through a
// symbolic link; at most 1 MiB), its entry function, the precision and the
// constants it is called with, whose names must be Python names and not
// those of tensors or parameters; its input tensors' names must be Python
// names too, since they are bound to the entry's parameters. Its
// "operands", when it names a library baseline (cublaslt_blockscale_gemm,
// cudnn_sdpa_paged_decode), are that baseline's tensors, checked as a
// built-in reference's are (dtypes too).
//
//===----------------------------------------------------------------------===//

#include "TaskReader.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace ptxbench::runtime;

namespace {

/// A tensor operand of a built-in reference: its key in "operands", role,
/// rank, and whether a task may leave it out.
struct OperandSpec {
  const char *key;
  Role role;
  unsigned rank;
  bool optional = false;
  /// The input may have "init": {"dist": "derived"} (the reference fills it).
  bool derivable = false;
  /// The dtype the operand must have, when only one is accepted.
  std::optional<DType> dtype = std::nullopt;
};

/// A built-in reference: its tensors and its library baseline ("" = none).
struct ReferenceSpec {
  const char *name;
  std::string baseline;
  std::vector<OperandSpec> tensors;
  /// Non-tensor keys of "operands".
  std::vector<StringRef> options;
};

const std::vector<ReferenceSpec> &references() {
  static const std::vector<ReferenceSpec> specs = {
      {"gemm",
       "cublaslt_gemm",
       {{"a", Role::Input, 2},
        {"b", Role::Input, 2},
        {"c", Role::Output, 2},
        {"scale_a", Role::Input, 1, /*optional=*/true},
        {"scale_b", Role::Input, 1, /*optional=*/true}},
       {"b_layout"}},
      {"rmsnorm",
       "",
       {{"x", Role::Input, 2}, {"w", Role::Input, 1}, {"y", Role::Output, 2}},
       {"eps"}},
      {"attention_fwd",
       "cudnn_sdpa_fwd",
       {{"q", Role::Input, 4},
        {"k", Role::Input, 4},
        {"v", Role::Input, 4},
        {"o", Role::Output, 4},
        {"lse", Role::Output, 3}},
       {"causal"}},
      {"attention_bwd",
       "cudnn_sdpa_bwd",
       {{"q", Role::Input, 4},
        {"k", Role::Input, 4},
        {"v", Role::Input, 4},
        {"o", Role::Input, 4, false, /*derivable=*/true},
        {"lse", Role::Input, 3, false, /*derivable=*/true},
        {"do", Role::Input, 4},
        {"dq", Role::Output, 4},
        {"dk", Role::Output, 4},
        {"dv", Role::Output, 4}},
       {"causal"}},
  };
  return specs;
}

/// The library baselines a Python reference may name, each over the task
/// tensors its "operands" name (the reference itself takes them by name).
const std::vector<ReferenceSpec> &pythonBaselines() {
  static const std::vector<ReferenceSpec> specs = {
      // cuBLASLt's block-scaled fp8 GEMM (Hopper): c = (a * a_scale)
      // (b * b_scale)^T, one scale per row and 128 k of a, one per 128x128
      // block of b.
      {"cublaslt_blockscale_gemm",
       "cublaslt_blockscale_gemm",
       {{"a", Role::Input, 2, false, false, DType::E4M3},
        {"a_scale", Role::Input, 2, false, false, DType::F32},
        {"b", Role::Input, 2, false, false, DType::E4M3},
        {"b_scale", Role::Input, 2, false, false, DType::F32},
        {"c", Role::Output, 2, false, false, DType::BF16}},
       {}},
      // cuDNN's fused attention over paged K/V caches, one query token per
      // sequence (GQA decode): q [B, HQ, D], the caches [pages, PS, HKV,
      // D], the page table [B, ceildiv(L, PS)] for both, o [B, HQ, D] and
      // the natural-log LSE [B, HQ]; L is the task parameter "L".
      {"cudnn_sdpa_paged_decode",
       "cudnn_sdpa_paged_decode",
       {{"q", Role::Input, 3, false, false, DType::BF16},
        {"k_cache", Role::Input, 4, false, false, DType::BF16},
        {"v_cache", Role::Input, 4, false, false, DType::BF16},
        {"kv_indices", Role::Input, 2, false, false, DType::I32},
        {"o", Role::Output, 3, false, false, DType::BF16},
        {"lse", Role::Output, 2, false, false, DType::F32}},
       {}},
      // cuDNN's fp8 fused attention forward: e4m3 q, k, v [B, H, S, D]
      // with per-tensor descales, bf16 o, the fp32 LSE; "causal" names the
      // mask's parameter.
      {"cudnn_sdpa_fp8_fwd",
       "cudnn_sdpa_fp8_fwd",
       {{"q", Role::Input, 4, false, false, DType::E4M3},
        {"k", Role::Input, 4, false, false, DType::E4M3},
        {"v", Role::Input, 4, false, false, DType::E4M3},
        {"q_scale", Role::Input, 1, false, false, DType::F32},
        {"k_scale", Role::Input, 1, false, false, DType::F32},
        {"v_scale", Role::Input, 1, false, false, DType::F32},
        {"o", Role::Output, 4, false, false, DType::BF16},
        {"lse", Role::Output, 3, false, false, DType::F32}},
       {"causal"}},
  };
  return specs;
}

const ReferenceSpec *findSpec(const std::vector<ReferenceSpec> &specs,
                              StringRef name) {
  for (const ReferenceSpec &r : specs)
    if (name == r.name)
      return &r;
  return nullptr;
}

StringRef roleName(Role role) {
  return role == Role::Output ? "output" : "input";
}

/// Reads the reference's options (b_layout, eps, causal).
void readOptions(TaskReader &reader, const json::Object &ops,
                 const ReferenceSpec &spec, Task &task) {
  StringRef ref = spec.name;
  if (ref == "gemm") {
    if (std::optional<std::string> layout = reader.string(
            ops, "b_layout", "operands", /*required=*/false,
            "\"kn\" (B is [K, N], C = A*B) or \"nk\" (B is [N, K], C = "
            "A*B^T)")) {
      if (*layout != "kn" && *layout != "nk")
        reader.error("operands.b_layout",
                     "expected \"kn\" (B is [K, N], C = A*B) or \"nk\" (B is "
                     "[N, K], C = A*B^T), got \"" +
                         *layout + "\"");
      task.bTransposed = *layout == "nk";
    }
  } else if (ref == "rmsnorm") {
    if (std::optional<double> eps =
            reader.number(ops, "eps", "operands", 1e-6, 0,
                          std::numeric_limits<double>::infinity(),
                          /*minExclusive=*/true))
      task.eps = *eps;
  } else {
    std::optional<std::string> causal =
        reader.string(ops, "causal", "operands", /*required=*/false,
                      "the name of the parameter that is 1 for a causal mask");
    if (causal && !is_contained(task.params, *causal))
      reader.error("operands.causal",
                   "expected the name of the parameter that is 1 for a causal "
                   "mask (one of " +
                       join(task.params, ", ") + "), got \"" + *causal + "\"");
    else if (causal)
      task.causalParam = *causal;
  }
}

bool isName(StringRef name) {
  return !name.empty() && (isAlpha(name[0]) || name[0] == '_') &&
         all_of(name, [](char c) { return isAlnum(c) || c == '_'; });
}

/// Python 3's reserved words: names no function or parameter can have
/// (the soft keywords "match", "case", "type" and "_" can).
bool isPythonKeyword(StringRef name) {
  static constexpr StringLiteral keywords[] = {
      "False",  "None",   "True",    "and",      "as",       "assert", "async",
      "await",  "break",  "class",   "continue", "def",      "del",    "elif",
      "else",   "except", "finally", "for",      "from",     "global", "if",
      "import", "in",     "is",      "lambda",   "nonlocal", "not",    "or",
      "pass",   "raise",  "return",  "try",      "while",    "with",   "yield"};
  return is_contained(keywords, name);
}

/// Why `name` cannot name a Python function or parameter ("" when it can).
std::string notPythonName(StringRef name) {
  if (!isName(name))
    return "\"" + name.str() + "\" is not a Python name";
  if (isPythonKeyword(name))
    return "\"" + name.str() + "\" is a Python keyword, not a name";
  return "";
}

/// Whether `path` (absolute, without symbolic links) is inside `folder`.
bool isInside(StringRef path, StringRef folder) {
  return path.starts_with((folder + "/").str());
}

/// The module's file, checked: the lexical path, remove_dots applied, must
/// be in the tasks folder (the parent of the task's folder), and the file it
/// resolves to through symbolic links must be too, or in the task's own
/// folder wherever that really is. Returns the resolved path, or "" after
/// an error.
std::string checkModulePath(TaskReader &reader, StringRef module) {
  std::string shown = "\"" + module.str() + "\"";
  if (any_of(module,
             [](char c) { return (unsigned char)c < 0x20 || c == 0x7f; })) {
    reader.error("python.module",
                 "the file name has a control character; expected a file "
                 "beside task.json or in another folder of the tasks folder");
    return "";
  }
  SmallString<256> dir(sys::path::parent_path(reader.fileName()));
  sys::fs::make_absolute(dir);
  SmallString<256> path(dir), root(dir);
  sys::path::append(path, module);
  sys::path::append(root, "..");
  sys::path::remove_dots(path, /*remove_dot_dot=*/true);
  sys::path::remove_dots(root, /*remove_dot_dot=*/true);
  uint64_t size = 0;
  if (module.empty() || sys::path::is_absolute(module) ||
      !isInside(path, root)) {
    reader.error("python.module",
                 "expected a file beside task.json or in another folder of "
                 "the tasks folder (\"../family/reference.py\"), got " +
                     shown);
    return "";
  }
  if (sys::fs::file_size(path, size) || !sys::fs::is_regular_file(path)) {
    reader.error("python.module",
                 "cannot read \"" + path + "\"; expected the reference module");
    return "";
  }
  SmallString<256> real, realRoot, realDir;
  if (sys::fs::real_path(path, real) || sys::fs::real_path(root, realRoot) ||
      sys::fs::real_path(dir, realDir)) {
    reader.error("python.module", "cannot resolve \"" + path +
                                      "\"; expected the reference module");
    return "";
  }
  if (!isInside(real, realRoot) && !isInside(real, realDir)) {
    reader.error("python.module",
                 shown + " is a symbolic link to \"" + real +
                     "\", outside the tasks folder; expected a file in it");
    return "";
  }
  if (size > kMaxModuleBytes) {
    reader.error("python.module",
                 shown + " is " + Twine(size) +
                     " bytes; a reference module holds at most 1 MiB");
    return "";
  }
  return real.str().str();
}

/// "python": {"module", "entry", "precision", "constants"}.
void readPython(TaskReader &reader, const json::Object &top, Task &task) {
  const char *what = "an object such as {\"module\": \"reference.py\", "
                     "\"entry\": \"run\"}";
  const json::Object *py =
      reader.object(top, "python", "", /*required=*/true, what);
  if (!py)
    return;
  reader.unknownKeys(*py, "python",
                     {"module", "entry", "precision", "constants"});
  PythonReference ref;
  if (std::optional<std::string> module = reader.string(
          *py, "module", "python", /*required=*/true,
          "the file name of the reference module, beside task.json")) {
    ref.module = checkModulePath(reader, *module);
  }
  if (std::optional<std::string> entry =
          reader.string(*py, "entry", "python", /*required=*/false,
                        "the name of the module's function")) {
    std::string why = notPythonName(*entry);
    if (!why.empty())
      reader.error("python.entry", why + "; expected the function's name, "
                                         "such as \"run\"");
    ref.entry = *entry;
  }
  if (std::optional<std::string> precision =
          reader.oneOf(*py, "precision", "python", {"f64", "f32"}, "f64"))
    ref.f64 = *precision == "f64";
  if (const json::Object *constants = reader.object(
          *py, "constants", "python", /*required=*/false,
          "an object of named numbers or booleans, such as {\"sm_scale\": "
          "0.125}"))
    for (const auto &[key, value] : *constants) {
      std::string path = joinPath("python.constants", key);
      std::string why = notPythonName(key);
      if (!why.empty())
        reader.error(path, why + "; expected one");
      else if (task.tensorIndex(key) >= 0 ||
               is_contained(task.params, StringRef(key).str()))
        reader.error(path, "\"" + StringRef(key) +
                               "\" is also a tensor or parameter; expected "
                               "a name of its own");
      else if (!value.getAsNumber() && !value.getAsBoolean())
        reader.error(path,
                     "expected a number or a boolean, got " + kindOf(value));
      else
        ref.constants.insert_or_assign(key.str(), value);
    }
  task.python = std::move(ref);
}

/// Reads the tensor operands `spec` computes with from `ops` into
/// task.operands: each names a tensor of the right rank, role and dtype, and
/// every output of the task is one of them (so it is checked). `owner` names
/// `spec` in errors ("the gemm reference").
void readTensorOperands(TaskReader &reader, const json::Object &ops,
                        const ReferenceSpec &spec, StringRef owner,
                        bool tensorsResolvable,
                        const std::vector<bool> &complete, Task &task) {
  bool allNamed = tensorsResolvable;
  for (const OperandSpec &op : spec.tensors) {
    StringRef key = op.key;
    std::string path = joinPath("operands", key);
    if (op.optional && !ops.get(key))
      continue;
    std::optional<std::string> s = reader.string(
        ops, key, "operands", /*required=*/true,
        ("the name of the " + roleName(op.role) + " tensor of rank " +
         Twine(op.rank) + " for \"" + key + "\"")
            .str());
    if (!s) {
      allNamed = false;
      continue;
    }
    int t = task.tensorIndex(*s);
    if (t < 0) {
      if (tensorsResolvable) {
        std::vector<StringRef> names;
        for (const TensorSpec &tensor : task.tensors)
          names.push_back(tensor.name);
        reader.error(path, "unknown tensor \"" + *s + "\"; expected one of " +
                               join(names, ", "));
      }
      allNamed = false;
      continue;
    }
    task.operands[key] = *s;
    if (!complete[t])
      continue;
    // A wrong operand is reported here; that an output then goes unnamed
    // is the same mistake.
    size_t before = reader.errorCount();
    const TensorSpec &tensor = task.tensors[t];
    if (tensor.shape.size() != op.rank)
      reader.error(path, owner + " wants rank " + Twine(op.rank) + " for \"" +
                             key + "\", tensor \"" + *s + "\" has " +
                             Twine(tensor.shape.size()));
    if (tensor.role != op.role)
      reader.error(path, "tensor \"" + *s + "\" has the wrong role (" +
                             roleName(tensor.role) + "); expected an " +
                             roleName(op.role));
    if (op.dtype && tensor.dtype != *op.dtype)
      reader.error(path, owner + " wants " + dtypeName(*op.dtype) + " for \"" +
                             key + "\", tensor \"" + *s + "\" is " +
                             dtypeName(tensor.dtype));
    if (tensor.dist.kind == Distribution::Kind::Derived && !op.derivable)
      reader.error(path, "tensor \"" + *s + "\" is \"derived\", but " + owner +
                             " does not compute it; expected a drawn "
                             "distribution");
    if (reader.errorCount() != before)
      allNamed = false;
  }
  // Every output is checked, so every output must be an operand, and no
  // other input may be derived.
  if (!allNamed)
    return;
  for (size_t t = 0; t < task.tensors.size(); ++t) {
    const TensorSpec &tensor = task.tensors[t];
    if (!complete[t])
      continue;
    bool named = false;
    for (const auto &kv : task.operands)
      named |= kv.second == tensor.name;
    if (!named && tensor.role == Role::Output)
      reader.error("operands", "output \"" + tensor.name + "\" is not one of " +
                                   owner +
                                   "'s outputs, so it could not be checked");
    if (!named && tensor.dist.kind == Distribution::Kind::Derived)
      reader.error("operands", "input \"" + tensor.name +
                                   "\" is \"derived\" but no reference "
                                   "operand computes it");
  }
}

/// A per-tensor scale (an fp8 GEMM's scale_a, an fp8 attention's q_scale)
/// is one f32 value: a tensor of shape ["1"].
void checkPerTensorScales(TaskReader &reader, const Task &task,
                          const std::vector<bool> &complete,
                          std::initializer_list<StringRef> scales) {
  for (StringRef scale : scales) {
    auto it = task.operands.find(scale);
    if (it == task.operands.end())
      continue;
    int t = task.tensorIndex(it->second);
    if (t < 0)
      continue;
    const TensorSpec &tensor = task.tensors[t];
    if (complete[t] &&
        (tensor.dtype != DType::F32 || tensor.shape.size() != 1 ||
         tensor.shape[0].text() != "1"))
      reader.error(joinPath("operands", scale),
                   "a per-tensor scale is an f32 tensor of shape [\"1\"]; "
                   "tensor \"" +
                       tensor.name + "\" is not");
  }
}

} // namespace

void TaskReader::readReference(const json::Object &top, bool tensorsResolvable,
                               const std::vector<bool> &complete, Task &task) {
  std::vector<StringRef> known;
  for (const ReferenceSpec &r : references())
    known.push_back(r.name);
  known.push_back("python");
  std::optional<std::string> ref =
      string(top, "reference", "", /*required=*/true,
             "the name of a built-in reference (" + join(known, ", ") + ")");
  if (ref && *ref == "python") {
    task.reference = *ref;
    std::vector<StringRef> libraries;
    for (const ReferenceSpec &b : pythonBaselines())
      libraries.push_back(b.name);
    std::string expected = "\"none\" or a library baseline of a Python "
                           "reference (" +
                           join(libraries, ", ") + ")";
    std::optional<std::string> base = string(
        top, "baseline", "", /*required=*/false, "a string: " + expected);
    task.baseline = base.value_or("none");
    const ReferenceSpec *library =
        base && *base != "none" ? findSpec(pythonBaselines(), *base) : nullptr;
    if (base && *base != "none" && !library)
      error("baseline", "unknown baseline \"" + *base +
                            "\" for a Python reference; expected " + expected);
    // Inputs are bound to the entry's parameters by name.
    for (size_t t = 0; t < task.tensors.size(); ++t) {
      const TensorSpec &tensor = task.tensors[t];
      std::string why = notPythonName(tensor.name);
      if (tensor.role == Role::Input && !tensor.name.empty() && !why.empty())
        error(joinPath(indexPath("tensors", t), "name"),
              why + ", so the Python reference cannot take it as a "
                    "parameter; expected a name such as \"k_cache\"");
    }
    for (const TensorSpec &tensor : task.tensors)
      if (tensor.dist.kind == Distribution::Kind::Derived)
        error("reference", "input \"" + tensor.name +
                               "\" is \"derived\", which only a built-in "
                               "reference computes; expected a drawn "
                               "distribution");
    readPython(*this, top, task);
    // The reference takes the tensors by name; "operands" name the
    // baseline's.
    if (!library) {
      // An unknown baseline is the mistake; its operands are not another.
      if (top.get("operands") && task.baseline == "none")
        error("operands", "a Python reference takes the tensors by name; "
                          "expected no \"operands\" (they name a library "
                          "baseline's tensors, and the task has none)");
      return;
    }
    std::vector<StringRef> keys;
    for (const OperandSpec &t : library->tensors)
      keys.push_back(t.key);
    const json::Object *ops =
        object(top, "operands", "", /*required=*/true,
               "an object naming the " + *base + " baseline's tensors (" +
                   join(keys, ", ") + ")");
    if (!ops)
      return;
    keys.insert(keys.end(), library->options.begin(), library->options.end());
    unknownKeys(*ops, "operands", keys);
    readTensorOperands(*this, *ops, *library, "the " + *base + " baseline",
                       tensorsResolvable, complete, task);
    // The paged decode's sequence length is no tensor's dimension (the
    // page table has ceildiv(L, PS) columns): the parameter L says it.
    if (*base == "cudnn_sdpa_paged_decode" && !is_contained(task.params, "L"))
      error("baseline", "the cudnn_sdpa_paged_decode baseline reads the "
                        "tokens of every sequence from the parameter \"L\"; "
                        "expected \"L\" in \"params\"");
    checkPerTensorScales(*this, task, complete,
                         {"q_scale", "k_scale", "v_scale"});
    if (!library->options.empty())
      readOptions(*this, *ops, *library, task);
    return;
  }
  if (top.get("python"))
    error("python", "only a Python reference (\"reference\": \"python\") "
                    "has a \"python\" object");
  const ReferenceSpec *spec = ref ? findSpec(references(), *ref) : nullptr;
  if (ref && !spec)
    error("reference", "unknown built-in reference \"" + *ref +
                           "\"; expected one of " + join(known, ", "));
  if (spec)
    task.reference = *ref;

  std::optional<std::string> base =
      string(top, "baseline", "", /*required=*/false,
             "a string: the reference's library baseline, or \"none\"");
  task.baseline = base.value_or("none");
  if (spec && base && *base != "none" && *base != spec->baseline)
    error("baseline",
          "unknown baseline \"" + *base + "\" for the " + *ref +
              " reference; expected " +
              (spec->baseline.empty() ? "" : "\"" + spec->baseline + "\" or ") +
              "\"none\"");

  if (!spec) {
    // Without a known reference, only the shape of "operands" is checked.
    object(top, "operands", "", /*required=*/true,
           "an object naming the reference's tensors");
    return;
  }
  std::vector<StringRef> keys;
  for (const OperandSpec &t : spec->tensors)
    keys.push_back(t.key);
  const json::Object *ops =
      object(top, "operands", "", /*required=*/true,
             ("an object naming the " + StringRef(spec->name) +
              " reference's tensors (" + join(keys, ", ") + ")")
                 .str());
  if (!ops)
    return;
  keys.insert(keys.end(), spec->options.begin(), spec->options.end());
  unknownKeys(*ops, "operands", keys);
  readTensorOperands(*this, *ops, *spec,
                     ("the " + StringRef(spec->name) + " reference").str(),
                     tensorsResolvable, complete, task);
  // A per-tensor scale of an fp8 GEMM is one f32 value.
  checkPerTensorScales(*this, task, complete, {"scale_a", "scale_b"});
  readOptions(*this, *ops, *spec, task);
}
