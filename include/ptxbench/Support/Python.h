//===- Python.h - The Python interpreter a contained child runs -*- C++ -*-===//
//
// Two children of ptxbench are Python interpreters (the Triton compile
// driver and the PyTorch reference driver). Both start from the same
// facts: which interpreter to run (named by the caller, $PTXBENCH_PYTHON or
// python3 on PATH, resolved past launcher scripts to sys.executable, asked
// once per process), the folders it imports from (what its sandbox must
// let it read), and the program interpreter (dynamic loader) its ELF file
// names, which the kernel opens for execution and the sandbox must allow.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_SUPPORT_PYTHON_H
#define PTXBENCH_SUPPORT_PYTHON_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace ptxbench::support {

/// An interpreter, resolved.
struct PythonInterpreter {
  /// The interpreter itself, past launcher scripts (pyenv's shims).
  std::string executable;
  /// Where it imports from with -E -B (sys.path, the user's site-packages
  /// included): what a sandboxed child must be able to read.
  std::vector<std::string> searchPath;
};

/// The interpreter `name` names (empty: $PTXBENCH_PYTHON, else python3 on
/// PATH), resolved once per process. `purpose` ends the error when there is
/// none ("to compile Triton with").
llvm::Expected<PythonInterpreter> resolvePython(llvm::StringRef name,
                                                llvm::StringRef purpose);

/// The installation folders of the interpreter at `python`: the prefix
/// above its bin/ folder, for the path as given (a virtual environment) and
/// for its real path.
std::vector<std::string> pythonTrees(llvm::StringRef python);

/// The program interpreter a 64-bit ELF executable names; empty when it
/// names none or is not one.
std::string elfInterpreter(llvm::StringRef path);

} // namespace ptxbench::support

#endif // PTXBENCH_SUPPORT_PYTHON_H
