//===- Sass.cpp - Machine code inventory of a cubin -----------------------===//
//
// Runs nvdisasm on a temporary file and parses its listing: a `.text.NAME:`
// label opens each function, and each instruction line reads
// `/*0040*/  @!P0 HGMMA.64x128x16.F32 R24, gdesc[UR4], R24 ;`.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Toolchain/Sass.h"

#include "ptxbench/Support/RunTool.h"
#include "ptxbench/Support/TempFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace ptxbench;
using namespace ptxbench::toolchain;
using llvm::StringRef;

const SassFunction *SassListing::function(StringRef name) const {
  for (const SassFunction &f : functions)
    if (f.name == name)
      return &f;
  return nullptr;
}

SassListing ptxbench::toolchain::parseNvdisasm(StringRef text) {
  SassListing listing;
  for (StringRef line : llvm::split(text, '\n')) {
    StringRef trimmed = line.trim();
    if (trimmed.starts_with(".text.") && trimmed.ends_with(":")) {
      listing.functions.push_back(
          {trimmed.drop_front(6).drop_back().str(), {}});
      continue;
    }
    size_t close =
        trimmed.starts_with("/*") ? trimmed.find("*/") : StringRef::npos;
    if (close == StringRef::npos || listing.functions.empty())
      continue;
    StringRef inst = trimmed.drop_front(close + 2).ltrim();
    if (inst.starts_with("@")) // a guard: @P0, @!PT, @UP1
      inst = inst.drop_until([](char c) { return c == ' '; }).ltrim();
    StringRef opcode = inst.take_until(
        [](char c) { return c == ' ' || c == ';' || c == '.'; });
    if (!opcode.empty() && llvm::isUpper(opcode.front()))
      ++listing.functions.back().opcodes[opcode];
  }
  return listing;
}

std::optional<std::string> ptxbench::toolchain::findNvdisasm() {
  if (const char *env = getenv("PTXBENCH_NVDISASM"); env && *env)
    return std::string(env);
  if (auto found = llvm::sys::findProgramByName("nvdisasm"))
    return *found;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/nvdisasm"))
    return std::string("/usr/local/cuda/bin/nvdisasm");
  // The wheel installs under site-packages/nvidia/cu*/bin.
  auto python = llvm::sys::findProgramByName("python3");
  if (!python)
    return std::nullopt;
  auto out = support::runTool(
      {*python, "-c",
       "import sysconfig; print(sysconfig.get_paths()['purelib'])"},
      /*seconds=*/10, support::ToolStreams::StdoutOnly);
  if (!out) {
    llvm::consumeError(out.takeError());
    return std::nullopt;
  }
  if (!out->succeeded())
    return std::nullopt;
  StringRef purelib = StringRef(out->text).trim();
  for (StringRef cuda : {"cu13", "cu12"}) {
    llvm::SmallString<256> path(purelib);
    llvm::sys::path::append(path, "nvidia", cuda, "bin", "nvdisasm");
    if (llvm::sys::fs::can_execute(path))
      return std::string(path);
  }
  return std::nullopt;
}

llvm::Expected<SassListing>
ptxbench::toolchain::disassemble(llvm::ArrayRef<char> cubin,
                                 StringRef nvdisasm) {
  auto input = support::TempFile::write(
      "sass", "cubin", StringRef(cubin.data(), cubin.size()));
  if (!input)
    return input.takeError();
  auto out = support::runTool({nvdisasm.str(), "-c", input->path()},
                              /*seconds=*/60);
  if (!out)
    return out.takeError();
  if (!out->succeeded())
    return llvm::createStringError("nvdisasm failed (" +
                                   out->exit.describe() + "): " +
                                   StringRef(out->text).take_front(500));
  return parseNvdisasm(out->text);
}

bool ptxbench::toolchain::hasSassSignature(isa::Family family) {
  return llvm::any_of(isa::instructions(), [&](const isa::InstrInfo &info) {
    return info.family == family && !info.sass.empty();
  });
}

unsigned ptxbench::toolchain::sassCount(const SassFunction &function,
                                        isa::Family family) {
  llvm::StringSet<> opcodes;
  for (const isa::InstrInfo &info : isa::instructions())
    if (info.family == family)
      for (StringRef sass : info.sass)
        opcodes.insert(sass);
  unsigned count = 0;
  for (const auto &entry : opcodes)
    count += function.opcodes.lookup(entry.getKey());
  return count;
}
