//===- Task.cpp - Load a task description (task.json) ---------------------===//
//
// Errors name the file and the JSON path of the offending value
// ("task.json: tensors[1].dtype: ..."); JSON syntax errors carry the line
// and column llvm::json reports.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/Task.h"

#include "ptxbench/ISA/ISA.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace ptxbench::runtime;

StringRef ptxbench::runtime::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::BF16:
    return "bf16";
  case DType::F16:
    return "f16";
  case DType::F32:
    return "f32";
  case DType::I32:
    return "i32";
  case DType::E4M3:
    return "e4m3";
  }
  llvm_unreachable("dtype");
}

std::optional<DType> ptxbench::runtime::parseDType(StringRef name) {
  return StringSwitch<std::optional<DType>>(name)
      .Case("bf16", DType::BF16)
      .Case("f16", DType::F16)
      .Case("f32", DType::F32)
      .Case("i32", DType::I32)
      .Case("e4m3", DType::E4M3)
      .Default(std::nullopt);
}

unsigned ptxbench::runtime::dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::E4M3:
    return 1;
  case DType::BF16:
  case DType::F16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  }
  llvm_unreachable("dtype");
}

int Task::tensorIndex(StringRef name) const {
  for (unsigned i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == name)
      return i;
  return -1;
}

Expected<std::vector<int64_t>> Task::shapeOf(unsigned tensor,
                                             const Bindings &params) const {
  std::vector<int64_t> shape;
  for (const Expr &e : tensors[tensor].shape) {
    auto v = e.evaluate(params);
    if (!v)
      return v.takeError();
    if (*v < 1)
      return makeError(e.loc(), "dimension '" + e.text() + "' of tensor '" +
                                    tensors[tensor].name + "' is " + Twine(*v));
    shape.push_back(*v);
  }
  return shape;
}

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
};

/// A built-in reference: its tensors and its library baseline ("" = none).
struct ReferenceSpec {
  const char *name;
  std::string baseline;
  std::vector<OperandSpec> tensors;
  /// Non-tensor keys of "operands".
  std::vector<const char *> options;
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

const ReferenceSpec *findReference(StringRef name) {
  for (const ReferenceSpec &r : references())
    if (name == r.name)
      return &r;
  return nullptr;
}

std::string knownReferences() {
  std::string s;
  for (const ReferenceSpec &r : references())
    s += (s.empty() ? "" : ", ") + std::string(r.name);
  return s;
}

/// Reads a task object, keeping the JSON path for messages.
class TaskReader {
public:
  explicit TaskReader(StringRef file) : file(file.str()) {}

  Error fail(const Twine &path, const Twine &message) {
    return createStringError(inconvertibleErrorCode(),
                             file + ": " + path + ": " + message);
  }

  Expected<const json::Object *> object(const json::Value &v,
                                        const Twine &path) {
    if (const json::Object *o = v.getAsObject())
      return o;
    return fail(path, "expected an object");
  }

  Expected<std::string> string(const json::Object &o, StringRef key,
                               const Twine &path, bool required = true,
                               StringRef dflt = "") {
    const json::Value *v = o.get(key);
    if (!v) {
      if (required)
        return fail(path, "missing \"" + key + "\"");
      return dflt.str();
    }
    if (auto s = v->getAsString())
      return s->str();
    return fail(path + "." + key, "expected a string");
  }

  Expected<double> number(const json::Object &o, StringRef key,
                          const Twine &path, double dflt) {
    const json::Value *v = o.get(key);
    if (!v)
      return dflt;
    if (auto d = v->getAsNumber())
      return *d;
    return fail(path + "." + key, "expected a number");
  }

  Expected<Expr> expr(const json::Value &v, const Twine &path) {
    std::string text;
    if (auto s = v.getAsString())
      text = s->str();
    else if (auto i = v.getAsInteger())
      text = std::to_string(*i);
    else
      return fail(path, "expected an integer expression (string or integer)");
    auto e = Expr::parse(text, SourceLoc{(file + ": " + path).str(), 0, 0});
    if (!e)
      return e.takeError();
    return e;
  }

