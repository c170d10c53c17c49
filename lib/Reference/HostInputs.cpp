//===- HostInputs.cpp - A task's inputs drawn on the host -----------------===//
//
// A splitmix64 counter per element (the seed, the tensor and the element
// index) gives the uniform draws; normal values come from Box-Muller, ints
// are uniform over [low, high], spiky values are normal with a share scaled
// up, and a permutation is an affine bijection of [0, n) whose multiplier
// and offset come from the seed (the device's rule, not its values).
// Conversions to bf16, f16 and e4m3 go through APFloat, rounding to nearest
// even.
//
//===----------------------------------------------------------------------===//

#include "ptxbench/Reference/HostInputs.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>
#include <numeric>

using namespace ptxbench;
using namespace ptxbench::reference;
using namespace ptxbench::runtime;

namespace {

uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// In (0, 1).
double unit(uint64_t r) { return (double(r >> 11) + 0.5) / 9007199254740992.0; }

const llvm::fltSemantics &semantics(DType dtype) {
  switch (dtype) {
  case DType::BF16:
    return llvm::APFloat::BFloat();
  case DType::F16:
    return llvm::APFloat::IEEEhalf();
  case DType::E4M3:
    return llvm::APFloat::Float8E4M3FN();
  default:
    return llvm::APFloat::IEEEsingle();
  }
}

} // namespace

void ptxbench::reference::storeElement(DType dtype, double value, char *out) {
  if (dtype == DType::I32) {
    int32_t v = int32_t(value);
    std::memcpy(out, &v, 4);
    return;
  }
  llvm::APFloat f(value);
  bool lost = false;
  f.convert(semantics(dtype), llvm::APFloat::rmNearestTiesToEven, &lost);
  uint64_t bits = f.bitcastToAPInt().getZExtValue();
  std::memcpy(out, &bits, dtypeSize(dtype)); // little-endian host
}

double ptxbench::reference::loadElement(DType dtype, const char *in) {
  if (dtype == DType::I32) {
    int32_t v;
    std::memcpy(&v, in, 4);
    return v;
  }
  uint64_t bits = 0;
  std::memcpy(&bits, in, dtypeSize(dtype));
  llvm::APFloat f(semantics(dtype), llvm::APInt(dtypeSize(dtype) * 8, bits));
  bool lost = false;
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return f.convertToDouble();
}

llvm::Expected<std::vector<std::string>>
ptxbench::reference::hostInputs(const Task &task, const Bindings &params,
                                uint64_t seed) {
  std::vector<std::string> out(task.tensors.size());
  for (unsigned t = 0; t < task.tensors.size(); ++t) {
    const TensorSpec &spec = task.tensors[t];
    if (spec.role != Role::Input)
      continue;
    if (spec.dist.kind == Distribution::Kind::Derived)
      return llvm::createStringError(
          "input '" + spec.name +
          "' is derived by a built-in reference; it cannot be drawn");
    auto shape = task.shapeOf(t, params);
    if (!shape)
      return shape.takeError();
    uint64_t n = 1;
    for (int64_t d : *shape)
      n *= uint64_t(d);
    unsigned size = dtypeSize(spec.dtype);
    std::string &bytes = out[t];
    bytes.resize(n * size);
    const Distribution &ds = spec.dist;
    uint64_t s = mix64(seed * 0x9E3779B97F4A7C15ull + t);
    uint64_t mul = 1, add = 0;
    if (ds.kind == Distribution::Kind::Permutation && n > 1) {
      mul = mix64(s) % n | 1;
      while (std::gcd(mul, n) != 1)
        mul = (mul + 2) % n;
      add = mix64(s + 1) % n;
    }
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t r1 = mix64(s ^ (i * 0xD1B54A32D192ED03ull)), r2 = mix64(r1);
      double v;
      switch (ds.kind) {
      case Distribution::Kind::Uniform:
        v = ds.low + (ds.high - ds.low) * unit(r1);
        break;
      case Distribution::Kind::Ints:
        v = std::floor(ds.low + (ds.high - ds.low + 1) * unit(r1));
        v = std::min(v, ds.high);
        break;
      case Distribution::Kind::Permutation:
        v = double((mul * i + add) % n);
        break;
      default: {
        double g =
            std::sqrt(-2 * std::log(unit(r1))) * std::cos(2 * M_PI * unit(r2));
        v = ds.mean + ds.std * g;
        if (ds.kind == Distribution::Kind::Spiky &&
            unit(mix64(r2)) <= ds.spikeProb)
          v *= ds.spikeScale;
      }
      }
      storeElement(spec.dtype, v, bytes.data() + i * size);
    }
  }
  return out;
}
