//===- ReadReport.cpp - An analysis report read back from its JSON --------===//
//
// The readers of AnalysisReport.cpp's toJSON, in LLVM's fromJSON idiom: each
// struct's reader reports what is wrong at its JSON path. The text is
// untrusted (a stored row, a file anyone wrote), so it is parsed within
// ReportLimits' size and depth, and every array and object is counted
// before it becomes structs.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Report/AnalysisReport.h"

#include "ptxbench/Support/JSON.h"

#include "llvm/ADT/STLExtras.h"

#include <limits>

using namespace ptxbench;
using namespace ptxbench::report;
using llvm::StringRef;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Path;
using llvm::json::Value;

namespace {

/// `object[key]` into `out` when the key is there (and not null, for
/// optional fields); its own reader reports a wrong type.
template <typename T>
bool optionalField(const Object &object, StringRef key, T &out, Path path) {
  const Value *value = object.get(key);
  return !value || fromJSON(*value, out, path.field(key));
}

/// An unsigned field that must fit `T` (line numbers, counts, sizes).
template <typename T>
bool unsignedField(const Object &object, StringRef key, T &out, Path path) {
  const Value *value = object.get(key);
  if (!value)
    return true;
  std::optional<int64_t> n = value->getAsInteger();
  if (!n) {
    path.field(key).report("expected an integer");
    return false;
  }
  if (*n < 0 || uint64_t(*n) > std::numeric_limits<T>::max()) {
    path.field(key).report("out of range");
    return false;
  }
  out = T(*n);
  return true;
}

/// A null or an object read into `out`.
template <typename T>
bool nullableField(const Object &object, StringRef key, std::optional<T> &out,
                   Path path) {
  const Value *value = object.get(key);
  if (!value || value->kind() == Value::Null)
    return true;
  T read;
  if (!fromJSON(*value, read, path.field(key)))
    return false;
  out = std::move(read);
  return true;
}

const Object *asObject(const Value &value, Path path) {
  const Object *object = value.getAsObject();
  if (!object)
    path.report("expected an object");
  return object;
}

/// The array at `object[key]`, at most `limit` long; none (and no error)
/// when the key is absent.
bool boundedArray(const Object &object, StringRef key, size_t limit,
                  const Array *&out, Path path) {
  out = nullptr;
  const Value *value = object.get(key);
  if (!value)
    return true;
  out = value->getAsArray();
  if (!out) {
    path.field(key).report("expected an array");
    return false;
  }
  if (out->size() > limit) {
    path.field(key).report("too many entries for an analysis report");
    return false;
  }
  return true;
}

/// Findings counted against the report's whole budget.
bool readFindings(const Object &object, StringRef key, size_t &budget,
                  std::vector<Finding> &out, Path path) {
  const Array *array;
  if (!boundedArray(object, key, budget, array, path))
    return false;
  if (!array)
    return true;
  budget -= array->size();
  out.resize(array->size());
  for (size_t i = 0; i < array->size(); ++i)
    if (!fromJSON((*array)[i], out[i], path.field(key).index(i)))
      return false;
  return true;
}

bool readKernel(const Value &value, KernelReport &kernel, size_t &budget,
                const ReportLimits &limits, Path path) {
  const Object *o = asObject(value, path);
  if (!o || !optionalField(*o, "name", kernel.name, path))
    return false;
  for (StringRef key : {"features", "requested"}) {
    const Value *v = o->get(key);
    if (!v)
      continue;
    const Object *entries = v->getAsObject();
    if (!entries) {
      path.field(key).report("expected an object");
      return false;
    }
    if (entries->size() > limits.maxFamilies) {
      path.field(key).report("too many families for an analysis report");
      return false;
    }
  }
  // llvm::json::Object is unordered; toJSON wrote the families sorted (an
  // object's keys), and the requested ones in the report's order, which the
  // report's `requested` restores below.
  if (const Object *features = o->getObject("features")) {
    std::vector<StringRef> names;
    for (const auto &kv : *features)
      names.push_back(kv.first);
    llvm::sort(names);
    // A Path points at its parent: each one a named variable.
    Path featuresPath = path.field("features");
    for (StringRef family : names) {
      Path at = featuresPath.field(family);
      const Object *entry = asObject(*features->get(family), at);
      if (!entry)
        return false;
      FamilyUse use;
      use.family = family.str();
      bool reachable = false;
      if (!unsignedField(*entry, "count", use.count, at) ||
          !optionalField(*entry, "reachable", reachable, at) ||
          !unsignedField(*entry, "reachable_count", use.reachable, at))
        return false;
      if (entry->get("sass")) {
        unsigned sass = 0;
        if (!unsignedField(*entry, "sass", sass, at))
          return false;
        use.sass = sass;
      }
      if (use.reachable > use.count) {
        at.field("reachable_count").report("more reachable than in the code");
        return false;
      }
      kernel.features.push_back(std::move(use));
    }
  }
  if (const Object *requested = o->getObject("requested")) {
    std::vector<StringRef> names;
    for (const auto &kv : *requested)
      names.push_back(kv.first);
    llvm::sort(names);
    for (StringRef family : names) {
      Verdict verdict;
      if (!fromJSON(*requested->get(family), verdict,
                    path.field("requested").field(family)))
        return false;
      kernel.requested.emplace_back(family.str(), verdict);
    }
  }
  return readFindings(*o, "fallbacks", budget, kernel.fallbacks, path) &&
         nullableField(*o, "resources", kernel.resources, path) &&
         readFindings(*o, "ptxas_warnings", budget, kernel.ptxasWarnings,
                      path);
}

/// Puts each kernel's requested verdicts in the report's order (toJSON
/// wrote them as an object), families the report does not request last.
void orderRequested(AnalysisReport &report) {
  auto rank = [&](const std::string &family) {
    auto it = llvm::find(report.requested, family);
    return size_t(it - report.requested.begin());
  };
  for (KernelReport &kernel : report.kernels)
    std::stable_sort(kernel.requested.begin(), kernel.requested.end(),
                     [&](const auto &a, const auto &b) {
                       return rank(a.first) < rank(b.first);
                     });
}

} // namespace

