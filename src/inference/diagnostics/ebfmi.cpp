#include <cstddef>
#include <vector>

#include "inference/diagnostics/split_chains.hpp"
#include "variate/inference/diagnostics.hpp"

namespace variate::inference {

using detail::kNaN;
using detail::mean_of;

double ebfmi(const std::vector<double>& energy) {
  if (energy.size() < 2) return kNaN;
  const double mean = mean_of(energy);
  double jumps = 0, spread = 0;
  for (std::size_t i = 0; i < energy.size(); ++i) {
    spread += (energy[i] - mean) * (energy[i] - mean);
    if (i > 0) jumps += (energy[i] - energy[i - 1]) * (energy[i] - energy[i - 1]);
  }
  if (!(spread > 0)) return kNaN;
  return jumps / spread;
}

}  // namespace variate::inference