  Error unknownKeys(const json::Object &o, const Twine &path,
                    ArrayRef<StringRef> known) {
    for (const auto &kv : o)
      if (!is_contained(known, StringRef(kv.first)))
        return fail(path, "unknown key \"" + StringRef(kv.first) +
                              "\" (known: " + join(known, ", ") + ")");
    return Error::success();
  }

  Expected<Task> read(const json::Value &root);

private:
  /// Reads "operands" for the reference `spec` into `task`.
  Error readOperands(const json::Object &o, const ReferenceSpec &spec,
                     Task &task);

  std::string file;
};

Expected<Task> TaskReader::read(const json::Value &root) {
  Task task;
  auto top = object(root, "(top)");
  if (!top)
    return top.takeError();
  const json::Object &o = **top;
  if (Error err =
          unknownKeys(o, "(top)",
                      {"name", "description", "params", "tensors", "workloads",
                       "check", "flops", "bytes", "reference", "baseline",
                       "operands", "features", "encouraged", "timing",
                       "credit", "accumulate"}))
    return std::move(err);
  auto name = string(o, "name", "(top)");
  if (!name)
    return name.takeError();
  task.name = *name;
  auto desc = string(o, "description", "(top)", false);
  if (!desc)
    return desc.takeError();
  task.description = *desc;

  StringSet<> paramSet;
  const json::Array *params = o.getArray("params");
  if (!params || params->empty())
    return fail("params", "expected a non-empty array of parameter names");
  for (unsigned i = 0; i < params->size(); ++i) {
    auto s = (*params)[i].getAsString();
    if (!s || s->empty())
      return fail("params[" + Twine(i) + "]", "expected a name");
    if (!paramSet.insert(*s).second)
      return fail("params[" + Twine(i) + "]", "duplicate \"" + *s + "\"");
    task.params.push_back(s->str());
  }

  const json::Array *tensors = o.getArray("tensors");
  if (!tensors || tensors->empty())
    return fail("tensors", "expected a non-empty array");
  for (unsigned i = 0; i < tensors->size(); ++i) {
    std::string path = ("tensors[" + Twine(i) + "]").str();
    auto t = object((*tensors)[i], path);
    if (!t)
      return t.takeError();
    if (Error err =
            unknownKeys(**t, path, {"name", "dtype", "shape", "role", "init"}))
      return std::move(err);
    TensorSpec spec;
    auto tname = string(**t, "name", path);
    if (!tname)
      return tname.takeError();
    spec.name = *tname;
    if (task.tensorIndex(spec.name) >= 0 || paramSet.count(spec.name))
      return fail(path, "name \"" + spec.name + "\" used twice");
    auto dt = string(**t, "dtype", path);
    if (!dt)
      return dt.takeError();
    auto dtype = parseDType(*dt);
    if (!dtype)
      return fail(path + ".dtype", "unknown dtype \"" + *dt +
                                       "\" (known: bf16, f16, f32, i32, e4m3)");
    spec.dtype = *dtype;
    const json::Array *shape = (*t)->getArray("shape");
    if (!shape || shape->empty())
      return fail(path + ".shape", "expected a non-empty array of sizes");
    for (unsigned d = 0; d < shape->size(); ++d) {
      auto e = expr((*shape)[d], path + ".shape[" + Twine(d) + "]");
      if (!e)
        return e.takeError();
      for (const std::string &n : e->names())
        if (!paramSet.count(n))
          return fail(path + ".shape[" + Twine(d) + "]",
                      "unknown parameter \"" + n + "\"");
      spec.shape.push_back(*e);
    }
    auto role = string(**t, "role", path);
    if (!role)
      return role.takeError();
    if (*role == "input")
      spec.role = Role::Input;
    else if (*role == "output")
      spec.role = Role::Output;
    else
      return fail(path + ".role",
                  "expected \"input\" or \"output\", got \"" + *role + "\"");
    if (const json::Value *init = (*t)->get("init")) {
      std::string ipath = path + ".init";
      auto io = object(*init, ipath);
      if (!io)
        return io.takeError();
      if (Error err = unknownKeys(**io, ipath,
                                  {"dist", "mean", "std", "low", "high",
                                   "spike_prob", "spike_scale"}))
        return std::move(err);
      auto dist = string(**io, "dist", ipath);
      if (!dist)
        return dist.takeError();
      Distribution &d = spec.dist;
      if (*dist == "normal")
        d.kind = Distribution::Kind::Normal;
      else if (*dist == "uniform")
        d.kind = Distribution::Kind::Uniform;
      else if (*dist == "ints")
        d.kind = Distribution::Kind::Ints;
      else if (*dist == "spiky")
        d.kind = Distribution::Kind::Spiky;
      else if (*dist == "derived")
        d.kind = Distribution::Kind::Derived;
      else
        return fail(ipath + ".dist", "unknown distribution \"" + *dist +
                                         "\" (known: normal, uniform, ints, "
                                         "spiky, derived)");
      for (auto [key, field] : {std::pair<StringRef, double *>{"mean", &d.mean},
                                {"std", &d.std},
                                {"low", &d.low},
                                {"high", &d.high},
                                {"spike_prob", &d.spikeProb},
                                {"spike_scale", &d.spikeScale}}) {
        auto v = number(**io, key, ipath, *field);
        if (!v)
          return v.takeError();
        *field = *v;
      }
      if (d.std < 0 || d.low > d.high || d.spikeProb < 0 || d.spikeProb > 1)
        return fail(ipath, "bad distribution parameters (std >= 0, "
                           "low <= high, 0 <= spike_prob <= 1)");
    }
    task.tensors.push_back(std::move(spec));
  }
  bool anyOutput = false;
  for (const TensorSpec &t : task.tensors)
    anyOutput |= t.role == Role::Output;
  if (!anyOutput)
    return fail("tensors", "no tensor has role \"output\"");

  // Workloads.
  const json::Object *workloads = o.getObject("workloads");
  if (!workloads)
    return fail("workloads", "expected an object with \"dev\" and "
                             "\"heldout\" arrays");
  if (Error err = unknownKeys(*workloads, "workloads", {"dev", "heldout"}))
    return std::move(err);
  for (auto [key, list] :
       {std::pair<StringRef, std::vector<Workload> *>{"dev", &task.dev},
        {"heldout", &task.heldout}}) {
    const json::Array *arr = workloads->getArray(key);
    if (!arr || arr->empty())
      return fail("workloads." + key, "expected a non-empty array");
    for (unsigned i = 0; i < arr->size(); ++i) {
      std::string path = ("workloads." + key + "[" + Twine(i) + "]").str();
      auto w = object((*arr)[i], path);
      if (!w)
        return w.takeError();
      Workload wl;
      for (const auto &kv : **w) {
        StringRef k = kv.first;
        if (k == "name") {
          if (auto s = kv.second.getAsString())
            wl.name = s->str();
          else
            return fail(path + ".name", "expected a string");
          continue;
        }
        if (!paramSet.count(k))
          return fail(path, "unknown parameter \"" + k + "\"");
        auto v = kv.second.getAsInteger();
        // 0 is a value (a switch such as CAUSAL); a tensor dimension of 0
        // is refused below, where the workload's shapes are evaluated.
        if (!v || *v < 0)
          return fail(path + "." + k, "expected a non-negative integer");
        wl.params[k] = *v;
      }
      for (const std::string &p : task.params)
        if (!wl.params.count(p))
          return fail(path, "missing parameter \"" + p + "\"");
      if (wl.name.empty()) {
        wl.name = key.str();
        for (const std::string &p : task.params)
          wl.name += " " + p + "=" + std::to_string(wl.params[p]);
      }
      for (const TensorSpec &t : task.tensors)
        for (const Expr &dim : t.shape) {
          auto v = dim.evaluate(wl.params);
          if (!v)
            return fail(path, toString(v.takeError()));
          if (*v < 1)
            return fail(path, "dimension '" + dim.text() + "' of tensor '" +
                                  t.name + "' is " + Twine(*v));
        }
      list->push_back(std::move(wl));
    }
  }

  // Checks.
  const json::Object *check = o.getObject("check");
  if (!check)
    return fail("check", "expected an object with \"tolerance\" and/or "
                         "\"rel_l2\"");
  if (Error err =
          unknownKeys(*check, "check", {"tolerance", "rel_l2", "trials"}))
    return std::move(err);
  if (const json::Object *tol = check->getObject("tolerance")) {
    for (const auto &kv : *tol) {
      std::string path = ("check.tolerance." + StringRef(kv.first)).str();
      auto dtype = parseDType(kv.first);
      if (!dtype)
        return fail(path, "unknown dtype");
      auto to = object(kv.second, path);
      if (!to)
        return to.takeError();
      if (Error err = unknownKeys(**to, path, {"atol", "rtol"}))
        return std::move(err);
      auto atol = number(**to, "atol", path, -1);
      auto rtol = number(**to, "rtol", path, -1);
      if (!atol)
        return atol.takeError();
      if (!rtol)
        return rtol.takeError();
      if (*atol < 0 || *rtol < 0)
        return fail(path, "needs \"atol\" and \"rtol\" (non-negative)");
      task.tolerances[*dtype] = {*atol, *rtol};
    }
  }
  if (check->get("rel_l2")) {
    auto l2 = number(*check, "rel_l2", "check", 0);
    if (!l2)
      return l2.takeError();
    if (*l2 <= 0)
      return fail("check.rel_l2", "expected a positive number");
    task.relL2 = *l2;
  }
  auto trials = number(*check, "trials", "check", 1);
  if (!trials)
    return trials.takeError();
  if (*trials < 1 || *trials > 100)
    return fail("check.trials", "expected 1 to 100");
  task.trials = unsigned(*trials);
  if (task.tolerances.empty() && !task.relL2)
    return fail("check", "names no check (\"tolerance\" or \"rel_l2\")");
  for (const TensorSpec &t : task.tensors)
    if (t.role == Role::Output && !task.tolerances.empty() &&
        !task.tolerances.count(t.dtype))
      return fail("check.tolerance", "no tolerance for output \"" + t.name +
                                         "\" of dtype " + dtypeName(t.dtype));

  for (auto [key, field] : {std::pair<StringRef, Expr *>{"flops", &task.flops},
                            {"bytes", &task.bytes}}) {
    const json::Value *v = o.get(key);
    if (!v)
      return fail(key, "missing (an expression over the parameters)");
    auto e = expr(*v, key);
    if (!e)
      return e.takeError();
    for (const std::string &n : e->names())
      if (!paramSet.count(n))
        return fail(key, "unknown parameter \"" + n + "\"");
    *field = *e;
  }

  auto ref = string(o, "reference", "(top)");
  if (!ref)
    return ref.takeError();
  const ReferenceSpec *spec = findReference(*ref);
  if (!spec)
    return fail("reference", "unknown built-in reference \"" + *ref +
                                 "\" (known: " + knownReferences() + ")");
  task.reference = *ref;
  auto base = string(o, "baseline", "(top)", false, "none");
  if (!base)
    return base.takeError();
  if (*base != "none" && *base != spec->baseline)
    return fail("baseline",
                "unknown baseline \"" + *base + "\" for the " + *ref +
                    " reference (known: " +
                    (spec->baseline.empty() ? "" : spec->baseline + ", ") +
                    "none)");
  task.baseline = *base;
  if (Error err = readOperands(o, *spec, task))
    return std::move(err);
  for (auto [key, map] :
       {std::pair<StringRef, std::map<std::string, std::vector<std::string>> *>{
            "features", &task.features},
        {"encouraged", &task.encouraged}}) {
    const json::Value *fv = o.get(key);
    if (!fv)
      continue;
    const json::Object *features = fv->getAsObject();
    if (!features)
      return fail(key, "expected an object of architectures");
    for (const auto &kv : *features) {
      std::string path = (key + "." + StringRef(kv.first)).str();
      const json::Array *list = kv.second.getAsArray();
      if (!list)
        return fail(path, "expected an array of family names");
      auto &out = (*map)[kv.first.str()];
      for (const json::Value &f : *list) {
        auto s = f.getAsString();
        if (!s)
          return fail(path, "expected family names (strings)");
        // Family names are the ISA table's (docs/isa-coverage.md).
        // A family, or alternatives of which any one will do
        // ("bulk_copy|tma").
        if (!ptxbench::isa::familiesOfRequirement(*s))
          return fail(path, "unknown feature family " +
                                Twine(s->contains('|') ? "in " : "") + "\"" +
                                *s + "\" (docs/isa-coverage.md lists them)");
        out.push_back(s->str());
      }
    }
  }
  if (const json::Value *tv = o.get("timing")) {
    auto to = object(*tv, "timing");
    if (!to)
      return to.takeError();
    if (Error err = unknownKeys(**to, "timing",
                                {"warmup", "min_samples", "max_samples",
                                 "max_seconds", "target_rse"}))
      return std::move(err);
    Task::Timing &t = task.timing;
    double warmup = t.warmup, minS = t.minSamples, maxS = t.maxSamples;
    for (auto [key, field] : {std::pair<StringRef, double *>{"warmup", &warmup},
                              {"min_samples", &minS},
                              {"max_samples", &maxS},
                              {"max_seconds", &t.maxSeconds},
                              {"target_rse", &t.targetRse}}) {
      auto v = number(**to, key, "timing", *field);
      if (!v)
        return v.takeError();
      *field = *v;
    }
    if (minS < 1 || maxS < minS || warmup < 0 || t.maxSeconds <= 0)
      return fail("timing", "need 1 <= min_samples <= max_samples, "
                            "warmup >= 0, max_seconds > 0");
    t.warmup = unsigned(warmup);
    t.minSamples = unsigned(minS);
    t.maxSamples = unsigned(maxS);
  }
  if (const json::Value *cv = o.get("credit")) {
    auto co = object(*cv, "credit");
    if (!co)
      return co.takeError();
    if (Error err = unknownKeys(**co, "credit", {"flops", "bytes"}))
      return std::move(err);
    for (auto [key, field] :
         {std::pair<StringRef, double *>{"flops", &task.creditFlops},
          {"bytes", &task.creditBytes}}) {
      auto v = number(**co, key, "credit", *field);
      if (!v)
        return v.takeError();
      if (*v < 0 || *v > 1)
        return fail("credit." + key, "a share between 0 and 1");
      *field = *v;
    }
  }
  if (const json::Value *av = o.get("accumulate")) {
    std::optional<StringRef> acc = av->getAsString();
    if (!acc || (*acc != "f32" && *acc != "any"))
      return fail("accumulate", "expected \"f32\" or \"any\"");
    task.accumulate = acc->str();
  }
  return task;
}

Error TaskReader::readOperands(const json::Object &o, const ReferenceSpec &spec,
                               Task &task) {
  const json::Object *ops = o.getObject("operands");
  std::vector<StringRef> keys;
  for (const OperandSpec &t : spec.tensors)
    keys.push_back(t.key);
  if (!ops)
    return fail("operands",
                "expected an object naming the " + StringRef(spec.name) +
                    " reference's tensors (" + join(keys, ", ") + ")");
  keys.insert(keys.end(), spec.options.begin(), spec.options.end());
  if (Error err = unknownKeys(*ops, "operands", keys))
    return err;

  for (const OperandSpec &op : spec.tensors) {
    StringRef role = op.key;
    if (op.optional && !ops->get(role))
      continue;
    auto s = string(*ops, role, "operands");
    if (!s)
      return s.takeError();
    int t = task.tensorIndex(*s);
    if (t < 0)
      return fail("operands." + role, "unknown tensor \"" + *s + "\"");
    const TensorSpec &tensor = task.tensors[t];
    if (tensor.shape.size() != op.rank)
      return fail("operands." + role,
                  "the " + StringRef(spec.name) + " reference wants rank " +
                      Twine(op.rank) + " for \"" + role + "\", tensor \"" + *s +
                      "\" has " + Twine(tensor.shape.size()));
    if (tensor.role != op.role)
      return fail("operands." + role,
                  "tensor \"" + *s + "\" has the wrong role (" +
                      (tensor.role == Role::Output ? "output" : "input") + ")");
    if (tensor.dist.kind == Distribution::Kind::Derived && !op.derivable)
      return fail("operands." + role,
                  "tensor \"" + *s + "\" is \"derived\", but the " +
                      StringRef(spec.name) + " reference does not compute it");
    task.operands[role] = *s;
  }
  // Every output is checked, so every output must be an operand, and no
  // other input may be derived.
  for (const TensorSpec &t : task.tensors) {
    bool named = false;
    for (const auto &kv : task.operands)
      named |= kv.second == t.name;
    if (!named && t.role == Role::Output)
      return fail("operands", "output \"" + t.name + "\" is not one of the " +
                                  StringRef(spec.name) +
                                  " reference's outputs, so it could not be "
                                  "checked");
    if (!named && t.dist.kind == Distribution::Kind::Derived)
      return fail("operands", "input \"" + t.name +
                                  "\" is \"derived\" but no reference "
                                  "operand computes it");
  }

  StringRef ref = spec.name;
  if (ref == "gemm") {
    auto bLayout = string(*ops, "b_layout", "operands", false, "kn");
    if (!bLayout)
      return bLayout.takeError();
    if (*bLayout != "kn" && *bLayout != "nk")
      return fail("operands.b_layout", "expected \"kn\" (B is [K, N], C = A*B) "
                                       "or \"nk\" (B is [N, K], C = A*B^T), "
                                       "got \"" +
                                           *bLayout + "\"");
    task.bTransposed = *bLayout == "nk";
    for (StringRef scale : {"scale_a", "scale_b"}) {
      auto it = task.operands.find(scale);
      if (it == task.operands.end())
        continue;
      const TensorSpec &t = task.tensors[task.tensorIndex(it->second)];
      if (t.dtype != DType::F32 || t.shape.size() != 1 ||
          t.shape[0].text() != "1")
        return fail("operands." + scale,
                    "a per-tensor scale is an f32 tensor of shape [\"1\"]");
    }
  } else if (ref == "rmsnorm") {
    auto eps = number(*ops, "eps", "operands", 1e-6);
    if (!eps)
      return eps.takeError();
    if (!(*eps > 0))
      return fail("operands.eps", "expected a positive number");
    task.eps = *eps;
  } else {
    auto causal = string(*ops, "causal", "operands", false);
    if (!causal)
      return causal.takeError();
    if (!causal->empty() && !is_contained(task.params, *causal))
      return fail("operands.causal",
                  "expected the name of the parameter that is 1 for a "
                  "causal mask, got \"" +
                      *causal + "\"");
    task.causalParam = *causal;
  }
  return Error::success();
}

} // namespace

