//===- ISATest.cpp - Tests of the ISA table lookups -----------------------===//

#include "ptxbench/ISA/ISA.h"

#include "gtest/gtest.h"

using namespace ptxbench::isa;

namespace {

TEST(ISATest, LongestMnemonicWins) {
  const InstrInfo *tma = lookup("cp.async.bulk.tensor.2d.shared::cluster."
                                "global.tile.mbarrier::complete_tx::bytes");
  ASSERT_NE(tma, nullptr);
  EXPECT_EQ(tma->mnemonic, "cp.async.bulk.tensor");
  EXPECT_EQ(tma->family, Family::Tma);
  EXPECT_EQ(tma->kind, OpKind::Tma);

  const InstrInfo *bulk = lookup(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes");
  ASSERT_NE(bulk, nullptr);
  EXPECT_EQ(bulk->mnemonic, "cp.async.bulk");
  EXPECT_EQ(bulk->family, Family::BulkCopy);

  const InstrInfo *cpAsync = lookup("cp.async.cg.shared.global");
  ASSERT_NE(cpAsync, nullptr);
  EXPECT_EQ(cpAsync->family, Family::CpAsync);
}

TEST(ISATest, TransactionCountMbarrierIsItsOwnFamily) {
  const InstrInfo *expect = lookup("mbarrier.arrive.expect_tx.shared::cta.b64");
  ASSERT_NE(expect, nullptr);
  EXPECT_EQ(expect->family, Family::MbarrierTx);
  const InstrInfo *arrive = lookup("mbarrier.arrive.shared::cta.b64");
  ASSERT_NE(arrive, nullptr);
  EXPECT_EQ(arrive->family, Family::Mbarrier);
}

TEST(ISATest, UnknownOpcodes) {
  EXPECT_EQ(lookup("frobnicate.u32"), nullptr);
  EXPECT_EQ(lookup(""), nullptr);
  EXPECT_EQ(lookup(".reg"), nullptr);
}

TEST(ISATest, ModifiersAndOperands) {
  const InstrInfo *add = lookup("add.s32");
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(add->allowsModifier(".s32"));
  EXPECT_FALSE(add->allowsModifier(".shared::cluster"));
  EXPECT_EQ(add->minOperands(), 3u);
  EXPECT_EQ(add->maxOperands(), std::optional<unsigned>(3));
  ASSERT_TRUE(add->operandRole(0));
  EXPECT_TRUE(add->operandRole(0)->written);
  EXPECT_FALSE(add->operandRole(0)->read);
  EXPECT_TRUE(add->operandRole(1)->read);
  EXPECT_FALSE(add->operandRole(3));

  auto mods = modifiers("ld.global.nc.v4.f32", *lookup("ld.global.nc.v4.f32"));
  std::vector<std::string> got(mods.begin(), mods.end());
  EXPECT_GE(got.size(), 2u);
  EXPECT_EQ(got.back(), ".f32");
}

TEST(ISATest, ArchSpecificTargets) {
  const InstrInfo *wgmma = lookup("wgmma.mma_async.sync.aligned.m64n128k16."
                                  "f32.bf16.bf16");
  ASSERT_NE(wgmma, nullptr);
  EXPECT_TRUE(wgmma->isArchSpecific());
  EXPECT_EQ(wgmma->archSpecificSM.front(), 90);
  EXPECT_GE(wgmma->minPTX, 80);
  EXPECT_TRUE(wgmma->allowsModifier(".m64n256k16"));
  EXPECT_FALSE(wgmma->allowsModifier(".m64n257k16"));

  const InstrInfo *mma = lookup("mma.sync.aligned.m16n8k16.row.col.f32.bf16."
                                "bf16.f32");
  ASSERT_NE(mma, nullptr);
  EXPECT_FALSE(mma->isArchSpecific());
  EXPECT_EQ(mma->family, Family::MmaSync);
}

TEST(ISATest, FamiliesHaveNames) {
  EXPECT_EQ(familyName(Family::Wgmma), "wgmma");
  EXPECT_TRUE(isArchSpecificFamily(Family::Tcgen05));
  EXPECT_FALSE(isArchSpecificFamily(Family::MmaSync));
  EXPECT_EQ(familyByName("tma"), std::optional<Family>(Family::Tma));
  EXPECT_EQ(familyByName("nonsense"), std::nullopt);
  // Every record's mnemonic resolves to itself.
  for (const InstrInfo &info : instructions())
    EXPECT_EQ(lookup(info.mnemonic), &info) << info.mnemonic.str();
}

TEST(ISATest, RequirementAlternatives) {
  // A task's requirement: one family, or alternatives joined by '|'.
  auto one = familiesOfRequirement("wgmma");
  ASSERT_TRUE(one);
  EXPECT_EQ(*one, (llvm::SmallVector<Family, 2>{*familyByName("wgmma")}));
  auto two = familiesOfRequirement("bulk_copy|tma");
  ASSERT_TRUE(two);
  EXPECT_EQ(*two, (llvm::SmallVector<Family, 2>{*familyByName("bulk_copy"),
                                                *familyByName("tma")}));
  // Repeats collapse; any unknown member makes the whole one unknown.
  EXPECT_EQ(familiesOfRequirement("tma|tma")->size(), 1u);
  EXPECT_FALSE(familiesOfRequirement("tma|tensorcore"));
  EXPECT_FALSE(familiesOfRequirement(""));
}

} // namespace
