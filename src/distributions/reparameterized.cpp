#include "variate/distributions/reparameterized.hpp"

#include <cmath>
#include <string>

#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/tensor/replay.hpp"

namespace variate::dist {
namespace {

// Called in the base-initializer: the order of evaluation of its arguments is unspecified.
const Distribution& checked(const DistributionPtr& base, const BijectorPtr& bijector) {
  VARIATE_CHECK(base != nullptr, "Reparameterized", "the base distribution is null");
  VARIATE_CHECK(bijector != nullptr, "Reparameterized", "the bijector is null");
  return *base;
}

// Whether two bounds (tensors that broadcast) are equal to rounding; made with host_check, so a
// replay with computed bounds checks them again.
void check_same_bound(const char* which, const Tensor& image, const Tensor& support, const std::string& context) {
  if (!image.defined() && !support.defined()) return;
  VARIATE_CHECK(image.defined() && support.defined(), "Reparameterized", context, " (", which, " bound missing)");
  const auto check = [](const char* which, const Tensor& image, const Tensor& support, const std::string& context) {
    const autodiff::NoRecording reads_values;
    const Tensor a = cast(image, DType::f64), b = cast(support, DType::f64);
    const double worst = max(abs(a - b) / (abs(b) + 1.0)).item();
    VARIATE_CHECK(worst <= 1e-12, "Reparameterized", context, ": the ", which, " bounds differ (", image, " vs ",
                  support, ")");
  };
  if (!recording_kernels()) return check(which, image, support, context);
  host_check({image, support}, [check, which = std::string(which), image, support, context] {
    check(which.c_str(), image, support, context);
  });
}

}  // namespace

Reparameterized::Reparameterized(DistributionPtr base, BijectorPtr bijector)
    : Distribution(checked(base, bijector).batch_shape(), checked(base, bijector).event_shape(),
                   checked(base, bijector).dtype()),
      base_(std::move(base)),
      bijector_(std::move(bijector)) {
  const Constraint support = base_->support();
  const std::string what = std::string("bijector ") + bijector_->name() + " must map the real line onto the " +
                           support.str() + " support of the base " + base_->name();
  VARIATE_CHECK(!support.is_discrete(), "Reparameterized", "the base ", base_->name(), " is discrete (", support.str(),
                "); only continuous sites have an unconstrained space");
  Constraint image;
  try {
    image = bijector_->forward_image(Constraint::real());
  } catch (const Error& e) {
    variate::detail::fail("Reparameterized: ", what, ", but its image of the real line is not known (", e.what(),
                          "); a bijector written for this must override Bijector::forward_image");
  }
  VARIATE_CHECK(image.kind == support.kind, "Reparameterized", what, ", but it maps it onto ", image.str());
  check_same_bound("lower", image.low, support.low, what);
  check_same_bound("upper", image.high, support.high, what);
  VARIATE_CHECK(bijector_->inverse_event_ndims() <= event_shape().rank(), "Reparameterized", "bijector ",
                bijector_->name(), " acts on the last ", bijector_->inverse_event_ndims(), " axes, but the base ",
                base_->name(), " has event shape ", event_shape(),
                "; make the axes one event first (dist::Independent or dist::Sample)");
}

}  // namespace variate::dist
