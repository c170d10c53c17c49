//===- Python.cpp - The Python interpreter a contained child runs ---------===//
//
// Resolving the interpreter (asked once per path: it prints sys.executable
// and sys.path under the flags the children use, -E -B), its installation
// folders, and the dynamic loader its ELF file names.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Support/Python.h"

#include "ptxbench/Support/RunTool.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

using namespace ptxbench;
using namespace ptxbench::support;
using llvm::StringRef;

llvm::Expected<PythonInterpreter>
ptxbench::support::resolvePython(StringRef given, StringRef purpose) {
  std::string name = given.str();
  if (name.empty())
    if (const char *env = std::getenv("PTXBENCH_PYTHON"); env && *env)
      name = env;
  if (name.empty())
    name = "python3";
  std::string path = name;
  if (!llvm::sys::path::has_parent_path(name)) {
    llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName(name);
    if (!found)
      return llvm::createStringError("no '" + name + "' on PATH " + purpose +
                                     " (set PTXBENCH_PYTHON to the "
                                     "interpreter utils/setup.sh installed "
                                     "for)");
    path = *found;
  } else if (!llvm::sys::fs::can_execute(name)) {
    return llvm::createStringError("the Python interpreter '" + name +
                                   "' is not an executable file");
  }
  static std::mutex lock;
  static llvm::StringMap<PythonInterpreter> resolved;
  std::lock_guard<std::mutex> guard(lock);
  if (auto it = resolved.find(path); it != resolved.end())
    return it->second;
  auto out = runTool(
      {path, "-E", "-B", "-c",
       "import sys; print(sys.executable); print('\\n'.join(sys.path))"},
      /*seconds=*/60, ToolStreams::StdoutOnly);
  if (!out)
    return out.takeError();
  llvm::SmallVector<StringRef> lines;
  StringRef(out->text).split(lines, '\n', -1, /*KeepEmpty=*/false);
  if (!out->succeeded() || lines.empty() ||
      !llvm::sys::fs::can_execute(lines.front().trim()))
    return llvm::createStringError("'" + path +
                                   "' does not say which interpreter it "
                                   "is (sys.executable)");
  PythonInterpreter python;
  python.executable = lines.front().trim().str();
  for (StringRef dir : llvm::ArrayRef(lines).drop_front())
    if (llvm::sys::path::is_absolute(dir.trim()))
      python.searchPath.push_back(dir.trim().str());
  return resolved[path] = std::move(python);
}

std::vector<std::string> ptxbench::support::pythonTrees(StringRef python) {
  std::vector<std::string> trees;
  auto add = [&](StringRef exe) {
    StringRef bin = llvm::sys::path::parent_path(exe);
    StringRef prefix = llvm::sys::path::parent_path(bin);
    if (!prefix.empty() && prefix != "/" &&
        std::find(trees.begin(), trees.end(), prefix.str()) == trees.end())
      trees.push_back(prefix.str());
  };
  add(python);
  llvm::SmallString<256> real;
  if (!llvm::sys::fs::real_path(python, real))
    add(real);
  return trees;
}

std::string ptxbench::support::elfInterpreter(StringRef path) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return "";
  StringRef bytes = (*file)->getBuffer();
  auto read = [&](uint64_t at, unsigned size) -> uint64_t {
    uint64_t v = 0;
    if (at + size > bytes.size())
      return 0;
    std::memcpy(&v, bytes.data() + at, size);
    return v;
  };
  if (!bytes.starts_with("\x7f"
                         "ELF") ||
      bytes.size() < 64 || bytes[4] != 2)
    return "";
  uint64_t phoff = read(32, 8), entry = read(54, 2), count = read(56, 2);
  for (uint64_t i = 0; i < count && entry >= 56; ++i) {
    uint64_t ph = phoff + i * entry;
    if (read(ph, 4) != 3) // PT_INTERP
      continue;
    uint64_t offset = read(ph + 8, 8), size = read(ph + 32, 8);
    if (!size || offset + size > bytes.size())
      return "";
    return bytes.substr(offset, size).rtrim('\0').str();
  }
  return "";
}
