//===- Instructions.td - The PTX ISA 9.0 instruction table --*- tablegen -*-===//
//
// One record per PTX instruction of PTX ISA 9.0 (what the ptxas of CUDA 13.0
// accepts), in the order of the ISA's chapter 9. Each record names the dotted
// mnemonic an opcode is matched against (the longest matching one wins), the
// modifiers that may follow it grouped into slots, the roles of its operands,
// the oldest PTX version and target that accept it, and the SASS opcodes that
// confirm it in machine code. Where one PTX instruction is spelled with
// different leading modifiers that decide its family (add.s32 vs add.f32),
// the floating-point spellings get their own records (add.f32, add.rn, ...),
// so that the longest-prefix match also picks the right family.
//
//===----------------------------------------------------------------------===//

include "ptxbench/ISA/ISABase.td"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

// An instruction with the fields almost every record sets.
class PI<string mnemonic, Family family, list<Slot> slots, list<string> ops,
         int ptx, int sm, string summary> : Instr<mnemonic, family> {
  let Slots = slots;
  let Operands = ops;
  let MinPTX = ptx;
  let MinSM = sm;
  let Summary = summary;
}

// Emits one record per leading modifier in `firsts` (e.g. "add.f32",
// "add.rn"), all floating-point arithmetic with the same slots and operands.
multiclass FloatForms<string m, list<string> firsts, list<Slot> slots,
                      list<string> ops, int ptx, int sm, string summary,
                      list<string> sass> {
  foreach p = firsts in
    def _ # !subst(".", "", p) : PI<m # p, FamFloatArith, slots, ops, ptx, sm,
                                    summary> {
      let Sass = sass;
    }
}

// Targets of the architecture-specific Blackwell families in PTX ISA 9.0
// (sm_100a/f, sm_101a (renamed sm_110a), sm_103a/f, sm_110a/f).
defvar Tcgen05SMs = [100, 101, 103, 110];

// Every data type a modifier may name: the shared list plus the narrow and
// packed formats of the mma/cvt/multimem families and the tensor-map type.
defvar AllTypes = !listconcat(SlotType.Values, [".u16x2", ".s16x2", ".b1",
    ".b4", ".u4", ".s4", ".e2m1", ".e2m3", ".e3m2", ".ue8m0", ".ue4m3",
    ".e4m3x4", ".e5m2x4", ".e2m1x4", ".e2m3x4", ".e3m2x4", ".b1024"]);

// Leading modifiers that make a float spelling of a shared mnemonic.
defvar FloatTypes = [".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f32x2",
                     ".f64"];
defvar FloatRnd = [".rn", ".rz", ".rm", ".rp"];

//===----------------------------------------------------------------------===//
// Slots
//===----------------------------------------------------------------------===//

// Types, for instructions naming more than one (d/a/b/c/scale types).
def SlotAnyType : Slot<"type", AllTypes>;
def SlotDType : Slot<"dtype", AllTypes>;
def SlotAType : Slot<"atype", AllTypes>;
def SlotBType : Slot<"btype", AllTypes>;
def SlotCType : Slot<"ctype", AllTypes>;
def SlotSType : Slot<"stype", AllTypes>;
def SlotSecondSpace : Slot<"space2", SlotStateSpace.Values>;

// Floating-point behaviour.
def SlotRnd : Slot<"rnd", FloatRnd>;
def SlotRndAll : Slot<"rnd", [".rn", ".rz", ".rm", ".rp", ".rni", ".rzi",
                              ".rmi", ".rpi", ".rna", ".rs"]>;
def SlotFtz : Slot<"ftz", [".ftz"]>;
def SlotSat : Slot<"sat", [".sat"]>;
def SlotSatFinite : Slot<"satfinite", [".satfinite"]>;
def SlotApprox : Slot<"approx", [".approx", ".full"]>;
def SlotRelu : Slot<"relu", [".relu"]>;
def SlotNaN : Slot<"nan", [".NaN"]>;
def SlotXorsign : Slot<"xorsign", [".xorsign"]>;
def SlotAbs : Slot<"abs", [".abs"]>;
def SlotOob : Slot<"oob", [".oob"]>;
def SlotNoftz : Slot<"noftz", [".noftz"]>;

// Integer behaviour.
def SlotHiLo : Slot<"mode", [".hi", ".lo", ".wide"]>;
def SlotCC : Slot<"cc", [".cc"]>;
def SlotClampWrap : Slot<"mode", [".clamp", ".wrap"]>;
def SlotShiftDir : Slot<"dir", [".l", ".r"]>;
def SlotShiftAmt : Slot<"shiftamt", [".shiftamt"]>;
def SlotUni : Slot<"uni", [".uni"]>;

// Comparisons and boolean combination.
def SlotCmp : Slot<"cmp", [".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".lo",
    ".ls", ".hi", ".hs", ".equ", ".neu", ".ltu", ".leu", ".gtu", ".geu",
    ".num", ".nan"]>;
def SlotBoolOp : Slot<"boolop", [".and", ".or", ".xor"]>;

// Caching and eviction.
def SlotLdCache : Slot<"cop", [".ca", ".cg", ".cs", ".lu", ".cv"]>;
def SlotStCache : Slot<"cop", [".wb", ".cg", ".cs", ".wt"]>;
def SlotL1Evict : Slot<"l1_evict", [".L1::evict_normal",
    ".L1::evict_unchanged", ".L1::evict_first", ".L1::evict_last",
    ".L1::no_allocate"]>;
def SlotL2Evict : Slot<"l2_evict", [".L2::evict_normal", ".L2::evict_first",
    ".L2::evict_last", ".L2::evict_unchanged"]>;
def SlotCacheHint : Slot<"cache_hint", [".L2::cache_hint"]>;
def SlotPrefetchSize : Slot<"prefetch_size", [".L2::64B", ".L2::128B",
                                              ".L2::256B"]>;
def SlotNc : Slot<"nc", [".nc"]>;
def SlotUnified : Slot<"unified", [".unified"]>;

// Atomics and reductions.
def SlotAtomOp : Slot<"op", [".and", ".or", ".xor", ".cas", ".exch", ".add",
                             ".inc", ".dec", ".min", ".max"]>;
def SlotRedOp : Slot<"op", [".and", ".or", ".xor", ".add", ".inc", ".dec",
                            ".min", ".max"]>;

// Asynchronous copies.
def SlotDim : Slot<"dim", [".1d", ".2d", ".3d", ".4d", ".5d"]>;
def SlotCompletion : Slot<"completion", [".mbarrier::complete_tx::bytes",
                                         ".bulk_group"]>;
def SlotMulticast : Slot<"multicast", [".multicast::cluster"]>;
def SlotCtaGroup : Slot<"cta_group", [".cta_group::1", ".cta_group::2"]>;
def SlotLoadMode : Slot<"load_mode", [".tile", ".tile::gather4",
    ".tile::scatter4", ".im2col", ".im2col::w", ".im2col::w::128",
    ".im2col_no_offs"]>;
def SlotCpMask : Slot<"cp_mask", [".cp_mask"]>;

// Matrix shapes and layouts.
def SlotLayoutA : Slot<"alayout", [".row", ".col"]>;
def SlotLayoutB : Slot<"blayout", [".row", ".col"]>;
def SlotMmaShape : Slot<"shape", [".m8n8k4", ".m16n8k4", ".m16n8k8",
    ".m16n8k16", ".m16n8k32", ".m16n8k64", ".m16n8k128", ".m16n8k256",
    ".m8n8k16", ".m8n8k32", ".m8n8k128"]>;
def SlotMmaKind : Slot<"kind", [".kind::f8f6f4", ".kind::mxf8f6f4",
    ".kind::mxf4", ".kind::mxf4nvf4"]>;
def SlotBlockScale : Slot<"block_scale", [".block_scale"]>;
def SlotScaleVec : Slot<"scale_vec", [".scale_vec::1X", ".scale_vec::2X",
    ".scale_vec::4X", ".block16", ".block32"]>;
def SlotBitOp : Slot<"bitop", [".xor", ".and"]>;
def SlotPopc : Slot<"popc", [".popc"]>;
def SlotTrans : Slot<"trans", [".trans"]>;
def SlotMatrixNum : Slot<"num", [".x1", ".x2", ".x4"]>;

// wgmma shapes: .m64nNk{8,16,32} for N = 8..256 step 8, and .m64nNk256.
def SlotWgmmaShape : Slot<"shape", !listconcat(
    !foreach(n, !range(8, 257, 8), !strconcat(".m64n", !cast<string>(n), "k8")),
    !foreach(n, !range(8, 257, 8), !strconcat(".m64n", !cast<string>(n), "k16")),
    !foreach(n, !range(8, 257, 8), !strconcat(".m64n", !cast<string>(n), "k32")),
    !foreach(n, !range(8, 257, 8), !strconcat(".m64n", !cast<string>(n), "k64")),
    !foreach(n, !range(8, 257, 8), !strconcat(".m64n", !cast<string>(n), "k256")))>;

