#pragma once
// Portable SIMD vectors (GCC vector extensions) of the building machine's widest width, for the
// hand-written kernels of the skinny products and the fused GLM.
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace variate::cpu {

// The widest vectors the building machine has; GCC vector extensions fall back to narrower
// instructions elsewhere, and the register budget below follows the register file size.
#if defined(__AVX512F__)
inline constexpr int kVectorBytes = 64;
inline constexpr int kAccumulatorRegisters = 24;  // of 32 vector registers; the rest hold B and broadcasts
#elif defined(__AVX__)
inline constexpr int kVectorBytes = 32;
inline constexpr int kAccumulatorRegisters = 12;  // of 16
#else
inline constexpr int kVectorBytes = 16;
inline constexpr int kAccumulatorRegisters = 12;
#endif

template <class T>
struct Simd {
  typedef T Vec __attribute__((vector_size(kVectorBytes)));
  using Index = std::conditional_t<sizeof(T) == 8, std::int64_t, std::int32_t>;
  typedef Index Mask __attribute__((vector_size(kVectorBytes)));
  static constexpr int lanes = kVectorBytes / int(sizeof(T));
  static Vec load(const T* p) {
    Vec v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static void store(T* p, const Vec& v) { std::memcpy(p, &v, sizeof v); }
  // The first `count` (<= lanes) elements at p, zero in the other lanes, reading nothing past them.
  // AVX-512 loads them with one masked load; elsewhere they go through memory (a copy, then a
  // reload), which stalls on store forwarding.
  static Vec load_first(const T* p, int count) {
#if defined(__AVX512F__)
    if constexpr (sizeof(T) == 8)
      return Vec(_mm512_maskz_loadu_pd(__mmask8((1u << count) - 1), p));
    else
      return Vec(_mm512_maskz_loadu_ps(__mmask16((1u << count) - 1), p));
#else
    Vec v{};
    std::memcpy(&v, p, std::size_t(count) * sizeof(T));
    return v;
#endif
  }
  // Lane i of the result is the sum of the lanes of v[i]. A transposing tree: each level adds the
  // halves of every group of lanes, two vectors at a time, so `lanes` sums cost 2 (lanes - 1)
  // shuffles instead of lanes log2(lanes). Each sum's additions are those of halving within one
  // vector, (x0 + x4) + (x2 + x6) + ... for 8 lanes, whatever the other vectors hold.
  static Vec lane_sums(Vec (&v)[lanes]) {
    level<lanes>(v, std::make_index_sequence<lanes>{});
    return v[0];
  }
  // One level of the tree, for groups of `group` lanes: v[p] = the lower plus the upper halves of the
  // groups of v[2p], then of those of v[2p + 1].
  template <int group, std::size_t... i>
  static void level(Vec (&v)[lanes], std::index_sequence<i...> lane) {
    if constexpr (group > 1) {
      constexpr int half = group / 2, groups = lanes / group;  // groups per vector; lanes / groups vectors
      // Lane j of the output comes from group j / half: one of the first input's `groups` groups,
      // then one of the second's; offset j % half in the lower half of that group (+ half: upper).
      constexpr auto source = [](int j) {
        const int out_group = j / half, offset = j % half;
        return out_group < groups ? out_group * group + offset : lanes + (out_group - groups) * group + offset;
      };
      constexpr Mask lower{Index(source(int(i)))...};
      constexpr Mask upper{Index(source(int(i)) + half)...};
#pragma GCC unroll 16
      for (int p = 0; p < lanes / groups / 2; ++p)
        v[p] = __builtin_shuffle(v[2 * p], v[2 * p + 1], lower) + __builtin_shuffle(v[2 * p], v[2 * p + 1], upper);
      level<half>(v, lane);
    }
  }
};

}  // namespace variate::cpu
