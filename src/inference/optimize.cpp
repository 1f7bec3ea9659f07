#include "variate/inference/optimize.hpp"

#include <cmath>
#include <limits>

#include "variate/autodiff/ops.hpp"
#include "variate/nn/lbfgs.hpp"
#include "variate/nn/module.hpp"
#include "variate/random/samplers.hpp"

namespace variate::inference {
namespace {

// The point L-BFGS moves: the flat unconstrained vector as the one parameter of a module.
class UnconstrainedPoint : public nn::Module {
 public:
  explicit UnconstrainedPoint(Tensor start) : point(std::move(start)) {}
  void visit_parameters(const nn::ParameterVisitor& visit) override { visit("point", point); }
  std::string describe() const override {
    return "UnconstrainedPoint(dimension=" + std::to_string(point.numel()) + ")";
  }
  Tensor point;
};

bool finite(const Tensor& t) {
  const double* v = t.data<double>();
  for (std::int64_t i = 0; i < t.numel(); ++i)
    if (!std::isfinite(v[i])) return false;
  return true;
}

// Stan's initialization: uniform draws on the unconstrained space until log p and its gradient
// are finite.
Tensor start_point(const Unconstrained& space, const OptimizeOptions& o) {
  constexpr int kTries = 100;
  const std::int64_t d = space.dimension();
  for (int attempt = 0; attempt < kTries; ++attempt) {
    const Tensor u = random::uniform(random::fold_in(o.key, std::uint64_t(attempt)), Shape{d});
    UnconstrainedPoint start(o.init_radius * (2.0 * u - 1.0));
    nn::Parameters params(start);
    std::vector<Tensor> grad(1);
    const Tensor lp = nn::value_and_grad(
        params, [&] { return space.log_density(start.point, o.jacobian); }, grad);
    if (std::isfinite(lp.item()) && finite(grad[0])) return start.point;
    if (o.init_radius == 0) break;  // every attempt would be the same point
  }
  detail::fail("optimize: no starting point with a finite log density and gradient ",
               o.init_radius == 0
                   ? std::string("at 0")
                   : "after " + std::to_string(kTries) + " attempts, uniform in (-" + std::to_string(o.init_radius) +
                         ", " + std::to_string(o.init_radius) + ") on the unconstrained space");
}

}  // namespace

OptimizeResult optimize(const tracing::Program& model, const OptimizeOptions& o) {
  const char* op = "optimize";
  VARIATE_CHECK(o.iterations >= 1, op, "iterations must be >= 1, got ", o.iterations);
  VARIATE_CHECK(o.init_radius >= 0, op, "the init radius must be >= 0, got ", o.init_radius);
  VARIATE_CHECK(o.loss >= 0 && o.relative_loss >= 0 && o.gradient >= 0 && o.parameter >= 0, op,
                "tolerances must be >= 0, got loss ", o.loss, ", relative loss ", o.relative_loss, ", gradient ",
                o.gradient, ", parameter ", o.parameter);
  const Unconstrained space(model, random::fold_in(o.key, "trace"));
  VARIATE_CHECK(space.dimension() > 0, op, "the model has no continuous latent site to optimize");
  UnconstrainedPoint x(start_point(space, o));
  nn::Parameters params(x);
  nn::LbfgsResult r;
  try {
    r = nn::minimize_lbfgs(params, [&] { return -space.log_density(x.point, o.jacobian); },
                           {.max_iterations = o.iterations,
                            .history = o.history,
                            .gradient_tolerance = o.gradient,
                            .loss_tolerance = o.loss,
                            .relative_loss_tolerance = o.relative_loss * std::numeric_limits<double>::epsilon(),
                            .parameter_tolerance = o.parameter});
  } catch (const Error& e) {  // the start was fine, so a point the search tried was not
    detail::fail(op,
                 ": L-BFGS failed: log p could not be evaluated at a point the search tried (the density may "
                 "have no maximum, or a step left the model's domain): ",
                 e.what());
  }
  VARIATE_CHECK(r.status != nn::LbfgsStatus::line_search_failed, op, "L-BFGS failed: ", r.message, "; log p ", -r.loss,
                ", gradient norm ", r.gradient_norm);
  VARIATE_CHECK(std::isfinite(r.loss), op, "log p is ", -r.loss, " at the end of the search");
  OptimizeResult out;
  out.sites = space.sites();
  out.point = x.point;
  out.mode = space.constrain(x.point);
  out.log_density = -r.loss;
  out.converged = r.status == nn::LbfgsStatus::converged;
  out.iterations = r.iterations;
  out.evaluations = r.evaluations;
  out.message = r.message;
  return out;
}

}  // namespace variate::inference
