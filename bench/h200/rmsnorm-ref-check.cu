// rmsnorm-ref-check.cu - standalone check of the harness's built-in rmsnorm reference (ptxbench_rmsnorm_ref in
// lib/Runtime/kernels/builtin.cu) against fp64 on the CPU, T = 1000, H = 4096:
//   nvcc -O2 -arch=sm_90a -Ilib/Runtime/kernels bench/h200/rmsnorm-ref-check.cu -o t_ref && ./t_ref
#include "builtin.cu"
#include <cstdio>
#include <cstring>
#include <cmath>
#include <vector>
#include <cstdlib>
static float b2f(unsigned short h){unsigned u=(unsigned)h<<16; float f; memcpy(&f,&u,4); return f;}
static unsigned short f2b(float f){unsigned u; memcpy(&u,&f,4); u+=0x7fff+((u>>16)&1); return u>>16;}
int main(){
  int T=1000,H=4096; size_t n=(size_t)T*H;
  std::vector<unsigned short> x(n), w(H); std::vector<float> y(n);
  for(size_t i=0;i<n;i++) x[i]=f2b(((rand()%20001)-10000)/5000.f);
  for(int i=0;i<H;i++) w[i]=f2b(0.5f+(rand()%1000)/1000.f);
  void *dx,*dw; float *dy; cudaMalloc(&dx,n*2); cudaMalloc(&dw,H*2); cudaMalloc(&dy,n*4);
  cudaMemcpy(dx,x.data(),n*2,cudaMemcpyHostToDevice); cudaMemcpy(dw,w.data(),H*2,cudaMemcpyHostToDevice);
  ptxbench_rmsnorm_ref<<<T,256>>>(dx,dw,dy,T,H,1e-6f,0,0);
  printf("sync %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  cudaMemcpy(y.data(),dy,n*4,cudaMemcpyDeviceToHost);
  double maxrel=0;
  for(int t=0;t<T;t++){double ss=0; for(int i=0;i<H;i++){double v=b2f(x[(size_t)t*H+i]); ss+=v*v;}
    double inv=1/sqrt(ss/H+1e-6);
    for(int i=0;i<H;i++){double r=b2f(x[(size_t)t*H+i])*inv*b2f(w[i]); double d=fabs(y[(size_t)t*H+i]-r)/(fabs(r)+1e-3); if(d>maxrel||d!=d) maxrel=d;}}
  printf("reference kernel vs CPU fp64: max rel err %.3g\n", maxrel);
}
