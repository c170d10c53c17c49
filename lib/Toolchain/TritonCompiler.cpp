//===- TritonCompiler.cpp - A Triton submission compiled in a child -------===//
//
// The parent's side of compiling a Triton submission: a temporary folder
// with the submission and the request, `ptxbench compile-triton` started on
// it under a wall-clock deadline (its process group killed past it), and
// the driver's result read back with the JSON limits of untrusted text.
// The folder, Triton's cache in it included, is removed afterwards.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Toolchain/TritonCompiler.h"

#include "ptxbench/Support/ChildProcess.h"
#include "ptxbench/Support/JSON.h"
#include "ptxbench/Support/Python.h"
#include "ptxbench/Support/Sandbox.h"
#include "ptxbench/Support/TempFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>

using namespace ptxbench;
using namespace ptxbench::toolchain;
using llvm::StringRef;
using llvm::json::Object;

StringRef ptxbench::toolchain::tritonStageName(TritonStage stage) {
  switch (stage) {
  case TritonStage::None:
    return "";
  case TritonStage::Gate:
    return "gate";
  case TritonStage::Refused:
    return "refused";
  case TritonStage::Import:
    return "import";
  case TritonStage::Plan:
    return "plan";
  case TritonStage::Compile:
    return "compile";
  case TritonStage::Child:
    return "child";
  }
  llvm_unreachable("Triton stage");
}

