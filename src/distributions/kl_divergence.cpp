#include "variate/distributions/kl_divergence.hpp"

#include <cmath>

#include "variate/distributions/bernoulli.hpp"
#include "variate/distributions/beta.hpp"
#include "variate/distributions/categorical.hpp"
#include "variate/distributions/dirichlet.hpp"
#include "variate/distributions/exponential.hpp"
#include "variate/distributions/gamma.hpp"
#include "variate/distributions/multivariate_normal.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/poisson.hpp"
#include "variate/distributions/uniform.hpp"

namespace variate::dist {

namespace {

// Closed forms from Gil, Alajaji & Linder, "Renyi divergence measures for commonly used univariate
// continuous distributions" (Information Sciences 249, 2013), table of KL limits, and for the
// multivariate normal and Dirichlet from Penny, "KL-divergences of normal, gamma, Dirichlet and
// Wishart densities" (2001); discrete ones are the definition sum_k p_k log(p_k / q_k).

Tensor kl(const Normal& p, const Normal& q) {
  // log(s_q / s_p) + (s_p^2 + (m_p - m_q)^2) / (2 s_q^2) - 1/2.
  return log(q.scale() / p.scale()) + (square(p.scale()) + square(p.loc() - q.loc())) / (2.0 * square(q.scale())) - 0.5;
}

Tensor kl(const MultivariateNormal& p, const MultivariateNormal& q) {
  // (tr(S_q^-1 S_p) + |L_q^-1 (m_q - m_p)|^2 - k + log det S_q - log det S_p) / 2, with S = L L^T:
  // tr(S_q^-1 S_p) = |L_q^-1 L_p|_F^2 and log det S = 2 sum log diag L.
  const int last[] = {-1}, last_two[] = {-2, -1};
  const Tensor &lp = p.scale_tril(), &lq = q.scale_tril();
  const std::int64_t n = lp.dim(-1);
  VARIATE_CHECK(lq.dim(-1) == n, "kl_divergence", "MultivariateNormal of dimension ", n,
                " against MultivariateNormal of dimension ", lq.dim(-1));
  Shape matrices = broadcast_shapes("kl_divergence", p.batch_shape(), q.batch_shape()), columns = matrices;
  matrices.push_back(n);
  matrices.push_back(n);
  columns.push_back(n);
  columns.push_back(1);
  const Tensor lq_b = broadcast_to(lq, matrices);
  const Tensor m = triangular_solve(lq_b, broadcast_to(lp, matrices), true);
  const Tensor z = triangular_solve(lq_b, broadcast_to(expand_dims(q.loc() - p.loc(), -1), columns), true);
  const double k = double(lp.dim(-1));
  const Tensor log_det_q = sum(log(diagonal(lq)), last), log_det_p = sum(log(diagonal(lp)), last);
  return 0.5 * (sum(square(m), last_two) + sum(square(z), last_two) - k) + log_det_q - log_det_p;
}

// sum over outcomes of p log(p / q) written with log probabilities, 0 where p = 0.
Tensor sum_p_log_ratio(const Tensor& prob, const Tensor& log_p, const Tensor& log_q) {
  const Tensor zero = Tensor::scalar(0.0, prob.dtype());
  const Tensor none = eq(prob, zero);
  return where(none, zero, prob * (where(none, zero, log_p) - where(none, zero, log_q)));
}

Tensor kl(const Bernoulli& p, const Bernoulli& q) {
  const Tensor lp = p.logits_parameter(), lq = q.logits_parameter(), pp = p.probs_parameter();
  return sum_p_log_ratio(pp, log_sigmoid(lp), log_sigmoid(lq)) +
         sum_p_log_ratio(1.0 - pp, log_sigmoid(-lp), log_sigmoid(-lq));
}

Tensor kl(const Categorical& p, const Categorical& q) {
  const int last[] = {-1};
  VARIATE_CHECK(p.num_categories() == q.num_categories(), "kl_divergence", "Categorical with ", p.num_categories(),
                " categories against Categorical with ", q.num_categories());
  return sum(sum_p_log_ratio(p.probs_parameter(), p.logits_parameter(), q.logits_parameter()), last);
}

Tensor kl(const Gamma& p, const Gamma& q) {
  // (a_p - a_q) digamma(a_p) - lgamma(a_p) + lgamma(a_q) + a_q (log b_p - log b_q) + a_p (b_q - b_p) / b_p.
  const Tensor &ap = p.concentration(), &aq = q.concentration(), &bp = p.rate(), &bq = q.rate();
  return (ap - aq) * digamma(ap) - lgamma(ap) + lgamma(aq) + aq * (log(bp) - log(bq)) + ap * (bq - bp) / bp;
}

Tensor kl(const Beta& p, const Beta& q) {
  // lbeta(a_q, b_q) - lbeta(a_p, b_p) + (a_p - a_q) digamma(a_p) + (b_p - b_q) digamma(b_p)
  //   + (a_q - a_p + b_q - b_p) digamma(a_p + b_p).
  const Tensor &ap = p.concentration1(), &bp = p.concentration0(), &aq = q.concentration1(), &bq = q.concentration0();
  auto lbeta = [](const Tensor& a, const Tensor& b) { return lgamma(a) + lgamma(b) - lgamma(a + b); };
  return lbeta(aq, bq) - lbeta(ap, bp) + (ap - aq) * digamma(ap) + (bp - bq) * digamma(bp) +
         (aq - ap + bq - bp) * digamma(ap + bp);
}

Tensor kl(const Dirichlet& p, const Dirichlet& q) {
  // lgamma(a0) - sum lgamma(a) - lgamma(b0) + sum lgamma(b) + sum (a - b)(digamma(a) - digamma(a0)).
  const int last[] = {-1};
  const Tensor &a = p.concentration(), &b = q.concentration();
  VARIATE_CHECK(a.dim(-1) == b.dim(-1), "kl_divergence", "Dirichlet with ", a.dim(-1),
                " categories against Dirichlet with ", b.dim(-1));
  const Tensor a0 = sum(a, last, true), b0 = sum(b, last);
  return squeeze(lgamma(a0), -1) - sum(lgamma(a), last) - lgamma(b0) + sum(lgamma(b), last) +
         sum((a - b) * (digamma(a) - digamma(a0)), last);
}

Tensor kl(const Exponential& p, const Exponential& q) {
  // log(r_p / r_q) + r_q / r_p - 1.
  return log(p.rate() / q.rate()) + q.rate() / p.rate() - 1.0;
}

Tensor kl(const Poisson& p, const Poisson& q) {
  // l_p log(l_p / l_q) - l_p + l_q, with 0 log 0 = 0.
  const Tensor lp = p.rate_parameter(), lq = q.rate_parameter();
  return sum_p_log_ratio(lp, log(lp), log(lq)) - lp + lq;
}

Tensor kl(const Uniform& p, const Uniform& q) {
  // log((b_q - a_q) / (b_p - a_p)) where q's interval covers p's, else +inf.
  const Tensor covered = logical_and(le(q.low(), p.low()), ge(q.high(), p.high()));
  const Tensor value = log((q.high() - q.low()) / (p.high() - p.low()));
  return where(covered, value, Tensor::scalar(INFINITY, value.dtype()));
}

template <class D>
bool both(const Distribution& p, const Distribution& q, Tensor& out) {
  const auto* dp = dynamic_cast<const D*>(&p);
  const auto* dq = dynamic_cast<const D*>(&q);
  if (dp == nullptr || dq == nullptr) return false;
  out = kl(*dp, *dq);
  return true;
}

}  // namespace

std::optional<Tensor> try_kl_divergence(const Distribution& p, const Distribution& q) {
  Tensor out;
  if (both<Normal>(p, q, out) || both<MultivariateNormal>(p, q, out) || both<Bernoulli>(p, q, out) ||
      both<Categorical>(p, q, out) || both<Gamma>(p, q, out) || both<Beta>(p, q, out) || both<Dirichlet>(p, q, out) ||
      both<Exponential>(p, q, out) || both<Poisson>(p, q, out) || both<Uniform>(p, q, out))
    return out;
  return std::nullopt;
}

Tensor kl_divergence(const Distribution& p, const Distribution& q) {
  if (std::optional<Tensor> out = try_kl_divergence(p, q)) return *out;
  variate::detail::fail("kl_divergence: no closed form is known for KL(", p.name(), " || ", q.name(),
                        "); known pairs are each of Normal, MultivariateNormal, Bernoulli, Categorical, Gamma, Beta, "
                        "Dirichlet, Exponential, Poisson and Uniform with itself");
}

}  // namespace variate::dist
