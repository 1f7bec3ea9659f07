#include "held_out_report.hpp"

#include <iomanip>

#include "variate/models/classifier.hpp"

namespace variate::cli {

void print_held_out_accuracy(std::ostream& out, const SampleContext& job, const inference::SampleResult& result,
                             std::int64_t per_chain) {
  const std::int64_t dim = job.space.dimension(), total = per_chain * job.options.chains, thin = job.options.thin;
  // The written draws [begin, end) counted over the chains in turn (with --thin, every thin-th of the
  // chain's draws), constrained, with a leading draw dimension.
  const auto draws = [&](std::int64_t begin, std::int64_t end) {
    std::vector<double> flat;
    flat.reserve(std::size_t((end - begin) * dim));
    for (std::int64_t g = begin; g < end; ++g) {
      const auto& d = result.chains[std::size_t(g / per_chain)].draws;
      const auto first = d.begin() + (g % per_chain) * thin * dim;
      flat.insert(flat.end(), first, first + dim);
    }
    return job.space.constrain(Tensor::from(flat, Shape{end - begin, dim}));
  };
  const models::HeldOutAccuracy acc = models::held_out_accuracy(job.model, draws, total);
  out << std::fixed << std::setprecision(3) << "\ntest accuracy: Bayesian model averaging " << acc.model_averaging
      << ", mean over single draws " << acc.mean_single << " (" << acc.draws << " draws, " << acc.examples
      << " held-out examples)\n"
      << std::defaultfloat;
}

}  // namespace variate::cli
