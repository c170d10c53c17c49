//===- ModuleKernels.cpp - A module's kernels as a launch plan sees them --===//
//
// A parameter's size comes from its declaration as the importer keeps it
// (`.u64`, `.align 64 .b8` with dims [128]): the width of its type times
// its array dimensions.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Run/ModuleKernels.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace ptxbench;
using llvm::StringRef;

/// The bytes of one `.param` declaration; 0 when not known.
static uint64_t paramBytes(ptx::ParamAttr param) {
  uint64_t width = 0;
  llvm::SmallVector<StringRef> words;
  llvm::SplitString(param.getDecl(), words, " \t");
  for (StringRef w : words) {
    // .b8 .u16 .s32 .f64 ... (a type is a letter and its width in bits)
    unsigned bits;
    if (w.size() > 2 && w[0] == '.' && StringRef("bsuf").contains(w[1]) &&
        !w.drop_front(2).getAsInteger(10, bits) && bits % 8 == 0) {
      width = bits / 8;
      break;
    }
  }
  for (int64_t dim : param.getDims().asArrayRef()) {
    bool overflow = false;
    if (dim <= 0)
      return 0;
    width = llvm::SaturatingMultiply(width, uint64_t(dim), &overflow);
    if (overflow) // no kernel takes that much: not known
      return 0;
  }
  return width;
}

std::vector<runtime::ModuleKernel>
ptxbench::run::moduleKernels(ptx::ModuleOp module) {
  std::vector<runtime::ModuleKernel> kernels;
  for (ptx::FuncOp func : module.getOps<ptx::FuncOp>()) {
    if (!func.getEntry())
      continue;
    runtime::ModuleKernel &k = kernels.emplace_back();
    k.name = func.getSymName().str();
    for (ptx::ParamAttr p : func.getParams().getAsRange<ptx::ParamAttr>())
      k.paramBytes.push_back(paramBytes(p));
  }
  return kernels;
}
