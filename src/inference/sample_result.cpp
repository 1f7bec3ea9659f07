#include "variate/core/error.hpp"
#include "variate/inference/sampler.hpp"

namespace variate::inference {

ChainDraws coordinate_draws(const SampleResult& result, std::int64_t i) {
  VARIATE_CHECK(i >= 0 && i < result.dimension, "coordinate_draws", "coordinate ", i, " is outside 0..",
                result.dimension - 1);
  ChainDraws out;
  for (const ChainResult& c : result.chains) {
    std::vector<double> v;
    v.reserve(std::size_t(c.draw_count()));
    for (std::int64_t t = 0; t < c.draw_count(); ++t) v.push_back(c.draws[std::size_t(t * result.dimension + i)]);
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace variate::inference
