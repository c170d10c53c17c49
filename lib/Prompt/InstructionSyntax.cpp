//===- InstructionSyntax.cpp - Instruction syntax from the ISA table ------===//
//
// Renders the ISA table's records of some feature families as a compact
// syntax reference for a prompt. Everything comes from isa::instructions();
// the only knowledge here is which families are used together.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Prompt/InstructionSyntax.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace llvm;
using namespace ptxbench;
using namespace ptxbench::prompt;

std::optional<unsigned> prompt::targetSM(StringRef arch) {
  if (!arch.consume_front("sm_"))
    return std::nullopt;
  if (arch.ends_with("a") || arch.ends_with("f"))
    arch = arch.drop_back();
  unsigned sm;
  if (arch.empty() || arch.getAsInteger(10, sm))
    return std::nullopt;
  return sm;
}

bool prompt::availableOn(const isa::InstrInfo &info, StringRef arch) {
  std::optional<unsigned> sm = targetSM(arch);
  if (!sm)
    return false;
  if (info.isArchSpecific()) {
    bool suffixed = arch.ends_with("a") || arch.ends_with("f");
    return suffixed && is_contained(info.archSpecificSM, *sm);
  }
  return info.minSM <= *sm;
}

//===----------------------------------------------------------------------===//
// Compact slot values
//===----------------------------------------------------------------------===//

namespace {

/// A value split into its text and its digit runs: ".m64n8k16" is the
/// template ".m#n#k#" with numbers 64, 8, 16.
struct Split {
  std::string templ;
  SmallVector<uint64_t, 4> numbers;
};

Split splitNumbers(StringRef value) {
  Split s;
  size_t i = 0;
  while (i < value.size()) {
    if (isDigit(value[i])) {
      size_t j = i;
      while (j < value.size() && isDigit(value[j]))
        ++j;
      uint64_t n = 0;
      if (value.slice(i, j).getAsInteger(10, n) || (j - i > 1 && value[i] == '0'))
        s.templ += value.slice(i, j); // keep odd numbers literal
      else {
        s.templ += '#';
        s.numbers.push_back(n);
      }
      i = j;
    } else {
      s.templ += value[i++];
    }
  }
  return s;
}

std::string renderNumbers(std::vector<uint64_t> numbers) {
  llvm::sort(numbers);
  if (numbers.size() == 1)
    return std::to_string(numbers[0]);
  bool arithmetic = numbers.size() >= 4;
  for (size_t i = 2; arithmetic && i < numbers.size(); ++i)
    arithmetic = numbers[i] - numbers[i - 1] == numbers[1] - numbers[0];
  if (arithmetic) {
    std::string s = "{" + std::to_string(numbers.front()) + ".." +
                    std::to_string(numbers.back());
    if (numbers[1] - numbers[0] != 1)
      s += " step " + std::to_string(numbers[1] - numbers[0]);
    return s + "}";
  }
  std::string s = "{";
  for (size_t i = 0; i < numbers.size(); ++i)
    s += (i ? "," : "") + std::to_string(numbers[i]);
  return s + "}";
}

} // namespace

std::string prompt::compactValues(ArrayRef<StringRef> values) {
  // Groups by template, in order of first appearance.
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::pair<StringRef, Split>>> groups;
  for (StringRef v : values) {
    Split s = splitNumbers(v);
    auto &g = groups[s.templ];
    if (g.empty())
      order.push_back(s.templ);
    g.push_back({v, std::move(s)});
  }
  std::vector<std::string> parts;
  bool compacted = false;
  for (const std::string &templ : order) {
    auto &g = groups[templ];
    size_t runs = g.front().second.numbers.size();
    std::vector<std::vector<uint64_t>> distinct(runs);
    for (auto &[v, s] : g)
      for (size_t r = 0; r < runs; ++r)
        if (!is_contained(distinct[r], s.numbers[r]))
          distinct[r].push_back(s.numbers[r]);
    size_t product = 1;
    for (auto &d : distinct)
      product *= d.size();
    // Only a full cartesian product of more than 16 values is compacted.
    if (g.size() <= 16 || runs == 0 || product != g.size()) {
      for (auto &[v, s] : g)
        parts.push_back(v.str());
      continue;
    }
    std::string out;
    size_t run = 0;
    for (char c : templ)
      out += c == '#' ? renderNumbers(distinct[run++]) : std::string(1, c);
    parts.push_back(out);
    compacted = true;
  }
  // Nothing compacted: the values in their own order.
  if (!compacted)
    return join(values, " ");
  return join(parts, " ");
}

