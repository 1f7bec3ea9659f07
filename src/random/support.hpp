#pragma once
// What the sampler files share: reading and checking parameters, the element loop, the per-element
// samplers that one family borrows from another, and clamping into a support.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "random/stream.hpp"
#include "tensor/cpu/parallel_tasks.hpp"
#include "variate/tensor/tensor.hpp"

namespace variate::random::detail {

/// Below this many elements a sample is drawn on one thread; above, the elements are split among
/// threads, in chunks of this many. Each element owns its stream, so the split never changes a value.
inline constexpr std::int64_t kParallelGrain = 4096;

template <class Fn>
void for_each_element(std::int64_t n, Fn&& fn) {
  const std::int64_t chunks = (n + kParallelGrain - 1) / kParallelGrain;
  cpu::parallel_tasks(chunks, omp_get_max_threads(), [&](std::int64_t k) {
    for (std::int64_t i = k * kParallelGrain, end = std::min(n, i + kParallelGrain); i < end; ++i) fn(i);
  });
}

/// Calls fn(T{}) with T float for f32 and double for f64.
template <class Fn>
void dispatch_float(DType dtype, Fn&& fn) {
  if (dtype == DType::f32)
    fn(float{});
  else
    fn(double{});
}

/// The parameter as a contiguous f64 tensor of its own shape; throws naming `op` and `role` if it
/// is undefined or not on the CPU.
Tensor parameter_values(const char* op, const char* role, const Tensor& p);

/// Throws "<op>: <role> must be <expected>, got <v> at flat index <i> of shape <s>" for the first
/// element failing `ok`.
template <class Pred>
void check_each(const char* op, const char* role, const Tensor& values, Pred ok, const char* expected) {
  const double* v = values.data<double>();
  for (std::int64_t i = 0; i < values.numel(); ++i)
    VARIATE_CHECK(ok(v[i]), op, role, " must be ", expected, ", got ", v[i], " at flat index ", i, " of shape ",
                  values.shape());
}

/// Throws naming `op` and `role` unless `batch` broadcasts to `shape` (the result's shape).
void check_broadcasts(const char* op, const char* role, const Shape& batch, const Shape& shape);
/// Checked f64 values broadcast to `shape`.
Tensor broadcast_values(const char* op, const char* role, const Tensor& values, const Shape& shape);
/// For each element of `shape`, the flat index of the row of an event-shaped parameter (..., K)
/// whose batch shape `batch` broadcasts to `shape`: an i64 tensor of `shape`.
Tensor batch_rows(const char* op, const char* role, const Shape& batch, const Shape& shape);
/// `shape` with `k` appended (the result shape of an event-valued sampler).
Shape with_event(const char* op, const Shape& shape, std::int64_t k);

/// lgamma without std::lgamma's write to the global signgam, which would race between threads.
inline double log_gamma_function(double x) {
  int sign = 0;
  return lgamma_r(x, &sign);
}

/// log of a Gamma(a, 1) draw; finite for every a > 0.
double sample_log_gamma(Stream& s, double a);
/// A Gamma(a, 1) draw for a >= 1.
double sample_gamma_at_least_one(Stream& s, double a);
/// A Binomial(n, p) draw for integer n >= 0 and p in [0, 1].
double sample_binomial(Stream& s, double n, double p);

/// `x` moved into (0, inf) at T's resolution.
template <class T>
T clamp_positive(double x) {
  return std::fmax(T(x), std::numeric_limits<T>::min());
}
/// `x` moved into (0, 1) at T's resolution.
template <class T>
T clamp_unit(double x) {
  constexpr T below_one = T(1) - std::numeric_limits<T>::epsilon() / 2;
  return std::fmin(clamp_positive<T>(x), below_one);
}

}  // namespace variate::random::detail
