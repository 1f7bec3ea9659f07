// AutoregressiveBernoulli's ancestral draws follow its density: the frequencies of the 8 binary
// vectors of length 3 in 20000 draws against exp(log_prob).
#include <gtest/gtest.h>

#include <cmath>

#include "support/test_seed.hpp"
#include "variate/distributions/autoregressive_bernoulli.hpp"

namespace variate::dist {
namespace {

TEST(AutoregressiveBernoulliDraws, FollowTheDensity) {
  const nn::AutoregressiveTransformer net({.length = 3, .embed_dim = 8, .layers = 2, .num_heads = 2, .block_length = 0},
                                          random::Key(30));
  const AutoregressiveBernoulli law(net);
  constexpr std::int64_t n = 20000;
  const Tensor draws = law.sample(random::Key(variate::testing::test_seed(31)), Shape{n});
  std::vector<double> counts(8, 0.0), bits;
  for (std::int64_t i = 0; i < n; ++i)
    counts[std::size_t(draws.at(3 * i) + 2 * draws.at(3 * i + 1) + 4 * draws.at(3 * i + 2))] += 1;
  for (int v = 0; v < 8; ++v)
    for (int t = 0; t < 3; ++t) bits.push_back(double((v >> t) & 1));
  const Tensor p = exp(law.log_prob(Tensor::from(bits, Shape{8, 3})));
  // Each frequency is within 4.5 standard errors (a false failure about once in 10^5 per cell).
  for (int v = 0; v < 8; ++v) {
    const double pv = p.at(v), se = std::sqrt(pv * (1 - pv) / double(n));
    EXPECT_NEAR(counts[std::size_t(v)] / double(n), pv, 4.5 * se) << "vector " << v;
  }
}

}  // namespace
}  // namespace variate::dist
