// The cost of one call of a sampler's target (make_target: log density and gradient) for small
// models, where the host-side work of an evaluation outweighs its arithmetic and kernel replay
// (tensor/replay.hpp) is what makes a gradient cheap: eight schools non-centered and centered (the
// centered one checks a scale computed from the position, so it replays only through host_check),
// one position per call and 4 at once (vectorized chains), and the non-centered one called from 2
// threads at once (threaded chains, each taking its own recording from the target's pool). Each
// row is timed with replay (the default) and with VARIATE_REPLAY=0, in alternated rounds; each
// figure is the best round's CPU microseconds per call and thread.
//
//   build/bench/target_evaluation [--rounds=K]     (default 5)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>
#include <vector>

#include "variate/autodiff/ops.hpp"
#include "variate/inference/target.hpp"
#include "variate/models/builtin.hpp"
#include "variate/tracing/handlers.hpp"
#include "variate/tracing/random_variables.hpp"

namespace {

using namespace variate;

const Tensor kY = Tensor::vec({28, 8, -3, 7, -1, 1, 18, 12});
const Tensor kSigma = Tensor::vec({15, 10, 16, 11, 9, 11, 10, 18});

void eight_schools_centered() {
  auto mu = Normal(0.0, 5.0, "mu");
  auto tau = HalfCauchy(0.0, 5.0, "tau");
  const Tensor schools = Tensor::ones({8});
  auto theta = Normal(expand_dims(mu, -1) * schools, expand_dims(tau, -1) * schools, "theta");
  tracing::Condition data({{"y", kY}});
  Normal(theta, kSigma, "y");
}

struct Row {
  const char* label;
  tracing::Program model;
  std::int64_t batch;
  int threads;
};

// CPU microseconds per call of each thread (its own CPU time, so that time the thread spends
// preempted on a busy machine does not count), over `calls` calls on each of `threads` threads,
// alternating between two positions so that no call sees the previous one's input.
double time_calls(const inference::Target& target, std::int64_t batch, int threads, int calls) {
  std::vector<double> cpu_us(static_cast<std::size_t>(threads));
  const auto work = [&](int t, int n_calls) {
    const auto n = std::size_t(batch * target.dimension);
    std::vector<double> a(n), b(n), lp(static_cast<std::size_t>(batch)), g(n);
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = 0.1 * double(i % 7) - 0.2 + 0.01 * t;
      b[i] = a[i] + 0.05;
    }
    timespec start{}, end{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
    for (int k = 0; k < n_calls; ++k) target.evaluate(k % 2 ? b : a, batch, lp, g);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end);
    cpu_us[std::size_t(t)] =
        (double(end.tv_sec - start.tv_sec) * 1e6 + double(end.tv_nsec - start.tv_nsec) * 1e-3) / n_calls;
  };
  work(0, 2);  // records (and warms the allocator) outside the timing
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, t, calls);
  work(0, calls);
  for (auto& th : pool) th.join();
  double total = 0;
  for (double us : cpu_us) total += us;
  return total / threads;
}

int rounds(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--rounds=", 9) == 0) return std::max(1, std::atoi(argv[i] + 9));
  return 5;
}

}  // namespace

int main(int argc, char** argv) {
  const tracing::Program non_centered = models::builtin_definition("eight-schools").program;  // the built-in
  const Row rows[] = {{"eight-schools non-centered", non_centered, 1, 1},
                      {"eight-schools non-centered", non_centered, 4, 1},
                      {"eight-schools non-centered", non_centered, 1, 2},
                      {"eight-schools centered", eight_schools_centered, 1, 1},
                      {"eight-schools centered", eight_schools_centered, 4, 1}};
  const int k = rounds(argc, argv);
  std::printf("%-28s %5s %7s %12s %12s %8s\n", "model", "batch", "threads", "replay us", "no replay us", "ratio");
  for (const Row& row : rows) {
    const int calls = 20000;
    double best_on = 1e300, best_off = 1e300;
    for (int r = 0; r < k; ++r) {
      for (const bool replay : {true, false}) {
        // The target reads VARIATE_REPLAY when it is made.
        if (replay) {
          unsetenv("VARIATE_REPLAY");
        } else {
          setenv("VARIATE_REPLAY", "0", 1);
        }
        const inference::Target target = inference::make_target(inference::Unconstrained(row.model));
        const double us = time_calls(target, row.batch, row.threads, replay ? calls : calls / 10);
        (replay ? best_on : best_off) = std::min(replay ? best_on : best_off, us);
      }
    }
    unsetenv("VARIATE_REPLAY");
    std::printf("%-28s %5lld %7d %12.3f %12.3f %7.1fx\n", row.label, static_cast<long long>(row.batch), row.threads,
                best_on, best_off, best_off / best_on);
    std::fflush(stdout);
  }
  std::printf("\nus: CPU microseconds per call and thread (a batch-4 call evaluates 4 positions), best of %d rounds\n",
              k);
}
