//===- TaskReader.cpp - Typed access to task.json values ------------------===//
//
// The value accessors of TaskReader: each checks a value's presence, JSON
// type and range, and on a problem records one diagnostic that names the
// JSON path, says what was expected and what was found, then returns
// nothing so the caller goes on with the next value.
//
//===----------------------------------------------------------------------===//

#include "TaskReader.h"

#include "ptxbench/Support/TerminalText.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <limits>

using namespace llvm;
using namespace ptxbench::runtime;

std::string ptxbench::runtime::joinPath(StringRef parent, StringRef key) {
  return parent.empty() ? key.str() : (parent + "." + key).str();
}

std::string ptxbench::runtime::indexPath(StringRef parent, size_t index) {
  return (parent + "[" + Twine(index) + "]").str();
}

StringRef ptxbench::runtime::kindOf(const json::Value &value) {
  switch (value.kind()) {
  case json::Value::Null:
    return "null";
  case json::Value::Boolean:
    return "a boolean";
  case json::Value::Number:
    return "a number";
  case json::Value::String:
    return "a string";
  case json::Value::Array:
    return "an array";
  case json::Value::Object:
    return "an object";
  }
  llvm_unreachable("json kind");
}

std::string ptxbench::runtime::numberText(double value) {
  char buffer[32];
  snprintf(buffer, sizeof(buffer), "%g", value);
  return buffer;
}

/// "\"a\", \"b\" or \"c\"".
static std::string quotedAlternatives(ArrayRef<StringRef> values) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i)
      text += i + 1 == values.size() ? " or " : ", ";
    text += "\"" + values[i].str() + "\"";
  }
  return text;
}

void TaskReader::error(const Twine &path, const Twine &message) {
  diagnostics.push_back({file, path.str(), message.str()});
}

const json::Object *TaskReader::asObject(const json::Value &value,
                                         const Twine &path, StringRef what) {
  if (const json::Object *o = value.getAsObject())
    return o;
  error(path, "expected " + what + ", got " + kindOf(value));
  return nullptr;
}

const json::Object *TaskReader::object(const json::Object &o, StringRef key,
                                       StringRef parent, bool required,
                                       StringRef what) {
  const json::Value *v = o.get(key);
  if (!v) {
    if (required)
      error(joinPath(parent, key), "missing; expected " + what);
    return nullptr;
  }
  return asObject(*v, joinPath(parent, key), what);
}

const json::Array *TaskReader::array(const json::Object &o, StringRef key,
                                     StringRef parent, bool required,
                                     size_t minItems, StringRef what) {
  std::string path = joinPath(parent, key);
  const json::Value *v = o.get(key);
  if (!v) {
    if (required)
      error(path, "missing; expected " + what);
    return nullptr;
  }
  const json::Array *a = v->getAsArray();
  if (!a) {
    error(path, "expected " + what + ", got " + kindOf(*v));
    return nullptr;
  }
  if (a->size() < minItems) {
    error(path, "expected " + what + ", got an empty array");
    return nullptr;
  }
  return a;
}

std::optional<std::string> TaskReader::string(const json::Object &o,
                                              StringRef key, StringRef parent,
                                              bool required, StringRef what) {
  const json::Value *v = o.get(key);
  if (!v) {
    if (required)
      error(joinPath(parent, key), "missing; expected " + what);
    return std::nullopt;
  }
  if (std::optional<StringRef> s = v->getAsString())
    return s->str();
  error(joinPath(parent, key), "expected " + what + ", got " + kindOf(*v));
  return std::nullopt;
}

std::optional<std::string> TaskReader::oneOf(const json::Object &o,
                                             StringRef key, StringRef parent,
                                             ArrayRef<StringRef> allowed,
                                             std::optional<StringRef> dflt) {
  std::string what = quotedAlternatives(allowed);
  const json::Value *v = o.get(key);
  if (!v) {
    if (dflt)
      return dflt->str();
    error(joinPath(parent, key), "missing; expected " + what);
    return std::nullopt;
  }
  std::optional<StringRef> s = v->getAsString();
  if (!s) {
    error(joinPath(parent, key), "expected " + what + ", got " + kindOf(*v));
    return std::nullopt;
  }
  if (!is_contained(allowed, *s)) {
    error(joinPath(parent, key), "expected " + what + ", got \"" + *s + "\"");
    return std::nullopt;
  }
  return s->str();
}