// tcgen05 data-movement shapes and repetition counts.
def SlotTmemShape : Slot<"shape", [".16x64b", ".16x128b", ".16x256b",
                                   ".32x32b", ".16x32bx2"]>;
def SlotTmemNum : Slot<"num", !foreach(n, !range(0, 8),
                                       !strconcat(".x", !cast<string>(!shl(1, n))))>;
def SlotTcgen05Kind : Slot<"kind", [".kind::f16", ".kind::tf32",
    ".kind::f8f6f4", ".kind::i8", ".kind::mxf8f6f4", ".kind::mxf4",
    ".kind::mxf4nvf4"]>;
def SlotCollectorA : Slot<"collector_a", [".collector::a::fill",
    ".collector::a::use", ".collector::a::lastuse", ".collector::a::discard"]>;
def SlotCollectorB : Slot<"collector_b", [".collector::b0::fill",
    ".collector::b0::use", ".collector::b0::lastuse", ".collector::b0::discard",
    ".collector::b1::fill", ".collector::b1::use", ".collector::b1::lastuse",
    ".collector::b1::discard", ".collector::b2::fill", ".collector::b2::use",
    ".collector::b2::lastuse", ".collector::b2::discard", ".collector::b3::fill",
    ".collector::b3::use", ".collector::b3::lastuse",
    ".collector::b3::discard"]>;
def SlotAshift : Slot<"ashift", [".ashift"]>;

// Texture and surface geometry.
def SlotGeom : Slot<"geom", [".1d", ".2d", ".3d", ".a1d", ".a2d", ".cube",
                             ".acube", ".2dms", ".a2dms"]>;
def SlotSurfClamp : Slot<"clamp", [".trap", ".clamp", ".zero"]>;
def SlotSurfFormat : Slot<"format", [".b", ".p"]>;

// Video instructions.
def SlotVideoOp2 : Slot<"op2", [".add", ".min", ".max"]>;
def SlotVideoCmp : Slot<"cmp", [".eq", ".ne", ".lt", ".le", ".gt", ".ge"]>;

//===----------------------------------------------------------------------===//
// Integer arithmetic (9.7.1)
//===----------------------------------------------------------------------===//

def I_add : PI<"add", FamIntArith, [SlotCC, SlotSat, SlotRelu, SlotAnyType],
               ["d", "s", "s"], 10, 20, "integer addition"> {
  let Sass = ["IADD3", "IADD", "VIADD"];
}
def I_add_cc : PI<"add.cc", FamIntArith, [SlotAnyType], ["d", "s", "s"], 12,
                  20, "addition writing the carry flag"> {
  let Sass = ["IADD3"];
}
def I_addc : PI<"addc", FamIntArith, [SlotCC, SlotAnyType], ["d", "s", "s"],
                12, 20, "addition with carry-in"> {
  let Sass = ["IADD3"];
}
def I_sub : PI<"sub", FamIntArith, [SlotCC, SlotSat, SlotAnyType],
               ["d", "s", "s"], 10, 20, "integer subtraction"> {
  let Sass = ["IADD3"];
}
def I_sub_cc : PI<"sub.cc", FamIntArith, [SlotAnyType], ["d", "s", "s"], 12,
                  20, "subtraction writing the borrow flag"> {
  let Sass = ["IADD3"];
}
def I_subc : PI<"subc", FamIntArith, [SlotCC, SlotAnyType], ["d", "s", "s"],
                12, 20, "subtraction with borrow-in"> {
  let Sass = ["IADD3"];
}
def I_mul : PI<"mul", FamIntArith, [SlotHiLo, SlotSat, SlotAnyType],
               ["d", "s", "s"], 10, 20, "integer multiplication"> {
  let Sass = ["IMAD", "IMUL"];
}
def I_mad : PI<"mad", FamIntArith, [SlotHiLo, SlotCC, SlotSat, SlotAnyType],
               ["d", "s", "s", "s"], 10, 20, "integer multiply-add"> {
  let Sass = ["IMAD"];
}
def I_madc : PI<"madc", FamIntArith, [SlotHiLo, SlotCC, SlotAnyType],
                ["d", "s", "s", "s"], 30, 20,
                "multiply-add with carry-in"> {
  let Sass = ["IMAD"];
}
def I_mul24 : PI<"mul24", FamIntArith, [SlotHiLo, SlotAnyType],
                 ["d", "s", "s"], 10, 20, "24-bit integer multiplication"> {
  let Sass = ["IMAD"];
}
def I_mad24 : PI<"mad24", FamIntArith, [SlotHiLo, SlotSat, SlotAnyType],
                 ["d", "s", "s", "s"], 10, 20, "24-bit integer multiply-add"> {
  let Sass = ["IMAD"];
}
def I_sad : PI<"sad", FamIntArith, [SlotAnyType], ["d", "s", "s", "s"], 10, 20,
               "sum of absolute differences">;
def I_div : PI<"div", FamIntArith, [SlotAnyType], ["d", "s", "s"], 10, 20,
               "integer division">;
def I_rem : PI<"rem", FamIntArith, [SlotAnyType], ["d", "s", "s"], 10, 20,
               "integer remainder">;
def I_abs : PI<"abs", FamIntArith, [SlotAnyType], ["d", "s"], 10, 20,
               "integer absolute value"> {
  let Sass = ["IABS"];
}
def I_neg : PI<"neg", FamIntArith, [SlotAnyType], ["d", "s"], 10, 20,
               "integer negation">;
def I_min : PI<"min", FamIntArith, [SlotRelu, SlotAnyType], ["d", "s", "s"],
               10, 20, "integer minimum"> {
  let Sass = ["IMNMX", "VIMNMX"];
}
def I_max : PI<"max", FamIntArith, [SlotRelu, SlotAnyType], ["d", "s", "s"],
               10, 20, "integer maximum"> {
  let Sass = ["IMNMX", "VIMNMX"];
}
def I_popc : PI<"popc", FamIntArith, [SlotAnyType], ["d", "s"], 20, 20,
                "population count"> {
  let Sass = ["POPC"];
}
def I_clz : PI<"clz", FamIntArith, [SlotAnyType], ["d", "s"], 20, 20,
               "count leading zeros"> {
  let Sass = ["FLO"];
}
def I_bfind : PI<"bfind", FamIntArith, [SlotShiftAmt, SlotAnyType],
                 ["d", "s"], 20, 20, "find most significant bit"> {
  let Sass = ["FLO"];
}
def I_fns : PI<"fns", FamIntArith, [SlotAnyType], ["d", "s", "s", "s"], 60, 30,
               "find n-th set bit">;
def I_brev : PI<"brev", FamIntArith, [SlotAnyType], ["d", "s"], 20, 20,
                "bit reverse"> {
  let Sass = ["BREV"];
}
def I_bfe : PI<"bfe", FamIntArith, [SlotAnyType], ["d", "s", "s", "s"], 20, 20,
               "bit field extract"> {
  let Sass = ["SGXT", "BMSK", "SHF"];
}
def I_bfi : PI<"bfi", FamIntArith, [SlotAnyType], ["d", "s", "s", "s", "s"],
               20, 20, "bit field insert"> {
  let Sass = ["BMSK", "LOP3"];
}
def I_szext : PI<"szext", FamIntArith, [SlotClampWrap, SlotAnyType],
                 ["d", "s", "s"], 76, 70, "sign- or zero-extend a bit field"> {
  let Sass = ["SGXT"];
}
def I_bmsk : PI<"bmsk", FamIntArith, [SlotClampWrap, SlotAnyType],
                ["d", "s", "s"], 76, 70, "bit field mask"> {
  let Sass = ["BMSK"];
}
def I_dp4a : PI<"dp4a", FamIntArith, [SlotAType, SlotBType], ["d", "s", "s", "s"],
                50, 61, "four-way byte dot product with accumulate"> {
  let Sass = ["IDP"];
}
def I_dp2a : PI<"dp2a", FamIntArith,
                [Slot<"mode", [".lo", ".hi"]>, SlotAType, SlotBType],
                ["d", "s", "s", "s"], 50, 61,
                "two-way dot product with accumulate"> {
  let Sass = ["IDP"];
}

//===----------------------------------------------------------------------===//
// Floating-point, half and bf16 arithmetic (9.7.3 - 9.7.5)
//===----------------------------------------------------------------------===//

defvar FloatArith = [SlotRnd, SlotFtz, SlotSat, SlotRelu, SlotAnyType];

defm F_add : FloatForms<"add", !listconcat(FloatTypes, FloatRnd, [".ftz"]),
                        FloatArith, ["d", "s", "s"], 10, 20,
                        "floating-point addition",
                        ["FADD", "HADD2", "DADD", "FADD2"]>;
