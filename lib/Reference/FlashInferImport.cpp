//===- FlashInferImport.cpp - FlashInfer-Trace definitions as tasks -------===//
//
// Reads the definition with the JSON limits of untrusted text, walks its
// axes, inputs and outputs in the order they are written (the kernel's and
// `run`'s argument order; llvm::json's objects do not keep it, so a scan of
// the already-parsed text recovers it), reads the workload rows one line at
// a time, and writes the task as JSON. Every problem is recorded and the
// import goes on, so one run says everything it could not map.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Reference/FlashInferImport.h"

#include "ptxbench/Support/JSON.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <map>

using namespace ptxbench;
using namespace ptxbench::reference;
using llvm::isAlnum;
using llvm::isAlpha;
using llvm::isSpace;
using llvm::StringRef;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

std::string ImportMessage::str() const {
  std::string s = file;
  if (line)
    s += ":" + std::to_string(line);
  s += ": ";
  if (!path.empty())
    s += path + ": ";
  return s + message;
}

std::vector<std::string> ptxbench::reference::keysInOrder(StringRef text,
                                                          StringRef key) {
  std::vector<std::string> keys;
  // depth: 1 inside the top object. A string directly in an object,
  // followed by ':', is a key.
  unsigned depth = 0;
  std::vector<char> stack;
  std::string topKey;
  bool inTarget = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      size_t start = ++i;
      while (i < text.size() && text[i] != '"')
        i += text[i] == '\\' ? 2 : 1;
      if (i >= text.size())
        break;
      StringRef s = text.slice(start, i);
      size_t j = i + 1;
      while (j < text.size() && isSpace(text[j]))
        ++j;
      bool isKey = j < text.size() && text[j] == ':' && !stack.empty() &&
                   stack.back() == '{';
      if (isKey && depth == 1)
        topKey = s.str();
      else if (isKey && depth == 2 && inTarget)
        keys.push_back(s.str());
      continue;
    }
    if (c == '{' || c == '[') {
      stack.push_back(c);
      ++depth;
      if (depth == 2)
        inTarget = c == '{' && topKey == key;
    } else if ((c == '}' || c == ']') && !stack.empty()) {
      stack.pop_back();
      --depth;
    }
  }
  return keys;
}

namespace {

struct Tensor {
  std::string name, dtype;
  std::vector<std::string> shape;
  bool scalar = false, output = false;
};

class Importer {
public:
  Importer(StringRef defFile, StringRef rowsFile, ImportResult &result)
      : defFile(defFile.str()), rowsFile(rowsFile.str()), result(result) {}

  void problem(StringRef file, unsigned line, const llvm::Twine &path,
               const llvm::Twine &message) {
    result.problems.push_back({file.str(), line, path.str(), message.str()});
  }
  void note(const llvm::Twine &path, const llvm::Twine &message) {
    result.notes.push_back({defFile, 0, path.str(), message.str()});
  }

  void run(StringRef defText, StringRef rowsText, StringRef name);

private:
  std::string defFile, rowsFile;
  ImportResult &result;

  std::vector<std::string> axisOrder;
  std::map<std::string, int64_t> constAxes; // name -> value
  std::vector<Tensor> tensors;

  bool readDefinition(const Object &def, StringRef text);
  void readTensors(const Object &def, StringRef text, StringRef key);
};

bool isName(StringRef s) {
  return !s.empty() && (isAlpha(s[0]) || s[0] == '_') &&
         llvm::all_of(s, [](char c) { return isAlnum(c) || c == '_'; });
}

/// FlashInfer-Trace's dtype names to ptxbench's; "" when ptxbench has none.
StringRef mapDType(StringRef dtype, bool &lossy) {
  lossy = false;
  if (dtype == "float32")
    return "f32";
  if (dtype == "float16")
    return "f16";
  if (dtype == "bfloat16")
    return "bf16";
  if (dtype == "float8_e4m3" || dtype == "float8_e4m3fn")
    return "e4m3";
  if (dtype == "int32")
    return "i32";
  if (dtype == "int64") {
    lossy = true;
    return "i32";
  }
  return "";
}

unsigned dtypeBytes(StringRef dtype) {
  return llvm::StringSwitch<unsigned>(dtype)
      .Case("f32", 4)
      .Case("i32", 4)
      .Case("e4m3", 1)
      .Default(2);
}

} // namespace

