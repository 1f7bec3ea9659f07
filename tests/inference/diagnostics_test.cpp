// MCMC diagnostics (R-hat, ESS, MCSE, E-BFMI and their building blocks) against hand computations
// and processes with known autocorrelation, and the summary writers.
#include "variate/inference/diagnostics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/expect_error.hpp"
#include "variate/inference/summary.hpp"

namespace variate::inference {
namespace {

// `chains` chains of a stationary Gaussian AR(1) process x_t = phi x_{t-1} + e_t, e_t ~ N(0, 1):
// autocorrelation phi^t, so the ESS of the mean is S (1 - phi) / (1 + phi).
ChainDraws ar1_chains(int chains, int draws, double phi, std::uint64_t seed, double shift = 0) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  ChainDraws out(static_cast<std::size_t>(chains));
  for (auto& chain : out) {
    double x = normal(rng) / std::sqrt(1 - phi * phi);  // start in the stationary distribution
    for (int i = 0; i < draws; ++i) {
      chain.push_back(x + shift);
      x = phi * x + normal(rng);
    }
  }
  return out;
}

ChainDraws iid_chains(int chains, int draws, std::uint64_t seed) { return ar1_chains(chains, draws, 0.0, seed); }

double total_draws(const ChainDraws& draws) { return static_cast<double>(draws.size() * draws[0].size()); }

// The biased autocovariance written out: (1/n) sum_{i < n - t} (x_i - mean)(x_{i+t} - mean).
std::vector<double> direct_autocovariance(const std::vector<double>& x) {
  const std::size_t n = x.size();
  double mean = 0;
  for (double v : x) mean += v / static_cast<double>(n);
  std::vector<double> out(n);
  for (std::size_t t = 0; t < n; ++t) {
    double s = 0;
    for (std::size_t i = 0; i + t < n; ++i) s += (x[i] - mean) * (x[i + t] - mean);
    out[t] = s / static_cast<double>(n);
  }
  return out;
}

TEST(Diagnostics, AutocovarianceMatchesTheDirectSum) {
  // By hand: x = (1, 3, 2, 5, 4), mean 3, deviations (-2, 0, -1, 2, 1).
  // lag 0: (4 + 0 + 1 + 4 + 1) / 5 = 2; lag 1: (0 + 0 - 2 + 2) / 5 = 0; lag 2: (2 + 0 - 1) / 5 = 0.2;
  // lag 3: (-4 + 0) / 5 = -0.8; lag 4: -2 / 5 = -0.4.
  const std::vector<double> expected = {2.0, 0.0, 0.2, -0.8, -0.4};
  const std::vector<double> acov = autocovariance({1, 3, 2, 5, 4});
  ASSERT_EQ(acov.size(), 5u);
  for (std::size_t t = 0; t < 5; ++t) EXPECT_NEAR(acov[t], expected[t], 1e-14) << "lag " << t;

  // The FFT against the O(n^2) sum on random data, at lengths below, at and above powers of two.
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(3.0, 2.0);
  for (std::size_t n : {1u, 2u, 3u, 64u, 257u, 1000u}) {
    std::vector<double> x(n);
    for (double& v : x) v = normal(rng);
    const std::vector<double> fast = autocovariance(x), slow = direct_autocovariance(x);
    ASSERT_EQ(fast.size(), n);
    for (std::size_t t = 0; t < n; ++t)
      EXPECT_NEAR(fast[t], slow[t], 1e-12 * (1 + slow[0])) << "n " << n << " lag " << t;
  }
  EXPECT_TRUE(autocovariance({}).empty());
}

TEST(Diagnostics, QuantileIsType7) {
  // Sorted: 1 1 2 3 4 5 6 9 (n = 8), h = 7p. R: quantile(c(3,1,4,1,5,9,2,6), c(0,.05,.3,.5,.95,1))
  // = 1, 1, 2.1, 3.5, 7.95, 9.
  const std::vector<double> x = {3, 1, 4, 1, 5, 9, 2, 6};
  EXPECT_DOUBLE_EQ(quantile(x, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile(x, 0.05), 1.0);   // h = 0.35 between 1 and 1
  EXPECT_DOUBLE_EQ(quantile(x, 0.3), 2.1);    // h = 2.1: 2 + 0.1 (3 - 2)
  EXPECT_DOUBLE_EQ(quantile(x, 0.5), 3.5);    // h = 3.5: 3 + 0.5 (4 - 3)
  EXPECT_DOUBLE_EQ(quantile(x, 0.95), 7.95);  // h = 6.65: 6 + 0.65 (9 - 6)
  EXPECT_DOUBLE_EQ(quantile(x, 1.0), 9.0);
  EXPECT_DOUBLE_EQ(quantile({42.0}, 0.3), 42.0);
  EXPECT_TRUE(std::isnan(quantile({1.0, std::nan(""), 3.0}, 0.5)));
  EXPECT_ERROR(quantile({}, 0.5), "quantile: expected at least one value");
  EXPECT_ERROR(quantile(x, 1.5), "quantile: expected a probability in [0, 1], got 1.5");
}

TEST(Diagnostics, NormalQuantileMatchesKnownValues) {
  // Phi^{-1} to 16-17 significant digits (R's qnorm, which is AS 241 too, and standard tables).
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-15);
  EXPECT_NEAR(normal_quantile(0.025), -1.959963984540054, 1e-15);
  EXPECT_NEAR(normal_quantile(0.95), 1.6448536269514722, 1e-15);
  EXPECT_NEAR(normal_quantile(0.99), 2.3263478740408408, 1e-15);
  EXPECT_NEAR(normal_quantile(0.999), 3.090232306167813, 1e-14);
  EXPECT_NEAR(normal_quantile(1e-10), -6.361340902404056, 1e-13);
  EXPECT_EQ(normal_quantile(0.5), 0.0);
  EXPECT_EQ(normal_quantile(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(normal_quantile(1.0), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(normal_quantile(-0.1)));
  EXPECT_TRUE(std::isnan(normal_quantile(std::nan(""))));

  // Round trip through Phi(z) = erfc(-z / sqrt 2) / 2 over 300 decades of the lower tail and the
  // centre. A relative error eps in z moves p by about z^2 eps relative, so 1e-12 allows eps ~ 1e-15
  // even at z = -37 (p = 1e-300).
  for (double p : {1e-300, 1e-100, 1e-20, 1e-5, 0.01, 0.02425, 0.1, 0.3, 0.45, 0.5, 0.55, 0.7, 0.9}) {
    const double z = normal_quantile(p);
    EXPECT_NEAR(0.5 * std::erfc(-z / std::sqrt(2.0)), p, 1e-12 * p) << "p " << p;
    // 1 - p rounds (by up to 1.1e-16), which moves the quantile by 1.1e-16 / phi(z): tiny unless p is.
    if (p >= 0.01) {
      EXPECT_NEAR(normal_quantile(1 - p), -z, 1e-13) << "symmetry at p " << p;
    }
  }
}

TEST(Diagnostics, SplitChainsDropTheMiddleDrawOfAnOddLength) {
  const ChainDraws split = split_chains({{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}});
  EXPECT_EQ(split, (ChainDraws{{1, 2}, {6, 7}, {4, 5}, {9, 10}}));
  EXPECT_EQ(split_chains({{1, 2, 3, 4}}), (ChainDraws{{1, 2}, {3, 4}}));
}

TEST(Diagnostics, RankNormalizationUsesAverageRanksAndBlomScores) {
  // S = 4 draws with ranks 1, 2.5, 2.5, 4: z = Phi^{-1}((r - 3/8) / (S + 1/4)).
  const ChainDraws z = rank_normalize({{10, 20}, {20, 30}});
  const auto blom = [](double r) { return normal_quantile((r - 0.375) / 4.25); };
  EXPECT_DOUBLE_EQ(z[0][0], blom(1));
  EXPECT_DOUBLE_EQ(z[0][1], blom(2.5));
  EXPECT_DOUBLE_EQ(z[1][0], blom(2.5));
  EXPECT_DOUBLE_EQ(z[1][1], blom(4));
  EXPECT_NEAR(z[0][0], -z[1][1], 1e-15);  // Blom's scores are symmetric
  EXPECT_NEAR(z[0][1], 0.0, 1e-15);
}

TEST(Diagnostics, SplitRhatBasicByHand) {
  // Halves (1 2 3), (3 1 2), (4 5 6), (6 4 5): n = 3, means 2 2 5 5, variances 1 1 1 1.
  // W = 1; B = n var(means) = 3 * 3 = 9; var_plus = (n - 1)/n W + B/n = 2/3 + 3 = 11/3;
  // R-hat = sqrt(var_plus / W) = sqrt(11/3).
  const double within = 1.0, between = 3 * 3.0, n = 3;
  const double var_plus = (n - 1) / n * within + between / n;
  EXPECT_NEAR(split_rhat_basic({{1, 2, 3, 4, 5, 6}, {3, 1, 2, 6, 4, 5}}), std::sqrt(var_plus / within), 1e-14);
  // With a middle draw that split R-hat drops, whatever its value.
  EXPECT_NEAR(split_rhat_basic({{1, 2, 3, 100, 4, 5, 6}, {3, 1, 2, -100, 6, 4, 5}}), std::sqrt(11.0 / 3), 1e-14);
}

TEST(Diagnostics, MatchesThePosteriorPackage) {
  // Reference values from the R package posterior 1.4.0 (rhat, rhat_basic, ess_bulk, ess_tail,
  // ess_basic, mcse_mean, mad) on these draws, with a tie (0.8) and a tie across chains (0.9).
  const ChainDraws draws = {{0.3, -1.2, 0.8, 1.5, -0.4, 0.9, 2.1, -0.7, 0.2, 1.1, 0.6, 0.8},
                            {1.4, 0.6, -0.9, 0.5, 2.3, 1.8, -0.2, 0.7, 1.6, 0.4, 1.2, 0.9},
                            {-0.5, 0.1, 0.4, -1.1, 0.0, 0.8, 0.3, -0.6, 1.0, -0.3, 0.2, 0.5}};
  const auto near = [](double expected) { return 1e-12 * expected; };
  EXPECT_NEAR(rhat(draws), 1.0241499888478205, near(1));
  EXPECT_NEAR(split_rhat_basic(draws), 1.019763846153088, near(1));
  EXPECT_NEAR(ess_bulk(draws), 40.519871601276222, near(40));
  EXPECT_NEAR(ess_tail(draws), 51.34426229508199, near(51));
  EXPECT_NEAR(ess_basic(draws), 42.520067928997548, near(42));
  EXPECT_NEAR(mcse_mean(draws), 0.13199252120630689, near(0.13));
  EXPECT_NEAR(summarize("x", draws).mad, 0.7413, near(0.74));
  // Odd length 11: the middle draw is dropped and split chains of 5 are too short for Geyer's
  // sequence, where posterior (and Stan) end with tau = 2: ESS = 20 / 2.
  const ChainDraws odd = {{0.3, -1.2, 0.8, 1.5, -0.4, 0.9, 2.1, -0.7, 0.2, 1.1, 0.6},
                          {1.4, 0.6, -0.9, 0.5, 2.3, 1.8, -0.2, 0.7, 1.6, 0.4, 1.2}};
  EXPECT_NEAR(rhat(odd), 0.93537060910203007, near(1));
  EXPECT_NEAR(split_rhat_basic(odd), 0.93303047709290887, near(1));
  EXPECT_DOUBLE_EQ(ess_bulk(odd), 10);
  EXPECT_DOUBLE_EQ(ess_basic(odd), 10);
}

TEST(Diagnostics, RhatNearOneForMixedChainsAndLargeOtherwise) {
  // Independent chains: var(chain means) estimates W/n, so var_plus ~ W and R-hat - 1 is O(1/n)
  // with a spread of the same order (here n = 500 per split chain): 1.01 is far outside.
  const ChainDraws mixed = iid_chains(4, 1000, 1);
  EXPECT_LT(rhat(mixed), 1.01);
  EXPECT_GT(rhat(mixed), 0.99);
  EXPECT_LT(split_rhat_basic(mixed), 1.01);

  // One chain of four shifted by 2 sd: var(split means) ~ 4 * 12/56, so R-hat ~ sqrt(1 + 0.86).
  ChainDraws shifted = mixed;
  for (double& v : shifted[3]) v += 2;
  EXPECT_GT(rhat(shifted), 1.2);
  EXPECT_GT(split_rhat_basic(shifted), 1.2);

  // Same means, one chain four times as wide: invisible to the bulk, seen by folding
  // (|x - median| is larger in that chain), which is why rhat takes the larger of the two. Over 200
  // seeds its R-hat was 1.20 with sd 0.012, so 1.1 is ~8 sd away.
  ChainDraws wide = mixed;
  for (double& v : wide[3]) v *= 4;
  EXPECT_LT(split_rhat_basic(wide), 1.05);
  EXPECT_GT(rhat(wide), 1.1);
}

TEST(Diagnostics, EssOfAnAr1ChainMatchesTheory) {
  // phi = 0.5: tau = (1 + phi)/(1 - phi) = 3, so ESS = S/3. Geyer's truncated sum over K lags has
  // a relative standard deviation of about sqrt(2 (2K + 1) / S) (Geyer 1992); here K ~ 10 and
  // S = 40000 give ~3.2% (3.1% measured over 200 seeds), so 15% is ~5 sd. The MCSE goes with
  // 1/sqrt(ESS): half the relative spread (1.7% measured), so 8% is ~5 sd.
  const ChainDraws draws = ar1_chains(4, 10000, 0.5, 2);
  const double expected = total_draws(draws) / 3;
  EXPECT_NEAR(ess_basic(draws), expected, 0.15 * expected);
  EXPECT_NEAR(ess_bulk(draws), expected, 0.15 * expected);  // a Gaussian process: ranks change little
  const double sd = std::sqrt(1 / (1 - 0.25));
  EXPECT_NEAR(mcse_mean(draws), sd / std::sqrt(expected), 0.08 * sd / std::sqrt(expected));
}

TEST(Diagnostics, EssOfIndependentDrawsIsNearTheirNumber) {
  // tau = 1, truncated after few lags (K <~ 3): relative sd ~ sqrt(2 * 7 / 4000) ~ 6% (4.8%
  // measured over 200 seeds), so 25% is ~4-5 sd. The tail indicators I(x <= q05) have the same autocorrelation (none)
  // but add the variability of a 5% frequency; 30% allows for it.
  const ChainDraws draws = iid_chains(4, 1000, 3);
  const double n = total_draws(draws);
  EXPECT_NEAR(ess_basic(draws), n, 0.25 * n);
  EXPECT_NEAR(ess_bulk(draws), n, 0.25 * n);
  EXPECT_NEAR(ess_tail(draws), n, 0.3 * n);
}

TEST(Diagnostics, AntitheticChainsExceedTheirNumberUpToTheCap) {
  // phi = -0.3: ESS = S 1.3/0.7 ~ 1.86 S, above S and below the cap S log10 S ~ 3.6 S.
  const ChainDraws mild = ar1_chains(4, 1000, -0.3, 4);
  const double n = total_draws(mild);
  EXPECT_GT(ess_basic(mild), 1.3 * n);
  EXPECT_LT(ess_basic(mild), n * std::log10(n));
  // phi = -0.7: ESS = S 1.7/0.3 ~ 5.7 S, beyond the cap (tau 0.18 against 1/log10 S = 0.28), so
  // the estimate is the cap itself.
  const ChainDraws strong = ar1_chains(4, 1000, -0.7, 5);
  EXPECT_NEAR(ess_basic(strong), n * std::log10(n), 1e-9 * n);
}

TEST(Diagnostics, RanksMakeBulkDiagnosticsInvariantToMonotoneTransforms) {
  const ChainDraws draws = ar1_chains(4, 500, 0.3, 6);
  ChainDraws exp_draws = draws;
  for (auto& chain : exp_draws)
    for (double& v : chain) v = std::exp(v);
  EXPECT_DOUBLE_EQ(ess_bulk(exp_draws), ess_bulk(draws));
  EXPECT_DOUBLE_EQ(ess_tail(exp_draws), ess_tail(draws));
  EXPECT_NE(ess_basic(exp_draws), ess_basic(draws));
}

TEST(Diagnostics, ConvergenceAgreesWithTheSeparateFunctions) {
  const ChainDraws draws = ar1_chains(3, 401, 0.6, 8);  // odd length, odd number of chains
  const Convergence all = convergence(draws);
  EXPECT_DOUBLE_EQ(all.rhat, rhat(draws));
  EXPECT_DOUBLE_EQ(all.ess_bulk, ess_bulk(draws));
  EXPECT_DOUBLE_EQ(all.ess_tail, ess_tail(draws));
  EXPECT_DOUBLE_EQ(all.ess_basic, ess_basic(draws));
  EXPECT_NEAR(all.rhat, 1.0, 0.05);
}

TEST(Diagnostics, UndefinedCasesGiveNaN) {
  const auto all_nan = [](const ChainDraws& draws) {
    const Convergence c = convergence(draws);
    return std::isnan(rhat(draws)) && std::isnan(split_rhat_basic(draws)) && std::isnan(ess_basic(draws)) &&
           std::isnan(ess_bulk(draws)) && std::isnan(ess_tail(draws)) && std::isnan(mcse_mean(draws)) &&
           std::isnan(c.rhat) && std::isnan(c.ess_bulk) && std::isnan(c.ess_tail) && std::isnan(c.ess_basic);
  };
  EXPECT_TRUE(all_nan(ChainDraws(4, std::vector<double>(100, 2.5))));  // constant
  EXPECT_TRUE(all_nan({{1, 2, 3}, {4, 5, 6}}));                        // 3 draws per chain
  EXPECT_TRUE(all_nan({{1, 2, std::numeric_limits<double>::infinity(), 4, 5, 6, 7, 8}, {1, 2, 3, 4, 5, 6, 7, 8}}));
  EXPECT_TRUE(all_nan({{1, 2, std::nan(""), 4, 5, 6, 7, 8}, {1, 2, 3, 4, 5, 6, 7, 8}}));
  EXPECT_TRUE(all_nan({{}, {}}));

  // 5 draws per chain: split chains of 2 give an R-hat but no ESS (posterior needs 3 per chain).
  const ChainDraws five = {{1, 4, 2, 5, 3}, {2, 6, 1, 3, 4}};
  EXPECT_TRUE(std::isfinite(rhat(five)));
  EXPECT_TRUE(std::isnan(ess_bulk(five)));
  // Constant chains that disagree: no within-chain variance, infinitely far from mixing.
  EXPECT_EQ(split_rhat_basic({{1, 1, 1, 1}, {2, 2, 2, 2}}), std::numeric_limits<double>::infinity());
}

TEST(Diagnostics, ChainsOfDifferentLengthsThrowNamingTheFunction) {
  const ChainDraws ragged = {{1, 2, 3, 4, 5, 6}, {1, 2, 3, 4}};
  const std::string lengths = "chain 0 has 6 and chain 1 has 4";
  EXPECT_ERROR(rhat(ragged), "rhat: every chain needs the same number of draws; " + lengths);
  EXPECT_ERROR(split_rhat_basic(ragged), "split_rhat_basic: ");
  EXPECT_ERROR(ess_basic(ragged), "ess_basic: ");
  EXPECT_ERROR(ess_bulk(ragged), "ess_bulk: ");
  EXPECT_ERROR(ess_tail(ragged), "ess_tail: ");
  EXPECT_ERROR(mcse_mean(ragged), "mcse_mean: ");
  EXPECT_ERROR(convergence(ragged), "convergence: ");
  EXPECT_ERROR(split_chains(ragged), "split_chains: ");
  EXPECT_ERROR(rank_normalize(ragged), "rank_normalize: ");
  EXPECT_ERROR(summarize("theta", ragged), "summarize: 'theta': every chain needs the same number of draws");
  EXPECT_ERROR(rhat({}), "rhat: expected draws of at least one chain, got none");
}

TEST(Diagnostics, EbfmiByHand) {
  // E = (1, 3, 2, 4): squared jumps 4 + 1 + 4 = 9; mean 2.5, squared deviations
  // 2.25 + 0.25 + 0.25 + 2.25 = 5; E-BFMI = 9/5.
  EXPECT_DOUBLE_EQ(ebfmi({1, 3, 2, 4}), 9.0 / 5);
  EXPECT_TRUE(std::isnan(ebfmi({2, 2, 2})));
  EXPECT_TRUE(std::isnan(ebfmi({1})));
  // Independent energies: E[(E_n - E_{n-1})^2] = 2 var, so E-BFMI ~ 2; a random walk gives ~ 0.
  const ChainDraws iid = iid_chains(1, 4000, 9);
  EXPECT_NEAR(ebfmi(iid[0]), 2.0, 0.15);
  EXPECT_LT(ebfmi(ar1_chains(1, 4000, 0.99, 10)[0]), 0.3);
}

// ---------------------------------------------------------------------------------------------
// Summaries

std::vector<ParameterSummary> example_rows() {
  std::vector<ParameterSummary> rows = {summarize("mu", ar1_chains(4, 500, 0.4, 11, 1.5)),
                                        summarize("tau[1,2]", iid_chains(4, 500, 12)),
                                        summarize("constant", ChainDraws(4, std::vector<double>(500, 3.0)))};
  return rows;
}

TEST(Summary, SummarizeComputesEachColumn) {
  // By hand on 2 chains of 4: all draws 1..8. Mean 4.5; sd = sqrt(42/7) = sqrt(6); quantiles
  // (h = 7p): 5% 1.35, 50% 4.5, 95% 7.65; |x - 4.5| = 0.5 0.5 1.5 1.5 2.5 2.5 3.5 3.5 with median 2,
  // so mad = 2 * 1.4826.
  const ChainDraws draws = {{1, 2, 3, 4}, {5, 6, 7, 8}};
  const ParameterSummary row = summarize("x", draws);
  EXPECT_EQ(row.name, "x");
  EXPECT_DOUBLE_EQ(row.mean, 4.5);
  EXPECT_DOUBLE_EQ(row.sd, std::sqrt(6.0));
  EXPECT_DOUBLE_EQ(row.q5, 1.35);
  EXPECT_DOUBLE_EQ(row.q50, 4.5);
  EXPECT_DOUBLE_EQ(row.q95, 7.65);
  EXPECT_DOUBLE_EQ(row.mad, 2 * 1.4826);
  EXPECT_DOUBLE_EQ(row.rhat, rhat(draws));
  EXPECT_TRUE(std::isnan(row.ess_bulk));  // 4 draws per chain are too few for ESS
  EXPECT_TRUE(std::isnan(row.mcse));

  const ChainDraws longer = ar1_chains(4, 300, 0.5, 13);
  const ParameterSummary full = summarize("y", longer);
  EXPECT_DOUBLE_EQ(full.mcse, mcse_mean(longer));
  EXPECT_DOUBLE_EQ(full.ess_bulk, ess_bulk(longer));
  EXPECT_DOUBLE_EQ(full.ess_tail, ess_tail(longer));
}

TEST(Summary, TableHasTheStansummaryColumns) {
  std::ostringstream out;
  write_summary_table(out, example_rows());
  const std::string table = out.str();
  std::istringstream lines(table);
  std::string header, mu, tau, constant;
  std::getline(lines, header);
  std::getline(lines, mu);
  std::getline(lines, tau);
  std::getline(lines, constant);
  std::istringstream columns(header);
  std::vector<std::string> names;
  for (std::string word; columns >> word;) names.push_back(word);
  EXPECT_EQ(names, (std::vector<std::string>{"Mean", "MCSE", "StdDev", "MAD", "5%", "50%", "95%", "ESS_bulk",
                                             "ESS_tail", "R_hat"}));
  EXPECT_EQ(mu.rfind("mu ", 0), 0u) << table;  // names left-aligned
  EXPECT_EQ(tau.rfind("tau[1,2]", 0), 0u) << table;
  EXPECT_NE(constant.find("nan"), std::string::npos) << table;
  // Right-aligned: every line has the header's width.
  EXPECT_EQ(mu.size(), header.size()) << table;
  EXPECT_EQ(constant.size(), header.size()) << table;
  EXPECT_ERROR(write_summary_table(out, example_rows(), 0), "write_summary_table: expected a precision in [1, 17]");
}

TEST(Summary, CsvRoundTripsExactly) {
  const std::vector<ParameterSummary> rows = example_rows();
  std::ostringstream out;
  write_summary_csv(out, rows);
  std::istringstream in(out.str());
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "name,Mean,MCSE,StdDev,MAD,5%,50%,95%,ESS_bulk,ESS_tail,R_hat");
  std::getline(in, line);
  ASSERT_EQ(line.rfind("mu,", 0), 0u);
  std::istringstream fields(line.substr(3));
  std::vector<double> values;
  for (std::string field; std::getline(fields, field, ',');) values.push_back(std::stod(field));
  ASSERT_EQ(values.size(), 10u);
  EXPECT_EQ(values[0], rows[0].mean);  // exact: max_digits10
  EXPECT_EQ(values[1], rows[0].mcse);
  EXPECT_EQ(values[7], rows[0].ess_bulk);
  EXPECT_EQ(values[9], rows[0].rhat);
  std::getline(in, line);
  EXPECT_EQ(line.rfind("\"tau[1,2]\",", 0), 0u) << line;  // quoted: the name has a comma
  std::getline(in, line);
  EXPECT_EQ(line, "constant,3,nan,0,0,3,3,3,nan,nan,nan");  // NaN spelled "nan", never "-nan"
}

TEST(Summary, JsonParsesWithNullForNaN) {
  const std::vector<ParameterSummary> rows = example_rows();
  SamplerSummary sampler;
  sampler.divergences = {0, 2, 0, 1};
  sampler.max_treedepth_hits = {0, 0, 0, 0};
  sampler.ebfmi = {0.9, 0.25, 1.1, std::nan("")};
  sampler.step_sizes = {0.5, 0.45, 0.52, 0.48};
  sampler.sampling_seconds = 1.25;
  sampler.draws_per_chain = 500;
  std::ostringstream out;
  write_summary_json(out, rows, sampler);
  const nlohmann::json json = nlohmann::json::parse(out.str());
  ASSERT_EQ(json["parameters"].size(), 3u);
  EXPECT_EQ(json["parameters"][0]["name"], "mu");
  EXPECT_EQ(json["parameters"][0]["mean"].get<double>(), rows[0].mean);
  EXPECT_EQ(json["parameters"][1]["rhat"].get<double>(), rows[1].rhat);
  EXPECT_TRUE(json["parameters"][2]["rhat"].is_null());
  EXPECT_EQ(json["parameters"][2]["mean"].get<double>(), 3.0);
  EXPECT_EQ(json["sampler"]["divergences"], nlohmann::json({0, 2, 0, 1}));
  EXPECT_TRUE(json["sampler"]["ebfmi"][3].is_null());
  EXPECT_EQ(json["sampler"]["step_sizes"][2].get<double>(), 0.52);
  EXPECT_EQ(json["sampler"]["sampling_seconds"].get<double>(), 1.25);
}

TEST(Summary, SamplerDiagnosticsFlagProblems) {
  SamplerSummary sampler;
  sampler.divergences = {0, 3};
  sampler.max_treedepth_hits = {0, 10};
  sampler.ebfmi = {0.95, 0.21};
  sampler.step_sizes = {0.41, 0.38};
  sampler.draws_per_chain = 1000;
  sampler.max_treedepth = 10;
  std::ostringstream out;
  write_sampler_diagnostics(out, sampler);
  const std::string text = out.str();
  EXPECT_NE(text.find("Chain 1: 0 divergent (0.0%), 0 at max tree depth (0.0%), E-BFMI 0.95, step size 0.41"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Chain 2: 3 divergent (0.3%), 10 at max tree depth (1.0%), E-BFMI 0.21 (low)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("3 of 2000 transitions (0.1%) after warm-up were divergent"), std::string::npos) << text;
  EXPECT_NE(text.find("maximum tree depth of 10"), std::string::npos) << text;
  EXPECT_NE(text.find("chain 2 has E-BFMI 0.21"), std::string::npos) << text;

  std::ostringstream healthy;
  write_sampler_diagnostics(healthy, SamplerSummary{{0, 0}, {0, 0}, {1.0, 0.8}, {0.5, 0.5}, 2.0, 100, 10});
  EXPECT_NE(healthy.str().find("No divergences"), std::string::npos) << healthy.str();

  SamplerSummary ragged;
  ragged.divergences = {0, 1};
  ragged.ebfmi = {1.0};
  EXPECT_ERROR(write_sampler_diagnostics(out, ragged), "write_sampler_diagnostics: per-chain vectors");
}

}  // namespace
}  // namespace variate::inference
