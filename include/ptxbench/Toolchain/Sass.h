//===- Sass.h - Machine code inventory of a cubin --------------*- C++ -*-===//
//
// Disassembles a cubin with nvdisasm (from the CUDA toolkit, or from PyPI's
// nvidia-cuda-nvdisasm wheel) and counts each function's SASS opcodes, so
// a requested feature family can be confirmed in machine code: HGMMA for
// wgmma, UTMALDG for TMA, UTC*MMA for tcgen05. The PTX-family to SASS
// mapping lives in the ISA table (each record's `Sass` list).
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_TOOLCHAIN_SASS_H
#define PTXBENCH_TOOLCHAIN_SASS_H

#include "ptxbench/ISA/ISA.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace ptxbench::toolchain {

/// One function's opcodes (without modifiers: HGMMA.64x128x16.F32 counts as
/// HGMMA) and how often each appears.
struct SassFunction {
  std::string name;
  llvm::StringMap<unsigned> opcodes;
};

struct SassListing {
  std::vector<SassFunction> functions;
  const SassFunction *function(llvm::StringRef name) const;
};

/// Parses `nvdisasm -c` output.
SassListing parseNvdisasm(llvm::StringRef text);

/// The nvdisasm to use: $PTXBENCH_NVDISASM, then PATH, the CUDA toolkit,
/// and the nvidia-cuda-nvdisasm wheel of python3. None when there is none.
std::optional<std::string> findNvdisasm();

/// Disassembles `cubin` with `nvdisasm`.
llvm::Expected<SassListing> disassemble(llvm::ArrayRef<char> cubin,
                                        llvm::StringRef nvdisasm);

/// Whether any ISA record of `family` lists SASS opcodes, so the family can
/// be confirmed in machine code at all.
bool hasSassSignature(isa::Family family);

/// How many instructions of `function` confirm `family`, by the SASS
/// opcodes of the family's ISA records.
unsigned sassCount(const SassFunction &function, isa::Family family);

} // namespace ptxbench::toolchain

#endif // PTXBENCH_TOOLCHAIN_SASS_H
