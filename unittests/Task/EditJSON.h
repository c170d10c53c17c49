//===- EditJSON.h - Change one value of a task's JSON, for tests -*- C++ -*-===//
//
// The loader tests start from a good task and change one place: `path` is
// a list of object keys and array indices ("tensors", "0", "dtype"); a null
// `value` removes the key.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_UNITTESTS_TASK_EDITJSON_H
#define PTXBENCH_UNITTESTS_TASK_EDITJSON_H

#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace ptxbench::testing {

inline void setAtPath(llvm::json::Value &root,
                      const std::vector<std::string> &path,
                      llvm::json::Value value) {
  if (path.empty())
    return;
  llvm::json::Value *v = &root;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    if (auto *o = v->getAsObject())
      v = o->get(path[i]);
    else
      v = &(*v->getAsArray())[std::stoi(path[i])];
  }
  if (auto *o = v->getAsObject()) {
    if (value.kind() == llvm::json::Value::Null)
      o->erase(path.back());
    else
      (*o)[path.back()] = std::move(value);
  } else {
    (*v->getAsArray())[std::stoi(path.back())] = std::move(value);
  }
}

} // namespace ptxbench::testing

#endif // PTXBENCH_UNITTESTS_TASK_EDITJSON_H