bool ptxbench::report::fromJSON(const Value &value, SourceLocation &loc,
                                Path path) {
  const Object *o = asObject(value, path);
  return o && optionalField(*o, "file", loc.file, path) &&
         unsignedField(*o, "line", loc.line, path) &&
         unsignedField(*o, "col", loc.column, path);
}

bool ptxbench::report::fromJSON(const Value &value, Finding &finding,
                                Path path) {
  const Object *o = asObject(value, path);
  if (!o)
    return false;
  if (const Value *level = o->get("level")) {
    std::optional<StringRef> name = level->getAsString();
    std::optional<Finding::Level> parsed =
        name ? Finding::parseLevel(*name) : std::nullopt;
    if (!parsed) {
      path.field("level").report("expected note, warning or error");
      return false;
    }
    finding.level = *parsed;
  }
  return optionalField(*o, "kind", finding.kind, path) &&
         optionalField(*o, "message", finding.message, path) &&
         optionalField(*o, "alternative", finding.alternative, path) &&
         nullableField(*o, "ptx", finding.ptx, path) &&
         nullableField(*o, "source", finding.source, path);
}

bool ptxbench::report::fromJSON(const Value &value, Verdict &verdict,
                                Path path) {
  std::optional<StringRef> name = value.getAsString();
  std::optional<Verdict> parsed =
      name ? parseStaticVerdict(*name) : std::nullopt;
  if (!parsed) {
    // Path::report keeps a literal; ReportTest checks it names every word.
    path.report("expected used, serialized, unreachable or missing");
    return false;
  }
  verdict = *parsed;
  return true;
}

bool ptxbench::report::fromJSON(const Value &value,
                                toolchain::KernelResources &resources,
                                Path path) {
  const Object *o = asObject(value, path);
  return o && unsignedField(*o, "registers", resources.registers, path) &&
         unsignedField(*o, "shared_bytes", resources.sharedBytes, path) &&
         unsignedField(*o, "spill_bytes", resources.spillStoreBytes, path) &&
         unsignedField(*o, "stack_bytes", resources.stackBytes, path) &&
         unsignedField(*o, "local_bytes", resources.localBytes, path);
}

bool ptxbench::report::fromJSON(const Value &value, KernelReport &kernel,
                                Path path) {
  ReportLimits limits;
  size_t budget = limits.maxFindings;
  return readKernel(value, kernel, budget, limits, path);
}

bool ptxbench::report::fromJSON(const Value &value, AnalysisReport &report,
                                Path path, const ReportLimits &limits) {
  const Object *o = asObject(value, path);
  if (!o)
    return false;
  if (!o->get("kernels")) {
    path.field("kernels").report("missing: not an analysis report");
    return false;
  }
  const Array *requested, *kernels;
  if (!optionalField(*o, "file", report.file, path) ||
      !optionalField(*o, "arch", report.arch, path) ||
      !boundedArray(*o, "requested", limits.maxFamilies, requested, path) ||
      !boundedArray(*o, "kernels", limits.maxKernels, kernels, path) ||
      !optionalField(*o, "assembled", report.assembled, path) ||
      !optionalField(*o, "assembly_note", report.assemblyNote, path) ||
      !optionalField(*o, "sass_checked", report.sassChecked, path) ||
      !optionalField(*o, "sass_note", report.sassNote, path))
    return false;
  if (requested && !fromJSON(*o->get("requested"), report.requested,
                             path.field("requested")))
    return false;
  if (const Value *verdict = o->get("verdict")) {
    std::optional<StringRef> name = verdict->getAsString();
    if (!name || !parseReportVerdict(*name)) {
      path.field("verdict").report(
          "expected used, serialized, partial, missing or none-requested");
      return false;
    }
  }
  size_t budget = limits.maxFindings;
  report.kernels.resize(kernels->size());
  for (size_t i = 0; i < kernels->size(); ++i)
    if (!readKernel((*kernels)[i], report.kernels[i], budget, limits,
                    path.field("kernels").index(i)))
      return false;
  if (!readFindings(*o, "module_findings", budget, report.moduleFindings,
                    path))
    return false;
  orderRequested(report);
  return true;
}

llvm::Expected<AnalysisReport>
ptxbench::report::readAnalysisReport(const Value &value,
                                     const ReportLimits &limits) {
  AnalysisReport report;
  Path::Root root("analysis");
  if (!fromJSON(value, report, root, limits))
    return root.getError();
  return report;
}

llvm::Expected<AnalysisReport>
ptxbench::report::parseAnalysisReport(StringRef json,
                                      const ReportLimits &limits) {
  llvm::Expected<Value> value =
      parseJSON(json, JSONLimits{limits.maxDepth, limits.maxBytes});
  if (!value)
    return value.takeError();
  return readAnalysisReport(*value, limits);
}
