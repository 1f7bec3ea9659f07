#include "variate/distributions/ordered_logistic.hpp"

#include "distributions/ordinal.hpp"
#include "variate/distributions/parameters.hpp"

namespace variate::dist {

OrderedLogistic::OrderedLogistic(Tensor predictor, Tensor cutpoints)
    : Distribution(dist::detail::ordinal_batch("OrderedLogistic", predictor, cutpoints), {}, DType::i64) {
  const DType ft = dist::common_float_type({predictor, cutpoints});
  predictor_ = dist::as_dtype(predictor, ft);
  cutpoints_ = dist::as_dtype(cutpoints, ft);
}

Constraint OrderedLogistic::support() const {
  const DType ft = cutpoints_.dtype();
  return Constraint::integer_interval(Tensor::scalar(0.0, ft), Tensor::scalar(double(num_categories() - 1), ft));
}

Tensor OrderedLogistic::categorical_log_probs() const {
  // Differentiable ops; with d_k = c_k - eta: log P(0) = log_sigmoid(d_0), log P(K-1) =
  // log_sigmoid(-d_{K-2}), and in between log(sigmoid(d_k) - sigmoid(d_{k-1})) =
  // log_sigmoid(d_k) + log_sigmoid(-d_{k-1}) + log(-expm1(d_{k-1} - d_k)).
  const std::int64_t n = cutpoints_.dim(-1);
  const Tensor d = cutpoints_ - expand_dims(predictor_, -1);
  std::vector<Tensor> parts{log_sigmoid(slice(d, -1, 0, 1))};
  if (n > 1) {
    const Tensor lo = slice(d, -1, 0, n - 1), hi = slice(d, -1, 1, n);
    parts.push_back(log_sigmoid(hi) + log_sigmoid(-lo) + log(-expm1(lo - hi)));
  }
  parts.push_back(log_sigmoid(-slice(d, -1, n - 1, n)));
  return concat(parts, -1);
}

Tensor OrderedLogistic::sample(random::Key key, const Shape& sample_shape) const {
  return dist::detail::ordinal_sample("OrderedLogistic", key, categorical_log_probs(), sample_full_shape(sample_shape),
                                      predictor_, cutpoints_);
}

Tensor OrderedLogistic::log_prob(const Tensor& value) const {
  return dist::detail::ordinal_log_prob(categorical_log_probs(), value, batch_shape());
}

}  // namespace variate::dist
