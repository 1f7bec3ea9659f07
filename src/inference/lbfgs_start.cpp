#include "lbfgs_start.hpp"

#include <cmath>
#include <vector>

#include "variate/autodiff/ops.hpp"
#include "variate/random/samplers.hpp"

namespace variate::inference::detail {
namespace {

bool finite(const Tensor& t) {
  const double* v = t.data<double>();
  for (std::int64_t i = 0; i < t.numel(); ++i)
    if (!std::isfinite(v[i])) return false;
  return true;
}

}  // namespace

Tensor finite_start_point(const Unconstrained& space, Jacobian jacobian, double init_radius, random::Key key,
                          const char* op) {
  constexpr int kTries = 100;
  const std::int64_t d = space.dimension();
  for (int attempt = 0; attempt < kTries; ++attempt) {
    const Tensor u = random::uniform(random::fold_in(key, std::uint64_t(attempt)), Shape{d});
    UnconstrainedPoint start(init_radius * (2.0 * u - 1.0));
    nn::Parameters params(start);
    std::vector<Tensor> grad(1);
    const Tensor lp = nn::value_and_grad(
        params, [&] { return space.log_density(start.point, jacobian); }, grad);
    if (std::isfinite(lp.item()) && finite(grad[0])) return start.point;
    if (init_radius == 0) break;  // every attempt would be the same point
  }
  ::variate::detail::fail(op, ": no starting point with a finite log density and gradient ",
                          init_radius == 0 ? std::string("at 0")
                                           : "after " + std::to_string(kTries) + " attempts, uniform in (-" +
                                                 std::to_string(init_radius) + ", " + std::to_string(init_radius) +
                                                 ") on the unconstrained space");
}

}  // namespace variate::inference::detail