defm F_sub : FloatForms<"sub", !listconcat(FloatTypes, FloatRnd, [".ftz"]),
                        FloatArith, ["d", "s", "s"], 10, 20,
                        "floating-point subtraction",
                        ["FADD", "HADD2", "DADD"]>;
defm F_mul : FloatForms<"mul", !listconcat(FloatTypes, FloatRnd,
                                           [".ftz", ".sat"]),
                        FloatArith, ["d", "s", "s"], 10, 20,
                        "floating-point multiplication",
                        ["FMUL", "HMUL2", "DMUL", "FMUL2"]>;
defm F_mad : FloatForms<"mad", [".f32", ".f64", ".rn", ".rz", ".rm", ".rp",
                                ".ftz", ".sat"],
                        FloatArith, ["d", "s", "s", "s"], 10, 20,
                        "floating-point multiply-add", ["FFMA", "DFMA"]>;
defm F_div : FloatForms<"div", [".f32", ".f64", ".rn", ".rz", ".rm", ".rp",
                                ".ftz", ".approx", ".full"],
                        [SlotApprox, SlotRnd, SlotFtz, SlotAnyType],
                        ["d", "s", "s"], 10, 20, "floating-point division",
                        ["MUFU"]>;
defm F_abs : FloatForms<"abs", [".f16", ".f16x2", ".bf16", ".bf16x2", ".f32",
                                ".f64", ".ftz"],
                        [SlotFtz, SlotAnyType], ["d", "s"], 10, 20,
                        "floating-point absolute value", []>;
defm F_neg : FloatForms<"neg", [".f16", ".f16x2", ".bf16", ".bf16x2", ".f32",
                                ".f64", ".ftz"],
                        [SlotFtz, SlotAnyType], ["d", "s"], 10, 20,
                        "floating-point negation", []>;
defm F_min : FloatForms<"min", [".f16", ".f16x2", ".bf16", ".bf16x2", ".f32",
                                ".f64", ".ftz", ".NaN", ".xorsign"],
                        [SlotFtz, SlotNaN, SlotXorsign, SlotAbs, SlotAnyType],
                        ["d", "s", "s", "s?"], 10, 20, "floating-point minimum",
                        ["FMNMX", "HMNMX2", "DMNMX"]>;
defm F_max : FloatForms<"max", [".f16", ".f16x2", ".bf16", ".bf16x2", ".f32",
                                ".f64", ".ftz", ".NaN", ".xorsign"],
                        [SlotFtz, SlotNaN, SlotXorsign, SlotAbs, SlotAnyType],
                        ["d", "s", "s", "s?"], 10, 20, "floating-point maximum",
                        ["FMNMX", "HMNMX2", "DMNMX"]>;

def F_fma : PI<"fma", FamFloatArith,
               [SlotRnd, SlotFtz, SlotSat, SlotOob, SlotRelu, SlotAnyType],
               ["d", "s", "s", "s"], 20, 20, "fused multiply-add"> {
  let Sass = ["FFMA", "HFMA2", "DFMA", "FFMA2"];
}
def F_rcp : PI<"rcp", FamFloatArith, [SlotApprox, SlotRnd, SlotFtz, SlotAnyType],
               ["d", "s"], 10, 20, "reciprocal"> {
  let Sass = ["MUFU"];
}
def F_sqrt : PI<"sqrt", FamFloatArith,
                [SlotApprox, SlotRnd, SlotFtz, SlotAnyType], ["d", "s"], 10, 20,
                "square root"> {
  let Sass = ["MUFU"];
}
def F_rsqrt : PI<"rsqrt", FamFloatArith, [SlotApprox, SlotFtz, SlotAnyType],
                 ["d", "s"], 10, 20, "reciprocal square root"> {
  let Sass = ["MUFU"];
}
def F_sin : PI<"sin", FamFloatArith, [SlotApprox, SlotFtz, SlotAnyType],
               ["d", "s"], 10, 20, "sine"> {
  let Sass = ["MUFU"];
}
def F_cos : PI<"cos", FamFloatArith, [SlotApprox, SlotFtz, SlotAnyType],
               ["d", "s"], 10, 20, "cosine"> {
  let Sass = ["MUFU"];
}
def F_lg2 : PI<"lg2", FamFloatArith, [SlotApprox, SlotFtz, SlotAnyType],
               ["d", "s"], 10, 20, "base-2 logarithm"> {
  let Sass = ["MUFU"];
}
def F_ex2 : PI<"ex2", FamFloatArith, [SlotApprox, SlotFtz, SlotAnyType],
               ["d", "s"], 10, 20, "base-2 exponential"> {
  let Sass = ["MUFU"];
}
def F_tanh : PI<"tanh", FamFloatArith, [SlotApprox, SlotAnyType], ["d", "s"],
                70, 75, "hyperbolic tangent"> {
  let Sass = ["MUFU"];
}
def F_copysign : PI<"copysign", FamFloatArith, [SlotAnyType], ["d", "s", "s"],
                    42, 20, "copy the sign of one value to another">;
def F_testp : PI<"testp", FamFloatArith,
                 [Slot<"op", [".finite", ".infinite", ".number", ".notanumber",
                              ".normal", ".subnormal"]>, SlotAnyType],
                 ["d", "s"], 20, 20, "test a floating-point property">;

//===----------------------------------------------------------------------===//
// Comparison and selection (9.7.6 - 9.7.7)
//===----------------------------------------------------------------------===//

def C_set : PI<"set", FamCompare, [SlotCmp, SlotBoolOp, SlotFtz, SlotDType,
                                   SlotSType],
               ["d", "s", "s", "s?"], 10, 20, "compare and set a value"> {
  let Sass = ["ISETP", "FSET", "HSET2", "DSETP"];
}
def C_setp : PI<"setp", FamCompare, [SlotCmp, SlotBoolOp, SlotFtz, SlotAnyType],
                ["d", "s", "s", "s?"], 10, 20, "compare and set a predicate"> {
  let Sass = ["ISETP", "FSETP", "HSETP2", "DSETP"];
}
def C_selp : PI<"selp", FamCompare, [SlotAnyType], ["d", "s", "s", "s"], 10, 20,
                "select on a predicate"> {
  let Sass = ["SEL", "FSEL"];
}
def C_slct : PI<"slct", FamCompare, [SlotFtz, SlotDType, SlotCType],
                ["d", "s", "s", "s"], 10, 20, "select on the sign of a value"> {
  let Sass = ["SEL", "FSEL"];
}

//===----------------------------------------------------------------------===//
// Logic and shift (9.7.8)
//===----------------------------------------------------------------------===//

def L_and : PI<"and", FamIntArith, [SlotAnyType], ["d", "s", "s"], 10, 20,
               "bitwise and"> {
  let Sass = ["LOP3", "PLOP3"];
}
def L_or : PI<"or", FamIntArith, [SlotAnyType], ["d", "s", "s"], 10, 20,
              "bitwise or"> {
  let Sass = ["LOP3", "PLOP3"];
}
def L_xor : PI<"xor", FamIntArith, [SlotAnyType], ["d", "s", "s"], 10, 20,
               "bitwise exclusive or"> {
  let Sass = ["LOP3", "PLOP3"];
}
def L_not : PI<"not", FamIntArith, [SlotAnyType], ["d", "s"], 10, 20,
               "bitwise negation"> {
  let Sass = ["LOP3", "PLOP3"];
}
def L_cnot : PI<"cnot", FamIntArith, [SlotAnyType], ["d", "s"], 10, 20,
                "C-style logical negation">;
def L_lop3 : PI<"lop3", FamIntArith, [SlotBoolOp, SlotAnyType],
                ["d", "s", "s", "s", "s", "s?"], 43, 50,
                "arbitrary three-input logic operation"> {
  let Sass = ["LOP3"];
}
def L_shf : PI<"shf", FamIntArith, [SlotShiftDir, SlotClampWrap, SlotAnyType],
               ["d", "s", "s", "s"], 31, 32, "funnel shift"> {
  let Sass = ["SHF"];
}
def L_shl : PI<"shl", FamIntArith, [SlotAnyType], ["d", "s", "s"], 10, 20,
               "shift left"> {
  let Sass = ["SHF", "SHL", "IMAD.SHL"];
}
def L_shr : PI<"shr", FamIntArith, [SlotAnyType], ["d", "s", "s"], 10, 20,
               "shift right"> {
  let Sass = ["SHF", "SHR"];
}

//===----------------------------------------------------------------------===//
// Data movement and conversion (9.7.9)
//===----------------------------------------------------------------------===//

