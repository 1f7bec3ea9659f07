#include "variate/tensor/prim.hpp"

namespace variate::prim {

GlmResult bernoulli_logit_glm(const Tensor& x, const Tensor& w, const Tensor& alpha, const Tensor& y) {
  constexpr const char* op = "bernoulli_logit_glm";
  VARIATE_CHECK(x.defined() && w.defined() && alpha.defined() && y.defined(), op, "an argument is undefined");
  VARIATE_CHECK(x.rank() == 2, op, "x must be a matrix (N, D), got shape ", x.shape());
  const std::int64_t n = x.dim(0), d = x.dim(1);
  VARIATE_CHECK(w.rank() == 1 || w.rank() == 2, op, "w must have shape (D) or (C, D), got ", w.shape());
  VARIATE_CHECK(w.dim(-1) == d, op, "w has ", w.dim(-1), " coefficients but x has ", d, " columns (shapes ",
                x.shape(), " and ", w.shape(), ")");
  const std::int64_t c = w.rank() == 2 ? w.dim(0) : 1;
  VARIATE_CHECK(alpha.numel() == c && alpha.rank() <= 1, op, "alpha must have shape () or (", c,
                ") to match w of shape ", w.shape(), ", got ", alpha.shape());
  VARIATE_CHECK(y.rank() == 1 && y.dim(0) == n, op, "y must have shape (", n, ") to match x of shape ", x.shape(),
                ", got ", y.shape());
  // Labels are data of any dtype; the computation follows the parameters and x.
  const DType t = float_type(promote(promote(x.dtype(), w.dtype()), alpha.dtype()));
  const Tensor xc = cast(x, t), wc = reshape(cast(w, t), Shape{c, d}), ac = reshape(cast(alpha, t), Shape{c}),
               yc = cast(y, t);
  Tensor log_lik = Tensor::empty(Shape{c}, t, x.device()), grad_w = Tensor::empty(Shape{c, d}, t, x.device()),
         grad_alpha = Tensor::empty(Shape{c}, t, x.device());
  backend(x.device()).bernoulli_logit_glm(xc, wc, ac, yc, log_lik, grad_w, grad_alpha);
  const Shape lead = w.rank() == 2 ? Shape{c} : Shape{};
  return {log_lik.view(lead), grad_w.view(w.shape()), grad_alpha.view(lead)};
}

}  // namespace variate::prim