Expected<Task> ptxbench::runtime::parseTask(StringRef text,
                                            StringRef fileName) {
  auto root = json::parse(text);
  if (!root)
    return createStringError(inconvertibleErrorCode(),
                             fileName + ": " + toString(root.takeError()));
  TaskReader reader(fileName);
  return reader.read(*root);
}

Expected<Task> ptxbench::runtime::loadTask(StringRef path) {
  SmallString<256> file(path);
  if (sys::fs::is_directory(path))
    sys::path::append(file, "task.json");
  auto buffer = MemoryBuffer::getFile(file);
  if (!buffer)
    return createStringError(buffer.getError(),
                             "cannot read task file " + file + ": " +
                                 buffer.getError().message());
  auto task = parseTask((*buffer)->getBuffer(), file);
  if (!task)
    return task.takeError();
  task->dir = sys::path::parent_path(file).str();
  return task;
}

Expected<std::vector<Workload>>
ptxbench::runtime::selectWorkloads(const Task &task, StringRef which) {
  std::vector<Workload> out;
  if (which == "dev" || which == "all")
    out.insert(out.end(), task.dev.begin(), task.dev.end());
  if (which == "heldout" || which == "all")
    out.insert(out.end(), task.heldout.begin(), task.heldout.end());
  if (which == "dev" || which == "heldout" || which == "all")
    return out;
  // One workload by name (to profile or re-run it alone).
  std::string names;
  for (const std::vector<Workload> *split : {&task.dev, &task.heldout})
    for (const Workload &w : *split) {
      if (w.name == which)
        return std::vector<Workload>{w};
      names += ", '" + w.name + "'";
    }
  return createStringError(inconvertibleErrorCode(),
                           "unknown shape selection '" + which +
                               "' (expected dev, heldout, all or one of " +
                               task.name + "'s workloads" + names + ")");
}