def D_mov : PI<"mov", FamConvert, [SlotVec, SlotAnyType], ["d", "s"], 10, 20,
               "move a value or address into a register"> {
  let Sass = ["MOV", "S2R", "CS2R", "S2UR"];
}
def D_shfl : PI<"shfl", FamWarp,
                [Slot<"mode", [".up", ".down", ".bfly", ".idx"]>, SlotAnyType],
                ["d", "s", "s", "s"], 30, 30,
                "warp shuffle (deprecated, no membermask)"> {
  let Sass = ["SHFL"];
}
def D_shfl_sync : PI<"shfl.sync", FamWarp,
                     [Slot<"mode", [".up", ".down", ".bfly", ".idx"]>,
                      SlotAnyType],
                     ["d", "s", "s", "s", "s"], 60, 30, "warp shuffle"> {
  let Sass = ["SHFL"];
}
def D_prmt : PI<"prmt", FamConvert,
                [SlotAnyType, Slot<"mode", [".f4e", ".b4e", ".rc8", ".ecl",
                                            ".ecr", ".rc16"]>],
                ["d", "s", "s", "s"], 20, 20, "permute bytes"> {
  let Sass = ["PRMT"];
}

defvar LoadSlots = [SlotSem, SlotScope, SlotStateSpace, SlotNc, SlotLdCache,
                    SlotL1Evict, SlotL2Evict, SlotCacheHint, SlotPrefetchSize,
                    SlotVec, SlotAnyType, SlotUnified];
def D_ld : PI<"ld", FamLoad, LoadSlots, ["d", "s", "s?"], 10, 20,
              "load from a state space"> {
  let Sass = ["LDG", "LDS", "LDL", "LDC", "LD", "ULDC", "LDSM"];
}
def D_ld_global_nc : PI<"ld.global.nc", FamLoad,
                        [SlotLdCache, SlotL1Evict, SlotL2Evict, SlotCacheHint,
                         SlotPrefetchSize, SlotVec, SlotAnyType],
                        ["d", "s", "s?"], 31, 32,
                        "load through the non-coherent (texture) cache"> {
  let Sass = ["LDG"];
}
def D_ldu : PI<"ldu", FamLoad, [SlotStateSpace, SlotVec, SlotAnyType],
               ["d", "s"], 20, 20, "load a warp-uniform value"> {
  let Sass = ["LDG"];
}
def D_st : PI<"st", FamStore,
              [SlotSem, SlotScope, SlotStateSpace, SlotStCache, SlotL1Evict,
               SlotL2Evict, SlotCacheHint, SlotVec, SlotAnyType],
              ["s", "s", "s?"], 10, 20, "store to a state space"> {
  let Sass = ["STG", "STS", "STL", "ST"];
}
def D_st_async : PI<"st.async", FamRedAsync,
                    [SlotSem, SlotScope, SlotStateSpace, SlotCompletion,
                     SlotVec, SlotAnyType],
                    ["s", "s", "s?"], 81, 90,
                    "asynchronous store to distributed shared memory"> {
  let Sass = ["STAS"];
}
def D_st_bulk : PI<"st.bulk", FamBulkCopy, [SlotSem, SlotStateSpace],
                   ["s", "s", "s"], 86, 100,
                   "initialize a region of shared memory"> {
  let Sass = ["STBULK"];
}
def D_prefetch : PI<"prefetch", FamLoad,
                    [SlotStateSpace, Slot<"level", [".L1", ".L2"]>, SlotL2Evict,
                     Slot<"tensormap", [".tensormap"]>],
                    ["s"], 20, 20, "prefetch a line into a cache level"> {
  let Sass = ["CCTL", "UTMACCTL"];
}
def D_prefetchu : PI<"prefetchu", FamLoad, [Slot<"level", [".L1"]>], ["s"], 20,
                     20, "prefetch a line into the uniform cache"> {
  let Sass = ["CCTL"];
}
def D_isspacep : PI<"isspacep", FamConvert, [SlotStateSpace], ["d", "s"], 20,
                    20, "test whether an address is in a state space">;
def D_cvta : PI<"cvta", FamConvert,
                [Slot<"to", [".to"]>, SlotStateSpace, SlotAnyType], ["d", "s"],
                20, 20, "convert between generic and state-space addresses">;
def D_cvt : PI<"cvt", FamConvert,
               [SlotRndAll, SlotFtz, SlotSat, SlotRelu, SlotSatFinite,
                SlotDType, SlotAType],
               ["d", "s", "s?", "s?"], 10, 20, "convert between types"> {
  let Sass = ["F2F", "F2I", "I2F", "I2I", "F2FP", "I2FP", "F2IP", "FRND"];
}
def D_cvt_pack : PI<"cvt.pack", FamConvert, [SlotSat, SlotDType, SlotAType,
                                             SlotCType],
                    ["d", "s", "s", "s?"], 65, 72,
                    "convert and pack two integers"> {
  let Sass = ["I2IP"];
}
def D_mapa : PI<"mapa", FamDsmem, [SlotStateSpace, SlotAnyType],
                ["d", "s", "s"], 78, 90,
                "map a shared address to another CTA of the cluster">;
def D_getctarank : PI<"getctarank", FamDsmem, [SlotStateSpace, SlotAnyType],
                      ["d", "s"], 78, 90,
                      "rank of the CTA owning a shared::cluster address">;

// Non-bulk asynchronous copies (cp.async).
def D_cp_async : PI<"cp.async", FamCpAsync,
                    [SlotLdCache, SlotStateSpace, SlotSecondSpace,
                     SlotCacheHint, SlotPrefetchSize],
                    ["s", "s", "s", "s?", "s?"], 70, 80,
                    "asynchronous copy from global to shared memory"> {
  let Kind = OpCpAsync;
  let Sass = ["LDGSTS"];
}
def D_cp_async_commit_group : PI<"cp.async.commit_group", FamCpAsync, [], [],
                                 70, 80, "commit pending cp.async operations"> {
  let Kind = OpCpAsync;
  let Sass = ["LDGDEPBAR"];
}
def D_cp_async_wait_group : PI<"cp.async.wait_group", FamCpAsync, [], ["s"],
                               70, 80, "wait for cp.async groups"> {
  let Kind = OpCpAsync;
  let Sass = ["DEPBAR"];
}
def D_cp_async_wait_all : PI<"cp.async.wait_all", FamCpAsync, [], [], 70, 80,
                             "wait for all cp.async operations"> {
  let Kind = OpCpAsync;
  let Sass = ["DEPBAR"];
}
def D_cp_async_mbarrier_arrive : PI<"cp.async.mbarrier.arrive", FamCpAsync,
    [Slot<"noinc", [".noinc"]>, SlotStateSpace, SlotAnyType], ["s"], 70, 80,
    "make an mbarrier track prior cp.async operations"> {
  let Kind = OpCpAsync;
  let Sass = ["ARRIVES"];
}

// Bulk and tensor asynchronous copies.
def D_cp_async_bulk : PI<"cp.async.bulk", FamBulkCopy,
    [SlotStateSpace, SlotSecondSpace, SlotCompletion, SlotMulticast,
     SlotCacheHint, SlotCpMask],
    ["s", "s", "s", "s?", "s?", "s?"], 80, 90,
    "bulk asynchronous copy"> {
  let Sass = ["UBLKCP"];
}
def D_cp_reduce_async_bulk : PI<"cp.reduce.async.bulk", FamBulkReduce,
    [SlotStateSpace, SlotSecondSpace, SlotCompletion, SlotCacheHint, SlotRedOp,
     SlotNoftz, SlotAnyType],
    ["s", "s", "s", "s?"], 80, 90, "bulk asynchronous reduction"> {
  let Sass = ["UBLKRED"];
}
def D_cp_async_bulk_prefetch : PI<"cp.async.bulk.prefetch", FamBulkCopy,
    [Slot<"level", [".L2"]>, SlotStateSpace, SlotCacheHint],
    ["s", "s", "s?"], 80, 90, "bulk prefetch into L2"> {
  let Sass = ["UBLKPF"];
}
def D_cp_async_bulk_tensor : PI<"cp.async.bulk.tensor", FamTma,
    [SlotDim, SlotStateSpace, SlotSecondSpace, SlotLoadMode, SlotCompletion,
     SlotMulticast, SlotCtaGroup, SlotCacheHint],
    ["s", "s", "s?", "s?", "s?", "s?"], 80, 90,
    "tensor (TMA) asynchronous copy"> {
  let Kind = OpTma;
  let Sass = ["UTMALDG", "UTMASTG", "UTMAPF", "UTMAREDG"];
}
def D_cp_reduce_async_bulk_tensor : PI<"cp.reduce.async.bulk.tensor", FamTma,
    [SlotDim, SlotStateSpace, SlotSecondSpace, SlotRedOp, SlotLoadMode,
     SlotCompletion, SlotCacheHint],
    ["s", "s", "s?"], 80, 90, "tensor (TMA) asynchronous reduction"> {
  let Kind = OpTma;
  let Sass = ["UTMAREDG"];
}
def D_cp_async_bulk_prefetch_tensor : PI<"cp.async.bulk.prefetch.tensor",
    FamTma, [SlotDim, Slot<"level", [".L2"]>, SlotStateSpace, SlotLoadMode,
             SlotCacheHint],
    ["s", "s?", "s?"], 80, 90, "tensor (TMA) prefetch into L2"> {
  let Kind = OpTma;
  let Sass = ["UTMAPF"];
}
def D_cp_async_bulk_commit_group : PI<"cp.async.bulk.commit_group",
    FamBulkCopy, [], [], 80, 90, "commit pending bulk async operations"> {
  let Sass = ["UTMACMDFLUSH"];
}
def D_cp_async_bulk_wait_group : PI<"cp.async.bulk.wait_group", FamBulkCopy,
    [Slot<"read", [".read"]>], ["s"], 80, 90,
    "wait for bulk async-groups"> {
  let Sass = ["DEPBAR"];
}

