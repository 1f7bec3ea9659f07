#pragma once
// Effective sample sizes of split chains, shared by the ESS functions and convergence().
#include "inference/diagnostics/rank_normalization.hpp"
#include "inference/diagnostics/split_chains.hpp"

namespace variate::inference::detail {

// ESS of chains that are already split, as posterior's .ess / Stan's compute_effective_sample_size:
// combined autocorrelations rho_t = 1 - (W - mean_c acov_c(t)) / var_plus (Vehtari et al. 2021
// eq. 10), truncated by Geyer's (1992) initial positive sequence, made monotone, and summed with
// the last positive even lag counted once (a bias term that steadies antithetic chains).
double ess_of_split(const Flat& split);

// min over p in {0.05, 0.95} of the ESS of split I(x <= q_p) (Vehtari et al. 2021, section 4.3).
double tail_ess(const ChainDraws& draws, const Sorted& s);

}  // namespace variate::inference::detail