void Importer::readTensors(const Object &def, StringRef text, StringRef key) {
  const Object *list = def.getObject(key);
  if (!list) {
    problem(defFile, 0, key,
            "missing; expected an object of tensors ({\"shape\": [axes], "
            "\"dtype\"})");
    return;
  }
  std::vector<std::string> order = keysInOrder(text, key);
  if (order.size() != list->size() ||
      !llvm::all_of(order,
                    [&](const std::string &k) { return list->get(k); })) {
    // A key with escapes: keep a stable order and say so.
    order.clear();
    for (const auto &kv : *list)
      order.push_back(kv.first.str());
    llvm::sort(order);
    note(key, "the written order of the tensors could not be recovered; "
              "they are in alphabetical order");
  }
  for (const std::string &name : order) {
    std::string path = (key + "." + name).str();
    const Object *t = list->get(name)->getAsObject();
    if (!t) {
      problem(defFile, 0, path, "expected an object with shape and dtype");
      continue;
    }
    Tensor tensor;
    tensor.name = name;
    tensor.output = key == "outputs";
    if (!isName(name))
      problem(defFile, 0, path,
              "\"" + name + "\" is not a name ptxbench tensors can have");
    std::optional<StringRef> dtype = t->getString("dtype");
    bool lossy = false;
    StringRef mapped = dtype ? mapDType(*dtype, lossy) : "";
    if (!dtype)
      problem(defFile, 0, path + ".dtype", "missing; expected a dtype name");
    else if (mapped.empty())
      problem(defFile, 0, path + ".dtype",
              "\"" + *dtype +
                  "\" has no ptxbench counterpart (bf16, f16, f32, i32, e4m3)");
    else if (lossy)
      note(path + ".dtype", "int64 is mapped to i32 (ptxbench's integer "
                            "tensors); the reference is given int32 indices");
    tensor.dtype = mapped.str();
    if (mapped == "i32" && !tensor.output)
      note(path, "an integer input is drawn as normal values rounded to "
                 "integers; give it an init (ints in a range, or a "
                 "permutation for a page table) by hand");
    const Value *shape = t->get("shape");
    if (!shape || shape->getAsNull()) {
      tensor.scalar = true;
      if (tensor.output)
        problem(defFile, 0, path + ".shape",
                "a scalar output has no ptxbench counterpart (outputs are "
                "tensors)");
    } else if (const Array *dims = shape->getAsArray()) {
      if (dims->empty())
        tensor.scalar = true;
      for (size_t d = 0; d < dims->size(); ++d) {
        std::optional<StringRef> axis = (*dims)[d].getAsString();
        if (!axis || !llvm::is_contained(axisOrder, axis->str()))
          problem(defFile, 0, llvm::formatv("{0}.shape[{1}]", path, d).str(),
                  "expected the name of an axis of \"axes\"");
        else
          tensor.shape.push_back(axis->str());
      }
    } else {
      problem(defFile, 0, path + ".shape",
              "expected an array of axis names or null");
    }
    tensors.push_back(std::move(tensor));
  }
}

