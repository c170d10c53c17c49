// Checks the verifiers of the ptx dialect's ops on MLIR input: instructions
// against the ISA table, operand placeholders, labels, register ranges and
// branch successors.

// RUN: ptxbench-opt %s --split-input-file --verify-diagnostics

ptx.module version "8.7" target ["sm_90a"] address_size 64 {
  ptx.func entry ".visible" @k([]) -> ([]) directives [] {
    %r:4 = ptx.reg ".b32" "%r" <4>
    // expected-error @below {{'ptx.inst' op unknown PTX instruction 'frobnicate.s32'}}
    ptx.inst "frobnicate.s32"(%r#1, %r#2) [#ptx.r, #ptx.r]
    ptx.ret "ret"() [] to[]
  }
}

// -----

ptx.module version "8.7" target ["sm_90a"] address_size 64 {
  ptx.func entry ".visible" @k([]) -> ([]) directives [] {
    %r:4 = ptx.reg ".b32" "%r" <4>
    // expected-error @below {{'ptx.wgmma' op 'add.s32' is not a 'ptx.wgmma' instruction}}
    ptx.wgmma "add.s32"(%r#1, %r#2, %r#3) [#ptx.r, #ptx.r, #ptx.r]
    ptx.ret "ret"() [] to[]
  }
}

// -----

ptx.module version "8.7" target ["sm_90a"] address_size 64 {
  ptx.func entry ".visible" @k([]) -> ([]) directives [] {
    // expected-error @below {{'ptx.inst' op 'wgmma.fence.sync.aligned' is not a 'ptx.inst' instruction}}
    ptx.inst "wgmma.fence.sync.aligned"() []
    ptx.ret "ret"() [] to[]
  }
}

// -----

ptx.module version "8.7" target ["sm_90a"] address_size 64 {
  ptx.func entry ".visible" @k([]) -> ([]) directives [] {
    %r:4 = ptx.reg ".b32" "%r" <4>
    // expected-error @below {{'ptx.inst' op has 2 register operands for 3 '#ptx.r' placeholders}}
    ptx.inst "add.s32"(%r#1, %r#2) [#ptx.r, #ptx.r, #ptx.r]
    ptx.ret "ret"() [] to[]
  }
}

// -----

ptx.module version "8.7" target ["sm_90a"] address_size 64 {
  ptx.func entry ".visible" @k([]) -> ([]) directives [] {
    %r:4 = ptx.reg ".b32" "%r" <4>
    // expected-error @below {{'ptx.inst' op has 3 register operands for 2 '#ptx.r' placeholders}}
    ptx.inst "add.s32"(%r#1, %r#2, %r#3) [#ptx.r, #ptx.r, #ptx.imm<"1">]
    ptx.ret "ret"() [] to[]
  }
}

// -----

ptx.module version "8.7" target ["sm_90a"] address_size 64 {
  ptx.func entry ".visible" @k([]) -> ([]) directives [] {
    %r:4 = ptx.reg ".b32" "%r" <4>
    ptx.fallthrough[^bb1]
  ^bb1:
    ptx.inst "mov.u32"(%r#1) [#ptx.r, #ptx.imm<"0">]
    // expected-error @below {{'ptx.label' op must start its block}}
    ptx.label "$L__late"
    ptx.ret "ret"() [] to[]
  }
}

// -----

ptx.module version "8.7" target ["sm_90a"] address_size 64 {
  ptx.func entry ".visible" @k([]) -> ([]) directives [] {
    // The custom form derives the results from the count; the generic form
    // can disagree with it.
    // expected-error @below {{'ptx.reg' op declares 4 registers but has 3 results}}
    %r:3 = "ptx.reg"() <{decl = ".b32", name = "%r", count = 4 : i32}> : () -> (!ptx.ref, !ptx.ref, !ptx.ref)
    ptx.ret "ret"() [] to[]
  }
}

// -----

ptx.module version "8.7" target ["sm_90a"] address_size 64 {
  ptx.func entry ".visible" @k([]) -> ([]) directives [] {
    %p:2 = ptx.reg ".pred" "%p" <2>
    // expected-error @below {{'ptx.bra' op needs 2 successors (targets and fallthrough), has 1}}
    ptx.bra if %p#1 "bra"() [#ptx.label<0>] to[^bb1]
  ^bb1:
    ptx.label "$L__x"
    ptx.ret "ret"() [] to[]
  }
}

// -----

ptx.module version "8.7" target ["sm_90a"] address_size 64 {
  ptx.func entry ".visible" @k([]) -> ([]) directives [] {
    // expected-error @below {{'ptx.reg' op declares 1 registers but has 2 results}}
    %x:2 = "ptx.reg"() <{decl = ".b32", name = "%x"}> : () -> (!ptx.ref, !ptx.ref)
    ptx.ret "ret"() [] to[]
  }
}

// -----

ptx.module version "8.7" target ["sm_90a"] address_size 64 {
  ptx.func entry ".visible" @k([]) -> ([]) directives [] {
    // expected-error @below {{'ptx.bra' op needs 1 successors (targets), has 2}}
    ptx.bra "bra"() [#ptx.label<0>] to[^bb1, ^bb1]
  ^bb1:
    ptx.label "$L__x"
    ptx.ret "ret"() [] to[]
  }
}

// -----

ptx.module version "8.7" target ["sm_90a"] address_size 64 {
  ptx.func entry ".visible" @k([]) -> ([]) directives [] {
    %r:2 = ptx.reg ".b32" "%r" <2>
    // expected-error @below {{'ptx.setmaxnreg' op register count must be a multiple of 8 in [24, 256], not 257}}
    ptx.setmaxnreg "setmaxnreg.inc.sync.aligned.u32"() [#ptx.imm<"257">]
    ptx.ret "ret"() [] to[]
  }
}

// -----

ptx.module version "8.7" target ["sm_90a"] address_size 64 {
  ptx.func entry ".visible" @k([]) -> ([]) directives [] {
    %x = ptx.reg ".b32" "%x"
    // expected-error @below {{'ptx.ret' op guard %x is not a .pred register}}
    ptx.ret if %x "ret"() [] to[^bb1]
  ^bb1:
    ptx.ret "ret"() [] to[]
  }
}

// -----

ptx.module version "8.7" target ["sm_90a"] address_size 64 {
  // expected-error @below {{'ptx.func' op entry block needs one argument per return parameter and parameter (1), has 0}}
  ptx.func entry ".visible" @k([#ptx.param<".param", ".u64", "k_param_0", []>]) -> ([]) directives [] {
    ptx.ret "ret"() [] to[]
  }
}
