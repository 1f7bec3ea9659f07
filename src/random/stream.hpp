#pragma once
// The bits behind every sampler. Element i of a sample reads its own stream: Philox blocks at
// counters (i_low, i_high, j, 0), j = 0, 1, 2, ... under the sample's key. An element's value thus
// depends only on (key, i), never on how elements are split among threads, and a rejection sampler
// may consume as many blocks of its stream as it needs.
#include <Random123/philox.h>

#include <cmath>
#include <cstdint>
#include <numbers>

#include "variate/random/key.hpp"

namespace variate::random::detail {

using Philox = r123::Philox4x32_R<10>;

/// Domain tags in the counter's last word (see key.hpp).
enum class Domain : std::uint32_t { sample = 0, split = 1, fold_in = 2, fold_in_name = 3 };

/// One Philox4x32-10 block: 128 bits for (key, index, j, domain).
inline Philox::ctr_type philox_block(Key key, std::uint64_t index, std::uint32_t j, Domain domain) {
  const Philox::ctr_type ctr = {{std::uint32_t(index), std::uint32_t(index >> 32), j, std::uint32_t(domain)}};
  const Philox::key_type k = {{key.words[0], key.words[1]}};
  return Philox()(ctr, k);
}

/// The random stream of one sample element.
class Stream {
 public:
  Stream(Key key, std::uint64_t index) : key_(key), index_(index) {}

  /// The next 64 random bits; each Philox block yields two.
  std::uint64_t bits() {
    if (used_ == 2) {
      block_ = philox_block(key_, index_, next_block_++, Domain::sample);
      used_ = 0;
    }
    const std::uint64_t b = std::uint64_t(block_.v[2 * used_]) | std::uint64_t(block_.v[2 * used_ + 1]) << 32;
    ++used_;
    return b;
  }

  /// Uniform on [0, 1): the top 53 bits, so every value is a multiple of 2^-53.
  double uniform() { return double(bits() >> 11) * 0x1p-53; }
  /// Uniform on (0, 1): the midpoints of the same grid, for logarithms.
  double uniform_open() { return (double(bits() >> 11) + 0.5) * 0x1p-53; }
  /// Uniform on [0, 1) in single precision: 24 bits, so rounding can never reach 1.
  float uniform_float() { return float(bits() >> 40) * 0x1p-24f; }

  /// Standard normal by Box & Muller ("A note on the generation of random normal deviates", Ann.
  /// Math. Statist. 29, 1958); the second deviate of each pair serves the next call.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2.0 * std::log(uniform_open()));
    const double theta = 2.0 * std::numbers::pi * uniform();
    spare_ = r * std::sin(theta);
    has_spare_ = true;
    return r * std::cos(theta);
  }

  /// Standard exponential by inversion; 1 - u > 0, so the result is finite.
  double exponential() { return -std::log1p(-uniform()); }

 private:
  Key key_;
  std::uint64_t index_;
  std::uint32_t next_block_ = 0;
  int used_ = 2;
  Philox::ctr_type block_{};
  bool has_spare_ = false;
  double spare_ = 0.0;
};

}  // namespace variate::random::detail
