#include "inference/diagnostics/rhat.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace variate::inference {
namespace detail {
namespace {

// R-hat of chains that are already split (BDA3 eq. 11.4): W the mean within-chain variance,
// var_plus = (n - 1)/n W + B/n with B/n the variance of the chain means; sqrt(var_plus / W).
double rhat_of_split(const Flat& split) {
  Spread spread;
  spread.add(split.data);
  if (spread.undefined()) return kNaN;
  std::vector<double> means, variances;
  for (std::size_t j = 0; j < split.chains; ++j) {
    means.push_back(mean_of(split.chain(j)));
    variances.push_back(variance_of(split.chain(j)));
  }
  const double n = static_cast<double>(split.n);
  const double within = mean_of(variances);
  const double var_plus = (n - 1) / n * within + variance_of(means);
  if (within == 0) return std::numeric_limits<double>::infinity();  // constant chains that disagree
  return std::sqrt(var_plus / within);
}

double nan_or_max(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b); }

}  // namespace

double rank_rhat(const ChainDraws& draws, const Sorted& s, const Flat& bulk) {
  return nan_or_max(rhat_of_split(bulk), rhat_of_split(folded_scores(draws, s)));
}

}  // namespace detail

using detail::bulk_scores;
using detail::draws_per_chain;
using detail::kMinDrawsRhat;
using detail::kNaN;
using detail::rank_rhat;
using detail::rhat_of_split;
using detail::sort_draws;
using detail::Sorted;
using detail::split_flat;
using detail::undefined;

double split_rhat_basic(const ChainDraws& draws) {
  if (draws_per_chain("split_rhat_basic", draws) < kMinDrawsRhat) return kNaN;
  return rhat_of_split(split_flat(draws));
}

double rhat(const ChainDraws& draws) {
  if (draws_per_chain("rhat", draws) < kMinDrawsRhat || undefined(draws)) return kNaN;
  const Sorted s = sort_draws(draws);
  return rank_rhat(draws, s, bulk_scores(draws, s));
}

}  // namespace variate::inference
