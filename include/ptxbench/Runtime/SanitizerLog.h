//===- SanitizerLog.h - Read a compute-sanitizer report ---------*- C++ -*-===//
//
// What `ptxbench run --sanitize` keeps of one compute-sanitizer tool's
// output: its error count and the first and last KiB of its report, without
// the worker's own JSON event lines that share the stream.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_RUNTIME_SANITIZERLOG_H
#define PTXBENCH_RUNTIME_SANITIZERLOG_H

#include "ptxbench/Runtime/Result.h"

#include "llvm/ADT/StringRef.h"

namespace ptxbench::runtime {

/// The report of `tool` (memcheck, racecheck, synccheck) from its output.
/// Its error count comes from "ERROR SUMMARY: N error(s)", or for racecheck
/// "RACECHECK SUMMARY: H hazards displayed (E errors, W warnings)" (E); -1
/// when neither was printed.
SanitizerReport readSanitizerLog(llvm::StringRef tool, llvm::StringRef text);

} // namespace ptxbench::runtime

#endif // PTXBENCH_RUNTIME_SANITIZERLOG_H
