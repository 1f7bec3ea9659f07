#pragma once
// The examples check their own results against closed forms and exit non-zero when one is off, so
// the test suite can run them.
#include <cmath>
#include <cstdio>

namespace variate::examples {

/// Prints "label: got (expected), ok|MISMATCH" and returns whether |got - expected| <= tol (1 + |expected|).
inline bool check(const char* label, double got, double expected, double tol = 1e-10) {
  const bool ok = std::abs(got - expected) <= tol * (1 + std::abs(expected));
  std::printf("  %-44s %14.8f  (closed form %14.8f)  %s\n", label, got, expected, ok ? "ok" : "MISMATCH");
  return ok;
}

}  // namespace variate::examples
