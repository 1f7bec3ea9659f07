#pragma once
// Counter-based random keys in the JAX style. A key is a value, not a generator: every draw is a
// pure function of (key, position), so results do not depend on the number of threads or devices,
// and a program derives fresh keys with split/fold_in instead of mutating a global state.
//
// The generator is Philox4x32-10 (Salmon, Moraes, Dror & Shaw, "Parallel random numbers: as easy
// as 1, 2, 3", SC 2011) from Random123. A key is Philox's 64-bit key; a derived key is the Philox
// image of a counter that encodes the derivation, so derived keys are as independent as Philox
// outputs. The counter's last word separates domains: 0 for sample streams (random/samplers.hpp),
// 1 for split, 2 for fold_in with an integer, 3 for fold_in with a name; a derived key therefore
// never coincides with a block of sample bits drawn under the same key.
#include <array>
#include <cstdint>
#include <ostream>
#include <string_view>
#include <utility>
#include <vector>

namespace variate::random {

/// A counter-based random key (Philox 4x32): split into independent keys, never mutated, so the
/// same seed gives the same draws in any order of evaluation.
struct Key {
  std::array<std::uint32_t, 2> words{};

  /// Key() == Key(0), so keys can live in containers.
  constexpr Key() = default;
  /// The seed's low and high 32-bit halves are the Philox key words.
  constexpr explicit Key(std::uint64_t seed) : words{std::uint32_t(seed), std::uint32_t(seed >> 32)} {}
  static constexpr Key from_words(std::uint32_t w0, std::uint32_t w1) {
    Key k;
    k.words = {w0, w1};
    return k;
  }

  friend constexpr bool operator==(const Key&, const Key&) = default;
};

std::ostream& operator<<(std::ostream& out, const Key& key);

/// `n` new keys, independent of each other and of `key`'s own draws.
std::vector<Key> split(Key key, std::size_t n);
/// The first two keys of split(key, 2).
std::pair<Key, Key> split(Key key);
/// split(key, n)[i] for any n > i, without building the vector.
Key split_at(Key key, std::uint64_t i);

/// A key derived from `key` and an integer (a device index, an iteration, a chain number).
Key fold_in(Key key, std::uint64_t data);
/// A key derived from `key` and a name (a model site): the name is hashed with 64-bit FNV-1a and
/// folded in under its own domain, so fold_in(k, "3") and fold_in(k, 3) differ.
Key fold_in(Key key, std::string_view name);

}  // namespace variate::random
