// The in-process cost of a log-density gradient (inference::make_target, what the samplers call)
// of a model plugin on a data file: the C++ side of bench/python_gradient.py, which times the same
// model, data and points through the Python module.
//
//   build/variate build src/models/eight_schools.cpp -o /tmp/eight_schools.so
//   build/bench/plugin_gradient /tmp/eight_schools.so [DATA.json [CALLS]]
//
// The points cycle through 64 fixed ones (0.1 (k mod 13) - 0.6, as bridgestan_gradient); the time
// is the best over about three seconds of loops of CALLS calls (default 20000): short loops find
// the quiet moments of a shared machine.
// Linked with the shared library, which the plugin links too.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include "timing.hpp"
#include "variate/data/data_file.hpp"
#include "variate/inference/target.hpp"
#include "variate/models/plugin.hpp"

int main(int argc, char** argv) {
  using namespace variate;
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: %s MODEL.so [DATA.json [CALLS]]\n", argv[0]);
    return 2;
  }
  try {
    const models::Plugin plugin = models::load_plugin(argv[1]);
    const data::DataFile variables = argc >= 3 ? data::read_data_file(argv[2]) : data::DataFile{};
    const inference::Target target = inference::make_target(inference::Unconstrained(
        models::define(plugin.function, models::ModelData(variables, argc >= 3 ? argv[2] : "none")).program));
    const auto d = std::size_t(target.dimension);
    std::vector<double> points(d * 64), grad(d);
    for (std::size_t k = 0; k < points.size(); ++k) points[k] = 0.1 * double(k % 13) - 0.6;
    double lp = 0, sink = 0;
    const int calls = argc == 4 ? std::atoi(argv[3]) : 20000;
    const double seconds = bench::best_seconds(
        [&] {
          for (int c = 0; c < calls; ++c) {
            target.evaluate({&points[(std::size_t(c) % 64) * d], d}, 1, {&lp, 1}, grad);
            sink += lp;
          }
        },
        3.0);
    std::printf("%s: %zu parameters, in process: %.0f ns per gradient [checksum %g]\n", plugin.name.c_str(), d,
                seconds / calls * 1e9, sink);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
