// Standalone CUDA check of one tasks/rmsnorm_h4096 solution (no ptxbench):
// CPU fp64 reference with the task tolerances, then 20 back-to-back launches
// timed with events (L2 NOT flushed). Build one binary per solution, e.g.
//   nvcc -O2 -arch=sm_90a -I. -DKFILE=\"tasks/rmsnorm_h4096/solutions/bulk_mbarrier.cu\" \
//     -DKNAME=rmsnorm_bulk -DKSTR=\"bulk\" -DRPB=4 -DBLK=128 -DSMEM=32768 \
//     bench/h200/rmsnorm/standalone_check.cu -o t_bulk
// (plain.cu / wrong_eps.cu: -DRPB=8 -DBLK=256 -DSMEM=0). Used for docs/perf-rmsnorm.md.
#include <cstring>
#include <cstdint>
#include KFILE
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
static float b2f(uint16_t h){uint32_t u=(uint32_t)h<<16; float f; memcpy(&f,&u,4); return f;}
static uint16_t f2b(float f){uint32_t u; memcpy(&u,&f,4); u+=0x7fff+((u>>16)&1); return u>>16;}
int main(){
  int Ts[]={1000,8192,32768,65536};
  for(int T:Ts){
    size_t n=(size_t)T*H;
    std::vector<uint16_t> x(n), w(H), y(n);
    srand(1);
    for(size_t i=0;i<n;i++){ float g=((rand()%20001)-10000)/5000.f; if(rand()%1000==0) g*=8; x[i]=f2b(g);}
    for(int i=0;i<H;i++) w[i]=f2b(0.5f+(rand()%1000)/1000.f);
    uint16_t *dx,*dw,*dy; cudaMalloc(&dx,n*2); cudaMalloc(&dw,H*2); cudaMalloc(&dy,n*2);
    cudaMemcpy(dx,x.data(),n*2,cudaMemcpyHostToDevice); cudaMemcpy(dw,w.data(),H*2,cudaMemcpyHostToDevice);
    cudaMemset(dy,0xff,n*2);
    cudaFuncSetAttribute(KNAME, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
    dim3 grid((T+RPB-1)/RPB);
    KNAME<<<grid,BLK,SMEM>>>(dx,dw,dy,T);
    cudaError_t e=cudaDeviceSynchronize(); if(e){printf("err %s\n",cudaGetErrorString(e));return 1;}
    cudaMemcpy(y.data(),dy,n*2,cudaMemcpyDeviceToHost);
    double maxerr=0, num=0, den=0; size_t bad=0;
    for(int t=0;t<T;t++){ double ss=0; for(int i=0;i<H;i++){double v=b2f(x[(size_t)t*H+i]); ss+=v*v;}
      double inv=1/sqrt(ss/H+1e-6);
      for(int i=0;i<H;i++){ double r=b2f(x[(size_t)t*H+i])*inv*b2f(w[i]); double o=b2f(y[(size_t)t*H+i]);
        double d=fabs(o-r); if(!(d<=0.02+0.016*fabs(r))) bad++; if(d>maxerr||d!=d) maxerr=d; num+=d*d; den+=r*r; }}
    cudaEvent_t a,b; cudaEventCreate(&a); cudaEventCreate(&b);
    for(int i=0;i<3;i++) KNAME<<<grid,BLK,SMEM>>>(dx,dw,dy,T);
    cudaEventRecord(a); for(int i=0;i<20;i++) KNAME<<<grid,BLK,SMEM>>>(dx,dw,dy,T); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms,a,b); ms/=20;
    printf("%s T=%d bad=%zu maxerr=%.4g relL2=%.3g time=%.4f ms GB/s(hot L2)=%.0f\n", KSTR, T, bad, maxerr, sqrt(num/den), ms, 2.0*(2.0*n+H)/(ms*1e6));
    cudaFree(dx);cudaFree(dw);cudaFree(dy);
  }
}
