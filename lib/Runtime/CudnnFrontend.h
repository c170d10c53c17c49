//===- CudnnFrontend.h - What the cuDNN graph baselines share ---*- C++ -*-===//
//
// The steps every cuDNN frontend graph of the baselines goes through, as
// llvm::Error: a handle on the harness stream, the build (validation, the
// operation graph, heuristics mode A then the fallback list, the first
// plan that builds, its workspace) and the execution, each failure naming
// its step. Defined in CudnnSdpa.cpp; included only by the files compiled
// with the frontend (PTXBENCH_HAVE_CUDNN_FRONTEND, exceptions on), which
// call CudnnSdpa::load() before any of these.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_LIB_RUNTIME_CUDNNFRONTEND_H
#define PTXBENCH_LIB_RUNTIME_CUDNNFRONTEND_H

#ifdef PTXBENCH_HAVE_CUDNN_FRONTEND

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cudnn_frontend.h>

#include <memory>
#include <string>
#include <unordered_map>

namespace ptxbench::runtime::cudnn {

namespace fe = cudnn_frontend;

/// What every cuDNN baseline owns: its handle, the graph built with it and
/// the variant pack (tensor uid -> device pointer, updated on each run).
/// The graph's descriptors go before the handle they were built with; no
/// exception escapes the destructor.
struct GraphState {
  cudnnHandle_t handle = nullptr;
  std::shared_ptr<fe::graph::Graph> graph;
  std::unordered_map<int64_t, void *> pack;

  GraphState() = default;
  GraphState(const GraphState &) = delete;
  GraphState &operator=(const GraphState &) = delete;
  ~GraphState();
};

/// "CUDNN_STATUS_...: <cuDNN's last error message>".
std::string describeStatus(cudnnStatus_t status);

/// Creates a cuDNN handle that runs on `stream` (a CUstream); `what` names
/// the graph in messages. On failure `handle` is null.
llvm::Error createHandle(cudnnHandle_t &handle, void *stream,
                         const std::string &what);

/// Validates and builds `graph` with its plan; sets the workspace size and
/// the plan's name ("" when cuDNN does not say). May throw (the frontend
/// does): callers catch.
llvm::Error buildPlan(fe::graph::Graph &graph, cudnnHandle_t handle,
                      const std::string &what, size_t &workspace,
                      std::string &planName);

/// Enqueues `graph` with the variant pack `pack` (uid -> device pointer)
/// and the workspace `ws` (checked against `workspace`); no exception
/// escapes. `what` is called only on failure: this runs between timed
/// launches.
llvm::Error execute(fe::graph::Graph &graph, cudnnHandle_t handle,
                    std::unordered_map<int64_t, void *> &pack, uint64_t ws,
                    size_t workspace, llvm::function_ref<std::string()> what);

} // namespace ptxbench::runtime::cudnn

#endif // PTXBENCH_HAVE_CUDNN_FRONTEND

#endif // PTXBENCH_LIB_RUNTIME_CUDNNFRONTEND_H
