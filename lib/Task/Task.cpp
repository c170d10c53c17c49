//===- Task.cpp - The task model: element types and shapes ----------------===//
//
// What a loaded task answers about itself: element type names (the task
// file's and Triton's) and sizes, tensors by name, and a tensor's shape
// under one workload. Reading task.json is TaskLoader.cpp's (with
// TaskTensors.cpp, TaskWorkloads.cpp and TaskReferences.cpp); selecting
// workloads is TaskWorkloads.cpp's.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Task/Task.h"

#include "llvm/ADT/StringSwitch.h"

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

StringRef ptxbench::runtime::tritonTypeName(DType dtype) {
  switch (dtype) {
  case DType::BF16:
    return "bf16";
  case DType::F16:
    return "fp16";
  case DType::F32:
    return "fp32";
  case DType::I32:
    return "i32";
  case DType::E4M3:
    return "fp8e4nv";
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
