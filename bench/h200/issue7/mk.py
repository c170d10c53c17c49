import gen
T='template.cu'
gen.TEMPLATE=open(T).read()
gen.gen('v1_256_s4_g8.cu', BN=256, STAGES=4, GROUP_M=8)
gen.gen('v2_256_s4_g16.cu', BN=256, STAGES=4, GROUP_M=16)
gen.gen('v3_128_s6_g8.cu', BN=128, STAGES=6, GROUP_M=8)
gen.gen('v4_256_s4_g4.cu', BN=256, STAGES=4, GROUP_M=4)
gen.gen('v5_256_s4_g32.cu', BN=256, STAGES=4, GROUP_M=32)
