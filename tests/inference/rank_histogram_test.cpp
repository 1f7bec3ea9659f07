#include "variate/inference/rank_histogram.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "support/expect_error.hpp"

namespace variate::inference {
namespace {

TEST(RankHistogram, BinsFollowArviZ) {
  EXPECT_EQ(rank_plot_bins(1000), 21);  // ceil(2 log2 1000) + 1 = ceil(19.93) + 1
  EXPECT_EQ(rank_plot_bins(1024), 21);
  EXPECT_EQ(rank_plot_bins(1), 1);
}

TEST(RankHistogram, SeparatedChainsFillOppositeEnds) {
  // Chain 1 holds the 4 smallest draws, chain 2 the 4 largest: ranks 1-4 and 5-8 binned over [0, 8]
  // into [0, 4) and [4, 8], as numpy.histogram bins them for ArviZ (so rank 4 goes up).
  const RankHistogram h = rank_histogram({{0.1, 0.4, 0.2, 0.3}, {5, 7, 6, 8}}, 2);
  EXPECT_EQ(h.counts, (std::vector<std::vector<int>>{{3, 1}, {0, 4}}));
  EXPECT_EQ(h.edges, (std::vector<double>{0, 4, 8}));
  EXPECT_DOUBLE_EQ(h.expected, 2.0);
}

TEST(RankHistogram, TiesShareTheirAverageRank) {
  // All four draws tie: each has rank 2.5 and falls in the middle bin of [0, 4] cut in 3.
  const RankHistogram h = rank_histogram({{1, 1}, {1, 1}}, 3);
  EXPECT_EQ(h.counts, (std::vector<std::vector<int>>{{0, 2, 0}, {0, 2, 0}}));
}

TEST(RankHistogram, EveryDrawIsCountedOnce) {
  ChainDraws draws(3);
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < 100; ++i) draws[std::size_t(c)].push_back(std::sin(37.0 * i + c));
  const RankHistogram h = rank_histogram(draws, rank_plot_bins(100));
  for (const auto& chain : h.counts) EXPECT_EQ(std::accumulate(chain.begin(), chain.end(), 0), 100);
}

TEST(RankHistogram, RejectsBadInput) {
  EXPECT_ERROR(rank_histogram({}, 3), "no chains");
  EXPECT_ERROR(rank_histogram({{1, 2}, {1}}, 3), "chain 2 has 1 draws");
  EXPECT_ERROR(rank_histogram({{1, NAN}}, 3), "non-finite");
  EXPECT_ERROR(rank_histogram({{1, 2}}, 0), "bins = 0");
}

}  // namespace
}  // namespace variate::inference
