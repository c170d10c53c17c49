//===- IncludeCheck.h - A submission includes toolkit headers only -*- C++ -*-===//
//
// NVRTC reads whatever a submission's `#include` names: an absolute path,
// a path relative to the working folder, `..` out of the toolkit. Its
// errors then quote what it read, and those errors become the model's
// next prompt. checkIncludes() looks at the preprocessor directives before
// NVRTC runs and refuses every header that is not a file below the
// toolkit's include folders, every include through a macro and every
// `__has_include` of anything else, each an error at its line and column.
// The compile child's sandbox refuses such files again, should a trick get
// past this scan.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_TOOLCHAIN_INCLUDECHECK_H
#define PTXBENCH_TOOLCHAIN_INCLUDECHECK_H

#include "ptxbench/Toolchain/CudaCompiler.h"

namespace ptxbench::toolchain {

/// The includes of `source` (named `name`) that are not allowed, at most
/// `limit` of them; `includeDirs` are the folders a header must be in.
std::vector<CompilerMessage>
checkIncludes(llvm::StringRef source, llvm::StringRef name,
              llvm::ArrayRef<std::string> includeDirs, unsigned limit = 10);

/// `messages` as a compiler log (`name:line:column: error: text`, the
/// source line and a caret), as normalizeCompilerLog() writes NVRTC's.
std::string formatCompilerMessages(llvm::ArrayRef<CompilerMessage> messages,
                                   llvm::StringRef source);

} // namespace ptxbench::toolchain

#endif // PTXBENCH_TOOLCHAIN_INCLUDECHECK_H
