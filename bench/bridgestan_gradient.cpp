// The cost of a log-density gradient through BridgeStan's C interface (a plugin loaded with dlopen,
// called as BridgeStan's clients call it) against the same model's gradient in process
// (inference::make_target, what the samplers call), for the built-in eight schools:
//
//   build/variate build src/models/eight_schools.cpp -o /tmp/eight_schools.so
//   build/bench/bridgestan_gradient /tmp/eight_schools.so
//
// Both run on one thread with the same data and points; the ratio is the interface's overhead
// (target: at most 1.1). Linked with the shared library, so the plugin and this program share it.
#include <dlfcn.h>

#include <cstdio>
#include <vector>

#include "timing.hpp"
#include "variate/inference/target.hpp"
#include "variate/models/bridgestan.h"
#include "variate/models/builtin.hpp"

namespace {

constexpr int kCalls = 20000;

const char* kData = "{\"J\": 8, \"y\": [28, 8, -3, 7, -1, 1, 18, 12], \"sigma\": [15, 10, 16, 11, 9, 11, 10, 18]}";

}  // namespace

int main(int argc, char** argv) {
  using namespace variate;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s EIGHT_SCHOOLS_PLUGIN.so (from `variate build src/models/eight_schools.cpp`)\n",
                 argv[0]);
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
    return 1;
  }
  using Construct = bs_model* (*)(const char*, unsigned int, char**);
  using Gradient = int (*)(const bs_model*, bool, bool, const double*, double*, double*, char**);
  const auto construct = reinterpret_cast<Construct>(dlsym(library, "bs_model_construct"));
  const auto gradient = reinterpret_cast<Gradient>(dlsym(library, "bs_log_density_gradient"));
  if (construct == nullptr || gradient == nullptr) {
    std::fprintf(stderr, "%s does not export BridgeStan's interface\n", argv[1]);
    return 1;
  }
  char* error = nullptr;
  bs_model* model = construct(kData, 1, &error);
  if (model == nullptr) {
    std::fprintf(stderr, "bs_model_construct: %s\n", error);
    return 1;
  }

  const inference::Target target =
      inference::make_target(inference::Unconstrained(models::builtin_definition("eight-schools").program));
  const auto d = std::size_t(target.dimension);
  std::vector<double> points(d * 64), grad(d);
  for (std::size_t k = 0; k < points.size(); ++k) points[k] = 0.1 * double(k % 13) - 0.6;
  double lp = 0, sink = 0;

  const double in_process = bench::best_seconds([&] {
    for (int c = 0; c < kCalls; ++c) {
      target.evaluate({&points[(std::size_t(c) % 64) * d], d}, 1, {&lp, 1}, grad);
      sink += lp;
    }
  });
  const double through_abi = bench::best_seconds([&] {
    for (int c = 0; c < kCalls; ++c) {
      gradient(model, true, true, &points[(std::size_t(c) % 64) * d], &lp, grad.data(), &error);
      sink += lp;
    }
  });
  std::printf("eight schools, %zu parameters, one thread, best of repeats of %d gradients\n", d, kCalls);
  std::printf("  in process (inference::make_target): %8.0f ns per gradient\n", in_process / kCalls * 1e9);
  std::printf("  BridgeStan C interface (dlopen):      %8.0f ns per gradient\n", through_abi / kCalls * 1e9);
  std::printf("  ratio: %.3f (target at most 1.1)   [checksum %g]\n", through_abi / in_process, sink);
  return 0;
}
