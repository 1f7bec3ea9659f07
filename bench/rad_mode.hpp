#pragma once
// The RAD sketch named on a benchmark's command line (--mode with|without|projection).
#include <stdexcept>
#include <string>

#include "variate/autodiff/rad.hpp"

namespace variate::bench {

inline autodiff::RadMode parse_rad_mode(const std::string& bench, const std::string& mode) {
  using autodiff::RadMode;
  if (mode == "with") return RadMode::with_replacement;
  if (mode == "without") return RadMode::without_replacement;
  if (mode == "projection") return RadMode::projection;
  throw std::runtime_error(bench + ": --mode must be with, without or projection, got " + mode);
}

}  // namespace variate::bench
