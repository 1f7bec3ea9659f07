#pragma once
// The rank-normalized R-hat, shared by rhat() and convergence().
#include "inference/diagnostics/rank_normalization.hpp"
#include "inference/diagnostics/split_chains.hpp"

namespace variate::inference::detail {

// R-hat of rank-normalized split chains, bulk and folded (Vehtari et al. 2021, section 4.2).
double rank_rhat(const ChainDraws& draws, const Sorted& s, const Flat& bulk);

}  // namespace variate::inference::detail