std::optional<double> TaskReader::number(const json::Object &o, StringRef key,
                                         StringRef parent, double dflt,
                                         double min, double max,
                                         bool minExclusive) {
  std::string range;
  if (std::isinf(max))
    range = minExclusive && min == 0 ? "a positive number"
            : std::isinf(min)        ? "a number"
                                     : "a number >= " + numberText(min);
  else
    range = "a number from " + numberText(min) + " to " + numberText(max);
  const json::Value *v = o.get(key);
  if (!v)
    return dflt;
  std::optional<double> d = v->getAsNumber();
  if (!d) {
    error(joinPath(parent, key), "expected " + range + ", got " + kindOf(*v));
    return std::nullopt;
  }
  if (*d < min || (minExclusive && *d == min) || *d > max) {
    error(joinPath(parent, key),
          "expected " + range + ", got " + numberText(*d));
    return std::nullopt;
  }
  return d;
}

std::optional<int64_t> TaskReader::integer(const json::Object &o, StringRef key,
                                           StringRef parent, int64_t dflt,
                                           int64_t min, int64_t max) {
  std::string range = max == std::numeric_limits<int64_t>::max()
                          ? "an integer >= " + std::to_string(min)
                          : "an integer from " + std::to_string(min) + " to " +
                                std::to_string(max);
  const json::Value *v = o.get(key);
  if (!v)
    return dflt;
  std::optional<int64_t> i = v->getAsInteger();
  if (!i) {
    std::optional<double> d = v->getAsNumber();
    error(joinPath(parent, key), "expected " + range + ", got " +
                                     (d ? numberText(*d) : kindOf(*v).str()));
    return std::nullopt;
  }
  if (*i < min || *i > max) {
    error(joinPath(parent, key),
          "expected " + range + ", got " + std::to_string(*i));
    return std::nullopt;
  }
  return i;
}

std::optional<Expr> TaskReader::expr(const json::Value &value,
                                     const Twine &path, const Params *params) {
  std::string text;
  if (std::optional<StringRef> s = value.getAsString())
    text = s->str();
  else if (std::optional<int64_t> i = value.getAsInteger())
    text = std::to_string(*i);
  else {
    error(path, "expected an integer expression over the parameters (a "
                "string such as \"2*M*N\", or an integer), got " +
                    kindOf(value));
    return std::nullopt;
  }
  // Errors at run time (a dimension below 1, an overflow) name the file and
  // this path.
  SourceLoc loc{(file + ": " + path).str(), 0, 0};
  Expected<Expr> e = Expr::parse(text, loc);
  if (!e) {
    // "FILE: PATH: error: MESSAGE" from the parser; keep the message.
    std::string message = toString(e.takeError());
    StringRef rest(message);
    rest.consume_front(loc.str() + ": error: ");
    error(path, "cannot parse \"" + ptxbench::quotedPrefix(text, 100) +
                    "\" (" + rest +
                    "); expected an integer expression of integers, "
                    "parameters, + - * / %, parentheses, ceildiv, min, max");
    return std::nullopt;
  }
  bool known = true;
  if (params)
    for (const std::string &name : e->names())
      if (!is_contained(*params, name)) {
        error(path, "unknown parameter \"" + name + "\"" +
                        (text == name ? ""
                                      : " in \"" +
                                            ptxbench::quotedPrefix(text, 100) +
                                            "\"") +
                        "; expected one of the params (" + join(*params, ", ") +
                        ")");
        known = false;
      }
  if (!known)
    return std::nullopt;
  return *e;
}

void TaskReader::unknownKeys(const json::Object &o, StringRef parent,
                             ArrayRef<StringRef> known) {
  // In the file's order of keys would be nicer; llvm::json::Object does not
  // keep it, so sort for a stable report.
  std::vector<std::string> unknown;
  for (const auto &kv : o)
    if (!is_contained(known, StringRef(kv.first)))
      unknown.push_back(kv.first.str());
  llvm::sort(unknown);
  for (const std::string &key : unknown)
    error(joinPath(parent, key),
          "unknown key; expected one of " + join(known, ", "));
}