//===----------------------------------------------------------------------===//
// Families and records
//===----------------------------------------------------------------------===//

/// Families whose instructions the named one is used with; listed after the
/// requested ones so a prompt shows a usable set (a TMA load needs an
/// mbarrier to wait on, tcgen05.mma needs tensor memory).
static ArrayRef<StringLiteral> companionsOf(StringRef family) {
  static constexpr StringLiteral tma[] = {"mbarrier_tx", "mbarrier",
                                          "async_proxy_fence"};
  static constexpr StringLiteral mbarrierTx[] = {"mbarrier"};
  static constexpr StringLiteral tcgen05[] = {"tmem", "mbarrier"};
  static constexpr StringLiteral dsmem[] = {"cluster_barrier"};
  if (family == "tma")
    return tma;
  if (family == "mbarrier_tx")
    return mbarrierTx;
  if (family == "tcgen05")
    return tcgen05;
  if (family == "dsmem")
    return dsmem;
  return {};
}

Expected<std::vector<std::pair<isa::Family, bool>>>
prompt::familiesToShow(ArrayRef<std::string> requested) {
  std::vector<std::pair<isa::Family, bool>> out;
  auto seen = [&](isa::Family f) {
    return any_of(out, [&](const auto &p) { return p.first == f; });
  };
  // A requirement may name alternatives ("bulk_copy|tma"): show each.
  for (const std::string &name : requested) {
    std::optional<SmallVector<isa::Family, 2>> families =
        isa::familiesOfRequirement(name);
    if (!families)
      return createStringError("unknown feature family in '" + name + "'");
    for (isa::Family f : *families)
      if (!seen(f))
        out.push_back({f, true});
  }
  // Then the companions of each requested family, in the same order.
  const size_t numRequested = out.size();
  for (size_t i = 0; i < numRequested; ++i) {
    const isa::Family member = out[i].first; // out grows below
    for (StringRef companion : companionsOf(isa::familyName(member)))
      if (std::optional<isa::Family> f = isa::familyByName(companion))
        if (!seen(*f))
          out.push_back({*f, false});
  }
  return out;
}

static std::string ptxVersion(unsigned times10) {
  return std::to_string(times10 / 10) + "." + std::to_string(times10 % 10);
}

/// What a record needs: the PTX ISA version and the target, e.g.
/// {"PTX ISA 8.0+", "the sm_90a target (architecture-specific)"}.
static std::pair<std::string, std::string>
requirement(const isa::InstrInfo &info, StringRef arch) {
  std::string ptx = "PTX ISA " + ptxVersion(info.minPTX) + "+";
  if (info.isArchSpecific())
    return {ptx, "the " + arch.str() + " target (architecture-specific)"};
  return {ptx, "sm_" + std::to_string(info.minSM) + " or newer"};
}

static std::string operandList(const isa::InstrInfo &info) {
  std::string s;
  for (size_t i = 0; i < info.operands.size(); ++i) {
    const isa::OperandRole &role = info.operands[i];
    std::string name = role.written ? (role.read ? "ds" : "d") : "s";
    if (role.variadic)
      name += "...";
    if (role.optional)
      s += std::string(i ? " " : "") + "[" + (i ? ", " : "") + name + "]";
    else
      s += (i ? ", " : "") + name;
  }
  return s;
}

