#include "variate/inference/optimize.hpp"

#include <cmath>
#include <limits>

#include "lbfgs_start.hpp"
#include "variate/nn/lbfgs.hpp"

namespace variate::inference {

OptimizeResult optimize(const tracing::Program& model, const OptimizeOptions& o) {
  const char* op = "optimize";
  VARIATE_CHECK(o.iterations >= 1, op, "iterations must be >= 1, got ", o.iterations);
  VARIATE_CHECK(o.init_radius >= 0, op, "the init radius must be >= 0, got ", o.init_radius);
  VARIATE_CHECK(o.loss >= 0 && o.relative_loss >= 0 && o.gradient >= 0 && o.parameter >= 0, op,
                "tolerances must be >= 0, got loss ", o.loss, ", relative loss ", o.relative_loss, ", gradient ",
                o.gradient, ", parameter ", o.parameter);
  const Unconstrained space(model, random::fold_in(o.key, "trace"));
  VARIATE_CHECK(space.dimension() > 0, op, "the model has no continuous latent site to optimize");
  detail::UnconstrainedPoint x(detail::finite_start_point(space, o.jacobian, o.init_radius, o.key, op));
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
    ::variate::detail::fail(
        op,
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
