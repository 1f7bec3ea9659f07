#pragma once
// What the discrete and multivariate families share (private to src/distributions): a success
// probability given as `probs` or as `logits` (TFP's two parameterizations), the stable logs of p
// and 1 - p, the one-node log likelihood c + a log p + b log(1 - p) that Bernoulli, Binomial,
// Geometric and NegativeBinomial reduce to, the 0 * inf = 0 rule their hand-written partials need,
// and the parameter checks the shared dist:: helpers do not cover (counts, simplexes, ranks).
#include "variate/autodiff/ops.hpp"

namespace variate::dist::detail {

/// A probability p in [0, 1] kept in the form the user gave: probs = p, or logits = log(p / (1 - p)).
/// Gradients flow to that tensor.
struct ProbsOrLogits {
  Tensor param;  // probs or logits, in the family's floating dtype
  bool is_logits = false;

  /// Which end points p may take: Geometric needs p > 0, NegativeBinomial p < 1.
  enum class Range { closed, above_zero, below_one };

  /// Checks probabilities in `range`, or logits that are not NaN (and not -inf for above_zero, not
  /// +inf for below_one), naming `family` and "probs" or "logits"; converts to `dtype`.
  static ProbsOrLogits make(const char* family, const Tensor& param, bool is_logits, DType dtype,
                            Range range = Range::closed);

  /// log p and log(1 - p) as constants: log_sigmoid(+-logits) for logits, so |logits| = 40 keeps
  /// full relative accuracy where 1 - sigmoid(40) would round to 0.
  Tensor log_p() const;
  Tensor log1m_p() const;
  /// p and logit(p), differentiable in `param` (TFP's probs_parameter / logits_parameter).
  Tensor probs() const;
  Tensor logits() const;
  /// p (1 - p), differentiably; sigmoid(l) sigmoid(-l) from logits, so it does not round to 0.
  Tensor probs_times_complement() const;
};

/// base + a log p + b log(1 - p) as one tape node with its analytic partial in p's parameter; `base`,
/// `a` and `b` are constants. A term with coefficient 0 is 0 even where its log is -inf (no
/// successes when p = 0).
Tensor bernoulli_trials_log_likelihood(const ProbsOrLogits& p, const Tensor& base, const Tensor& a, const Tensor& b);

/// `value` (whose own gradient passes through) as a function that is not differentiable in `param`:
/// a backward pass that reaches it while `param` is tracked throws "<family>: ... <role> (<why>)".
/// The strings must outlive the tape (string literals).
Tensor not_differentiable_in(const char* family, const char* role, const char* why, const Tensor& value,
                             const Tensor& param);

/// c * x, but 0 wherever c is 0: 0 log 0 = 0 in densities, and a zero cotangent times an infinite
/// partial is 0 in backward rules (masked-out values must not make NaN gradients).
Tensor times_nonzero(const Tensor& c, const Tensor& x);

/// log_softmax over the last axis as a constant, for nodes whose partials are written by hand:
/// shifted by the row maximum, so logits of +-40 (or -inf) neither overflow nor give NaN.
Tensor log_softmax_values(const Tensor& logits);

/// Throws "<family>: <role> must be a non-negative integer, ..." unless every element is one.
void check_count(const char* family, const char* role, const Tensor& x);
/// Throws unless the last axis of `x` holds non-negative entries summing to 1 (to the square root
/// of the dtype's epsilon, the rounding of a softmax), naming family and role.
void check_simplex(const char* family, const char* role, const Tensor& x);
/// Throws unless `x` has rank >= `rank`, naming family, role and what the axes mean.
void check_min_rank(const char* family, const char* role, const Tensor& x, int rank, const char* what);

/// `x` with its last `n` axes removed (the batch part of an event-shaped parameter).
Shape drop_trailing(const Shape& x, int n);

}  // namespace variate::dist::detail