Expected<std::string>
prompt::renderInstructionSyntax(ArrayRef<std::string> requested,
                                StringRef arch) {
  auto families = familiesToShow(requested);
  if (!families)
    return families.takeError();
  std::string text;
  raw_string_ostream os(text);
  os << "## Instruction syntax (" << arch << ")\n\n"
     << "Generated from ptxbench's ISA table. Each line is a mnemonic, its "
        "modifier slots (write at most one value of each, in PTX's usual "
        "order) and its operands: `d` written, `s` read, `ds` read and "
        "written, `[...]` optional, `...` any number more.\n";
  for (auto [family, wasRequested] : *families) {
    std::vector<const isa::InstrInfo *> records;
    unsigned unavailable = 0;
    for (const isa::InstrInfo &info : isa::instructions())
      if (info.family == family)
        (availableOn(info, arch) ? records.push_back(&info)
                                 : (void)++unavailable);
    os << "\n### " << isa::familyName(family) << ": "
       << isa::familySummary(family);
    if (!wasRequested)
      os << " (used with the requested families)";
    os << "\n\n";
    if (records.empty()) {
      os << "Not available on " << arch << ".\n";
      continue;
    }
    // The most common requirement goes in the header; others per line.
    std::map<std::pair<std::string, std::string>, unsigned> counts;
    for (const isa::InstrInfo *info : records)
      ++counts[requirement(*info, arch)];
    std::pair<std::string, std::string> common = std::max_element(counts.begin(), counts.end(),
                                          [](auto &a, auto &b) {
                                            return a.second < b.second;
                                          })
                             ->first;
    os << "Needs " << common.first << " and " << common.second
       << ".\n\n```text\n";
    // Slot legend: values -> slot names and the mnemonics using them, in
    // order of first use.
    struct LegendEntry {
      std::string values;
      std::vector<std::pair<std::string, std::vector<std::string>>> names;
    };
    std::vector<LegendEntry> legend;
    for (const isa::InstrInfo *info : records) {
      std::string line = info->mnemonic.str();
      for (const isa::Slot &slot : info->slots) {
        if (slot.values.size() == 1) {
          line += "[" + slot.values.front().str() + "]";
          continue;
        }
        std::string name = "." + slot.name.str();
        line += "[" + name + "]";
        std::string values = compactValues(slot.values);
        auto it = find_if(legend, [&](auto &e) { return e.values == values; });
        if (it == legend.end())
          it = legend.insert(legend.end(), LegendEntry{values, {}});
        auto n = find_if(it->names, [&](auto &p) { return p.first == name; });
        if (n == it->names.end())
          n = it->names.insert(it->names.end(), {name, {}});
        n->second.push_back(info->mnemonic.str());
      }
      std::string ops = operandList(*info);
      if (!ops.empty())
        line += " " + ops;
      line += ";";
      os << line << "\n    " << info->summary;
      auto [ptx, target] = requirement(*info, arch);
      std::vector<std::string> needs;
      if (ptx != common.first)
        needs.push_back(ptx);
      if (target != common.second)
        needs.push_back(target);
      if (!needs.empty())
        os << " (needs " << join(needs, " and ") << ")";
      os << "\n";
    }
    os << "```\n";
    if (!legend.empty()) {
      std::map<std::string, unsigned> uses;
      for (const LegendEntry &e : legend)
        for (auto &n : e.names)
          ++uses[n.first];
      os << "\nSlots:\n";
      for (const LegendEntry &e : legend) {
        std::vector<std::string> names;
        for (auto &[name, mnemonics] : e.names)
          // A name with different values elsewhere in the family says
          // where these apply.
          names.push_back("`" + name + "`" +
                          (uses[name] > 1 ? " of " + join(mnemonics, ", ")
                                          : std::string()));
        os << "- " << join(names, ", ") << ": " << e.values << "\n";
      }
    }
    if (unavailable)
      os << "\n(" << unavailable << " more " << isa::familyName(family)
         << " instruction" << (unavailable == 1 ? " is" : "s are")
         << " not available on " << arch << ".)\n";
  }
  return text;
}
