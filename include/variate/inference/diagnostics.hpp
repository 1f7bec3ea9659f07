#pragma once
// Convergence diagnostics for MCMC draws of one scalar quantity: split R-hat, rank-normalized R-hat,
// bulk/tail/basic effective sample sizes, the Monte Carlo standard error of the mean and E-BFMI.
//
// The definitions are those of Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021),
// "Rank-normalization, folding, and localization: An improved R-hat for assessing convergence of
// MCMC", Bayesian Analysis 16(2), as implemented by the R package `posterior` (rhat, ess_bulk,
// ess_tail, ess_basic, mcse_mean) and Stan, so numbers here can be compared with theirs.
//
//   inference::ChainDraws mu = {chain0, chain1, chain2, chain3};  // [chain][iteration]
//   double r = inference::rhat(mu);        // want < 1.01
//   double n = inference::ess_bulk(mu);    // want > 100 per chain
//
// Undefined values are NaN (posterior returns NA): all draws equal (within DBL_EPSILON), any draw
// non-finite, chains too short (R-hat: fewer than 4 draws per chain; ESS: split chains shorter
// than 3 draws, i.e. fewer than 6 draws per chain, as posterior). Chains of different lengths, or
// no chains at all, are caller errors and throw variate::Error naming the function.
#include <vector>

namespace variate::inference {

/// Draws of one scalar quantity, [chain][iteration]; every chain has the same length.
using ChainDraws = std::vector<std::vector<double>>;

/// Biased autocovariance (divided by n, as Geyer 1992 recommends) at lags 0..n-1, computed with a
/// zero-padded FFT in O(n log n).
std::vector<double> autocovariance(const std::vector<double>& x);

/// Type-7 sample quantile (R's default: linear interpolation between order statistics at
/// h = (n - 1) p). NaN if any value is NaN. Throws for an empty `x` or p outside [0, 1].
double quantile(std::vector<double> x, double p);

/// The standard normal quantile Phi^{-1}(p), by Wichura (1988), "Algorithm AS 241: The percentage
/// points of the normal distribution", Applied Statistics 37(3): relative accuracy about 1e-16.
/// Returns -inf at 0, +inf at 1 and NaN outside [0, 1].
double normal_quantile(double p);

/// Each chain cut into its first and second half (for an odd length the middle draw is dropped, as
/// posterior does), so that a trend within a chain shows up as disagreement between chains.
ChainDraws split_chains(const ChainDraws& draws);

/// Rank normalization: ranks over all draws (average ranks for ties) mapped to normal scores
/// Phi^{-1}((r - 3/8) / (S + 1/4)) (Blom 1958), S the number of draws; same layout as `draws`.
ChainDraws rank_normalize(const ChainDraws& draws);

/// Classic split R-hat (Gelman et al., BDA3 section 11.4) on the raw draws: sqrt(var_plus / W).
double split_rhat_basic(const ChainDraws& draws);

/// Rank-normalized split R-hat: the larger of the bulk R-hat (rank-normalized split chains) and
/// the tail R-hat (rank-normalized split chains of |x - median|), Vehtari et al. (2021) eq. 4.
double rhat(const ChainDraws& draws);

/// ESS of the split chains without ranks (posterior's ess_basic / ess_mean): the one that the
/// Monte Carlo standard error of the mean needs. At most S log10(S).
double ess_basic(const ChainDraws& draws);

/// ESS of the rank-normalized split chains: efficiency in the bulk, defined even without a mean.
double ess_bulk(const ChainDraws& draws);

/// The smaller ESS of the indicators I(x <= q05) and I(x <= q95) on split chains: efficiency of
/// the 5% and 95% quantile estimates.
double ess_tail(const ChainDraws& draws);

/// sd(all draws) / sqrt(ess_basic): the Monte Carlo standard error of the posterior mean.
double mcse_mean(const ChainDraws& draws);

/// All four at once, sharing the sorting and rank normalization (what summaries want).
struct Convergence {
  double rhat, ess_bulk, ess_tail, ess_basic;
};
Convergence convergence(const ChainDraws& draws);

/// E-BFMI of one chain's Hamiltonian energies: sum_{n>=1} (E_n - E_{n-1})^2 / sum_n (E_n - mean)^2
/// (Betancourt 2016, "Diagnosing suboptimal cotangent disintegrations in Hamiltonian Monte Carlo",
/// as Stan reports it). Values below 0.3 suggest the momentum resampling explores the energy
/// distribution poorly. NaN for fewer than 2 energies or constant energy.
double ebfmi(const std::vector<double>& energy);

}  // namespace variate::inference
