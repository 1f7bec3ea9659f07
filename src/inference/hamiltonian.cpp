#include "variate/inference/hamiltonian.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "variate/core/error.hpp"
#include "variate/distribute/mesh.hpp"

namespace variate::inference {

PhasePoints::PhasePoints(std::int64_t c, std::int64_t d)
    : chains(c),
      dimension(d),
      q(std::size_t(c * d)),
      p(std::size_t(c * d)),
      grad(std::size_t(c * d)),
      log_density(std::size_t(c)) {}

void PhasePoints::copy_chain(const PhasePoints& from, std::int64_t c) {
  const auto off = std::size_t(c * dimension), n = std::size_t(dimension);
  std::copy_n(from.q.data() + off, n, q.data() + off);
  std::copy_n(from.p.data() + off, n, p.data() + off);
  std::copy_n(from.grad.data() + off, n, grad.data() + off);
  log_density[std::size_t(c)] = from.log_density[std::size_t(c)];
}

Evaluator::Evaluator(const Target& target) : target_(target) {}

void Evaluator::evaluate_one(PhasePoints& z, std::int64_t c) {
  const std::int64_t d = z.dimension;
  double lp = 0;
  try {
    ++calls_;
    target_.evaluate(std::span<const double>(z.q_of(c), std::size_t(d)), 1, std::span<double>(&lp, 1),
                     std::span<double>(z.grad_of(c), std::size_t(d)));
  } catch (const std::exception& e) {
    if (distribute::running_axis() != nullptr) throw;
    last_error_ = e.what();
    lp = -std::numeric_limits<double>::infinity();
    std::fill_n(z.grad_of(c), d, 0.0);
  }
  z.log_density[std::size_t(c)] = lp;
}

void Evaluator::evaluate(PhasePoints& z, const ChainMask& active) {
  const std::int64_t n = z.chains, d = z.dimension;
  std::int64_t count = 0, only = 0;
  for (std::int64_t c = 0; c < n; ++c)
    if (active[std::size_t(c)]) ++count, only = c;
  if (count == 0) return;
  if (count == 1) return evaluate_one(z, only);
  lp_.resize(std::size_t(n));
  grad_.resize(std::size_t(n * d));
  // Inactive rows are evaluated too (one call for the batch) but at an active chain's position: a
  // finished chain may rest where the model throws, which would send every call to the fallback.
  q_ = z.q;
  for (std::int64_t c = 0; c < n; ++c)
    if (!active[std::size_t(c)]) std::copy_n(z.q_of(only), d, q_.data() + c * d);
  try {
    ++calls_;
    target_.evaluate(q_, n, lp_, grad_);
  } catch (const std::exception&) {
    if (distribute::running_axis() != nullptr) throw;
    for (std::int64_t c = 0; c < n; ++c)
      if (active[std::size_t(c)]) evaluate_one(z, c);
    return;
  }
  for (std::int64_t c = 0; c < n; ++c) {
    if (!active[std::size_t(c)]) continue;
    z.log_density[std::size_t(c)] = lp_[std::size_t(c)];
    std::copy_n(grad_.data() + c * d, d, z.grad_of(c));
  }
}

double hamiltonian(const PhasePoints& z, std::int64_t c, const Metric& metric) {
  const double h = -z.log_density[std::size_t(c)] + metric.kinetic_energy(z.p_of(c));
  return std::isnan(h) ? std::numeric_limits<double>::infinity() : h;
}

void leapfrog(Evaluator& evaluator, std::span<const Metric> metrics, std::span<const double> step,
              const ChainMask& active, PhasePoints& z, std::vector<double>& velocity) {
  const std::int64_t d = z.dimension;
  velocity.resize(std::size_t(d));
  for (std::int64_t c = 0; c < z.chains; ++c) {
    if (!active[std::size_t(c)]) continue;
    const double h = step[std::size_t(c)];
    double* p = z.p_of(c);
    double* q = z.q_of(c);
    const double* g = z.grad_of(c);
    for (std::int64_t i = 0; i < d; ++i) p[i] += 0.5 * h * g[i];
    metrics[std::size_t(c)].velocity(p, velocity.data());
    for (std::int64_t i = 0; i < d; ++i) q[i] += h * velocity[std::size_t(i)];
  }
  evaluator.evaluate(z, active);
  for (std::int64_t c = 0; c < z.chains; ++c) {
    if (!active[std::size_t(c)]) continue;
    const double h = step[std::size_t(c)];
    double* p = z.p_of(c);
    const double* g = z.grad_of(c);
    for (std::int64_t i = 0; i < d; ++i) p[i] += 0.5 * h * g[i];
  }
}

}  // namespace variate::inference