// Tensor maps.
def D_tensormap_replace : PI<"tensormap.replace", FamTensormap,
    [Slot<"mode", [".tile"]>,
     Slot<"field", [".global_address", ".rank", ".box_dim", ".global_dim",
                    ".global_stride", ".element_stride", ".elemtype",
                    ".interleave_layout", ".swizzle_mode",
                    ".swizzle_atomicity", ".fill_mode"]>,
     SlotStateSpace, SlotAType, SlotAnyType],
    ["s", "s", "s?"], 83, 90, "modify a field of a tensor map"> {
  let ArchSpecificSM = [90, 100, 101, 103, 110, 120];
}
def D_tensormap_cp_fenceproxy : PI<"tensormap.cp_fenceproxy", FamTensormap,
    [SlotStateSpace, SlotSecondSpace,
     Slot<"proxy", [".tensormap::generic"]>, SlotSem, SlotScope, SlotSync,
     SlotAligned],
    ["s", "s", "s"], 83, 90,
    "copy a tensor map and fence the tensormap proxy">;

// Cache policies and eviction.
def D_createpolicy : PI<"createpolicy", FamMisc,
    [Slot<"kind", [".fractional", ".range", ".cvt"]>, SlotL2Evict,
     Slot<"secondary", SlotL2Evict.Values>, Slot<"level", [".L2"]>,
     SlotAnyType],
    ["d", "s", "s?", "s?"], 74, 80, "create an L2 cache eviction policy">;
def D_discard : PI<"discard", FamMisc,
                   [SlotStateSpace, Slot<"level", [".L2"]>], ["s", "s"], 74, 80,
                   "discard a cache line without writing it back">;
def D_applypriority : PI<"applypriority", FamMisc, [SlotStateSpace, SlotL2Evict],
                         ["s", "s"], 74, 80,
                         "change the eviction priority of cache lines">;

// Stack manipulation.
def D_alloca : PI<"alloca", FamMisc, [SlotStateSpace, SlotAnyType],
                  ["d", "s", "s?"], 73, 52, "allocate on the local stack">;
def D_stacksave : PI<"stacksave", FamMisc, [SlotAnyType], ["d"], 73, 52,
                     "save the stack pointer">;
def D_stackrestore : PI<"stackrestore", FamMisc, [SlotAnyType], ["s"], 73, 52,
                        "restore the stack pointer">;

//===----------------------------------------------------------------------===//
// Textures and surfaces (9.7.10 - 9.7.11)
//===----------------------------------------------------------------------===//

def T_tex : PI<"tex", FamTexture,
               [Slot<"mode", [".base", ".level", ".grad"]>, SlotGeom, SlotVec,
                SlotDType, SlotCType],
               ["d", "s", "s?", "s?", "s?", "s?"], 10, 20, "texture fetch"> {
  let Sass = ["TEX", "TLD", "TXD", "TMML"];
}
def T_tld4 : PI<"tld4", FamTexture,
                [Slot<"comp", [".r", ".g", ".b", ".a"]>, SlotGeom, SlotVec,
                 SlotDType, SlotCType],
                ["d", "s", "s?", "s?"], 22, 20, "texture gather">;
def T_txq : PI<"txq", FamTexture,
               [Slot<"level", [".level"]>,
                Slot<"query", [".width", ".height", ".depth",
                               ".channel_data_type", ".channel_order",
                               ".normalized_coords", ".array_size",
                               ".num_mipmap_levels", ".num_samples",
                               ".force_unnormalized_coords", ".filter_mode",
                               ".addr_mode_0", ".addr_mode_1",
                               ".addr_mode_2"]>,
                SlotAnyType],
               ["d", "s", "s?"], 15, 20, "query a texture or sampler"> {
  let Sass = ["TXQ"];
}
def T_istypep : PI<"istypep", FamTexture,
                   [Slot<"type", [".texref", ".samplerref", ".surfref"]>],
                   ["d", "s"], 40, 30, "test the type of an opaque handle">;
def T_suld : PI<"suld", FamTexture,
                [SlotSurfFormat, SlotGeom, SlotLdCache, SlotVec, SlotAnyType,
                 SlotSurfClamp],
                ["d", "s"], 15, 20, "surface load"> {
  let Sass = ["SULD"];
}
def T_sust : PI<"sust", FamTexture,
                [SlotSurfFormat, SlotGeom, SlotStCache, SlotVec, SlotAnyType,
                 SlotSurfClamp],
                ["s", "s"], 15, 20, "surface store"> {
  let Sass = ["SUST"];
}
def T_sured : PI<"sured", FamTexture,
                 [SlotSurfFormat, SlotRedOp, SlotGeom, SlotAnyType,
                  SlotSurfClamp],
                 ["s", "s"], 15, 20, "surface reduction"> {
  let Sass = ["SURED"];
}
def T_suq : PI<"suq", FamTexture,
               [Slot<"query", [".width", ".height", ".depth",
                               ".channel_data_type", ".channel_order",
                               ".array_size", ".memory_layout"]>,
                SlotAnyType],
               ["d", "s"], 15, 20, "query a surface">;

//===----------------------------------------------------------------------===//
// Control flow (9.7.12)
//===----------------------------------------------------------------------===//

def K_bra : PI<"bra", FamControl, [SlotUni], ["s"], 10, 20, "branch"> {
  let Kind = OpBranch;
  let Sass = ["BRA"];
}
def K_brx_idx : PI<"brx.idx", FamControl, [SlotUni], ["s", "s"], 60, 30,
                   "indirect branch through a label table"> {
  let Kind = OpBranchIndex;
  let Sass = ["BRX"];
}
def K_call : PI<"call", FamControl, [SlotUni], ["s*"], 10, 20,
                "call a function"> {
  let Kind = OpCall;
  let Sass = ["CALL"];
}
def K_ret : PI<"ret", FamControl, [SlotUni], [], 10, 20,
               "return from a function"> {
  let Kind = OpReturn;
  let Sass = ["RET"];
}
def K_exit : PI<"exit", FamControl, [], [], 10, 20, "terminate the thread"> {
  let Kind = OpReturn;
  let Sass = ["EXIT"];
}
def K_trap : PI<"trap", FamControl, [], [], 10, 20, "abort execution"> {
  let Sass = ["BPT"];
}

//===----------------------------------------------------------------------===//
// Synchronization and communication (9.7.13)
//===----------------------------------------------------------------------===//

// CTA barriers: bar and barrier, with and without the .cta qualifier.
foreach b = ["bar", "barrier", "bar.cta", "barrier.cta"] in {
  defvar ptx = !cond(!eq(b, "bar") : 10, !eq(b, "barrier") : 60, true : 80);
  defvar sm = !cond(!eq(b, "bar") : 20, true : 30);
  def "B_" # !subst(".", "_", b) # "_sync"
      : PI<b # ".sync", FamBarrier, [SlotAligned], ["s", "s?"], ptx, sm,
           "CTA barrier: arrive and wait"> {
    let Sass = ["BAR"];
  }
  def "B_" # !subst(".", "_", b) # "_arrive"
      : PI<b # ".arrive", FamBarrier, [SlotAligned], ["s", "s"], ptx, sm,
           "CTA barrier: arrive without waiting"> {
    let Sass = ["BAR"];
  }
  def "B_" # !subst(".", "_", b) # "_red"
      : PI<b # ".red", FamBarrier,
           [SlotAligned, Slot<"op", [".popc", ".and", ".or"]>, SlotAnyType],
           ["d", "s", "s", "s?"], ptx, sm,
           "CTA barrier with a reduction across threads"> {
    let Sass = ["BAR"];
  }
}
def B_bar_warp_sync : PI<"bar.warp.sync", FamBarrier, [], ["s"], 60, 30,
                         "warp barrier"> {
  let Sass = ["WARPSYNC"];
}
def B_barrier_cluster_arrive : PI<"barrier.cluster.arrive", FamClusterBarrier,
    [Slot<"sem", [".release", ".relaxed"]>, SlotAligned], [], 78, 90,
    "cluster barrier: arrive"> {
  let Sass = ["UCGABAR_ARV"];
}
def B_barrier_cluster_wait : PI<"barrier.cluster.wait", FamClusterBarrier,
    [Slot<"sem", [".acquire"]>, SlotAligned], [], 78, 90,
    "cluster barrier: wait"> {
  let Sass = ["UCGABAR_WAIT"];
}

