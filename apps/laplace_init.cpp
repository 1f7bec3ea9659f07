#include "laplace_init.hpp"

#include <chrono>
#include <iomanip>
#include <optional>

namespace variate::cli {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

inference::LaplaceApproximation init_from_laplace(const SampleJobOptions& o, const Model& sampled,
                                                  inference::SamplerOptions& sampler, std::ostream& out) {
  std::optional<Model> made;
  if (o.precision != "f64")
    made.emplace(make_model(o.model, {.data_path = o.data, .model_file = o.model_file, .dtype = DType::f64}));
  const Model& model = made ? *made : sampled;
  out << "init: finding the mode by L-BFGS (f64) and the Laplace approximation there" << std::endl;
  const auto start = Clock::now();
  inference::LaplaceStart laplace =
      inference::laplace_start(model.program, sampler.chains, random::fold_in(random::Key(o.seed), "laplace init"));
  const inference::OptimizeResult& mode = laplace.mode;
  out << "init: L-BFGS " << (mode.converged ? "converged" : "stopped at the iteration limit") << " after "
      << mode.iterations << " iterations (" << mode.message << "), log p " << std::setprecision(8) << mode.log_density
      << "; the Hessian from " << laplace.approximation.gradients() << " gradients, factored; " << std::setprecision(3)
      << seconds_since(start)
      << " s in all. The chains sample the coordinates the approximation whitens, each starting at its own draw "
         "from it"
      << std::endl;
  laplace.place_chains(sampler);
  return std::move(laplace.approximation);
}

}  // namespace variate::cli