bool Importer::readDefinition(const Object &def, StringRef text) {
  static const StringRef known[] = {
      "name",    "op_type",   "type", "axes",        "inputs",
      "outputs", "reference", "tags", "description", "constraints"};
  for (const auto &kv : def)
    if (!llvm::is_contained(known, kv.first.str()))
      note(kv.first.str(), "not a definition field ptxbench maps; ignored");
  const Object *axes = def.getObject("axes");
  if (!axes || axes->empty()) {
    problem(defFile, 0, "axes", "missing; expected an object of axes");
    return false;
  }
  std::vector<std::string> order = keysInOrder(text, "axes");
  if (order.size() != axes->size()) {
    order.clear();
    for (const auto &kv : *axes)
      order.push_back(kv.first.str());
    llvm::sort(order);
  }
  for (const std::string &name : order) {
    std::string path = "axes." + name;
    const Object *axis = axes->getObject(name);
    std::optional<StringRef> type =
        axis ? axis->getString("type") : std::nullopt;
    if (!isName(name)) {
      problem(defFile, 0, path, "\"" + name + "\" is not a parameter name");
      continue;
    }
    if (!type || (*type != "const" && *type != "var")) {
      problem(defFile, 0, path,
              "expected {\"type\": \"const\", \"value\": N} or {\"type\": "
              "\"var\"}");
      continue;
    }
    axisOrder.push_back(name);
    if (*type == "const") {
      std::optional<int64_t> v = axis->getInteger("value");
      if (!v || *v <= 0)
        problem(defFile, 0, path + ".value",
                "expected a positive integer (a const axis's value)");
      else
        constAxes[name] = *v;
    }
  }
  readTensors(def, text, "inputs");
  readTensors(def, text, "outputs");
  llvm::StringSet<> names;
  for (const std::string &a : axisOrder)
    names.insert(a);
  for (const Tensor &t : tensors)
    if (!names.insert(t.name).second)
      problem(defFile, 0, (t.output ? "outputs." : "inputs.") + t.name,
              "\"" + t.name + "\" names an axis or another tensor too");
  if (llvm::none_of(tensors, [](const Tensor &t) { return t.output; }))
    problem(defFile, 0, "outputs", "expected at least one output tensor");
  std::optional<StringRef> ref = def.getString("reference");
  if (!ref || !ref->contains("def run("))
    problem(defFile, 0, "reference",
            "expected the Python reference's text, defining run(...)");
  return true;
}