// Memory ordering.
def B_membar : PI<"membar", FamMemoryOrder,
                  [Slot<"level", [".cta", ".gl", ".sys"]>,
                   Slot<"proxy", [".proxy"]>, Slot<"kind", [".alias"]>],
                  [], 14, 20, "memory barrier"> {
  let Sass = ["MEMBAR"];
}
def B_fence : PI<"fence", FamMemoryOrder,
                 [SlotSem, SlotScope,
                  Slot<"sync_restrict", [".sync_restrict::shared::cta",
                                         ".sync_restrict::shared::cluster"]>],
                 [], 60, 70, "memory fence"> {
  let Sass = ["MEMBAR", "FENCE"];
}
def B_fence_proxy_alias : PI<"fence.proxy.alias", FamMemoryOrder, [], [], 75,
                             70, "fence between aliased virtual addresses"> {
  let Sass = ["FENCE"];
}
def B_fence_proxy_async : PI<"fence.proxy.async", FamAsyncProxyFence,
                             [SlotStateSpace], [], 80, 90,
                             "fence between the generic and async proxies"> {
  let Sass = ["FENCE"];
}
def B_fence_proxy_async_generic : PI<"fence.proxy.async::generic",
    FamAsyncProxyFence,
    [SlotSem, Slot<"sync_restrict", [".sync_restrict::shared::cta",
                                     ".sync_restrict::shared::cluster"]>,
     SlotScope],
    [], 86, 90, "unidirectional async-to-generic proxy fence"> {
  let Sass = ["FENCE"];
}
def B_fence_proxy_tensormap : PI<"fence.proxy.tensormap::generic",
    FamAsyncProxyFence, [SlotSem, SlotScope], ["s?", "s?"], 83, 90,
    "fence between tensor-map writes and their use"> {
  let Sass = ["FENCE"];
}
def B_fence_mbarrier_init : PI<"fence.mbarrier_init", FamAsyncProxyFence,
    [SlotSem, SlotScope], [], 80, 90,
    "make mbarrier.init visible to the async proxy"> {
  let Sass = ["FENCE"];
}

// Atomics and reductions.
def B_atom : PI<"atom", FamAtomic,
                [SlotSem, SlotScope, SlotStateSpace, SlotAtomOp, SlotNoftz,
                 SlotCacheHint, SlotVec, SlotAnyType],
                ["d", "s", "s", "s?", "s?"], 11, 20, "atomic operation"> {
  let Sass = ["ATOM", "ATOMG", "ATOMS", "RED"];
}
def B_red : PI<"red", FamAtomic,
               [SlotSem, SlotScope, SlotStateSpace, SlotRedOp, SlotNoftz,
                SlotCacheHint, SlotVec, SlotAnyType],
               ["s", "s", "s?"], 11, 20, "reduction to memory"> {
  let Sass = ["RED", "REDG", "ATOMS"];
}
def B_red_async : PI<"red.async", FamRedAsync,
                     [SlotSem, SlotScope, SlotStateSpace, SlotCompletion,
                      SlotRedOp, SlotNoftz, SlotVec, SlotAnyType],
                     ["s", "s", "s?"], 81, 90,
                     "asynchronous reduction to distributed shared memory"> {
  let Sass = ["REDAS"];
}

// Warp votes, matches and reductions.
def B_vote : PI<"vote", FamWarp,
                [Slot<"mode", [".all", ".any", ".uni", ".ballot"]>,
                 SlotAnyType],
                ["d", "s"], 12, 20, "warp vote (deprecated, no membermask)"> {
  let Sass = ["VOTE"];
}
def B_vote_sync : PI<"vote.sync", FamWarp,
                     [Slot<"mode", [".all", ".any", ".uni", ".ballot"]>,
                      SlotAnyType],
                     ["d", "s", "s"], 60, 30, "warp vote"> {
  let Sass = ["VOTE"];
}
def B_match_any_sync : PI<"match.any.sync", FamWarp, [SlotAnyType],
                          ["d", "s", "s"], 60, 70,
                          "lanes sharing a value (match.sync)"> {
  let Sass = ["MATCH"];
}
def B_match_all_sync : PI<"match.all.sync", FamWarp, [SlotAnyType],
                          ["d", "s", "s"], 60, 70,
                          "whether all lanes share a value (match.sync)"> {
  let Sass = ["MATCH"];
}
def B_activemask : PI<"activemask", FamWarp, [SlotAnyType], ["d"], 62, 30,
                      "mask of active lanes"> {
  let Sass = ["VOTE"];
}
def B_redux_sync : PI<"redux.sync", FamWarp,
                      [Slot<"op", [".add", ".min", ".max", ".and", ".or",
                                   ".xor"]>, SlotAbs, SlotNaN, SlotAnyType],
                      ["d", "s", "s"], 70, 80, "warp-wide reduction"> {
  let Sass = ["REDUX", "CREDUX"];
}
def B_griddepcontrol : PI<"griddepcontrol", FamGridDepControl,
                          [Slot<"action", [".launch_dependents", ".wait"]>],
                          [], 78, 90, "programmatic dependent launch control"> {
  let Sass = ["ACQBULK", "PREEXIT"];
}
def B_elect_sync : PI<"elect.sync", FamElect, [], ["d", "s"], 80, 90,
                      "elect one leader lane"> {
  let Sass = ["ELECT"];
}

// mbarrier objects.
defvar MbarSlots = [SlotSem, SlotScope, SlotStateSpace, SlotAnyType];
def M_init : PI<"mbarrier.init", FamMbarrier, MbarSlots, ["s", "s"], 70, 80,
                "initialize an mbarrier"> {
  let Kind = OpMbarrier;
  let Sass = ["SYNCS"];
}
def M_inval : PI<"mbarrier.inval", FamMbarrier, MbarSlots, ["s"], 70, 80,
                 "invalidate an mbarrier"> {
  let Kind = OpMbarrier;
  let Sass = ["SYNCS"];
}
def M_arrive : PI<"mbarrier.arrive", FamMbarrier,
                  !listconcat([Slot<"nocomplete", [".noComplete"]>], MbarSlots),
                  ["d", "s", "s?"], 70, 80, "arrive on an mbarrier"> {
  let Kind = OpMbarrier;
  let Sass = ["SYNCS"];
}
def M_arrive_drop : PI<"mbarrier.arrive_drop", FamMbarrier,
                       !listconcat([Slot<"nocomplete", [".noComplete"]>],
                                   MbarSlots),
                       ["d", "s", "s?"], 70, 80,
                       "arrive on an mbarrier and leave it"> {
  let Kind = OpMbarrier;
  let Sass = ["SYNCS"];
}
def M_arrive_expect_tx : PI<"mbarrier.arrive.expect_tx", FamMbarrierTx,
                            MbarSlots, ["d", "s", "s"], 78, 90,
                            "expect a transaction count, then arrive"> {
  let Kind = OpMbarrier;
  let Sass = ["SYNCS"];
}
def M_arrive_drop_expect_tx : PI<"mbarrier.arrive_drop.expect_tx",
                                 FamMbarrierTx, MbarSlots, ["d", "s", "s"], 78,
                                 90, "expect a transaction count, then drop"> {
  let Kind = OpMbarrier;
  let Sass = ["SYNCS"];
}
def M_expect_tx : PI<"mbarrier.expect_tx", FamMbarrierTx, MbarSlots,
                     ["s", "s"], 80, 90,
                     "raise an mbarrier's expected transaction count"> {
  let Kind = OpMbarrier;
  let Sass = ["SYNCS"];
}
def M_complete_tx : PI<"mbarrier.complete_tx", FamMbarrierTx, MbarSlots,
                       ["s", "s"], 80, 90,
                       "complete transactions on an mbarrier"> {
  let Kind = OpMbarrier;
  let Sass = ["SYNCS"];
}
def M_test_wait : PI<"mbarrier.test_wait", FamMbarrier, MbarSlots,
                     ["d", "s", "s"], 70, 80,
                     "test an mbarrier phase (non-blocking)"> {
  let Kind = OpMbarrier;
  let Sass = ["SYNCS"];
}
def M_test_wait_parity : PI<"mbarrier.test_wait.parity", FamMbarrier,
                            MbarSlots, ["d", "s", "s"], 71, 80,
                            "test an mbarrier phase by parity"> {
  let Kind = OpMbarrier;
  let Sass = ["SYNCS"];
}
def M_try_wait : PI<"mbarrier.try_wait", FamMbarrier, MbarSlots,
                    ["d", "s", "s", "s?"], 78, 90,
                    "wait on an mbarrier phase (potentially blocking)"> {
  let Kind = OpMbarrier;
  let Sass = ["SYNCS"];
}
def M_try_wait_parity : PI<"mbarrier.try_wait.parity", FamMbarrier, MbarSlots,
                           ["d", "s", "s", "s?"], 78, 90,
                           "wait on an mbarrier phase by parity"> {
  let Kind = OpMbarrier;
  let Sass = ["SYNCS"];
}
def M_pending_count : PI<"mbarrier.pending_count", FamMbarrier, [SlotAnyType],
                         ["d", "s"], 70, 80,
                         "pending arrivals in an mbarrier state"> {
  let Kind = OpMbarrier;
}

