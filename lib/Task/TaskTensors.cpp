//===- TaskTensors.cpp - A task's "tensors" -------------------------------===//
//
// Reads the tensor list: each tensor's name (unique among tensors and
// parameters), element type, shape (integer expressions over the
// parameters), role, and for inputs the distribution their values are drawn
// from ("init"). Which tensors a reference needs is TaskReferences.cpp's.
//
//===----------------------------------------------------------------------===//

#include "TaskReader.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <limits>

using namespace llvm;
using namespace ptxbench::runtime;

/// Reads tensors[i].init into `dist`; false when it is malformed.
static bool readInit(TaskReader &reader, const json::Object &tensor,
                     StringRef path, Distribution &dist) {
  const json::Object *init = reader.object(
      tensor, "init", path, /*required=*/false,
      "an object such as {\"dist\": \"normal\", \"mean\": 0, \"std\": 1}");
  if (!init)
    return !tensor.get("init");
  std::string ipath = joinPath(path, "init");
  size_t before = reader.errorCount();
  reader.unknownKeys(
      *init, ipath,
      {"dist", "mean", "std", "low", "high", "spike_prob", "spike_scale"});
  std::optional<std::string> kind = reader.oneOf(
      *init, "dist", ipath,
      {"normal", "uniform", "ints", "spiky", "derived", "permutation"},
      std::nullopt);
  if (kind)
    dist.kind = StringSwitch<Distribution::Kind>(*kind)
                    .Case("normal", Distribution::Kind::Normal)
                    .Case("uniform", Distribution::Kind::Uniform)
                    .Case("ints", Distribution::Kind::Ints)
                    .Case("spiky", Distribution::Kind::Spiky)
                    .Case("permutation", Distribution::Kind::Permutation)
                    .Default(Distribution::Kind::Derived);
  constexpr double inf = std::numeric_limits<double>::infinity();
  auto read = [&](StringRef key, double &field, double min, double max) {
    if (std::optional<double> v =
            reader.number(*init, key, ipath, field, min, max))
      field = *v;
  };
  read("mean", dist.mean, -inf, inf);
  read("std", dist.std, 0, inf);
  read("low", dist.low, -inf, inf);
  read("high", dist.high, -inf, inf);
  read("spike_prob", dist.spikeProb, 0, 1);
  read("spike_scale", dist.spikeScale, -inf, inf);
  if (reader.errorCount() == before && dist.low > dist.high)
    reader.error(joinPath(ipath, "low"), "expected low <= high, got low " +
                                             numberText(dist.low) + " > high " +
                                             numberText(dist.high));
  return reader.errorCount() == before;
}

bool TaskReader::readTensors(const json::Object &top, const Params *params,
                             Task &task, std::vector<bool> &complete) {
  const json::Array *tensors =
      array(top, "tensors", "", /*required=*/true, 1,
            "a non-empty array of tensors ({\"name\", \"dtype\", \"shape\", "
            "\"role\"})");
  if (!tensors)
    return false;
  bool resolvable = true;
  bool rolesKnown = true;
  for (size_t i = 0; i < tensors->size(); ++i) {
    std::string path = indexPath("tensors", i);
    const json::Object *t = asObject((*tensors)[i], path,
                                     "an object with \"name\", \"dtype\", "
                                     "\"shape\" and \"role\"");
    if (!t) {
      resolvable = rolesKnown = false;
      continue;
    }
    size_t before = errorCount();
    unknownKeys(*t, path, {"name", "dtype", "shape", "role", "init"});
    TensorSpec spec;
    // The name, unless it is unusable (then operands cannot be resolved).
    std::optional<std::string> name =
        string(*t, "name", path, true, "a string (the tensor's name)");
    std::string npath = joinPath(path, "name");
    bool named = false;
    if (name) {
      if (name->empty())
        error(npath, "expected a non-empty name");
      else if (task.tensorIndex(*name) >= 0)
        error(npath,
              "\"" + *name + "\" names two tensors; expected unique names");
      else if (is_contained(task.params, *name))
        error(npath, "\"" + *name +
                         "\" is also a parameter; expected a name no "
                         "parameter has");
      else
        named = true;
    }
    if (!named)
      resolvable = false;

    if (std::optional<std::string> dt =
            oneOf(*t, "dtype", path, {"bf16", "f16", "f32", "i32", "e4m3"},
                  std::nullopt))
      spec.dtype = *parseDType(*dt);

    if (const json::Array *shape =
            array(*t, "shape", path, true, 1,
                  "a non-empty array of sizes (integer expressions over the "
                  "parameters, outermost first)"))
      for (size_t d = 0; d < shape->size(); ++d) {
        std::optional<Expr> e =
            expr((*shape)[d], indexPath(joinPath(path, "shape"), d), params);
        if (e)
          spec.shape.push_back(*e);
      }

    if (std::optional<std::string> role =
            oneOf(*t, "role", path, {"input", "output"}, std::nullopt))
      spec.role = *role == "input" ? Role::Input : Role::Output;
    else
      rolesKnown = false;

    if (!readInit(*this, *t, path, spec.dist))
      spec.dist.kind = Distribution::Kind::Normal;
    // A permutation's values are element indices: integers, of an input.
    if (spec.dist.kind == Distribution::Kind::Permutation &&
        (spec.dtype != DType::I32 || spec.role != Role::Input) &&
        t->get("dtype") && t->get("role"))
      error(joinPath(joinPath(path, "init"), "dist"),
            "\"permutation\" is for i32 inputs (page tables); tensor is " +
                dtypeName(spec.dtype) + " " +
                (spec.role == Role::Input ? "input" : "output"));

    if (!named)
      continue;
    spec.name = *name;
    task.tensors.push_back(std::move(spec));
    complete.push_back(errorCount() == before);
  }
  if (rolesKnown && resolvable &&
      none_of(task.tensors,
              [](const TensorSpec &t) { return t.role == Role::Output; }))
    error("tensors", "no tensor has role \"output\"; expected at least one "
                     "(the outputs are what is checked)");
  return resolvable;
}
