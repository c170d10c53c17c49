//===- ISABase.td - Classes of the PTX instruction table ---*- tablegen -*-===//
//
// The vocabulary of the ISA table, the one place where ptxbench records what
// it knows about PTX instructions. `Instructions.td` holds the records;
// `ptxbench-tblgen` turns them into C++ tables (-gen-isa-table) and into the
// coverage page under docs/ (-gen-isa-doc). The importer validates opcodes,
// modifiers and operand counts against these records; the analysis passes read
// each instruction's feature family and target requirements from them.
//
//===----------------------------------------------------------------------===//

#ifndef PTXBENCH_ISA_ISABASE_TD
#define PTXBENCH_ISA_ISABASE_TD

//===----------------------------------------------------------------------===//
// Feature families
//===----------------------------------------------------------------------===//

// A hardware feature family. `ArchSpecific` marks the families that exist
// only on architecture-specific targets (sm_90a, sm_100a, ...): the ones a
// task can request and a model can fail to use.
class Family<string name, string summary, bit archSpecific = 0> {
  string Name = name;
  string Summary = summary;
  bit ArchSpecific = archSpecific;
}

// Architecture-specific families (Hopper and Blackwell).
def FamWgmma : Family<"wgmma", "warpgroup matrix multiply-accumulate (wgmma.*)", 1>;
def FamTma : Family<"tma", "tensor memory accelerator copies (cp.async.bulk.tensor, cp.reduce.async.bulk.tensor)", 1>;
def FamBulkCopy : Family<"bulk_copy", "non-tensor bulk asynchronous copies (cp.async.bulk, st.bulk)", 1>;
def FamBulkReduce : Family<"bulk_reduce", "bulk asynchronous reductions (cp.reduce.async.bulk)", 1>;
def FamMbarrier : Family<"mbarrier", "shared-memory barrier objects (mbarrier.*)">;
def FamMbarrierTx : Family<"mbarrier_tx", "transaction-count mbarrier operations (expect_tx, complete_tx)", 1>;
def FamSetMaxNReg : Family<"setmaxnreg", "warpgroup register reallocation (setmaxnreg)", 1>;
def FamClusterBarrier : Family<"cluster_barrier", "thread-block cluster barriers (barrier.cluster.*)", 1>;
def FamDsmem : Family<"dsmem", "distributed shared memory (mapa, shared::cluster accesses, getctarank)", 1>;
def FamElect : Family<"elect", "leader election in a warp (elect.sync)", 1>;
def FamStmatrix : Family<"stmatrix", "matrix stores to shared memory (stmatrix)", 1>;
def FamAsyncProxyFence : Family<"async_proxy_fence", "proxy fences between generic and async proxies (fence.proxy.async, fence.mbarrier_init)", 1>;
def FamTensormap : Family<"tensormap", "in-kernel tensor-map updates (tensormap.*)", 1>;
def FamGridDepControl : Family<"griddepcontrol", "programmatic dependent launch (griddepcontrol.*)", 1>;
def FamMultimem : Family<"multimem", "multimem operations on NVLink multicast objects", 1>;
def FamRedAsync : Family<"red_async", "asynchronous remote reductions and stores (red.async, st.async)", 1>;
def FamTcgen05 : Family<"tcgen05", "fifth-generation tensor core operations (tcgen05.mma, commit, fence, wait)", 1>;
def FamTmem : Family<"tmem", "tensor memory management and movement (tcgen05.alloc, ld, st, cp, shift)", 1>;
def FamClusterLaunchControl : Family<"clc", "cluster launch control (clusterlaunchcontrol.*)", 1>;

// Generic families: the patterns models fall back to, and everything else.
def FamMmaSync : Family<"mma_sync", "warp-level matrix multiply-accumulate (mma.sync)">;
def FamLdmatrix : Family<"ldmatrix", "warp-level matrix loads from shared memory (ldmatrix)">;
def FamCpAsync : Family<"cp_async", "non-bulk asynchronous copies (cp.async)">;
def FamWmma : Family<"wmma", "legacy warp matrix operations (wmma.*)">;
def FamFloatArith : Family<"float_arith", "floating-point arithmetic (add, mul, fma, ... on .f16/.bf16/.f32/.f64)">;
def FamIntArith : Family<"int_arith", "integer, bit and logic arithmetic">;
def FamConvert : Family<"convert", "conversions and data movement between registers (cvt, mov, prmt, ...)">;
def FamCompare : Family<"compare", "comparisons and selects (setp, selp, set, slct)">;
def FamLoad : Family<"load", "loads, by state space (ld, ldu, prefetch)">;
def FamStore : Family<"store", "stores, by state space (st)">;
def FamAtomic : Family<"atomic", "atomic and reduction operations (atom, red)">;
def FamBarrier : Family<"barrier", "CTA barriers (bar, barrier)">;
def FamMemoryOrder : Family<"memory_order", "fences and memory barriers (membar, fence)">;
def FamWarp : Family<"warp", "warp-level data exchange and votes (shfl, vote, match, redux, activemask)">;
def FamControl : Family<"control", "control flow (bra, brx.idx, call, ret, exit, trap)">;
def FamTexture : Family<"texture", "textures, samplers and surfaces (tex, tld4, suld, sust, txq, ...)">;
def FamVideo : Family<"video", "SIMD video instructions (vadd, vmad, ...)">;
def FamMisc : Family<"misc", "everything else (nanosleep, pmevent, brkpt, alloca, ...)">;

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

