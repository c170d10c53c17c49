//===- Repair.cpp - How a teacher's repair names the failure it fixes -----===//
//
// The names shared by `generate --repair-from` (which writes the repairs)
// and `fixit` (which pairs them): a repair's sample id is a hash of the
// failed sample's key, and a kernel is known by its canonical hash.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Eval/Repair.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

using namespace ptxbench::eval;

namespace {

std::string sha256(llvm::StringRef text) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(text)),
                     /*LowerCase=*/true);
}

} // namespace

std::string ptxbench::eval::repairSampleId(const SampleKey &failed) {
  return "r" + sha256(failed.str()).substr(0, 16);
}

std::string ptxbench::eval::kernelIdentity(const SampleRecord &r) {
  return r.canonicalHash.empty() ? "text:" + sha256(r.code) : r.canonicalHash;
}
