#include "variate/distributions/improper_uniform.hpp"

#include "variate/distributions/parameters.hpp"

namespace variate::dist {
namespace {

using K = Constraint::Kind;

// The first (batch) or last (event) part of `shape`, split at the support's event axes; throws
// naming ImproperUniform when `shape` has fewer axes than the event.
Shape part(const Constraint& support, const Shape& shape, bool event) {
  const int e = support.event_ndims();
  VARIATE_CHECK(shape.rank() >= e, "ImproperUniform", "the ", support.str(), " support spans ", e,
                " trailing axes, so the shape needs at least ", e, " axes, got ", shape);
  const auto dims = shape.dims();
  return event ? Shape(dims.last(std::size_t(e))) : Shape(dims.first(std::size_t(shape.rank() - e)));
}

}  // namespace

ImproperUniform::ImproperUniform(Constraint support, Shape shape, DType dtype)
    : Distribution(part(support, shape, false), part(support, shape, true), dtype), support_(std::move(support)) {
  const K k = support_.kind;
  VARIATE_CHECK(k == K::real || k == K::positive || k == K::unit_interval || k == K::greater_than || k == K::interval ||
                    k == K::ordered || k == K::positive_ordered || k == K::unit_vector || k == K::simplex ||
                    k == K::lower_cholesky || k == K::corr_cholesky || k == K::less_than || k == K::positive_definite ||
                    k == K::corr_matrix,
                "ImproperUniform",
                "the support must be real, positive, unit_interval, greater_than, less_than, interval, ordered, "
                "positive_ordered, unit_vector, simplex, lower_cholesky, corr_cholesky, positive_definite or "
                "corr_matrix, got ",
                support_.str());
  VARIATE_CHECK(dtype == DType::f64 || dtype == DType::f32, "ImproperUniform", "the dtype must be f64 or f32, got ",
                variate::name(dtype));
  // A NaN bound would put no value outside the support (comparisons with NaN are false).
  if (support_.low.defined()) dist::check_not_nan("ImproperUniform", "the support's lower bound", support_.low);
  if (support_.high.defined()) dist::check_not_nan("ImproperUniform", "the support's upper bound", support_.high);
  const Shape& event = event_shape();
  VARIATE_CHECK(k != K::unit_vector || event.dim(-1) >= 2, "ImproperUniform",
                "a unit_vector needs at least 2 components, got shape ", shape);
  VARIATE_CHECK(event.rank() < 2 || event.dim(-1) == event.dim(-2), "ImproperUniform", "a ", support_.str(),
                " value is a square matrix, got shape ", shape);
}

Tensor ImproperUniform::sample(random::Key, const Shape&) const {
  variate::detail::fail("ImproperUniform: an improper prior (", support_.str(),
                        ") is not a probability distribution and has no draws; give the site a proper prior to "
                        "draw from the prior");
}

Tensor ImproperUniform::log_prob(const Tensor& value) const {
  const Tensor x = dist::as_dtype(value, dtype());
  const int e = event_shape().rank();
  VARIATE_CHECK(x.rank() >= e && Shape(x.shape().dims().last(std::size_t(e))) == event_shape(), "ImproperUniform",
                "expected values whose trailing shape is the event shape ", event_shape(), ", got shape ", x.shape());
  const Shape leading(x.shape().dims().first(std::size_t(x.rank() - e)));
  const Tensor zero = Tensor::zeros(broadcast_shapes("ImproperUniform", leading, batch_shape()), dtype());
  return dist::mask_outside_support(support_, x, zero);
}

}  // namespace variate::dist
