// Checks that the ptx dialect's custom assembly (module, globals, function
// signatures, register ranges, every operand attribute and branches with
// successors) prints back in a form that parses to the same IR.

// RUN: ptxbench-opt %s | ptxbench-opt | FileCheck %s
// RUN: ptxbench-opt %s --emit=ptx | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: ptx.module version "8.7" target ["sm_90a"] address_size 64 {
// CHECK-NEXT:    ptx.global "" ".global" ".align 4 .b32" @gcount{{$}}
// CHECK-NEXT:    ptx.global "" ".const" ".align 4 .u32" @gtable dims [4] = "{1, 2, 3, 4}"{{$}}
// CHECK-NEXT:    ptx.global "" ".global" ".align 8 .u64" @gptr = "generic(gcount)" refs [@gcount]{{$}}
// CHECK-NEXT:    ptx.global ".extern" ".shared" ".align 16 .b8" @dyn_smem dims [-1]{{$}}
// PTX-LABEL: .version 8.7
// PTX-NEXT:  .target sm_90a
// PTX-NEXT:  .address_size 64
// PTX:       .global .align 4 .b32 gcount;
// PTX-NEXT:  .const .align 4 .u32 gtable[4] = {1, 2, 3, 4};
// PTX-NEXT:  .global .align 8 .u64 gptr = generic(gcount);
// PTX-NEXT:  .extern .shared .align 16 .b8 dyn_smem[];
ptx.module version "8.7" target ["sm_90a"] address_size 64 {
  ptx.global "" ".global" ".align 4 .b32" @gcount
  ptx.global "" ".const" ".align 4 .u32" @gtable dims [4] = "{1, 2, 3, 4}"
  ptx.global "" ".global" ".align 8 .u64" @gptr = "generic(gcount)" refs [@gcount]
  ptx.global ".extern" ".shared" ".align 16 .b8" @dyn_smem dims [-1]

  // CHECK-LABEL: ptx.func "" @helper([#ptx.param<".param", ".b32", "helper_param_0", []>]) -> ([#ptx.param<".param", ".b32", "func_retval0", []>]) directives [] {
  // CHECK-NEXT:  ^bb0(%func_retval0: !ptx.ref, %helper_param_0: !ptx.ref):
  // CHECK-NEXT:    %r:3 = ptx.reg ".b32" "%r" <3>
  // CHECK-NEXT:    ptx.inst "ld.param.b32"(%r#1, %helper_param_0) [#ptx.r, #ptx.addr<#ptx.r, 0, []>]
  // CHECK-NEXT:    ptx.inst "add.s32"(%r#2, %r#1) [#ptx.r, #ptx.r, #ptx.imm<"1">]
  // CHECK-NEXT:    ptx.inst "st.param.b32"(%func_retval0, %r#2) [#ptx.addr<#ptx.r, 0, []>, #ptx.r]
  // CHECK-NEXT:    ptx.ret "ret"() [] to[]
  // CHECK-NEXT:  }
  // PTX-LABEL: .func (.param .b32 func_retval0) helper(
  // PTX-NEXT:    .param .b32 helper_param_0
  // PTX-NEXT:  )
  // PTX-NEXT:  {
  // PTX-NEXT:    .reg .b32 {{.*}}%r<3>;
  // PTX-NEXT:    ld.param.b32 {{.*}}%r1, [helper_param_0];
  // PTX-NEXT:    add.s32 {{.*}}%r2, %r1, 1;
  // PTX-NEXT:    st.param.b32 {{.*}}[func_retval0], %r2;
  // PTX-NEXT:    ret;
  // PTX-NEXT:  }
  ptx.func "" @helper([#ptx.param<".param", ".b32", "helper_param_0", []>]) -> ([#ptx.param<".param", ".b32", "func_retval0", []>]) directives [] {
  ^bb0(%ret: !ptx.ref, %arg: !ptx.ref):
    %r:3 = ptx.reg ".b32" "%r" <3>
    ptx.inst "ld.param.b32"(%r#1, %arg) [#ptx.r, #ptx.addr<#ptx.r, 0, []>]
    ptx.inst "add.s32"(%r#2, %r#1) [#ptx.r, #ptx.r, #ptx.imm<"1">]
    ptx.inst "st.param.b32"(%ret, %r#2) [#ptx.addr<#ptx.r, 0, []>, #ptx.r]
    ptx.ret "ret"() [] to[]
  }

  // CHECK-LABEL: ptx.func entry ".visible" @k([#ptx.param<".param", ".u64", "k_param_0", []>, #ptx.param<".param", ".align 8 .b8", "k_param_1", [16]>]) -> ([])
  // CHECK-SAME:    directives [#ptx.directive<"maxntid", [128, 1, 1]>] {
  // CHECK-NEXT:  ^bb0(%k_param_0: !ptx.ref, %k_param_1: !ptx.ref):
  // CHECK-NEXT:    %p:3 = ptx.reg ".pred" "%p" <3>
  // CHECK-NEXT:    %r:8 = ptx.reg ".b32" "%r" <8>
  // CHECK-NEXT:    %f:5 = ptx.reg ".f32" "%f" <5>
  // CHECK-NEXT:    %rd:4 = ptx.reg ".b64" "%rd" <4>
  // CHECK-NEXT:    %v = ptx.reg ".v2 .f32" "%v"{{$}}
  // CHECK-NEXT:    ptx.inst "ld.param.u64"(%rd#1, %k_param_0) [#ptx.r, #ptx.addr<#ptx.r, 0, []>]
  // CHECK-NEXT:    ptx.inst "mov.u32"(%r#1) [#ptx.r, #ptx.id<"%tid.x">]
  // CHECK-NEXT:    ptx.inst "ld.global.v4.f32"(%f#1, %f#2, %f#3, %f#4, %rd#1) [#ptx.vec<[#ptx.r, #ptx.r, #ptx.r, #ptx.r]>, #ptx.addr<#ptx.r, 16, []>]
  // CHECK-NEXT:    ptx.inst "mov.b32"(%r#2, %v) [#ptx.r, #ptx.r<"x">]
  // CHECK-NEXT:    ptx.inst "setp.lt.and.s32"(%p#1, %p#2, %r#1, %p#1) [#ptx.pair<#ptx.r, #ptx.r>, #ptx.r, #ptx.imm<"32">, #ptx.r]
  // CHECK-NEXT:    ptx.bra if %p#1 "bra"() [#ptx.label<0>] to[^[[SKIP:bb[0-9]+]], ^[[THEN:bb[0-9]+]]] {negated}
  // CHECK-NEXT:  ^[[THEN]]:
  // CHECK-NEXT:    ptx.inst "ld.global.u32"(%r#3) [#ptx.r, #ptx.addr<#ptx.sym<@gcount>, 4, []>]
  // CHECK-NEXT:    ptx.inst "ld.const.u32"(%r#4) [#ptx.r, #ptx.addr<#ptx.sym<@gtable>, 0, []>]
  // CHECK-NEXT:    ptx.inst "selp.b32"(%r#5, %r#3, %r#4, %p#2) [#ptx.r, #ptx.r, #ptx.r, #ptx.not<#ptx.r>]
  // CHECK-NEXT:    ptx.fallthrough[^[[SKIP]]]
  // CHECK-NEXT:  ^[[SKIP]]:
  // CHECK-NEXT:    ptx.label "$L__skip"
  // CHECK-NEXT:    ptx.scope_begin
  // CHECK-NEXT:    %t = ptx.reg ".b32" "%t"
  // CHECK-NEXT:    %param0 = ptx.var ".param" ".b32" "param0"
  // CHECK-NEXT:    ptx.inst "st.param.b32"(%param0, %r#5) [#ptx.addr<#ptx.r, 0, []>, #ptx.r]
  // CHECK-NEXT:    %retval0 = ptx.var ".param" ".b32" "retval0"
  // CHECK-NEXT:    ptx.call "call.uni"(%retval0, %param0) [#ptx.list<[#ptx.r]>, #ptx.sym<@helper>, #ptx.list<[#ptx.r]>]
  // CHECK-NEXT:    ptx.inst "ld.param.b32"(%t, %retval0) [#ptx.r, #ptx.addr<#ptx.r, 0, []>]
  // CHECK-NEXT:    ptx.scope_end
  // CHECK-NEXT:    ptx.ret if %p#1 "exit"() [] to[^[[LAST:bb[0-9]+]]]
  // CHECK-NEXT:  ^[[LAST]]:
  // CHECK-NEXT:    ptx.ret "ret"() [] to[]
  // CHECK-NEXT:  }
  // CHECK-NEXT: }

  // PTX-LABEL: .visible .entry k(
  // PTX-NEXT:    .param .u64 k_param_0,
  // PTX-NEXT:    .param .align 8 .b8 k_param_1[16]
  // PTX-NEXT:  )
  // PTX-NEXT:  .maxntid 128, 1, 1
  // PTX-NEXT:  {
  // PTX:         .reg .v2 .f32 {{.*}}%v;
  // PTX-NEXT:    ld.param.u64 {{.*}}%rd1, [k_param_0];
  // PTX-NEXT:    mov.u32 {{.*}}%r1, %tid.x;
  // PTX-NEXT:    ld.global.v4.f32 {{.*}}{%f1, %f2, %f3, %f4}, [%rd1+16];
  // PTX-NEXT:    mov.b32 {{.*}}%r2, %v.x;
  // PTX-NEXT:    setp.lt.and.s32 {{.*}}%p1|%p2, %r1, 32, %p1;
  // PTX-NEXT:    @!%p1 bra {{.*}}$L__skip;
  // PTX-NEXT:    ld.global.u32 {{.*}}%r3, [gcount+4];
  // PTX-NEXT:    ld.const.u32 {{.*}}%r4, [gtable];
  // PTX-NEXT:    selp.b32 {{.*}}%r5, %r3, %r4, !%p2;
  // PTX-NEXT:  $L__skip:
  // PTX-NEXT:    {
  // PTX-NEXT:    .reg .b32 {{.*}}%t;
  // PTX-NEXT:    .param .b32 param0;
  // PTX-NEXT:    st.param.b32 {{.*}}[param0], %r5;
  // PTX-NEXT:    .param .b32 retval0;
  // PTX-NEXT:    call.uni {{.*}}(retval0), helper, (param0);
  // PTX-NEXT:    ld.param.b32 {{.*}}%t, [retval0];
  // PTX-NEXT:    }
  // PTX-NEXT:    @%p1 exit;
  // PTX-NEXT:    ret;
  // PTX-NEXT:  }
  ptx.func entry ".visible" @k([#ptx.param<".param", ".u64", "k_param_0", []>, #ptx.param<".param", ".align 8 .b8", "k_param_1", [16]>]) -> ([]) directives [#ptx.directive<"maxntid", [128, 1, 1]>] {
  ^bb0(%a0: !ptx.ref, %a1: !ptx.ref):
    %p:3 = ptx.reg ".pred" "%p" <3>
    %r:8 = ptx.reg ".b32" "%r" <8>
    %f:5 = ptx.reg ".f32" "%f" <5>
    %rd:4 = ptx.reg ".b64" "%rd" <4>
    %v = ptx.reg ".v2 .f32" "%v"
    ptx.inst "ld.param.u64"(%rd#1, %a0) [#ptx.r, #ptx.addr<#ptx.r, 0, []>]
    ptx.inst "mov.u32"(%r#1) [#ptx.r, #ptx.id<"%tid.x">]
    ptx.inst "ld.global.v4.f32"(%f#1, %f#2, %f#3, %f#4, %rd#1) [#ptx.vec<[#ptx.r, #ptx.r, #ptx.r, #ptx.r]>, #ptx.addr<#ptx.r, 16, []>]
    ptx.inst "mov.b32"(%r#2, %v) [#ptx.r, #ptx.r<"x">]
    ptx.inst "setp.lt.and.s32"(%p#1, %p#2, %r#1, %p#1) [#ptx.pair<#ptx.r, #ptx.r>, #ptx.r, #ptx.imm<"32">, #ptx.r]
    ptx.bra if %p#1 "bra"() [#ptx.label<0>] to[^skip, ^then] {negated}
  ^then:
    ptx.inst "ld.global.u32"(%r#3) [#ptx.r, #ptx.addr<#ptx.sym<@gcount>, 4, []>]
    ptx.inst "ld.const.u32"(%r#4) [#ptx.r, #ptx.addr<#ptx.sym<@gtable>, 0, []>]
    ptx.inst "selp.b32"(%r#5, %r#3, %r#4, %p#2) [#ptx.r, #ptx.r, #ptx.r, #ptx.not<#ptx.r>]
    ptx.fallthrough[^skip]
  ^skip:
    ptx.label "$L__skip"
    ptx.scope_begin
    %t = ptx.reg ".b32" "%t"
    %param0 = ptx.var ".param" ".b32" "param0"
    ptx.inst "st.param.b32"(%param0, %r#5) [#ptx.addr<#ptx.r, 0, []>, #ptx.r]
    %retval0 = ptx.var ".param" ".b32" "retval0"
    ptx.call "call.uni"(%retval0, %param0) [#ptx.list<[#ptx.r]>, #ptx.sym<@helper>, #ptx.list<[#ptx.r]>]
    ptx.inst "ld.param.b32"(%t, %retval0) [#ptx.r, #ptx.addr<#ptx.r, 0, []>]
    ptx.scope_end
    ptx.ret if %p#1 "exit"() [] to[^last]
  ^last:
    ptx.ret "ret"() [] to[]
  }
}
