#include "inference/diagnostics/rank_normalization.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "inference/diagnostics/quantile.hpp"

namespace variate::inference {
namespace detail {
namespace {

// Sorts `payload` by `keys` (both permuted): a stable LSD radix sort in bytes, skipping bytes that
// all keys share. A summary sorts the draws of every parameter; at a few thousand draws this takes
// about half the time of std::sort.
void radix_sort(std::vector<std::uint64_t>& keys, std::vector<std::int64_t>& payload) {
  const std::size_t n = keys.size();
  std::vector<std::uint64_t> keys_out(n);
  std::vector<std::int64_t> payload_out(n);
  for (int shift = 0; shift < 64; shift += 8) {
    std::array<std::size_t, 256> start{};
    for (std::uint64_t k : keys) ++start[(k >> shift) & 255];
    if (std::find(start.begin(), start.end(), n) != start.end()) continue;  // one bucket: nothing moves
    std::size_t offset = 0;
    for (std::size_t& s : start) offset += std::exchange(s, offset);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t to = start[(keys[i] >> shift) & 255]++;
      keys_out[to] = keys[i];
      payload_out[to] = payload[i];
    }
    keys.swap(keys_out);
    payload.swap(payload_out);
  }
}

// Sorts values by their order-preserving unsigned image: every bit of a negative flipped, only the
// sign bit of the rest (so -0.0 sorts just below +0.0, still adjacent for the tie test). No NaN.
Sorted sort_values(const std::vector<double>& values, std::vector<std::int64_t> positions) {
  constexpr std::uint64_t sign = std::uint64_t{1} << 63;
  std::vector<std::uint64_t> keys(values.size());
  for (std::size_t k = 0; k < values.size(); ++k) {
    const auto bits = std::bit_cast<std::uint64_t>(values[k]);
    keys[k] = bits & sign ? ~bits : bits | sign;
  }
  radix_sort(keys, positions);
  Sorted out{std::vector<double>(values.size()), std::move(positions)};
  for (std::size_t k = 0; k < keys.size(); ++k)
    out.values[k] = std::bit_cast<double>(keys[k] & sign ? keys[k] & ~sign : ~keys[k]);
  return out;
}

// Normal score Phi^{-1}((r - 3/8) / (S + 1/4)) of every whole rank r = 1..S, kept per thread for
// the last S: without ties, rank normalization is a table lookup.
const std::vector<double>& blom_scores(std::size_t total) {
  thread_local std::vector<double> table;
  if (table.size() != total) {
    table.resize(total);
    for (std::size_t i = 0; i < total; ++i)
      table[i] = normal_quantile((static_cast<double>(i + 1) - 0.375) / (static_cast<double>(total) + 0.25));
  }
  return table;
}

// Writes the Blom normal score of each value (ascending; ties, necessarily adjacent, share their
// average rank) at its position in `out`.
void assign_scores(std::span<const double> values, std::span<const std::int64_t> positions, std::vector<double>& out) {
  const std::size_t total = values.size();
  const std::vector<double>& table = blom_scores(total);
  for (std::size_t i = 0; i < total;) {
    std::size_t j = i + 1;
    while (j < total && values[j] == values[i]) ++j;
    const double rank = static_cast<double>(i + 1 + j) / 2;  // average of the 1-based ranks i+1..j
    const double z = j == i + 1 ? table[i] : normal_quantile((rank - 0.375) / (static_cast<double>(total) + 0.25));
    for (; i < j; ++i) out[static_cast<std::size_t>(positions[i])] = z;
  }
}

// Rank-normalized split chains of the values visited in ascending order by next(k) = (value,
// position) for k = 0..count-1, skipping dropped draws (position -1).
Flat split_scores(std::size_t chains, std::size_t n, std::size_t count, auto next) {
  Flat out{2 * chains, n / 2, std::vector<double>(2 * chains * (n / 2))};
  std::vector<double> values;
  std::vector<std::int64_t> positions;
  values.reserve(count);
  positions.reserve(count);
  for (std::size_t k = 0; k < count; ++k) {
    const auto [value, position] = next(k);
    if (position < 0) continue;
    values.push_back(value);
    positions.push_back(position);
  }
  assign_scores(values, positions, out.data);
  return out;
}

}  // namespace

Sorted sort_draws(const ChainDraws& draws) {
  const std::size_t chains = draws.size(), n = draws[0].size();
  std::vector<double> values;
  std::vector<std::int64_t> positions;
  values.reserve(chains * n);
  positions.reserve(chains * n);
  for (std::size_t c = 0; c < chains; ++c)
    for (std::size_t i = 0; i < n; ++i) {
      values.push_back(draws[c][i]);
      positions.push_back(split_position(chains, n, c, i));
    }
  return sort_values(values, std::move(positions));
}

Flat bulk_scores(const ChainDraws& draws, const Sorted& s) {
  return split_scores(draws.size(), draws[0].size(), s.values.size(),
                      [&](std::size_t k) { return std::pair(s.values[k], s.positions[k]); });
}

Flat folded_scores(const ChainDraws& draws, const Sorted& s) {
  const std::size_t total = s.values.size();
  const double median = quantile_of_sorted(s.values, 0.5);
  std::size_t up =
      static_cast<std::size_t>(std::lower_bound(s.values.begin(), s.values.end(), median) - s.values.begin());
  std::size_t down = up;  // draws [0, down) are below the median
  return split_scores(draws.size(), draws[0].size(), total, [&](std::size_t) {
    const bool take_down = up == total || (down > 0 && median - s.values[down - 1] < s.values[up] - median);
    const std::size_t k = take_down ? --down : up++;
    return std::pair(std::abs(s.values[k] - median), s.positions[k]);
  });
}

}  // namespace detail

using detail::assign_scores;
using detail::draws_per_chain;
using detail::kNaN;
using detail::sort_values;
using detail::Sorted;

ChainDraws rank_normalize(const ChainDraws& draws) {
  const std::size_t n = draws_per_chain("rank_normalize", draws);
  ChainDraws out = draws;
  if (std::any_of(draws.begin(), draws.end(), [](const auto& chain) {
        return std::any_of(chain.begin(), chain.end(), [](double v) { return std::isnan(v); });
      })) {
    for (auto& chain : out) std::fill(chain.begin(), chain.end(), kNaN);
    return out;
  }
  std::vector<double> values, scores(draws.size() * n);
  std::vector<std::int64_t> positions;
  for (std::size_t c = 0; c < draws.size(); ++c)
    for (std::size_t i = 0; i < n; ++i) {
      values.push_back(draws[c][i]);
      positions.push_back(static_cast<std::int64_t>(c * n + i));
    }
  const Sorted s = sort_values(values, std::move(positions));
  assign_scores(s.values, s.positions, scores);
  for (std::size_t c = 0; c < draws.size(); ++c)
    std::copy_n(scores.begin() + static_cast<std::ptrdiff_t>(c * n), n, out[c].begin());
  return out;
}

}  // namespace variate::inference
