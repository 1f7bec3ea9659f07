#include "inference/diagnostics/split_chains.hpp"

#include "variate/core/error.hpp"

namespace variate::inference {
namespace detail {

std::size_t draws_per_chain(const char* op, const ChainDraws& draws) {
  VARIATE_CHECK(!draws.empty(), op, "expected draws of at least one chain, got none");
  const std::size_t n = draws[0].size();
  for (std::size_t c = 1; c < draws.size(); ++c)
    VARIATE_CHECK(draws[c].size() == n, op, "every chain needs the same number of draws; chain 0 has ", n,
                  " and chain ", c, " has ", draws[c].size());
  return n;
}

bool undefined(const ChainDraws& draws) {
  Spread spread;
  for (const auto& chain : draws) spread.add(chain);
  return spread.undefined();
}

double mean_of(std::span<const double> x) {
  double s = 0;
  for (double v : x) s += v;
  return s / static_cast<double>(x.size());
}

double variance_of(std::span<const double> x) {
  const double mean = mean_of(x);
  double s = 0;
  for (double v : x) s += (v - mean) * (v - mean);
  return s / static_cast<double>(x.size() - 1);
}

std::int64_t split_position(std::size_t chains, std::size_t n, std::size_t c, std::size_t i) {
  const std::size_t half = n / 2;
  if (i < half) return static_cast<std::int64_t>(c * half + i);
  if (i >= n - half) return static_cast<std::int64_t>((chains + c) * half + i - (n - half));
  return -1;
}

}  // namespace detail

using detail::draws_per_chain;
using detail::Flat;
using detail::split_flat;

ChainDraws split_chains(const ChainDraws& draws) {
  const std::size_t n = draws_per_chain("split_chains", draws);
  if (n < 2) return draws;
  const Flat flat = split_flat(draws);
  ChainDraws out;
  for (std::size_t j = 0; j < flat.chains; ++j) out.emplace_back(flat.chain(j).begin(), flat.chain(j).end());
  return out;
}

}  // namespace variate::inference
