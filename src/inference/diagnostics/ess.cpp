#include "inference/diagnostics/ess.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "inference/diagnostics/autocovariance.hpp"
#include "inference/diagnostics/quantile.hpp"

namespace variate::inference {
namespace detail {
namespace {

double nan_or_min(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::min(a, b); }

}  // namespace

double ess_of_split(const Flat& split) {
  const std::size_t chains = split.chains, n = split.n;
  Spread spread;
  spread.add(split.data);
  if (n < 3 || spread.undefined()) return kNaN;
  std::vector<double> acov(n, 0.0), acov_x(n), acov_y(n), means(chains);  // acov: mean over chains
  for (std::size_t j = 0; j < chains; j += 2) {
    const bool pair = j + 1 < chains;
    autocovariance_pair(split.chain(j).data(), pair ? split.chain(j + 1).data() : nullptr, n, acov_x.data(),
                        acov_y.data());
    for (std::size_t t = 0; t < n; ++t) acov[t] += acov_x[t] + (pair ? acov_y[t] : 0.0);
  }
  for (double& a : acov) a /= static_cast<double>(chains);
  for (std::size_t j = 0; j < chains; ++j) means[j] = mean_of(split.chain(j));
  const double nd = static_cast<double>(n);
  const double mean_var = acov[0] * nd / (nd - 1);  // W
  double var_plus = mean_var * (nd - 1) / nd;
  if (chains > 1) var_plus += variance_of(means);
  auto rho_at = [&](std::size_t t) { return 1 - (mean_var - acov[t]) / var_plus; };

  std::vector<double> rho(n, 0.0);
  double rho_even = 1, rho_odd = rho_at(1);
  rho[0] = rho_even;
  rho[1] = rho_odd;
  std::size_t t = 0;
  while (t + 5 < n && rho_even + rho_odd > 0) {  // initial positive sequence of pair sums
    t += 2;
    rho_even = rho_at(t);
    rho_odd = rho_at(t + 1);
    if (rho_even + rho_odd >= 0) {
      rho[t] = rho_even;
      rho[t + 1] = rho_odd;
    }
  }
  const std::size_t max_t = t;
  if (rho_even > 0) rho[max_t] = rho_even;
  for (t = 2; t + 2 <= max_t; t += 2) {  // initial monotone sequence
    if (rho[t] + rho[t + 1] > rho[t - 2] + rho[t - 1]) rho[t] = rho[t + 1] = (rho[t - 2] + rho[t - 1]) / 2;
  }
  double sum = 0;
  for (std::size_t i = 0; i < max_t; ++i) sum += rho[i];
  // Split chains of 3..5 draws never enter the loop; posterior (through R's 1:0) and Stan both
  // end with tau = 2 there, and we keep their value.
  double tau = max_t == 0 ? 2.0 : -1 + 2 * sum + rho[max_t];
  const double total = static_cast<double>(chains) * nd;
  tau = std::max(tau, 1 / std::log10(total));  // ESS at most S log10 S, as posterior
  return total / tau;
}

double tail_ess(const ChainDraws& draws, const Sorted& s) {
  const double q05 = quantile_of_sorted(s.values, 0.05), q95 = quantile_of_sorted(s.values, 0.95);
  return nan_or_min(ess_of_split(split_flat(draws, [&](double v) { return v <= q05 ? 1.0 : 0.0; })),
                    ess_of_split(split_flat(draws, [&](double v) { return v <= q95 ? 1.0 : 0.0; })));
}

}  // namespace detail

using detail::bulk_scores;
using detail::draws_per_chain;
using detail::ess_of_split;
using detail::kMinDrawsEss;
using detail::kNaN;
using detail::sort_draws;
using detail::split_flat;
using detail::tail_ess;
using detail::undefined;
using detail::variance_of;

double ess_basic(const ChainDraws& draws) {
  if (draws_per_chain("ess_basic", draws) < kMinDrawsEss) return kNaN;
  return ess_of_split(split_flat(draws));
}

double ess_bulk(const ChainDraws& draws) {
  if (draws_per_chain("ess_bulk", draws) < kMinDrawsEss || undefined(draws)) return kNaN;
  return ess_of_split(bulk_scores(draws, sort_draws(draws)));
}

double ess_tail(const ChainDraws& draws) {
  if (draws_per_chain("ess_tail", draws) < kMinDrawsEss || undefined(draws)) return kNaN;
  return tail_ess(draws, sort_draws(draws));
}

double mcse_mean(const ChainDraws& draws) {
  if (draws_per_chain("mcse_mean", draws) < kMinDrawsEss) return kNaN;
  std::vector<double> all;
  for (const auto& chain : draws) all.insert(all.end(), chain.begin(), chain.end());
  return std::sqrt(variance_of(all) / ess_basic(draws));
}

}  // namespace variate::inference
