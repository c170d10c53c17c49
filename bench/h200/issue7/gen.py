# generates the persistent warp-specialized 128xBN kernel variants
import sys
def wgmma(n):
    nreg = n // 2
    regs = ", ".join("%%%d" % i for i in range(nreg))
    outs = ",\n        ".join('"+f"(d[%d])' % i for i in range(nreg))
    return f'''__device__ __forceinline__ void wgmma_m64n{n}k16(float (&d)[{nreg}], uint64_t da, uint64_t db, int scale_d) {{
  asm volatile(
      "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{nreg+2}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.bf16.bf16 "
      "{{{regs}}}, "
      "%{nreg}, %{nreg+1}, p, 1, 1, 0, 0;\\n}}\\n"
      : {outs}
      : "l"(da), "l"(db), "r"(scale_d));
}}
'''

TEMPLATE = ""
def gen(out, BN=256, STAGES=4, GROUP_M=8, WAIT1=1, CLUSTER=1, EPI="direct"):
    src = TEMPLATE
    plan_smem = f"{STAGES}*(128*64+{BN}*64)*2+1024"
    src = src.replace("@@WGMMA@@", wgmma(BN))
    for k, v in dict(BN=BN, STAGES=STAGES, GROUP_M=GROUP_M, WAIT1=WAIT1, SMEM=plan_smem).items():
        src = src.replace("@@%s@@" % k, str(v))
    open(out, "w").write(src)

if __name__ == "__main__":
    pass
