#pragma once
// Rank normalization (Vehtari et al. 2021): draws replaced by the normal scores of
// their ranks, so that R-hat and ESS work for heavy tails and need no finite mean. One sort per
// quantity serves the quantiles and both the bulk and the folded normalization.
#include <cstdint>
#include <vector>

#include "inference/diagnostics/split_chains.hpp"
#include "variate/inference/diagnostics.hpp"

namespace variate::inference::detail {

// Values in ascending order with a position each (where its normal score goes, -1 for none).
struct Sorted {
  std::vector<double> values;
  std::vector<std::int64_t> positions;
};

// All draws sorted, each with its split position (split_flat's layout): one sort per quantity
// serves the quantiles, both rank normalizations of R-hat and the bulk ESS.
Sorted sort_draws(const ChainDraws& draws);

// Bulk: rank-normalized split chains of the draws themselves.
Flat bulk_scores(const ChainDraws& draws, const Sorted& s);

// Tail: rank-normalized split chains of |x - median|. Their ascending order is a merge of the draws
// below the median (walking down) with those at or above it (walking up), so no second sort.
Flat folded_scores(const ChainDraws& draws, const Sorted& s);

}  // namespace variate::inference::detail
