//===- Containment.cpp - Bounded output capture, guarded layouts ----------===//
//
// The plain host code behind the worker's output capture, the guarded
// device allocations, the number of rotated input sets and the refused
// device-runtime calls (Containment.h).
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Runtime/Containment.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"

#include <algorithm>
#include <cstring>

using namespace ptxbench::runtime;

void OutputCapture::append(llvm::StringRef bytes) {
  totalBytes += bytes.size();
  if (headText.size() < headLimit) {
    size_t take = std::min(headLimit - headText.size(), bytes.size());
    headText += bytes.take_front(take).str();
    bytes = bytes.drop_front(take);
  }
  if (tailLimit == 0 || bytes.empty())
    return;
  // Only the last tailLimit bytes of this chunk can survive.
  if (bytes.size() > tailLimit)
    bytes = bytes.take_back(tailLimit);
  for (char c : bytes) {
    if (ring.size() < tailLimit) {
      ring.push_back(c);
      continue;
    }
    ring[ringStart] = c;
    ringStart = (ringStart + 1) % tailLimit;
  }
}

std::string OutputCapture::tail() const {
  return ring.substr(ringStart) + ring.substr(0, ringStart);
}

uint64_t OutputCapture::omitted() const {
  return totalBytes - headText.size() - ring.size();
}

void OutputCapture::clear() {
  totalBytes = 0;
  headText.clear();
  ring.clear();
  ringStart = 0;
}

static uint64_t roundUp(uint64_t v, uint64_t to) {
  return (v + to - 1) / to * to;
}

GuardedLayout ptxbench::runtime::guardedLayout(uint64_t bytes,
                                               uint64_t granularity,
                                               uint64_t guardBytes,
                                               uint64_t alignment) {
  GuardedLayout l;
  bytes = std::max<uint64_t>(bytes, 1);
  alignment = std::clamp<uint64_t>(alignment, 1, granularity);
  l.granularity = granularity;
  l.guardBytes = roundUp(std::max(guardBytes, granularity), granularity);
  l.mappedBytes = roundUp(bytes, granularity);
  // End the buffer at the end of the mapping, then move its start down to
  // the alignment; what that costs stays mapped after the end (slack).
  uint64_t start = l.mappedBytes - bytes;
  l.offset = start / alignment * alignment;
  l.slack = l.mappedBytes - l.offset - bytes;
  l.reservedBytes = l.mappedBytes + 2 * l.guardBytes;
  return l;
}

unsigned ptxbench::runtime::inputSetCount(uint64_t bytesPerSet,
                                          uint64_t budgetBytes,
                                          unsigned maxSets) {
  uint64_t fit = bytesPerSet ? budgetBytes / bytesPerSet : maxSets;
  return unsigned(std::clamp<uint64_t>(fit, 2, std::max(maxSets, 2u)));
}

namespace {
/// A bounded read of a T at `offset` of `image`.
template <typename T>
bool readAt(llvm::StringRef image, uint64_t offset, T &out) {
  if (offset > image.size() || image.size() - offset < sizeof(T))
    return false;
  std::memcpy(&out, image.data() + offset, sizeof(T));
  return true;
}
} // namespace

llvm::Expected<std::vector<std::string>>
ptxbench::runtime::refusedDeviceCalls(llvm::StringRef cubin) {
  using namespace llvm::ELF;
  auto bad = [](const char *what) {
    return llvm::createStringError(
        llvm::Twine("the compiled module is not a readable ELF image (") +
        what + ")");
  };
  Elf64_Ehdr header;
  if (!readAt(cubin, 0, header) ||
      llvm::StringRef(reinterpret_cast<const char *>(header.e_ident), 4) !=
          llvm::StringRef(ElfMagic, 4))
    return bad("no ELF header");
  if (header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != ELFDATA2LSB ||
      header.e_shentsize != sizeof(Elf64_Shdr))
    return bad("not 64-bit little-endian");
  auto sectionAt = [&](uint64_t index, Elf64_Shdr &out) {
    return index < header.e_shnum &&
           readAt(cubin, header.e_shoff + index * sizeof(Elf64_Shdr), out);
  };
  std::vector<std::string> refused;
  for (uint64_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr symtab, strtab;
    if (!sectionAt(i, symtab))
      return bad("a section header lies outside the image");
    if (symtab.sh_type != SHT_SYMTAB)
      continue;
    if (!sectionAt(symtab.sh_link, strtab) || strtab.sh_offset > cubin.size() ||
        cubin.size() - strtab.sh_offset < strtab.sh_size)
      return bad("the symbol names lie outside the image");
    llvm::StringRef names = cubin.substr(strtab.sh_offset, strtab.sh_size);
    for (uint64_t offset = symtab.sh_offset;
         offset + sizeof(Elf64_Sym) <= symtab.sh_offset + symtab.sh_size;
         offset += sizeof(Elf64_Sym)) {
      Elf64_Sym symbol;
      if (!readAt(cubin, offset, symbol))
        return bad("a symbol lies outside the image");
      if (symbol.st_shndx != SHN_UNDEF || symbol.getType() != STT_FUNC)
        continue;
      if (symbol.st_name >= names.size())
        return bad("a symbol's name lies outside the image");
      llvm::StringRef name = names.drop_front(symbol.st_name);
      name = name.take_until([](char c) { return c == 0; });
      if (name != "vprintf" && name != "__assertfail" &&
          !llvm::is_contained(refused, name))
        refused.push_back(name.str());
    }
  }
  return refused;
}

std::string
ptxbench::runtime::refusedDeviceCallsMessage(llvm::ArrayRef<std::string> names) {
  std::string quoted;
  for (const std::string &n : names)
    quoted += (quoted.empty() ? "'" : ", '") + n + "'";
  return "the compiled kernels call " + quoted +
         ", which the harness does not provide: device-side malloc/free "
         "would keep a heap from one launch to the next, and device-side "
         "launches would run work outside the timed launch. Declare the "
         "memory a kernel needs as a workspace in the launch plan "
         "(docs/launch-plan.md) and launch every kernel from the plan";
}
