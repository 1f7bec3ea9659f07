#include "distributions/probs_or_logits.hpp"

#include <cmath>
#include <limits>

#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/distributions/parameters.hpp"

namespace variate::dist::detail {

using autodiff::BackwardContext;

ProbsOrLogits ProbsOrLogits::make(const char* family, const Tensor& param, bool is_logits, DType dtype, Range range) {
  if (is_logits) {
    switch (range) {
      case Range::closed: check_not_nan(family, "logits", param); break;
      case Range::above_zero:
        check_each(family, "logits", param, "a number above -inf", [](double v) { return v > -INFINITY; });
        break;
      case Range::below_one:
        check_each(family, "logits", param, "a number below +inf", [](double v) { return v < INFINITY; });
        break;
    }
  } else {
    switch (range) {
      case Range::closed: check_probability(family, "probs", param); break;
      case Range::above_zero:
        check_each(family, "probs", param, "a probability in (0, 1]", [](double v) { return v > 0 && v <= 1; });
        break;
      case Range::below_one:
        check_each(family, "probs", param, "a probability in [0, 1)", [](double v) { return v >= 0 && v < 1; });
        break;
    }
  }
  return {as_dtype(param, dtype), is_logits};
}

Tensor ProbsOrLogits::log_p() const {
  const autodiff::NoRecording values;
  return is_logits ? log_sigmoid(param) : log(param);
}

Tensor ProbsOrLogits::log1m_p() const {
  const autodiff::NoRecording values;
  return is_logits ? log_sigmoid(-param) : log1p(-param);
}

Tensor ProbsOrLogits::probs() const { return is_logits ? sigmoid(param) : param; }

Tensor ProbsOrLogits::logits() const { return is_logits ? param : log(param) - log1p(-param); }

Tensor ProbsOrLogits::probs_times_complement() const {
  return is_logits ? sigmoid(param) * sigmoid(-param) : param * (1.0 - param);
}

Tensor not_differentiable_in(const char* family, const char* role, const char* why, const Tensor& value,
                             const Tensor& param) {
  return autodiff::record(
      autodiff::stop_gradient(value), {value, param}, {}, [family, role, why](const BackwardContext& ctx) {
        if (ctx.needs_grad(0)) ctx.add(0, ctx.grad());
        if (ctx.needs_grad(1))
          variate::detail::fail(family, ": the log density has no gradient with respect to ", role, " (", why, ")");
      });
}

Tensor times_nonzero(const Tensor& c, const Tensor& x) { return prim::binary(BinaryOp::times_nonzero, c, x); }

Tensor bernoulli_trials_log_likelihood(const ProbsOrLogits& p, const Tensor& base, const Tensor& a, const Tensor& b) {
  Tensor lp;
  {
    const autodiff::NoRecording values;
    lp = base + (times_nonzero(a, p.log_p()) + times_nonzero(b, p.log1m_p()));
  }
  const bool logits = p.is_logits;
  return autodiff::record(lp, {p.param}, {p.param, a, b}, [logits](const BackwardContext& ctx) {
    const Tensor& q = ctx.saved(0);
    const Tensor& a = ctx.saved(1);
    const Tensor& b = ctx.saved(2);
    // logits: d/dl [a log sigmoid(l) + b log sigmoid(-l)] = a sigmoid(-l) - b sigmoid(l);
    // probs:  d/dp [a log p + b log(1 - p)] = a / p - b / (1 - p).
    const Tensor partial = logits ? a * sigmoid(-q) - b * sigmoid(q)
                                  : times_nonzero(a, reciprocal(q)) - times_nonzero(b, reciprocal(1.0 - q));
    // A zero cotangent (a masked-out value) contributes 0 even where the partial is infinite.
    ctx.add(0, times_nonzero(ctx.grad(), partial));
  });
}

Tensor log_softmax_values(const Tensor& logits) {
  const autodiff::NoRecording values;
  const int last[] = {-1};
  const Tensor shifted = logits - max(logits, last, true);
  return shifted - log(sum(exp(shifted), last, true));
}

namespace {

void check_sums_to_one(const char* family, const char* role, const Tensor& x) {
  const autodiff::NoRecording reads_values;
  const Tensor rows = cast(x, DType::f64);
  const double tolerance = std::sqrt(x.dtype() == DType::f32 ? double(std::numeric_limits<float>::epsilon())
                                                             : std::numeric_limits<double>::epsilon());
  const std::int64_t k = rows.dim(-1);
  const double* v = rows.data<double>();
  for (std::int64_t r = 0; k > 0 && r < rows.numel() / k; ++r) {
    double total = 0;
    for (std::int64_t j = 0; j < k; ++j) total += v[r * k + j];
    if (!(std::abs(total - 1) <= tolerance))
      variate::detail::fail(family, ": ", role, " must sum to 1 along the last axis, row ", r, " sums to ", total,
                            " (shape ", x.shape(), ")");
  }
}

}  // namespace

void check_count(const char* family, const char* role, const Tensor& x) {
  check_each(family, role, x, "a non-negative integer",
             [](double v) { return v >= 0 && std::isfinite(v) && std::floor(v) == v; });
}

void check_simplex(const char* family, const char* role, const Tensor& x) {
  check_min_rank(family, role, x, 1, "(..., K) with the K probabilities last");
  check_probability(family, role, x);
  // Computed probabilities (a softmax) are checked again at each replay.
  if (!recording_kernels()) return check_sums_to_one(family, role, x);
  host_check({x}, [family = std::string(family), role = std::string(role), x] {
    check_sums_to_one(family.c_str(), role.c_str(), x);
  });
}

void check_min_rank(const char* family, const char* role, const Tensor& x, int rank, const char* what) {
  check_defined(family, role, x);
  if (x.rank() < rank) variate::detail::fail(family, ": ", role, " must have shape ", what, ", got shape ", x.shape());
}

Shape drop_trailing(const Shape& x, int n) {
  Shape s = x;
  for (int i = 0; i < n; ++i) s.erase(s.rank() - 1);
  return s;
}

}  // namespace variate::dist::detail
