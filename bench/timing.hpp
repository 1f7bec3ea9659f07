#pragma once
// Wall-clock timing shared by the benchmarks.
#include <algorithm>
#include <chrono>

namespace variate::bench {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The best time of f() over at least five repeats and about `budget_seconds` in all: on a shared
/// machine the minimum is the time f takes when nothing else interferes.
template <class F>
double best_seconds(F&& f, double budget_seconds = 1.0) {
  double best = 1e30, spent = 0;
  for (int r = 0; r < 10000 && (r < 5 || spent < budget_seconds); ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    const double s = seconds_since(start);
    best = std::min(best, s);
    spent += s;
  }
  return best;
}

}  // namespace variate::bench
