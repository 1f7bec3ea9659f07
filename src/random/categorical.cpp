// Samplers of one category out of several: bernoulli and categorical.
#include <algorithm>
#include <cmath>
#include <limits>

#include "random/support.hpp"
#include "variate/random/samplers.hpp"
#include "variate/tensor/prim.hpp"

namespace variate::random {

Tensor bernoulli(Key key, const Tensor& probs, const Shape& shape) {
  const Tensor p0 = detail::parameter_values("bernoulli", "probs", probs);
  detail::check_each(
      "bernoulli", "probs", p0, [](double v) { return v >= 0.0 && v <= 1.0; }, "in [0, 1]");
  const Tensor p = detail::broadcast_values("bernoulli", "probs", p0, shape);
  const DType dtype = float_type(probs.dtype());
  Tensor out = Tensor::empty(shape, dtype);
  const double* pv = p.data<double>();
  detail::dispatch_float(dtype, [&](auto t) {
    using T = decltype(t);
    T* y = out.data<T>();
    detail::for_each_element(out.numel(), [&](std::int64_t i) {
      detail::Stream s(key, std::uint64_t(i));
      // u < p with u on [0, 1): never 1 for p = 0, always for p = 1.
      y[i] = s.uniform() < pv[i] ? T(1) : T(0);
    });
  });
  return out;
}

// Inversion: one uniform per draw against the cumulative softmax of each row, computed once per row
// relative to the row's maximum, so logits of any size (+-40 or +-1e4) neither overflow nor lose
// the dominant categories. Categories below 2^-53 of the row's mass are never drawn.
Tensor categorical(Key key, const Tensor& logits, const Shape& shape) {
  const Tensor l = detail::parameter_values("categorical", "logits", logits);
  detail::check_each(
      "categorical", "logits", l,
      [](double v) { return !std::isnan(v) && v != std::numeric_limits<double>::infinity(); }, "a number below +inf");
  VARIATE_CHECK(l.rank() >= 1 && l.dim(-1) >= 1, "categorical",
                "logits must have a non-empty last (event) axis, got shape ", l.shape());
  const std::int64_t k = l.dim(-1);
  const std::int64_t batch_size = l.numel() / k;
  const double* lv = l.data<double>();

  Tensor cumulative = Tensor::empty(l.shape(), DType::f64);
  double* cdf = cumulative.data<double>();
  for (std::int64_t r = 0; r < batch_size; ++r) {
    const double* row = lv + r * k;
    const double top = *std::max_element(row, row + k);
    VARIATE_CHECK(top > -std::numeric_limits<double>::infinity(), "categorical", "logits row ", r,
                  " is -inf everywhere; no category can be drawn");
    double acc = 0.0;
    for (std::int64_t j = 0; j < k; ++j) {
      acc += std::exp(row[j] - top);
      cdf[r * k + j] = acc;
    }
  }

  Shape batch = l.shape();
  batch.erase(batch.rank() - 1);
  const Tensor rows = detail::batch_rows("categorical", "logits", batch, shape);
  const std::int64_t* row = rows.data<std::int64_t>();
  Tensor out = Tensor::empty(shape, DType::i64);
  std::int64_t* y = out.data<std::int64_t>();
  detail::for_each_element(out.numel(), [&](std::int64_t i) {
    const double* c = cdf + row[i] * k;
    detail::Stream s(key, std::uint64_t(i));
    const double target = s.uniform() * c[k - 1];
    // The first category whose cumulative mass exceeds the target. Should rounding put the target
    // at the total, the last category with positive mass is drawn rather than a trailing -inf one.
    const double* hit = std::upper_bound(c, c + k, target);
    if (hit == c + k) hit = std::lower_bound(c, c + k, c[k - 1]);
    y[i] = hit - c;
  });
  return out;
}

}  // namespace variate::random
