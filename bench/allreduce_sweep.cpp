// The cost of an all-reduce against its message size (issue 24, item 3): psum of one f32 tensor of
// 4 B to 64 MB on 2 devices, thread devices of one process or (under mpirun) 2 MPI ranks on this
// machine (loopback, shared memory), and the fit t = alpha + beta * bytes, the latency and per-byte
// cost the scaling model of the data-parallel step uses. The fit weighs each size by 1 / t^2, so
// that it matches the small messages (latency) and the large ones (bandwidth) in relative terms.
// Each size's time is the fastest of its repeats (the machine is shared: a slower repeat measures a
// neighbour's load); the devices start each repeat together (a psum of a scalar before it, not
// timed), so the time is the collective's, not a wait for a late device.
//
//   build/bench/allreduce_sweep             (2 thread devices)
//   mpirun -np 2 build/bench/allreduce_sweep   (2 ranks; rank 0 prints)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "variate/distribute/collectives.hpp"
#include "variate/distribute/mesh.hpp"

namespace {

using namespace variate;
using Clock = std::chrono::steady_clock;

struct Point {
  double bytes = 0, seconds = 0;
};

// The fastest time of psum over `mesh` for each size, as device 0 measures it.
std::vector<Point> sweep(distribute::Mesh& mesh) {
  const auto points = mesh.run([] {
    omp_set_num_threads(1);
    std::vector<Point> out;
    for (std::int64_t n = 1; n <= (std::int64_t(1) << 22); n *= 4) {
      const Tensor x = Tensor::full(Shape{n}, 1.0, DType::f32);
      const int repeats = int(std::clamp<std::int64_t>((std::int64_t(1) << 26) / (n * 4), 5, 400));
      double best = 0;
      for (int r = 0; r < repeats + 2; ++r) {
        distribute::psum(Tensor::scalar(0.0), "data");  // start together
        const auto t0 = Clock::now();
        const Tensor total = distribute::psum(x, "data");
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        if (r == 2 || (r > 2 && s < best)) best = s;  // the first two warm the allocator
      }
      out.push_back({4.0 * double(n), best});
    }
    return out;
  });
  return points[0];
}

// alpha, beta minimizing sum ((alpha + beta b - t) / t)^2.
std::pair<double, double> fit(const std::vector<Point>& points) {
  double s00 = 0, s01 = 0, s11 = 0, r0 = 0, r1 = 0;
  for (const Point& p : points) {
    const double w = 1 / (p.seconds * p.seconds);
    s00 += w, s01 += w * p.bytes, s11 += w * p.bytes * p.bytes;
    r0 += w * p.seconds, r1 += w * p.bytes * p.seconds;
  }
  const double det = s00 * s11 - s01 * s01;
  return {(r0 * s11 - r1 * s01) / det, (s00 * r1 - s01 * r0) / det};
}

void report(const char* what, const std::vector<Point>& points) {
  const auto [alpha, beta] = fit(points);
  std::printf("psum over %s\n%12s %12s %12s %10s\n", what, "bytes", "us", "fit us", "GB/s");
  for (const Point& p : points)
    std::printf("%12.0f %12.2f %12.2f %10.3f\n", p.bytes, p.seconds * 1e6, (alpha + beta * p.bytes) * 1e6,
                p.bytes / p.seconds / 1e9);
  std::printf("fit: latency alpha = %.2f us, per-byte cost beta = %.4f ns/B (%.2f GB/s)\n\n", alpha * 1e6, beta * 1e9,
              1 / beta / 1e9);
}

}  // namespace

int main() {
  if (distribute::launched_with_mpi()) {
    distribute::Mesh ranks = distribute::Mesh::mpi("data");
    const std::vector<Point> points = sweep(ranks);
    if (ranks.first_local_device() == 0) report("MPI ranks (one device each)", points);
    return 0;
  }
  distribute::Mesh mesh(2, "data");
  report("2 thread devices", sweep(mesh));
  return 0;
}
