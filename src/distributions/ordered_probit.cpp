#include "variate/distributions/ordered_probit.hpp"

#include <numbers>

#include "distributions/ordinal.hpp"
#include "variate/distributions/parameters.hpp"

namespace variate::dist {

OrderedProbit::OrderedProbit(Tensor predictor, Tensor cutpoints)
    : Distribution(dist::detail::ordinal_batch("OrderedProbit", predictor, cutpoints), {}, DType::i64) {
  const DType ft = dist::common_float_type({predictor, cutpoints});
  predictor_ = dist::as_dtype(predictor, ft);
  cutpoints_ = dist::as_dtype(cutpoints, ft);
}

Constraint OrderedProbit::support() const {
  const DType ft = cutpoints_.dtype();
  return Constraint::integer_interval(Tensor::scalar(0.0, ft), Tensor::scalar(double(num_categories() - 1), ft));
}

Tensor OrderedProbit::categorical_log_probs() const {
  // Differentiable ops; with d_k = c_k - eta and Phi(t) = erfc(-t / sqrt 2) / 2: log P(0) =
  // log Phi(d_0), log P(K-1) = log Phi(-d_{K-2}), and in between the difference of two cdfs taken
  // in the upper tail (1 - Phi) where d_{k-1} > 0, else in the lower one.
  const double r = 1 / std::numbers::sqrt2;
  const std::int64_t n = cutpoints_.dim(-1);
  const Tensor d = cutpoints_ - expand_dims(predictor_, -1);
  std::vector<Tensor> parts{log(0.5 * erfc(-r * slice(d, -1, 0, 1)))};
  if (n > 1) {
    const Tensor lo = slice(d, -1, 0, n - 1), hi = slice(d, -1, 1, n);
    const Tensor upper = erfc(r * lo) - erfc(r * hi), lower = erfc(-r * hi) - erfc(-r * lo);
    parts.push_back(log(0.5 * where(gt(lo, Tensor::scalar(0.0, lo.dtype())), upper, lower)));
  }
  parts.push_back(log(0.5 * erfc(r * slice(d, -1, n - 1, n))));
  return concat(parts, -1);
}

Tensor OrderedProbit::sample(random::Key key, const Shape& sample_shape) const {
  return dist::detail::ordinal_sample("OrderedProbit", key, categorical_log_probs(), sample_full_shape(sample_shape),
                                      predictor_, cutpoints_);
}

Tensor OrderedProbit::log_prob(const Tensor& value) const {
  return dist::detail::ordinal_log_prob(categorical_log_probs(), value, batch_shape());
}

}  // namespace variate::dist