// Register reallocation.
def B_setmaxnreg : PI<"setmaxnreg", FamSetMaxNReg,
                      [Slot<"action", [".inc", ".dec"]>, SlotSync, SlotAligned,
                       SlotAnyType],
                      ["s"], 80, 90,
                      "change the register budget of a warpgroup"> {
  let Kind = OpSetMaxNReg;
  let ArchSpecificSM = [90, 100, 101, 103, 110, 120, 121];
  let Sass = ["USETMAXREG"];
}

// Multimem (NVLink multicast) operations.
defvar MultimemSlots = [SlotSem, SlotScope, SlotStateSpace, SlotRedOp,
                        Slot<"acc", [".acc::f32", ".acc::f16"]>, SlotVec,
                        SlotAnyType];
def B_multimem_ld_reduce : PI<"multimem.ld_reduce", FamMultimem, MultimemSlots,
                              ["d", "s"], 81, 90,
                              "load and reduce across a multicast object"> {
  // Calibrated with utils/calibrate-sass.py on the corpus (2026-11-29).
  let Sass = ["LDGMC"];
}
def B_multimem_st : PI<"multimem.st", FamMultimem, MultimemSlots, ["s", "s"],
                       81, 90, "store to all copies of a multicast object">;
def B_multimem_red : PI<"multimem.red", FamMultimem, MultimemSlots, ["s", "s"],
                        81, 90, "reduce into all copies of a multicast object">;

// Cluster launch control.
def B_clc_try_cancel : PI<"clusterlaunchcontrol.try_cancel",
    FamClusterLaunchControl,
    [Slot<"async", [".async"]>, SlotStateSpace, SlotCompletion,
     Slot<"multicast", [".multicast::cluster::all"]>, SlotAnyType],
    ["s", "s"], 86, 100, "request cancellation of a pending cluster launch"> {
  // ptxas 13.0 emits UGETNEXTWORKID (utils/calibrate-sass.py, 2026-11-29).
  let Sass = ["UCLCTRYCANCEL", "UGETNEXTWORKID"];
}
def B_clc_query_cancel : PI<"clusterlaunchcontrol.query_cancel",
    FamClusterLaunchControl,
    [Slot<"query", [".is_canceled", ".get_first_ctaid", ".get_first_ctaid::x",
                    ".get_first_ctaid::y", ".get_first_ctaid::z"]>,
     SlotVec, SlotAType, SlotAnyType],
    ["d", "s"], 86, 100, "decode a cluster launch cancellation response">;

//===----------------------------------------------------------------------===//
// Warp-level matrix operations (9.7.14)
//===----------------------------------------------------------------------===//

def SlotWmmaShape : Slot<"shape", [".m16n16k16", ".m8n32k16", ".m32n8k16",
    ".m16n16k8", ".m8n8k4", ".m8n8k32", ".m8n8k128"]>;
def W_wmma_load : PI<"wmma.load", FamWmma,
    [Slot<"frag", [".a", ".b", ".c"]>, SlotSync, SlotAligned, SlotLayoutA,
     SlotWmmaShape, SlotStateSpace, SlotAnyType],
    ["d", "s", "s?"], 60, 70, "load a wmma fragment"> {
  let Sass = ["LDS", "LDG", "LDSM"];
}
def W_wmma_store : PI<"wmma.store", FamWmma,
    [Slot<"frag", [".d"]>, SlotSync, SlotAligned, SlotLayoutA, SlotWmmaShape,
     SlotStateSpace, SlotAnyType],
    ["s", "s", "s?"], 60, 70, "store a wmma fragment">;
def W_wmma_mma : PI<"wmma.mma", FamWmma,
    [SlotSync, SlotAligned, SlotLayoutA, SlotLayoutB, SlotWmmaShape, SlotRnd,
     SlotSatFinite, SlotDType, SlotAType, SlotBType, SlotCType, SlotBitOp,
     SlotPopc],
    ["d", "s", "s", "s"], 60, 70, "warp matrix multiply-accumulate (wmma)"> {
  let Sass = ["HMMA", "IMMA", "DMMA", "BMMA"];
}

defvar MmaSlots = [SlotSync, SlotAligned, SlotMmaShape, SlotLayoutA,
                   SlotLayoutB, SlotMmaKind, SlotBlockScale, SlotScaleVec,
                   SlotSatFinite, SlotDType, SlotAType, SlotBType, SlotCType,
                   SlotSType, SlotBitOp, SlotPopc];
def W_mma : PI<"mma", FamMmaSync, MmaSlots,
               ["d", "s", "s", "s", "s?", "s?", "s?", "s?"], 64, 70,
               "warp-level matrix multiply-accumulate (mma.sync)"> {
  let Kind = OpMmaSync;
  let Sass = ["HMMA", "IMMA", "DMMA", "BMMA", "QMMA", "OMMA"];
}
def W_mma_sp : PI<"mma.sp", FamMmaSync, MmaSlots,
                  ["d", "s", "s", "s", "s", "s", "s?", "s?", "s?", "s?"], 71,
                  80, "sparse warp-level matrix multiply-accumulate"> {
  let Kind = OpMmaSync;
  let Sass = ["HMMA", "IMMA", "QMMA", "OMMA"];
}
def W_mma_sp_ordered : PI<"mma.sp::ordered_metadata", FamMmaSync, MmaSlots,
                          ["d", "s", "s", "s", "s", "s", "s?", "s?", "s?",
                           "s?"], 85, 80,
                          "sparse mma with ordered metadata"> {
  let Kind = OpMmaSync;
  let Sass = ["HMMA", "IMMA", "QMMA", "OMMA"];
}
def W_ldmatrix : PI<"ldmatrix", FamLdmatrix,
    [SlotSync, SlotAligned, Slot<"shape", [".m8n8", ".m16n16", ".m8n16"]>,
     SlotMatrixNum, SlotTrans, SlotStateSpace,
     Slot<"dst_fmt", [".b8x16"]>, Slot<"src_fmt", [".b6x16_p32", ".b4x16_p64"]>,
     SlotAnyType],
    ["d", "s"], 65, 75, "load matrices from shared memory"> {
  let Kind = OpMatrixMove;
  let Sass = ["LDSM"];
}
def W_stmatrix : PI<"stmatrix", FamStmatrix,
    [SlotSync, SlotAligned, Slot<"shape", [".m8n8", ".m16n8"]>, SlotMatrixNum,
     SlotTrans, SlotStateSpace, SlotAnyType],
    ["s", "s"], 78, 90, "store matrices to shared memory"> {
  let Kind = OpMatrixMove;
  let Sass = ["STSM"];
}
def W_movmatrix : PI<"movmatrix", FamLdmatrix,
    [SlotSync, SlotAligned, Slot<"shape", [".m8n8"]>, SlotTrans, SlotAnyType],
    ["d", "s"], 78, 75, "transpose a matrix across the warp's registers"> {
  let Kind = OpMatrixMove;
  let Sass = ["MOVM"];
}

//===----------------------------------------------------------------------===//
// Warpgroup matrix operations (9.7.15)
//===----------------------------------------------------------------------===//

def G_wgmma_fence : PI<"wgmma.fence", FamWgmma, [SlotSync, SlotAligned], [],
                       80, 90, "order register accesses before wgmma"> {
  let Kind = OpWgmma;
  let ArchSpecificSM = [90];
  let Sass = ["WARPGROUP"];
}
def G_wgmma_commit_group : PI<"wgmma.commit_group", FamWgmma,
                              [SlotSync, SlotAligned], [], 80, 90,
                              "commit pending wgmma operations"> {
  let Kind = OpWgmma;
  let ArchSpecificSM = [90];
  let Sass = ["WARPGROUP"];
}
def G_wgmma_wait_group : PI<"wgmma.wait_group", FamWgmma,
                            [SlotSync, SlotAligned], ["s"], 80, 90,
                            "wait for wgmma groups"> {
  let Kind = OpWgmma;
  let ArchSpecificSM = [90];
  let Sass = ["WARPGROUP"];
}
defvar WgmmaSlots = [SlotSync, SlotAligned, SlotWgmmaShape, SlotSatFinite,
                     SlotDType, SlotAType, SlotBType, SlotBitOp, SlotPopc];