// A modifier slot: one position in the dotted opcode where exactly one of
// `Values` (each with its leading dot, e.g. ".shared::cta") may appear.
class Slot<string name, list<string> values> {
  string Name = name;
  list<string> Values = values;
}

// The typed MLIR op the importer builds for an instruction; `Generic` is the
// one catch-all instruction op.
class OpKind<string name> { string Name = name; }
def OpGeneric : OpKind<"Generic">;
def OpWgmma : OpKind<"Wgmma">;
def OpTma : OpKind<"Tma">;
def OpMbarrier : OpKind<"Mbarrier">;
def OpTcgen05 : OpKind<"Tcgen05">;
def OpSetMaxNReg : OpKind<"SetMaxNReg">;
def OpMmaSync : OpKind<"MmaSync">;
def OpCpAsync : OpKind<"CpAsync">;
def OpMatrixMove : OpKind<"MatrixMove">; // ldmatrix, stmatrix
def OpBranch : OpKind<"Branch">;         // bra
def OpBranchIndex : OpKind<"BranchIndex">; // brx.idx
def OpCall : OpKind<"Call">;
def OpReturn : OpKind<"Return">;         // ret, exit

// One PTX instruction, identified by its dotted mnemonic (the opcode up to
// its first modifier slot, e.g. "cp.async.bulk.tensor"). An opcode in a PTX
// file matches the record with the longest mnemonic that is a dotted prefix
// of it; every remaining `.modifier` must be a value of one of `Slots`.
//
// `Operands` lists the operands in order by role: "d" is written, "s" is
// read, "ds" is read and written; a trailing "?" marks an optional operand
// and a trailing "*" any number of further ones (only last). A vector
// operand `{a, b}` counts as one operand.
//
// `MinPTX` is the PTX ISA version times ten (78 is 7.8); `MinSM` the oldest
// target (90 is sm_90). When `ArchSpecificSM` is not empty, the instruction
// exists only on the architecture-specific targets of those SMs (sm_90a,
// sm_100a, ...) or their family-specific forms (sm_100f), not on newer plain
// targets.
class Instr<string mnemonic, Family family> {
  string Mnemonic = mnemonic;
  Family Fam = family;
  list<Slot> Slots = [];
  list<string> Operands = [];
  int MinPTX = 10;
  int MinSM = 20;
  list<int> ArchSpecificSM = [];
  OpKind Kind = OpGeneric;
  // SASS opcodes that confirm this instruction in machine code (--sass).
  list<string> Sass = [];
  string Summary = "";
}

//===----------------------------------------------------------------------===//
// Slots shared by many instructions
//===----------------------------------------------------------------------===//

def SlotType : Slot<"type", [".b8", ".b16", ".b32", ".b64", ".b128",
    ".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64",
    ".f16", ".f16x2", ".bf16", ".bf16x2", ".tf32", ".f32", ".f64",
    ".e4m3", ".e5m2", ".e4m3x2", ".e5m2x2", ".e2m3x2", ".e3m2x2", ".e2m1x2",
    ".ue8m0x2", ".f32x2", ".pred"]>;
def SlotVec : Slot<"vec", [".v2", ".v4", ".v8"]>;
def SlotStateSpace : Slot<"space", [".global", ".shared", ".shared::cta",
    ".shared::cluster", ".local", ".const", ".param", ".param::entry",
    ".param::func"]>;
def SlotSync : Slot<"sync", [".sync"]>;
def SlotAligned : Slot<"aligned", [".aligned"]>;
def SlotSem : Slot<"sem", [".relaxed", ".acquire", ".release", ".acq_rel",
    ".sc", ".weak", ".volatile", ".mmio"]>;
def SlotScope : Slot<"scope", [".cta", ".cluster", ".gpu", ".sys"]>;

#endif // PTXBENCH_ISA_ISABASE_TD
