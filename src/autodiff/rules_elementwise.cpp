// Backward rules of the element-wise ops. `ctx.add` sums broadcast dims away, so each rule states
// only the pointwise derivative.
#include <cmath>
#include <numbers>

#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"

namespace variate {

using autodiff::BackwardContext;
using autodiff::record;

namespace {

Tensor scalar_like(const Tensor& x, double v) { return Tensor::scalar(v, float_type(x.dtype())); }

// Whether no tape can record (outside a transform, in a NoRecording scope, in a backward rule): the
// arithmetic below then returns its kernel's fresh result without building record's argument lists,
// so that a formula's values and rules cost what the primitives would.
bool not_recording() { return autodiff::detail::active_tape() == nullptr; }

enum class Saves { input, output };

// A pointwise op y = f(x) whose derivative dydx(v) is computed from the one tensor v it saves:
// the input x or the output y.
// `second_order`: whether dydx is written with differentiable ops only.
template <Saves what, class Derivative>
Tensor unary_op(UnaryOp op, const Tensor& x, Derivative dydx,
                autodiff::SecondOrder second_order = autodiff::SecondOrder::supported) {
  Tensor y = prim::unary(op, x);
  if (not_recording()) return y;
  const Tensor& kept = what == Saves::input ? x : y;
  return record(
      y, {x}, {kept}, [dydx](const BackwardContext& ctx) { ctx.add(0, ctx.grad() * dydx(ctx.saved(0))); },
      second_order);
}

Tensor zero_like(const Tensor& g) { return Tensor::scalar(0.0, g.dtype()); }

// exp(log_density) where `inside`, else 0: the derivative of a cdf in x, which is 0 outside the
// open support (where the cdf is constant, or at an infinite end) while the formula of its
// logarithm may give NaN there.
Tensor density_or_zero(const Tensor& inside, const Tensor& log_density) {
  return where(inside, exp(log_density), zero_like(log_density));
}

// d P(a, x) / dx = x^(a-1) e^-x / Gamma(a), in logs so that it does not overflow for large a.
Tensor gamma_density(const Tensor& a, const Tensor& x) {
  const Tensor log_density = (a - 1.0) * log(x) - x - lgamma(a);
  return density_or_zero(logical_and(gt(x, 0.0), lt(x, INFINITY)), log_density);
}

// d I_x(a, b) / dx = x^(a-1) (1 - x)^(b-1) / B(a, b), in logs.
Tensor beta_density(const Tensor& a, const Tensor& b, const Tensor& x) {
  const Tensor log_beta = lgamma(a) + lgamma(b) - lgamma(a + b);
  const Tensor log_density = (a - 1.0) * log(x) + (b - 1.0) * log1p(-x) - log_beta;
  return density_or_zero(logical_and(gt(x, 0.0), lt(x, 1.0)), log_density);
}

// d P(a, x) / da = -x p(x; a) d log x / da along P held fixed (the implicit draw gradient of the
// tensor layer), so that the upper tail, where P is close to 1, keeps its relative accuracy; 0 at
// x = 0 and x = inf, where P is 0 or 1 whatever a.
Tensor igamma_grad_a(const Tensor& a, const Tensor& x) {
  const Tensor inside = logical_and(gt(x, 0.0), lt(x, INFINITY));
  const Tensor safe_x = where(inside, x, scalar_like(x, 1.0));
  const Tensor log_x = log(safe_x);
  const Tensor x_density = exp(a * log_x - safe_x - lgamma(a));  // x p(x; a) = x^a e^-x / Gamma(a), in logs
  // The implicit draw gradient has no differentiable op: it is only ever a backward value.
  const Tensor d = -(x_density * prim::binary(BinaryOp::gamma_log_draw_grad, a, log_x));
  return where(inside, d, zero_like(d));
}

// Throws if the gradient of a parameter without a derivative rule is requested.
void no_parameter_gradient(const BackwardContext& ctx, int input, const char* op, const char* role) {
  if (ctx.needs_grad(input))
    variate::detail::fail(op, ": the derivative with respect to ", role, " is not implemented");
}

Tensor constant(Tensor x) {
  x.set_tape_ref({});
  return x;
}

}  // namespace

Tensor operator+(const Tensor& a, const Tensor& b) {
  Tensor y = prim::add(a, b);
  if (not_recording()) return y;
  return record(
      std::move(y), {a, b}, {},
      [](const BackwardContext& ctx) {
        ctx.add(0, ctx.grad());
        ctx.add(1, ctx.grad());
      },
      autodiff::SecondOrder::supported);
}

Tensor operator-(const Tensor& a, const Tensor& b) {
  Tensor y = prim::sub(a, b);
  if (not_recording()) return y;
  return record(
      std::move(y), {a, b}, {},
      [](const BackwardContext& ctx) {
        ctx.add(0, ctx.grad());
        if (ctx.needs_grad(1)) ctx.add(1, -ctx.grad());
      },
      autodiff::SecondOrder::supported);
}

Tensor operator*(const Tensor& a, const Tensor& b) {
  Tensor y = prim::mul(a, b);
  if (not_recording()) return y;
  return record(
      std::move(y), {a, b}, {a, b},
      [](const BackwardContext& ctx) {
        if (ctx.needs_grad(0)) ctx.add(0, ctx.grad() * ctx.saved(1));
        if (ctx.needs_grad(1)) ctx.add(1, ctx.grad() * ctx.saved(0));
      },
      autodiff::SecondOrder::supported);
}

Tensor operator/(const Tensor& a, const Tensor& b) {
  Tensor y = prim::div(a, b);
  if (not_recording()) return y;
  return record(
      y, {a, b}, {b, y},
      [](const BackwardContext& ctx) {
        const Tensor ga = ctx.grad() / ctx.saved(0);  // d(a/b)/da = 1/b
        ctx.add(0, ga);
        if (ctx.needs_grad(1)) ctx.add(1, -(ga * ctx.saved(1)));  // -y/b
      },
      autodiff::SecondOrder::supported);
}

Tensor operator-(const Tensor& x) {
  Tensor y = prim::neg(x);
  if (not_recording()) return y;
  return record(
      std::move(y), {x}, {}, [](const BackwardContext& ctx) { ctx.add(0, -ctx.grad()); },
      autodiff::SecondOrder::supported);
}

Tensor operator+(const Tensor& a, double b) { return a + scalar_like(a, b); }
Tensor operator-(const Tensor& a, double b) { return a - scalar_like(a, b); }
Tensor operator*(const Tensor& a, double b) { return a * scalar_like(a, b); }
Tensor operator/(const Tensor& a, double b) { return a / scalar_like(a, b); }
Tensor operator+(double a, const Tensor& b) { return scalar_like(b, a) + b; }
Tensor operator-(double a, const Tensor& b) { return scalar_like(b, a) - b; }
Tensor operator*(double a, const Tensor& b) { return scalar_like(b, a) * b; }
Tensor operator/(double a, const Tensor& b) { return scalar_like(b, a) / b; }

Tensor pow(const Tensor& a, const Tensor& b) {
  Tensor y = prim::binary(BinaryOp::pow, a, b);
  return record(
      y, {a, b}, {a, b, y},
      [](const BackwardContext& ctx) {
        const Tensor &base = ctx.saved(0), &exponent = ctx.saved(1), &y = ctx.saved(2);
        if (ctx.needs_grad(0)) {  // b a^(b-1), written as b y / a except where a == 0
          // b - 1 in b's own dtype: an integer exponent keeps an f32 base's power in f32.
          const Tensor power = pow(base, exponent - Tensor::scalar(1.0, exponent.dtype()));
          ctx.add(0, ctx.grad() * (exponent * power));
        }
        if (ctx.needs_grad(1)) {  // y log a, taken as 0 where a == 0 (the limit for b > 0)
          const Tensor logb = where(eq(base, 0.0), base * 0.0, log(base));
          ctx.add(1, ctx.grad() * (y * logb));
        }
      },
      autodiff::SecondOrder::supported);
}

Tensor pow(const Tensor& a, double b) { return pow(a, scalar_like(a, b)); }

// Where max/min took the first operand: where it `wins` (a >= b or a <= b; ties go to the first
// operand, as a subgradient) or is NaN, which the kernels propagate.
static Tensor from_first(const Tensor& wins, const Tensor& a) { return logical_or(wins, ne(a, a)); }

Tensor maximum(const Tensor& a, const Tensor& b) {
  const Tensor from_a = from_first(ge(a, b), a);
  return record(
      prim::binary(BinaryOp::maximum, a, b), {a, b}, {from_a},
      [](const BackwardContext& ctx) {
        const Tensor zero = zero_like(ctx.grad());
        ctx.add(0, where(ctx.saved(0), ctx.grad(), zero));
        ctx.add(1, where(ctx.saved(0), zero, ctx.grad()));
      },
      autodiff::SecondOrder::supported);
}

Tensor minimum(const Tensor& a, const Tensor& b) {
  const Tensor from_a = from_first(le(a, b), a);
  return record(
      prim::binary(BinaryOp::minimum, a, b), {a, b}, {from_a},
      [](const BackwardContext& ctx) {
        const Tensor zero = zero_like(ctx.grad());
        ctx.add(0, where(ctx.saved(0), ctx.grad(), zero));
        ctx.add(1, where(ctx.saved(0), zero, ctx.grad()));
      },
      autodiff::SecondOrder::supported);
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  Tensor y = prim::where(cond, a, b);
  if (not_recording()) return y;
  return record(
      std::move(y), {a, b}, {cond},
      [](const BackwardContext& ctx) {
        const Tensor zero = zero_like(ctx.grad());
        if (ctx.needs_grad(0)) ctx.add(0, where(ctx.saved(0), ctx.grad(), zero));
        if (ctx.needs_grad(1)) ctx.add(1, where(ctx.saved(0), zero, ctx.grad()));
      },
      autodiff::SecondOrder::supported);
}

Tensor cast(const Tensor& x, DType dtype) {
  // A cast to a tensor's own dtype where record() would record nothing: the same value as a
  // constant, at once. Argument checks cast at every replay, and the way through prim::cast and
  // record() copied the handle three times.
  if (x.defined() && x.dtype() == dtype && is_floating(dtype) &&
      (autodiff::detail::active_tape() == nullptr || !autodiff::detail::any_tracked({&x, 1}))) {
    Tensor y = x;
    y.set_tape_ref({});
    return y;
  }
  Tensor y = prim::cast(x, dtype);
  if (!is_floating(dtype)) return constant(std::move(y));
  return record(
      y, {x}, {}, [](const BackwardContext& ctx) { ctx.add(0, ctx.grad()); }, autodiff::SecondOrder::supported);
}

Tensor eq(const Tensor& a, const Tensor& b) { return constant(prim::binary(BinaryOp::eq, a, b)); }
Tensor ne(const Tensor& a, const Tensor& b) { return constant(prim::binary(BinaryOp::ne, a, b)); }
Tensor lt(const Tensor& a, const Tensor& b) { return constant(prim::binary(BinaryOp::lt, a, b)); }
Tensor le(const Tensor& a, const Tensor& b) { return constant(prim::binary(BinaryOp::le, a, b)); }
Tensor gt(const Tensor& a, const Tensor& b) { return constant(prim::binary(BinaryOp::gt, a, b)); }
Tensor ge(const Tensor& a, const Tensor& b) { return constant(prim::binary(BinaryOp::ge, a, b)); }
Tensor eq(const Tensor& a, double b) { return constant(prim::binary(BinaryOp::eq, a, b)); }
Tensor ne(const Tensor& a, double b) { return constant(prim::binary(BinaryOp::ne, a, b)); }
Tensor lt(const Tensor& a, double b) { return constant(prim::binary(BinaryOp::lt, a, b)); }
Tensor le(const Tensor& a, double b) { return constant(prim::binary(BinaryOp::le, a, b)); }
Tensor gt(const Tensor& a, double b) { return constant(prim::binary(BinaryOp::gt, a, b)); }
Tensor ge(const Tensor& a, double b) { return constant(prim::binary(BinaryOp::ge, a, b)); }
Tensor logical_and(const Tensor& a, const Tensor& b) { return constant(prim::binary(BinaryOp::logical_and, a, b)); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return constant(prim::binary(BinaryOp::logical_or, a, b)); }
Tensor logical_not(const Tensor& x) { return constant(prim::unary(UnaryOp::logical_not, x)); }

Tensor exp(const Tensor& x) {
  return unary_op<Saves::output>(UnaryOp::exp, x, [](const Tensor& y) { return y; });
}
Tensor log(const Tensor& x) {
  return unary_op<Saves::input>(UnaryOp::log, x, [](const Tensor& x) { return reciprocal(x); });
}
Tensor log1p(const Tensor& x) {
  return unary_op<Saves::input>(UnaryOp::log1p, x, [](const Tensor& x) { return reciprocal(x + 1.0); });
}
Tensor expm1(const Tensor& x) {
  return unary_op<Saves::output>(UnaryOp::expm1, x, [](const Tensor& y) { return y + 1.0; });
}
Tensor sqrt(const Tensor& x) {
  return unary_op<Saves::output>(UnaryOp::sqrt, x, [](const Tensor& y) { return reciprocal(y * 2.0); });
}
Tensor abs(const Tensor& x) {
  return unary_op<Saves::input>(UnaryOp::abs, x, [](const Tensor& x) { return sign(x); });
}
Tensor sign(const Tensor& x) { return constant(prim::unary(UnaryOp::sign, x)); }
Tensor floor(const Tensor& x) { return constant(prim::unary(UnaryOp::floor, x)); }
Tensor square(const Tensor& x) {
  return unary_op<Saves::input>(UnaryOp::square, x, [](const Tensor& x) { return x * 2.0; });
}
Tensor reciprocal(const Tensor& x) {
  return unary_op<Saves::output>(UnaryOp::reciprocal, x, [](const Tensor& y) { return -square(y); });
}
Tensor sigmoid(const Tensor& x) {
  return unary_op<Saves::output>(UnaryOp::sigmoid, x, [](const Tensor& y) {  // y (1 - y)
    return y * (1.0 - y);
  });
}
Tensor log_sigmoid(const Tensor& x) {
  return unary_op<Saves::input>(UnaryOp::log_sigmoid, x, [](const Tensor& x) {  // sigmoid(-x)
    return sigmoid(-x);
  });
}
Tensor softplus(const Tensor& x) {
  return unary_op<Saves::input>(UnaryOp::softplus, x, [](const Tensor& x) { return sigmoid(x); });
}
Tensor tanh(const Tensor& x) {
  return unary_op<Saves::output>(UnaryOp::tanh, x, [](const Tensor& y) {  // 1 - y^2
    return 1.0 - square(y);
  });
}
Tensor atan(const Tensor& x) {
  return unary_op<Saves::input>(UnaryOp::atan, x, [](const Tensor& x) {  // 1 / (1 + x^2)
    return reciprocal(square(x) + 1.0);
  });
}
Tensor sin(const Tensor& x) {
  return unary_op<Saves::input>(UnaryOp::sin, x, [](const Tensor& x) { return cos(x); });
}
Tensor cos(const Tensor& x) {
  return unary_op<Saves::input>(UnaryOp::cos, x, [](const Tensor& x) { return -sin(x); });
}
Tensor log_bessel_i0(const Tensor& x) {
  return unary_op<Saves::input>(UnaryOp::log_bessel_i0, x, [](const Tensor& x) { return bessel_i1_over_i0(x); });
}
Tensor bessel_i1_over_i0(const Tensor& x) {
  // With r = I1 / I0: r' = 1 - r / x - r^2 (from I0' = I1 and I1' = I0 - I1 / x), 1/2 at x = 0.
  return unary_op<Saves::input>(UnaryOp::bessel_i1_over_i0, x, [](const Tensor& x) {
    const Tensor at_zero = eq(x, 0.0);
    const Tensor r = bessel_i1_over_i0(x);
    return where(at_zero, Tensor::scalar(0.5, x.dtype()),
                 1.0 - r / where(at_zero, Tensor::scalar(1.0, x.dtype()), x) - square(r));
  });
}
Tensor lgamma(const Tensor& x) {
  return unary_op<Saves::input>(UnaryOp::lgamma, x, [](const Tensor& x) { return digamma(x); });
}
Tensor digamma(const Tensor& x) {
  // trigamma has no differentiable op (no second-order rules): it is only ever a backward value.
  return unary_op<Saves::input>(
      UnaryOp::digamma, x, [](const Tensor& x) { return prim::unary(UnaryOp::trigamma, x); },
      autodiff::SecondOrder::unsupported);
}
Tensor erf(const Tensor& x) {
  return unary_op<Saves::input>(UnaryOp::erf, x, [](const Tensor& x) {  // 2/sqrt(pi) exp(-x^2)
    return exp(-square(x)) * (2.0 / std::sqrt(std::numbers::pi));
  });
}
Tensor erfc(const Tensor& x) {
  return unary_op<Saves::input>(UnaryOp::erfc, x,
                                [](const Tensor& x) { return exp(-square(x)) * (-2.0 / std::sqrt(std::numbers::pi)); });
}

Tensor igamma(const Tensor& a, const Tensor& x) {
  return record(prim::binary(BinaryOp::igamma, a, x), {a, x}, {a, x}, [](const BackwardContext& ctx) {
    if (ctx.needs_grad(0)) ctx.add(0, ctx.grad() * igamma_grad_a(ctx.saved(0), ctx.saved(1)));
    ctx.add(1, ctx.grad() * gamma_density(ctx.saved(0), ctx.saved(1)));
  });
}

Tensor igammac(const Tensor& a, const Tensor& x) {
  return record(prim::binary(BinaryOp::igammac, a, x), {a, x}, {a, x}, [](const BackwardContext& ctx) {
    if (ctx.needs_grad(0)) ctx.add(0, -(ctx.grad() * igamma_grad_a(ctx.saved(0), ctx.saved(1))));
    ctx.add(1, -(ctx.grad() * gamma_density(ctx.saved(0), ctx.saved(1))));
  });
}

Tensor betainc(const Tensor& a, const Tensor& b, const Tensor& x) {
  return record(prim::betainc(a, b, x), {a, b, x}, {a, b, x}, [](const BackwardContext& ctx) {
    no_parameter_gradient(ctx, 0, "betainc", "a");
    no_parameter_gradient(ctx, 1, "betainc", "b");
    ctx.add(2, ctx.grad() * beta_density(ctx.saved(0), ctx.saved(1), ctx.saved(2)));
  });
}

}  // namespace variate
