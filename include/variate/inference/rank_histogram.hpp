#pragma once
// The data of a rank plot (Vehtari et al. 2021, section 4.2, as ArviZ's plot_rank draws it): the
// draws of all chains ranked together, and per chain a histogram of its ranks. Chains that mix
// well each have a near-uniform histogram; a chain stuck in one region piles up at one end.
//
//   inference::RankHistogram h = inference::rank_histogram(draws, inference::rank_plot_bins(1000));
//   h.counts[chain][bin];  // against the uniform height h.expected
#include <cstddef>
#include <vector>

#include "variate/inference/diagnostics.hpp"

namespace variate::inference {

/// Per-chain histograms of the ranks of a quantity's draws over all chains (rank plots).
struct RankHistogram {
  /// counts[chain][bin]: how many of the chain's draws have a rank in the bin.
  std::vector<std::vector<int>> counts;
  /// Bin edges over the ranks [0, S] (S all draws): bins + 1 equal-width edges.
  std::vector<double> edges;
  /// The count per bin and chain if the ranks were uniform: S / (bins x chains).
  double expected = 0;
};

/// ArviZ's default number of bins for `draws_per_chain` draws: ceil(2 log2(n)) + 1 (Sturges'
/// formula with a multiplier of 2). Throws for no draws.
int rank_plot_bins(std::size_t draws_per_chain);

/// Ranks all draws together (1..S, ties get their average rank, as scipy's rankdata) and bins
/// each chain's ranks into `bins` equal-width bins over [0, S], the last bin closed. Throws naming
/// "rank_histogram" for no chains, empty or unequal chains, a non-finite draw or bins < 1.
RankHistogram rank_histogram(const ChainDraws& draws, int bins);

}  // namespace variate::inference
