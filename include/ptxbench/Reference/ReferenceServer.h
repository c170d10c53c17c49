//===- ReferenceServer.h - Python references for a sandboxed process -*- C++ -*-===//
//
// A process that has closed itself off (the GPU worker) cannot start the
// reference child itself: the child would inherit the worker's sandbox,
// whose rules name the worker's own /proc entry, and the CUDA driver in the
// child fails where it names its threads. So the worker forks a server
// before it closes itself off, while it is still one thread: the server
// stays outside that sandbox, waits on a socket, and computes each request
// with runPythonReference (whose child sandboxes itself). The server runs
// only this code and exits when the worker closes the socket or dies.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_REFERENCE_REFERENCESERVER_H
#define PTXBENCH_REFERENCE_REFERENCESERVER_H

#include "ptxbench/Reference/PythonReference.h"

#include <memory>

namespace ptxbench::reference {

class ReferenceServer {
public:
  /// Forks the server for `task` (which must stay alive: the server has its
  /// own copy of this process's memory). Call it while the process has one
  /// thread.
  static llvm::Expected<std::unique_ptr<ReferenceServer>>
  start(const runtime::Task &task, const PythonReferenceOptions &options);
  /// Closes the socket and waits for the server.
  ~ReferenceServer();

  /// runPythonReference(task, params, inputs, options) in the server.
  llvm::Expected<PythonReferenceOutputs>
  compute(const runtime::Bindings &params, llvm::ArrayRef<std::string> inputs);

  /// The server's process id.
  int pid() const { return serverPid; }

private:
  ReferenceServer(int socket, int pid) : socket(socket), serverPid(pid) {}
  int socket = -1;
  int serverPid = -1;
};

} // namespace ptxbench::reference

#endif // PTXBENCH_REFERENCE_REFERENCESERVER_H