void Importer::run(StringRef defText, StringRef rowsText, StringRef name) {
  if (defText.size() > kMaxDefinitionBytes)
    return problem(defFile, 0, "",
                   "the definition is " + llvm::Twine(defText.size()) +
                       " bytes; at most 1 MiB is read");
  if (rowsText.size() > kMaxWorkloadBytes)
    return problem(rowsFile, 0, "",
                   "the workloads are " + llvm::Twine(rowsText.size()) +
                       " bytes; at most 16 MiB are read");
  JSONLimits limits;
  limits.maxDepth = 16;
  limits.maxBytes = kMaxDefinitionBytes;
  llvm::Expected<Value> root = parseJSON(defText, limits);
  if (!root)
    return problem(defFile, 0, "",
                   describeJSONError(root.takeError(), "definition"));
  const Object *def = root->getAsObject();
  if (!def)
    return problem(defFile, 0, "", "expected a definition (a JSON object)");
  std::string defName = def->getString("name").value_or("").str();
  if (defName.empty())
    problem(defFile, 0, "name", "missing; expected the definition's name");
  std::string taskName = name.empty() ? defName : name.str();
  std::string opType = def->getString("op_type")
                           .value_or(def->getString("type").value_or(""))
                           .str();
  readDefinition(*def, defText);

  // The rows: one JSON object a line.
  Array dev, heldout;
  std::vector<Object> rows;
  std::map<std::string, std::vector<std::pair<unsigned, Value>>> scalars;
  llvm::SmallVector<StringRef> lines;
  rowsText.split(lines, '\n');
  unsigned lineNo = 0, count = 0;
  JSONLimits rowLimits;
  rowLimits.maxDepth = 16;
  rowLimits.maxBytes = kMaxDefinitionBytes;
  for (StringRef line : lines) {
    ++lineNo;
    if (line.trim().empty())
      continue;
    if (++count > kMaxWorkloadRows) {
      problem(rowsFile, lineNo, "",
              "more than " + llvm::Twine(kMaxWorkloadRows) +
                  " workload rows; the rest are not read");
      break;
    }
    llvm::Expected<Value> v = parseJSON(line, rowLimits);
    if (!v) {
      problem(rowsFile, lineNo, "", describeJSONError(v.takeError(), "row"));
      continue;
    }
    const Object *row = v->getAsObject();
    const Object *wl = row ? row->getObject("workload") : nullptr;
    if (!wl) {
      problem(rowsFile, lineNo, "workload",
              "expected {\"definition\", \"workload\": {\"axes\", \"inputs\", "
              "\"uuid\"}}");
      continue;
    }
    if (std::optional<StringRef> d = row->getString("definition");
        d && *d != defName)
      problem(rowsFile, lineNo, "definition",
              "\"" + *d + "\" is not the definition \"" + defName + "\"");
    Object params;
    const Object *axes = wl->getObject("axes");
    for (const std::string &axis : axisOrder) {
      std::optional<int64_t> v = axes ? axes->getInteger(axis) : std::nullopt;
      auto c = constAxes.find(axis);
      if (c != constAxes.end()) {
        if (v && *v != c->second)
          problem(rowsFile, lineNo, "workload.axes." + axis,
                  llvm::formatv("{0}, but the const axis is {1}", *v, c->second)
                      .str());
        params[axis] = c->second;
      } else if (!v || *v < 1) {
        // Every dimension of a task is at least 1, and a var axis is one.
        problem(rowsFile, lineNo, "workload.axes." + axis,
                (v ? llvm::formatv("{0}", *v).str() : std::string("missing")) +
                    "; expected a positive integer for the var axis");
      } else {
        params[axis] = *v;
      }
    }
    if (axes)
      for (const auto &kv : *axes)
        if (!llvm::is_contained(axisOrder, kv.first.str()))
          problem(rowsFile, lineNo, "workload.axes." + kv.first.str(),
                  "not an axis of the definition");
    const Object *inputs = wl->getObject("inputs");
    for (const Tensor &t : tensors) {
      if (t.output)
        continue;
      const Object *in = inputs ? inputs->getObject(t.name) : nullptr;
      std::string path = "workload.inputs." + t.name;
      StringRef type = in ? in->getString("type").value_or("") : "random";
      if (type == "scalar") {
        const Value *value = in->get("value");
        if (!t.scalar)
          problem(rowsFile, lineNo, path, "a scalar value for a tensor input");
        else if (value && (value->getAsNumber() || value->getAsBoolean()))
          scalars[t.name].push_back({lineNo, *value});
        else
          problem(rowsFile, lineNo, path + ".value",
                  "expected a number or a boolean");
      } else if (type == "random") {
        if (t.scalar)
          problem(rowsFile, lineNo, path,
                  "a scalar input must be given a value (type \"scalar\")");
      } else if (type == "safetensors") {
        problem(rowsFile, lineNo, path,
                "read from a safetensors file; ptxbench draws every input, "
                "so this row's data cannot be mapped (give the tensor an "
                "init, such as a permutation for a page table, by hand)");
      } else {
        problem(rowsFile, lineNo, path,
                "unknown input type \"" + type +
                    "\"; expected random, scalar or safetensors");
      }
    }
    std::string uuid = wl->getString("uuid").value_or("").str();
    std::string wname = "wl" + std::to_string(count);
    if (!uuid.empty())
      wname += "-" + StringRef(uuid).take_front(8).str();
    params["name"] = wname;
    rows.push_back(std::move(params));
  }
  if (rows.size() < 2 && result.problems.empty())
    problem(rowsFile, 0, "",
            "expected at least two workload rows (a task has development "
            "and held-out workloads)");

  // Scalars become constants when every row gives the same value.
  Object constants;
  for (const Tensor &t : tensors) {
    if (!t.scalar || t.output)
      continue;
    auto it = scalars.find(t.name);
    if (it == scalars.end())
      continue;
    const Value &first = it->second.front().second;
    bool same = llvm::all_of(it->second,
                             [&](const auto &p) { return p.second == first; });
    if (!same)
      problem(rowsFile, it->second.back().first, "workload.inputs." + t.name,
              "the scalar differs between rows; ptxbench parameters are "
              "integers of the shape, so a varying value cannot be mapped");
    else
      constants[t.name] = first;
  }
  if (!result.problems.empty())
    return;

  // The task.
  size_t held = std::max<size_t>(1, rows.size() / 4);
  for (size_t i = 0; i < rows.size(); ++i)
    (i + held < rows.size() ? dev : heldout).push_back(std::move(rows[i]));
  Array params, taskTensors;
  for (const std::string &a : axisOrder)
    params.push_back(a);
  std::string bytes, abi;
  llvm::StringSet<> outDTypes;
  for (const Tensor &t : tensors) {
    if (t.scalar)
      continue;
    Array shape;
    std::string product;
    for (const std::string &d : t.shape) {
      shape.push_back(d);
      product += (product.empty() ? "" : "*") + d;
    }
    bytes += (bytes.empty() ? "" : " + ") +
             std::to_string(dtypeBytes(t.dtype)) + "*" + product;
    abi += (abi.empty() ? "" : ", ") + t.name + " " + t.dtype + " [" +
           llvm::join(t.shape, ", ") + "]" + (t.output ? " (output)" : "");
    Object tensor{{"name", t.name},
                  {"dtype", t.dtype},
                  {"shape", std::move(shape)},
                  {"role", t.output ? "output" : "input"}};
    if (t.output)
      outDTypes.insert(t.dtype);
    taskTensors.push_back(std::move(tensor));
  }
  Object tolerance;
  for (const auto &d : outDTypes)
    tolerance[d.getKey()] = Object{{"atol", 0.01}, {"rtol", 0.01}};
  std::string description = def->getString("description").value_or("").str();
  description += (description.empty() ? "" : " ") +
                 ("Imported from the FlashInfer-Trace definition " + defName +
                  (opType.empty() ? "" : " (op_type " + opType + ")") +
                  ". Kernel arguments, in order: " + abi + ".");
  if (!constants.empty()) {
    std::vector<std::string> cs;
    for (const auto &kv : constants)
      cs.push_back(kv.first.str() + " = " +
                   llvm::formatv("{0}", kv.second).str());
    llvm::sort(cs);
    description += " Constants: " + llvm::join(cs, ", ") + ".";
  }
  if (const Array *cons = def->getArray("constraints");
      cons && !cons->empty()) {
    std::vector<std::string> cs;
    for (const Value &c : *cons)
      if (std::optional<StringRef> s = c.getAsString())
        cs.push_back(s->str());
    description += " Constraints: " + llvm::join(cs, "; ") + ".";
    note("constraints", "kept in the description; ptxbench does not check "
                        "them against the workloads");
  }
  note("", "no FLOP count in a definition: flops is 0 (write the formula)");
  note("", "the tolerance is 0.01 absolute and relative per output dtype "
           "(FlashInfer-Bench's default); choose it from the reference's "
           "error at the kernel's precision");
  note("", "no requested features: add them per architecture");
  Object task{{"name", taskName},
              {"description", description},
              {"params", std::move(params)},
              {"tensors", std::move(taskTensors)},
              {"workloads", Object{{"dev", std::move(dev)},
                                   {"heldout", std::move(heldout)}}},
              {"check", Object{{"tolerance", std::move(tolerance)}}},
              {"flops", "0"},
              {"bytes", bytes},
              {"reference", "python"},
              {"python", Object{{"module", "reference.py"},
                                {"entry", "run"},
                                {"precision", "f64"},
                                {"constants", std::move(constants)}}}};
  ImportedTask out;
  out.taskJSON = llvm::formatv("{0:2}", Value(std::move(task))).str() + "\n";
  out.referencePy = def->getString("reference").value_or("").str();
  if (!StringRef(out.referencePy).ends_with("\n"))
    out.referencePy += "\n";
  result.task = std::move(out);
}

ImportResult ptxbench::reference::importFlashInferTrace(
    StringRef definition, StringRef definitionFile, StringRef workloads,
    StringRef workloadsFile, StringRef name) {
  ImportResult result;
  Importer(definitionFile, workloadsFile, result)
      .run(definition, workloads, name);
  return result;
}
