#include "variate/distributions/improper_uniform.hpp"

#include "variate/distributions/parameters.hpp"

namespace variate::dist {

ImproperUniform::ImproperUniform(Constraint support, Shape batch_shape, DType dtype)
    : Distribution(batch_shape, {}, dtype), support_(std::move(support)) {
  using K = Constraint::Kind;
  const K k = support_.kind;
  VARIATE_CHECK(k == K::real || k == K::positive || k == K::unit_interval || k == K::greater_than || k == K::interval,
                "ImproperUniform", "the support must be real, positive, unit_interval, greater_than or interval, got ",
                support_.str());
  VARIATE_CHECK(dtype == DType::f64 || dtype == DType::f32, "ImproperUniform", "the dtype must be f64 or f32, got ",
                variate::name(dtype));
}

Tensor ImproperUniform::sample(random::Key, const Shape&) const {
  variate::detail::fail("ImproperUniform: an improper prior (", support_.str(),
                        ") is not a probability distribution and has no draws; give the site a proper prior to "
                        "draw from the prior");
}

Tensor ImproperUniform::log_prob(const Tensor& value) const {
  const Tensor x = dist::as_dtype(value, dtype());
  const Tensor zero = Tensor::zeros(broadcast_shapes("ImproperUniform", x.shape(), batch_shape()), dtype());
  return dist::mask_outside_support(support_, x, zero);
}

}  // namespace variate::dist
