// The Stan side of bench/suite_gradient: ns per stan::model::log_prob_grad<true, true> (the
// unconstrained log density with its Jacobian, propto, as Stan's samplers call it) at the point with
// the same value in every unconstrained coordinate, the median over timing windows. It prints the
// log density and the gradient's sum and norm; the sum and norm do not depend on the order of the
// coordinates, so they check the gradient against variate's. Not built by CMake: it needs a
// stanc-generated model and Stan's headers, which the project does not ship (build.sh).
//
//   MODEL DATA.json [point 0.1] [windows 9] [window-seconds 0.1]
#include MODEL_HPP
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stan/io/json/json_data.hpp>
#include <stan/model/log_prob_grad.hpp>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DATA.json [point] [windows] [window-seconds]\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  stan::json::json_data data(in);
  const double point = argc > 2 ? std::atof(argv[2]) : 0.1;
  const int windows = argc > 3 ? std::atoi(argv[3]) : 9;
  const double window_seconds = argc > 4 ? std::atof(argv[4]) : 0.1;
  std::stringstream messages;
  stan_model model(data, 0, &messages);
  std::vector<double> position(model.num_params_r(), point), gradient;
  std::vector<int> integers;
  double log_density = 0;
  const auto evaluate = [&] {
    log_density = stan::model::log_prob_grad<true, true>(model, position, integers, gradient, &messages);
  };
  for (int warm = 0; warm < 3; ++warm) evaluate();
  double sum = 0, norm = 0;
  for (double g : gradient) sum += g, norm += g * g;
  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  // As bench/suite_gradient: calls per window from the rate over the first 20 ms.
  const auto start = Clock::now();
  long calls = 0;
  while (seconds_since(start) < 0.02) evaluate(), ++calls;
  const long per_window = std::max<long>(1, long(window_seconds / (seconds_since(start) / double(calls))));
  std::vector<double> ns;
  for (int w = 0; w < windows; ++w) {
    const auto window = Clock::now();
    for (long c = 0; c < per_window; ++c) evaluate();
    ns.push_back(seconds_since(window) / double(per_window) * 1e9);
  }
  std::sort(ns.begin(), ns.end());
  std::printf("dim %zu lp %.10g grad_sum %.10g grad_norm %.10g median_ns %.1f min_ns %.1f\n", position.size(),
              log_density, sum, std::sqrt(norm), ns[ns.size() / 2], ns.front());
}
