#include "laplace_init.hpp"

#include <chrono>
#include <iomanip>
#include <optional>

#include "variate/inference/optimize.hpp"
#include "variate/inference/target.hpp"
#include "variate/inference/unconstrained.hpp"
#include "variate/random/samplers.hpp"

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
  const random::Key key = random::fold_in(random::Key(o.seed), "laplace init");
  out << "init: finding the mode by L-BFGS (f64)" << std::endl;
  auto start = Clock::now();
  const inference::OptimizeResult mode = inference::optimize(
      model.program, {.jacobian = inference::Jacobian::included, .key = random::fold_in(key, "optimize")});
  out << "init: " << (mode.converged ? "converged" : "stopped at the iteration limit") << " after " << mode.iterations
      << " iterations (" << mode.message << "), log p " << std::setprecision(8) << mode.log_density << ", "
      << std::setprecision(3) << seconds_since(start) << " s" << std::endl;

  start = Clock::now();
  const inference::Unconstrained space(model.program);
  const std::vector<double> at = mode.point.to_vector<double>();
  const inference::LaplaceApproximation laplace =
      inference::LaplaceApproximation::at(inference::make_target(space, DType::f64), at);
  out << "init: Laplace approximation at the mode, its Hessian from " << laplace.gradients()
      << " gradients and factored, " << seconds_since(start)
      << " s; the chains sample the coordinates it whitens, each starting at its own draw from it" << std::endl;

  const std::int64_t d = laplace.dimension();
  const Tensor z = random::normal(key, Shape{sampler.chains, d}, DType::f64);
  sampler.initial_positions = z.to_vector<double>();
  return laplace;
}

LaplaceDraws::LaplaceDraws(const inference::LaplaceApproximation& laplace, int chains)
    : laplace_(laplace), positions_(std::size_t(chains), std::vector<double>(std::size_t(laplace.dimension()))) {}

inference::Draw LaplaceDraws::to_model(const inference::Draw& whitened) {
  std::vector<double>& q = positions_[std::size_t(whitened.chain)];
  laplace_.to_position(whitened.position, 1, q);
  inference::Draw d = whitened;
  d.position = q;
  return d;
}

void LaplaceDraws::to_model(inference::SampleResult& result) const {
  for (inference::ChainResult& chain : result.chains) {
    const std::int64_t n = chain.draw_count();
    if (n == 0) continue;
    std::vector<double> q(chain.draws.size());
    laplace_.to_position(chain.draws, n, q);
    chain.draws = std::move(q);
  }
}

}  // namespace variate::cli
