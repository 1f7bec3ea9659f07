#include <cstddef>

#include "inference/diagnostics/ess.hpp"
#include "inference/diagnostics/rank_normalization.hpp"
#include "inference/diagnostics/rhat.hpp"
#include "inference/diagnostics/split_chains.hpp"
#include "variate/inference/diagnostics.hpp"

namespace variate::inference {

using detail::bulk_scores;
using detail::draws_per_chain;
using detail::ess_of_split;
using detail::Flat;
using detail::kMinDrawsEss;
using detail::kMinDrawsRhat;
using detail::kNaN;
using detail::rank_rhat;
using detail::sort_draws;
using detail::Sorted;
using detail::split_flat;
using detail::tail_ess;
using detail::undefined;

Convergence convergence(const ChainDraws& draws) {
  const std::size_t n = draws_per_chain("convergence", draws);
  if (n < kMinDrawsRhat || undefined(draws)) return {kNaN, kNaN, kNaN, kNaN};
  const Sorted s = sort_draws(draws);
  const Flat bulk = bulk_scores(draws, s);
  const double rhat = rank_rhat(draws, s, bulk);
  if (n < kMinDrawsEss) return {rhat, kNaN, kNaN, kNaN};
  return {rhat, ess_of_split(bulk), tail_ess(draws, s), ess_of_split(split_flat(draws))};
}

}  // namespace variate::inference
