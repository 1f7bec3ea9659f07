// The cost of a log-density gradient through BridgeStan's C interface (a plugin loaded with dlopen,
// called as BridgeStan's clients call it) against the same plugin's gradient in process
// (inference::make_target on its Definition, what the samplers call):
//
//   build/variate build src/models/eight_schools.cpp -o /tmp/eight_schools.so
//   build/bench/bridgestan_gradient /tmp/eight_schools.so            # eight schools' data built in
//   build/variate build bench/models/logistic_glm.cpp -o /tmp/logistic.so
//   OMP_NUM_THREADS=1 build/bench/bridgestan_gradient /tmp/logistic.so DATA.json [CALLS]
//
// Both run with the same data and the same 64 points (0.1 (k mod 13) - 0.6, as plugin_gradient and
// python_gradient.py); the ratio is the interface's overhead (target: at most 1.1). OMP_NUM_THREADS=1
// keeps the kernels on one thread. Each side is the best of at least five loops of CALLS calls
// (default 20000) over a second. Linked with the shared library, so the plugin and this program
// share it.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "timing.hpp"
#include "variate/data/data_file.hpp"
#include "variate/inference/target.hpp"
#include "variate/models/bridgestan.h"
#include "variate/models/plugin.hpp"

namespace {

const char* kEightSchools =
    "{\"J\": 8, \"y\": [28, 8, -3, 7, -1, 1, 18, 12], \"sigma\": [15, 10, 16, 11, 9, 11, 10, 18]}";

}  // namespace

int main(int argc, char** argv) {
  using namespace variate;
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: %s PLUGIN.so [DATA.json [CALLS]] (without DATA, eight schools' data)\n", argv[0]);
    return 2;
  }
  const std::string data_file = argc >= 3 ? argv[2] : "";
  const int calls = argc == 4 ? std::atoi(argv[3]) : 20000;
  if (calls <= 0) {
    std::fprintf(stderr, "CALLS must be a positive integer, got '%s'\n", argv[3]);
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
  bs_model* model = construct(data_file.empty() ? kEightSchools : data_file.c_str(), 1, &error);
  if (model == nullptr) {
    std::fprintf(stderr, "bs_model_construct: %s\n", error);
    return 1;
  }
  try {
    const models::Plugin plugin = models::load_plugin(argv[1]);
    const data::DataFile variables =
        data_file.empty() ? data::parse_cmdstan_json(kEightSchools, "eight schools") : data::read_data_file(data_file);
    const inference::Target target = inference::make_target(inference::Unconstrained(
        models::define(plugin.function, models::ModelData(variables, data_file.empty() ? "eight schools" : data_file))
            .program));
    const auto d = std::size_t(target.dimension);
    std::vector<double> points(d * 64), grad(d);
    for (std::size_t k = 0; k < points.size(); ++k) points[k] = 0.1 * double(k % 13) - 0.6;
    double lp = 0, sink = 0;

    const double in_process = bench::best_seconds([&] {
      for (int c = 0; c < calls; ++c) {
        target.evaluate({&points[(std::size_t(c) % 64) * d], d}, 1, {&lp, 1}, grad);
        sink += lp;
      }
    });
    const double through_abi = bench::best_seconds([&] {
      for (int c = 0; c < calls; ++c) {
        if (gradient(model, true, true, &points[(std::size_t(c) % 64) * d], &lp, grad.data(), &error) != 0) {
          std::fprintf(stderr, "bs_log_density_gradient: %s\n", error);
          std::exit(1);
        }
        sink += lp;
      }
    });
    std::printf("%s, %zu parameters, best of repeats of %d gradients\n", argv[1], d, calls);
    std::printf("  in process (inference::make_target): %10.0f ns per gradient\n", in_process / calls * 1e9);
    std::printf("  BridgeStan C interface (dlopen):      %10.0f ns per gradient\n", through_abi / calls * 1e9);
    std::printf("  ratio: %.3f (target at most 1.1)   [checksum %g]\n", through_abi / in_process, sink);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
