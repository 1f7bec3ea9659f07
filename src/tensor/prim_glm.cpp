#include <initializer_list>
#include <utility>

#include "variate/tensor/prim.hpp"

namespace variate::prim {

namespace {

// The shapes of a GLM with one weight vector per state: x (N, D), w (D) or (C, D), y (N), and each
// of `per_state` (alpha, sigma) () or (C). Returns C.
std::int64_t check_linear_glm(const char* op, const Tensor& x, const Tensor& w, const Tensor& y,
                              std::initializer_list<std::pair<const char*, const Tensor*>> per_state) {
  bool defined = x.defined() && w.defined() && y.defined();
  for (const auto& [role, p] : per_state) defined = defined && p->defined();
  VARIATE_CHECK(defined, op, "an argument is undefined");
  VARIATE_CHECK(x.rank() == 2, op, "x must be a matrix (N, D), got shape ", x.shape());
  const std::int64_t n = x.dim(0), d = x.dim(1);
  VARIATE_CHECK(w.rank() == 1 || w.rank() == 2, op, "w must have shape (D) or (C, D), got ", w.shape());
  VARIATE_CHECK(w.dim(-1) == d, op, "w has ", w.dim(-1), " coefficients but x has ", d, " columns (shapes ", x.shape(),
                " and ", w.shape(), ")");
  const std::int64_t c = w.rank() == 2 ? w.dim(0) : 1;
  for (const auto& [role, p] : per_state)
    VARIATE_CHECK(p->numel() == c && p->rank() <= 1, op, role, " must have shape () or (", c, ") to match w of shape ",
                  w.shape(), ", got ", p->shape());
  VARIATE_CHECK(y.rank() == 1 && y.dim(0) == n, op, "y must have shape (", n, ") to match x of shape ", x.shape(),
                ", got ", y.shape());
  return c;
}

}  // namespace

GlmResult bernoulli_logit_glm(const Tensor& x, const Tensor& w, const Tensor& alpha, const Tensor& y) {
  const std::int64_t c = check_linear_glm("bernoulli_logit_glm", x, w, y, {{"alpha", &alpha}});
  const std::int64_t d = x.dim(1);
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

NormalGlmResult normal_id_glm(const Tensor& x, const Tensor& w, const Tensor& alpha, const Tensor& sigma,
                              const Tensor& y) {
  const std::int64_t c = check_linear_glm("normal_id_glm", x, w, y, {{"alpha", &alpha}, {"sigma", &sigma}});
  const std::int64_t d = x.dim(1);
  const DType t = float_type(promote(promote(promote(x.dtype(), w.dtype()), alpha.dtype()), sigma.dtype()));
  const Tensor xc = cast(x, t), wc = reshape(cast(w, t), Shape{c, d}), ac = reshape(cast(alpha, t), Shape{c}),
               sc = reshape(cast(sigma, t), Shape{c}), yc = cast(y, t);
  Tensor log_lik = Tensor::empty(Shape{c}, t, x.device()), grad_w = Tensor::empty(Shape{c, d}, t, x.device()),
         grad_alpha = Tensor::empty(Shape{c}, t, x.device()), grad_sigma = Tensor::empty(Shape{c}, t, x.device());
  backend(x.device()).normal_id_glm(xc, wc, ac, sc, yc, log_lik, grad_w, grad_alpha, grad_sigma);
  const Shape lead = w.rank() == 2 ? Shape{c} : Shape{};
  return {log_lik.view(lead), grad_w.view(w.shape()), grad_alpha.view(lead), grad_sigma.view(lead)};
}

GlmResult categorical_logit_glm(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y) {
  constexpr const char* op = "categorical_logit_glm";
  VARIATE_CHECK(x.defined() && w.defined() && b.defined() && y.defined(), op, "an argument is undefined");
  VARIATE_CHECK(x.rank() == 2, op, "x must be a matrix (N, D), got shape ", x.shape());
  const std::int64_t n = x.dim(0), d = x.dim(1);
  VARIATE_CHECK(w.rank() == 2 || w.rank() == 3, op, "w must have shape (D, K) or (C, D, K), got ", w.shape());
  VARIATE_CHECK(w.dim(-2) == d, op, "w has ", w.dim(-2), " rows but x has ", d, " columns (shapes ", x.shape(), " and ",
                w.shape(), ")");
  const std::int64_t k = w.dim(-1);
  VARIATE_CHECK(k >= 1, op, "w must have at least one category (column), got shape ", w.shape());
  const std::int64_t c = w.rank() == 3 ? w.dim(0) : 1;
  const Shape b_shape = w.rank() == 3 ? Shape{c, k} : Shape{k};
  VARIATE_CHECK(b.shape() == b_shape, op, "b must have shape ", b_shape, " to match w of shape ", w.shape(), ", got ",
                b.shape());
  VARIATE_CHECK(y.rank() == 1 && y.dim(0) == n, op, "y must have shape (", n, ") to match x of shape ", x.shape(),
                ", got ", y.shape());
  // Labels are data of any real dtype, passed as f64 (exact for every index): the kernel checks that
  // each is an integer in 0 .. K-1. The computation follows the parameters and x.
  const DType t = float_type(promote(promote(x.dtype(), w.dtype()), b.dtype()));
  const Tensor xc = cast(x, t), wc = reshape(cast(w, t), Shape{c, d, k}), bc = reshape(cast(b, t), Shape{c, k}),
               yc = cast(y, DType::f64);
  Tensor log_lik = Tensor::empty(Shape{c}, t, x.device()), grad_w = Tensor::empty(Shape{c, d, k}, t, x.device()),
         grad_b = Tensor::empty(Shape{c, k}, t, x.device());
  backend(x.device()).categorical_logit_glm(xc, wc, bc, yc, log_lik, grad_w, grad_b);
  const Shape lead = w.rank() == 3 ? Shape{c} : Shape{};
  return {log_lik.view(lead), grad_w.view(w.shape()), grad_b.view(b.shape())};
}

}  // namespace variate::prim
