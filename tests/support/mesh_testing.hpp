#pragma once
// Helpers shared by the thread-mesh and MPI-mesh tests (tests/distribute/).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <utility>
#include <vector>

#include "variate/tensor/tensor.hpp"

namespace variate::testing {

/// Runs f() on a helper thread and ends the test program if it has not finished after a minute,
/// so a collective that hangs fails CI instead of stalling it (under mpirun, the launcher then
/// ends the other ranks). Rethrows what f throws.
template <class F>
auto within_deadline(F&& f) {
  auto task = std::async(std::launch::async, std::forward<F>(f));
  if (task.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    std::fprintf(stderr, "a mesh run did not finish within 60 s (hang)\n");
    std::_Exit(1);
  }
  return task.get();
}

/// Device i's shard: n values whose sums are inexact in floating point.
inline Tensor device_shard(int i, std::int64_t n = 3) {
  std::vector<double> v(std::size_t(n), 0.0);
  for (std::int64_t k = 0; k < n; ++k)
    v[std::size_t(k)] = 0.1 * (i + 1) - 1e-3 * double(k * (k - i)) + 1.0 / double(3 + i + k);
  return Tensor::from(v, Shape{n});
}

inline bool bitwise_equal(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

}  // namespace variate::testing
