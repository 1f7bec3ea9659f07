#include "variate/inference/rank_histogram.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "variate/core/error.hpp"

namespace variate::inference {

int rank_plot_bins(std::size_t draws_per_chain) {
  VARIATE_CHECK(draws_per_chain > 0, "rank_plot_bins", "no draws; expected at least one per chain");
  return int(std::ceil(2.0 * std::log2(double(draws_per_chain)))) + 1;
}

RankHistogram rank_histogram(const ChainDraws& draws, int bins) {
  VARIATE_CHECK(!draws.empty(), "rank_histogram", "no chains; expected at least one");
  VARIATE_CHECK(bins >= 1, "rank_histogram", "bins = ", bins, "; expected at least 1");
  const std::size_t n = draws.front().size();
  VARIATE_CHECK(n > 0, "rank_histogram", "chain 1 is empty; expected draws in every chain");
  std::vector<double> all;
  for (std::size_t c = 0; c < draws.size(); ++c) {
    VARIATE_CHECK(draws[c].size() == n, "rank_histogram", "chain ", c + 1, " has ", draws[c].size(),
                  " draws but chain 1 has ", n, "; expected chains of equal length");
    for (double x : draws[c]) {
      VARIATE_CHECK(std::isfinite(x), "rank_histogram", "chain ", c + 1, " has the non-finite draw ", x,
                    "; expected finite draws");
      all.push_back(x);
    }
  }
  const std::size_t total = all.size();
  std::vector<std::size_t> order(total);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return all[a] < all[b]; });
  std::vector<double> rank(total);
  for (std::size_t i = 0; i < total;) {
    std::size_t j = i;
    while (j + 1 < total && all[order[j + 1]] == all[order[i]]) ++j;
    const double average = 0.5 * double(i + j) + 1.0;  // ranks i+1 .. j+1 share their mean
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = average;
    i = j + 1;
  }

  RankHistogram h;
  const double width = double(total) / bins;
  for (int b = 0; b <= bins; ++b) h.edges.push_back(width * b);
  h.expected = double(total) / (double(bins) * double(draws.size()));
  h.counts.assign(draws.size(), std::vector<int>(std::size_t(bins), 0));
  for (std::size_t i = 0; i < total; ++i) {
    const int b = std::min(bins - 1, int(rank[i] / width));
    ++h.counts[i / n][std::size_t(b)];
  }
  return h;
}

}  // namespace variate::inference
