#pragma once
// The seeds of the draws a statistical test checks: the samplers', Pathfinder's and VI's in the
// inference tests, the random samplers' and distributions' draws, RAD's sketches (not the seeds that
// make a test's data or initial weights). A test fixes its seed, but it must not pass only because
// of that seed: with VARIATE_TEST_SEED=K in the environment, test_seed gives every seed a different
// value for each K, and scripts/seed-survey runs the statistical tests over K = 1, ..., N and counts
// each test's failures.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace variate::testing {

inline std::uint64_t test_seed(std::uint64_t seed) {
  const char* k = std::getenv("VARIATE_TEST_SEED");
  if (k == nullptr) return seed;
  const std::string text(k);
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || text.size() > 19)
    throw std::invalid_argument("VARIATE_TEST_SEED must be a non-negative integer below 10^19, got '" + text + "'");
  // Multiplying by 2^64 over the golden ratio (odd) gives distinct Ks far-apart bit patterns.
  return seed ^ (std::stoull(text) * 0x9E3779B97F4A7C15ull);
}

}  // namespace variate::testing