static TritonStage tritonStageByName(StringRef name) {
  for (TritonStage s : {TritonStage::Gate, TritonStage::Refused,
                        TritonStage::Import, TritonStage::Plan,
                        TritonStage::Compile})
    if (tritonStageName(s) == name)
      return s;
  return TritonStage::Child;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

llvm::json::Value ptxbench::toolchain::toJSON(const TritonKernelBuild &b) {
  llvm::json::Array descs, params;
  for (const TritonTensorDesc &d : b.tensorDescs) {
    llvm::json::Array block;
    for (uint32_t v : d.blockSize)
      block.push_back(int64_t(v));
    descs.push_back(Object{{"swizzle", d.swizzle},
                           {"elem_size", int64_t(d.elemSize)},
                           {"elem_type", d.elemType},
                           {"block_size", std::move(block)},
                           {"fp4_padded", d.fp4Padded},
                           {"is_im2col", d.im2col}});
  }
  for (const auto &[name, constexpr_] : b.params)
    params.push_back(Object{{"name", name}, {"constexpr", constexpr_}});
  return Object{{"entry", b.entry},
                {"num_warps", int64_t(b.numWarps)},
                {"num_ctas", int64_t(b.numCtas)},
                {"num_stages", int64_t(b.numStages)},
                {"shared", int64_t(b.shared)},
                {"global_scratch_size", int64_t(b.globalScratchSize)},
                {"global_scratch_align", int64_t(b.globalScratchAlign)},
                {"profile_scratch_size", int64_t(b.profileScratchSize)},
                {"profile_scratch_align", int64_t(b.profileScratchAlign)},
                {"launch_cooperative_grid", b.cooperativeGrid},
                {"launch_pdl", b.pdl},
                {"tensordesc_meta", std::move(descs)},
                {"params", std::move(params)},
                {"triton", b.tritonVersion}};
}

namespace {
/// A non-negative integer that fits `T`.
template <typename T>
bool mapCount(const llvm::json::Object &o, StringRef key, T &out,
              llvm::json::Path path, bool optional = false) {
  const llvm::json::Value *v = o.get(key);
  if (!v)
    return optional || (path.field(key).report("missing"), false);
  std::optional<int64_t> n = v->getAsInteger();
  if (!n || *n < 0 || uint64_t(*n) > uint64_t(std::numeric_limits<T>::max())) {
    path.field(key).report("expected a non-negative integer in range");
    return false;
  }
  out = T(*n);
  return true;
}
} // namespace

bool ptxbench::toolchain::fromJSON(const llvm::json::Value &value,
                                   TritonKernelBuild &b,
                                   llvm::json::Path path) {
  const Object *o = value.getAsObject();
  if (!o) {
    path.report("expected an object");
    return false;
  }
  std::optional<StringRef> entry = o->getString("entry");
  if (!entry) {
    path.field("entry").report("expected the kernel's entry name");
    return false;
  }
  b.entry = entry->str();
  b.tritonVersion = o->getString("triton").value_or("").str();
  b.cooperativeGrid = o->getBoolean("launch_cooperative_grid").value_or(false);
  b.pdl = o->getBoolean("launch_pdl").value_or(false);
  if (!mapCount(*o, "num_warps", b.numWarps, path) ||
      !mapCount(*o, "num_ctas", b.numCtas, path, true) ||
      !mapCount(*o, "num_stages", b.numStages, path) ||
      !mapCount(*o, "shared", b.shared, path) ||
      !mapCount(*o, "global_scratch_size", b.globalScratchSize, path) ||
      !mapCount(*o, "global_scratch_align", b.globalScratchAlign, path) ||
      !mapCount(*o, "profile_scratch_size", b.profileScratchSize, path,
                true) ||
      !mapCount(*o, "profile_scratch_align", b.profileScratchAlign, path,
                true))
    return false;
  b.tensorDescs.clear();
  if (const llvm::json::Array *descs = o->getArray("tensordesc_meta")) {
    for (size_t i = 0; i < descs->size(); ++i) {
      llvm::json::Path at = path.field("tensordesc_meta").index(i);
      const Object *d = (*descs)[i].getAsObject();
      if (!d) {
        at.report("expected an object");
        return false;
      }
      TritonTensorDesc desc;
      unsigned swizzle = 0, elemType = 0;
      if (!mapCount(*d, "swizzle", swizzle, at) ||
          !mapCount(*d, "elem_size", desc.elemSize, at) ||
          !mapCount(*d, "elem_type", elemType, at))
        return false;
      desc.swizzle = int(swizzle);
      desc.elemType = int(elemType);
      desc.fp4Padded = d->getBoolean("fp4_padded").value_or(false);
      desc.im2col = d->getBoolean("is_im2col").value_or(false);
      const llvm::json::Array *block = d->getArray("block_size");
      if (!block || block->empty() || block->size() > 5) {
        at.field("block_size").report("expected 1 to 5 sizes");
        return false;
      }
      for (const llvm::json::Value &v : *block) {
        std::optional<int64_t> n = v.getAsInteger();
        if (!n || *n <= 0 || *n > 256) {
          at.field("block_size").report("expected sizes from 1 to 256");
          return false;
        }
        desc.blockSize.push_back(uint32_t(*n));
      }
      b.tensorDescs.push_back(std::move(desc));
    }
  }
  b.params.clear();
  if (const llvm::json::Array *params = o->getArray("params"))
    for (const llvm::json::Value &p : *params)
      if (const Object *po = p.getAsObject())
        b.params.emplace_back(po->getString("name").value_or("").str(),
                              po->getBoolean("constexpr").value_or(false));
  return true;
}

//===----------------------------------------------------------------------===//
// Locating the driver and the interpreter
//===----------------------------------------------------------------------===//

std::string ptxbench::toolchain::tritonDriverPath(StringRef helper) {
  llvm::SmallString<256> path(llvm::sys::path::parent_path(helper));
  llvm::sys::path::append(path, "ptxbench-triton.py");
  return llvm::sys::fs::exists(path) ? path.str().str() : std::string();
}

llvm::Expected<TritonPython>
ptxbench::toolchain::tritonPython(const TritonLimits &limits) {
  return support::resolvePython(limits.python, "to compile Triton with");
}

unsigned ptxbench::toolchain::tritonPtxVersion() {
  // Triton's own rule for CUDA 12 and 13: release 12.N writes PTX 8.N,
  // 13.N writes 9.N.
  auto [major, minor] = StringRef(nvrtcVersion()).split('.');
  unsigned ma = 0, mi = 0;
  if (major.getAsInteger(10, ma) || minor.getAsInteger(10, mi) || ma < 12)
    return 0;
  return (ma - 4) * 10 + mi;
}

//===----------------------------------------------------------------------===//
// The parent
//===----------------------------------------------------------------------===//

namespace {

/// The SM number of `arch` (sm_90a: 90).
unsigned capabilityOf(StringRef arch) {
  StringRef digits = arch.drop_front(3).rtrim("af");
  unsigned n = 0;
  if (!arch.starts_with("sm_") || digits.getAsInteger(10, n))
    return 0;
  return n;
}

Object requestJSON(StringRef name, StringRef workdir, StringRef sourcePath,
                   unsigned capability, unsigned ptxVersion,
                   const TritonKernelSpec &spec) {
  llvm::json::Array args, aligned;
  for (const std::string &a : spec.args)
    args.push_back(a);
  for (unsigned i : spec.aligned)
    aligned.push_back(int64_t(i));
  Object constexprs, constexprPlaces;
  for (const TritonKernelSpec::Constexpr &c : spec.constexprs) {
    constexprs[c.name] = c.value;
    constexprPlaces[c.name] =
        llvm::json::Array{int64_t(c.line), int64_t(c.column)};
  }
  return Object{{"name", name},
                {"source", sourcePath},
                {"workdir", workdir},
                {"capability", int64_t(capability)},
                {"ptx_version", int64_t(ptxVersion)},
                {"kernel", Object{{"name", spec.name},
                                  {"line", int64_t(spec.line)},
                                  {"col", int64_t(spec.column)},
                                  {"constexpr_places",
                                   std::move(constexprPlaces)},
                                  {"args", std::move(args)},
                                  {"constexprs", std::move(constexprs)},
                                  {"num_warps", int64_t(spec.numWarps)},
                                  {"num_stages", int64_t(spec.numStages)},
                                  {"aligned", std::move(aligned)}}}};
}

llvm::Error writeFile(StringRef path, StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return llvm::createStringError("cannot write " + path + ": " +
                                   ec.message());
  os << text;
  os.close();
  if (os.has_error())
    return llvm::createStringError("cannot write " + path);
  return llvm::Error::success();
}

/// The driver's result into `result`; false when there is none to read.
bool readResult(StringRef path, StringRef name, CompiledTriton &result) {
  auto text = llvm::MemoryBuffer::getFile(path);
  if (!text || !(*text)->getBufferSize())
    return false;
  JSONLimits limits;
  limits.maxDepth = 16;
  auto value = parseJSON((*text)->getBuffer(), limits);
  if (!value) {
    result.log = "the Triton driver's result does not read: " +
                 llvm::toString(value.takeError());
    return false;
  }
  const Object *o = value->getAsObject();
  if (!o)
    return false;
  result.ok = o->getBoolean("ok").value_or(false);
  result.stage = result.ok ? TritonStage::None
                           : tritonStageByName(
                                 o->getString("stage").value_or(""));
  result.log = o->getString("log").value_or("").str();
  result.ptx = o->getString("ptx").value_or("").str();
  if (const llvm::json::Array *messages = o->getArray("messages"))
    for (const llvm::json::Value &m : *messages) {
      const Object *mo = m.getAsObject();
      if (!mo)
        continue;
      CompilerMessage message;
      message.file = name.str();
      message.line = unsigned(
          std::clamp<int64_t>(mo->getInteger("line").value_or(0), 0, 1 << 30));
      message.column = unsigned(
          std::clamp<int64_t>(mo->getInteger("col").value_or(0), 0, 1 << 30));
      message.error = true;
      message.text = mo->getString("text").value_or("").str();
      result.messages.push_back(std::move(message));
    }
  if (result.ok) {
    const llvm::json::Value *kernel = o->get("kernel");
    llvm::json::Path::Root root;
    if (!kernel || !fromJSON(*kernel, result.build, root)) {
      result.ok = false;
      result.stage = TritonStage::Child;
      result.log = "the Triton driver's metadata does not read: " +
                   (kernel ? llvm::toString(root.getError())
                           : std::string("none"));
      return true;
    }
  }
  if (const llvm::json::Array *params = o->getArray("params"))
    if (result.build.params.empty())
      for (const llvm::json::Value &p : *params)
        if (const Object *po = p.getAsObject())
          result.build.params.emplace_back(
              po->getString("name").value_or("").str(),
              po->getBoolean("constexpr").value_or(false));
  result.sandbox = o->getString("sandbox").value_or("").str();
  return true;
}

CompiledTriton childFailure(std::string log) {
  CompiledTriton result;
  result.stage = TritonStage::Child;
  result.log = std::move(log);
  return result;
}

} // namespace

CompiledTriton ptxbench::toolchain::compileTriton(
    StringRef source, StringRef name, StringRef arch,
    const TritonKernelSpec &spec, const TritonLimits &limits) {
  unsigned capability = capabilityOf(arch);
  if (capability < 80)
    return childFailure("Triton submissions compile for sm_80 and newer, not "
                        "for " + arch.str());
  unsigned ptxVersion = tritonPtxVersion();
  if (!ptxVersion)
    return childFailure("compiling Triton needs the CUDA toolkit's NVRTC (to "
                        "pick the PTX version): " +
                        [] {
                          std::string why;
                          canCompileCUDA(&why);
                          return why.empty() ? std::string("not found") : why;
                        }());
  std::string driver = tritonDriverPath(limits.helper);
  if (driver.empty())
    return childFailure("ptxbench-triton.py is not beside " + limits.helper +
                        " (the build copies it there)");
  llvm::Expected<TritonPython> python = tritonPython(limits);
  if (!python)
    return childFailure(llvm::toString(python.takeError()));
  auto mode = sandboxModeFromEnvironment();
  if (!mode)
    return childFailure(llvm::toString(mode.takeError()));
  noteSandboxFallbackOnce(*mode, llvm::errs());

  auto folder = support::TempFolder::create("triton");
  if (!folder)
    return childFailure("cannot create a temporary folder for Triton: " +
                        llvm::toString(folder.takeError()));
  StringRef workdir = folder->path();
  llvm::SmallString<128> sourcePath(workdir), requestPath(workdir),
      resultPath(workdir), outputPath(workdir);
  llvm::sys::path::append(outputPath, "output.txt");
  llvm::sys::path::append(sourcePath, "submission.py");
  llvm::sys::path::append(requestPath, "request.json");
  llvm::sys::path::append(resultPath, "result.json");
  Object request = requestJSON(name, workdir, sourcePath, capability,
                               ptxVersion, spec);
  if (llvm::Error e = writeFile(sourcePath, source))
    return childFailure(llvm::toString(std::move(e)));
  if (llvm::Error e = writeFile(
          requestPath,
          llvm::formatv("{0}", llvm::json::Value(std::move(request))).str()))
    return childFailure(llvm::toString(std::move(e)));

  support::ChildOptions child;
  child.argv = {limits.helper,
                "compile-triton",
                "--workdir=" + workdir.str(),
                "--python=" + python->executable,
                "--driver=" + driver,
                "--memory-mb=" + std::to_string(limits.memoryMB),
                "--cpu-seconds=" +
                    std::to_string(unsigned(limits.seconds) + 1)};
  for (const std::string &dir : python->searchPath)
    child.argv.push_back("--search-path=" + dir);
  child.ownGroup = true;
  child.outputPath = outputPath.str().str();
  auto finished = support::runChild(child, limits.seconds);
  if (!finished)
    return childFailure("cannot start the Triton compile process: " +
                        llvm::toString(finished.takeError()));
  if (finished->timedOut) {
    CompiledTriton result = childFailure(
        llvm::formatv("Triton did not finish compiling '{0}' within {1} s "
                      "(the compile limit, --compile-timeout); it was "
                      "stopped",
                      name, llvm::format("%g", limits.seconds))
            .str());
    result.timedOut = true;
    return result;
  }
  CompiledTriton result;
  if (!readResult(resultPath, name, result)) {
    std::string why = result.log;
    // What the interpreter said last (an import that failed, a traceback):
    // the reason when there is no result.
    uint64_t size = 0, keep = 1500;
    llvm::sys::fs::file_size(outputPath, size);
    if (auto output = llvm::MemoryBuffer::getFileSlice(
            outputPath, std::min(size, keep), size - std::min(size, keep))) {
      StringRef tail = (*output)->getBuffer().trim();
      if (!tail.empty())
        why += (why.empty() ? "" : "; ") + std::string("its output ends:\n") +
               (llvm::json::isUTF8(tail) ? tail.str()
                                         : llvm::json::fixUTF8(tail));
    }
    result = childFailure(
        finished->signal() == SIGXCPU
            ? llvm::formatv("Triton used up its CPU time compiling '{0}' "
                            "({1} s); it was stopped",
                            name, unsigned(limits.seconds) + 1)
                  .str()
            : llvm::formatv("Triton ended without a result compiling '{0}' "
                            "({1}{2}){3}",
                            name, finished->describe(),
                            finished->signal()
                                ? llvm::formatv("; out of its {0} MiB memory "
                                                "limit?",
                                                limits.memoryMB)
                                      .str()
                                : std::string(),
                            why.empty() ? "" : ": " + why)
                  .str());
    result.timedOut = finished->signal() == SIGXCPU;
  }
  return result;
}