def G_wgmma_mma_async : PI<"wgmma.mma_async", FamWgmma, WgmmaSlots,
    ["ds", "s", "s", "s", "s?", "s?", "s?", "s?"], 80, 90,
    "warpgroup matrix multiply-accumulate"> {
  let Kind = OpWgmma;
  let ArchSpecificSM = [90];
  let Sass = ["HGMMA", "QGMMA", "IGMMA", "BGMMA"];
}
def G_wgmma_mma_async_sp : PI<"wgmma.mma_async.sp", FamWgmma, WgmmaSlots,
    ["ds", "s", "s", "s", "s", "s", "s?", "s?", "s?", "s?"], 82, 90,
    "sparse warpgroup matrix multiply-accumulate"> {
  let Kind = OpWgmma;
  let ArchSpecificSM = [90];
  let Sass = ["HGMMA", "QGMMA", "IGMMA"];
}

//===----------------------------------------------------------------------===//
// Tensor core 5th generation (9.7.16)
//===----------------------------------------------------------------------===//

class Tc5<string m, Family f, list<Slot> slots, list<string> ops, string summ>
    : PI<m, f, slots, ops, 86, 100, summ> {
  let Kind = OpTcgen05;
  let ArchSpecificSM = Tcgen05SMs;
}

def X_alloc : Tc5<"tcgen05.alloc", FamTmem,
                  [SlotCtaGroup, SlotSync, SlotAligned, SlotStateSpace,
                   SlotAnyType],
                  ["s", "s"], "allocate tensor memory columns"> {
  let Sass = ["UTCATOMSWS"];
}
def X_dealloc : Tc5<"tcgen05.dealloc", FamTmem,
                    [SlotCtaGroup, SlotSync, SlotAligned, SlotAnyType],
                    ["s", "s"], "free tensor memory columns"> {
  let Sass = ["UTCATOMSWS"];
}
def X_relinquish : Tc5<"tcgen05.relinquish_alloc_permit", FamTmem,
                       [SlotCtaGroup, SlotSync, SlotAligned], [],
                       "give up the right to allocate tensor memory"> {
  let Sass = ["UTCATOMSWS"];
}
def X_ld : Tc5<"tcgen05.ld", FamTmem,
               [SlotSync, SlotAligned, SlotTmemShape, SlotTmemNum,
                Slot<"pack", [".pack::16b"]>, SlotAnyType],
               ["d", "s", "s?"], "load from tensor memory to registers"> {
  let Sass = ["LDTM"];
}
def X_ld_red : Tc5<"tcgen05.ld.red", FamTmem,
                   [SlotSync, SlotAligned, SlotTmemShape, SlotTmemNum,
                    Slot<"op", [".min", ".max"]>, SlotAbs, SlotNaN,
                    SlotAnyType],
                   ["d", "d", "s", "s?"],
                   "load from tensor memory with a reduction"> {
  let MinPTX = 88;
  let ArchSpecificSM = [101, 103, 110];
  let Sass = ["LDTM"];
}
def X_st : Tc5<"tcgen05.st", FamTmem,
               [SlotSync, SlotAligned, SlotTmemShape, SlotTmemNum,
                Slot<"unpack", [".unpack::16b"]>, SlotAnyType],
               ["s", "s", "s?"], "store registers to tensor memory"> {
  let Sass = ["STTM"];
}
def X_wait_ld : Tc5<"tcgen05.wait::ld", FamTcgen05, [SlotSync, SlotAligned],
                    [], "wait for prior tcgen05.ld operations">;
def X_wait_st : Tc5<"tcgen05.wait::st", FamTcgen05, [SlotSync, SlotAligned],
                    [], "wait for prior tcgen05.st operations">;
def X_cp : Tc5<"tcgen05.cp", FamTmem,
               [SlotCtaGroup,
                Slot<"shape", [".128x256b", ".4x256b", ".128x128b",
                               ".64x128b", ".32x128b"]>,
                Slot<"multicast", [".warpx2::02_13", ".warpx2::01_23",
                                   ".warpx4"]>,
                Slot<"dst_fmt", [".b8x16"]>,
                Slot<"src_fmt", [".b6x16_p32", ".b4x16_p64"]>],
               ["s", "s"], "copy from shared memory to tensor memory"> {
  let Sass = ["UTCCP"];
}
def X_shift : Tc5<"tcgen05.shift", FamTmem,
                  [SlotCtaGroup, Slot<"dir", [".down"]>], ["s"],
                  "shift tensor memory rows down by one">;
defvar Tc5MmaSlots = [SlotCtaGroup, SlotTcgen05Kind, SlotBlockScale,
                      SlotScaleVec, SlotCollectorA, SlotCollectorB,
                      SlotAshift];
def X_mma : Tc5<"tcgen05.mma", FamTcgen05, Tc5MmaSlots,
                ["s", "s", "s", "s", "s", "s?", "s?"],
                "tensor core MMA from tensor/shared memory"> {
  let Sass = ["UTCHMMA", "UTCQMMA", "UTCIMMA", "UTCOMMA"];
}
def X_mma_sp : Tc5<"tcgen05.mma.sp", FamTcgen05, Tc5MmaSlots,
                   ["s", "s", "s", "s", "s", "s", "s?", "s?"],
                   "sparse tensor core MMA"> {
  let Sass = ["UTCHMMA", "UTCQMMA", "UTCIMMA", "UTCOMMA"];
}
def X_mma_ws : Tc5<"tcgen05.mma.ws", FamTcgen05, Tc5MmaSlots,
                   ["s", "s", "s", "s", "s", "s?"],
                   "weight-stationary tensor core MMA"> {
  let Sass = ["UTCHMMA", "UTCQMMA", "UTCIMMA"];
}
def X_mma_ws_sp : Tc5<"tcgen05.mma.ws.sp", FamTcgen05, Tc5MmaSlots,
                      ["s", "s", "s", "s", "s", "s", "s?"],
                      "sparse weight-stationary tensor core MMA"> {
  let Sass = ["UTCHMMA", "UTCQMMA", "UTCIMMA"];
}
def X_commit : Tc5<"tcgen05.commit", FamTcgen05,
                   [SlotCtaGroup,
                    Slot<"completion", [".mbarrier::arrive::one"]>,
                    SlotStateSpace, SlotMulticast, SlotAnyType],
                   ["s", "s?"],
                   "arrive on an mbarrier when prior tcgen05 ops finish"> {
  let Sass = ["UTCBAR"];
}
def X_fence_before : Tc5<"tcgen05.fence::before_thread_sync", FamTcgen05, [],
                         [], "order tcgen05 ops before a thread sync">;
def X_fence_after : Tc5<"tcgen05.fence::after_thread_sync", FamTcgen05, [],
                        [], "order tcgen05 ops after a thread sync">;

//===----------------------------------------------------------------------===//
// Video instructions (9.7.17 - 9.7.18)
//===----------------------------------------------------------------------===//

defvar VideoSlots = [SlotDType, SlotAType, SlotBType, SlotSat, SlotVideoOp2];
foreach v = ["vadd", "vsub", "vabsdiff", "vmin", "vmax"] in
  def "V_" # v : PI<v, FamVideo, VideoSlots, ["d", "s", "s", "s?"], 20, 20,
                    "scalar video operation">;
foreach v = ["vshl", "vshr"] in
  def "V_" # v : PI<v, FamVideo, !listconcat(VideoSlots, [SlotClampWrap]),
                    ["d", "s", "s", "s?"], 20, 20, "scalar video shift">;
def V_vmad : PI<"vmad", FamVideo,
                [SlotDType, SlotAType, SlotBType, Slot<"po", [".po"]>, SlotSat,
                 Slot<"scale", [".shr7", ".shr15"]>],
                ["d", "s", "s", "s"], 20, 20, "scalar video multiply-add">;
def V_vset : PI<"vset", FamVideo,
                [SlotAType, SlotBType, SlotVideoCmp, SlotVideoOp2],
                ["d", "s", "s", "s?"], 20, 20, "scalar video compare">;
foreach n = ["2", "4"] in {
  foreach v = ["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"] in
    def "V_" # v # n : PI<v # n, FamVideo,
                          [SlotDType, SlotAType, SlotBType, SlotSat,
                           Slot<"add", [".add"]>],
                          ["d", "s", "s", "s"], 30, 30,
                          "SIMD video operation">;
  def "V_vset" # n : PI<"vset" # n, FamVideo,
                        [SlotAType, SlotBType, SlotVideoCmp,
                         Slot<"add", [".add"]>],
                        ["d", "s", "s", "s"], 30, 30, "SIMD video compare">;
}

//===----------------------------------------------------------------------===//
// Miscellaneous (9.7.19)
//===----------------------------------------------------------------------===//

def Z_brkpt : PI<"brkpt", FamMisc, [], [], 10, 11, "breakpoint"> {
  let Sass = ["BPT"];
}
def Z_nanosleep : PI<"nanosleep", FamMisc, [SlotAnyType], ["s"], 63, 70,
                     "suspend the thread for a while"> {
  let Sass = ["NANOSLEEP"];
}
def Z_pmevent : PI<"pmevent", FamMisc, [Slot<"mask", [".mask"]>], ["s"], 14,
                   20, "trigger a performance-monitor event">;
