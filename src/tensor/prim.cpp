// Tensor-layer operations: argument checks, result shapes and dtypes, then the device's kernel.
#include "variate/tensor/prim.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace variate {

const char* name(UnaryOp op) {
  static const char* names[] = {"neg",           "exp",
                                "log",           "log1p",
                                "expm1",         "sqrt",
                                "abs",           "sign",
                                "square",        "reciprocal",
                                "sigmoid",       "log_sigmoid",
                                "softplus",      "tanh",
                                "atan",          "lgamma",
                                "digamma",       "trigamma",
                                "erf",           "erfc",
                                "floor",         "logical_not",
                                "sin",           "cos",
                                "log_bessel_i0", "bessel_i1_over_i0"};
  return names[static_cast<int>(op)];
}

const char* name(BinaryOp op) {
  static constexpr const char* names[] = {"add",
                                          "sub",
                                          "mul",
                                          "div",
                                          "pow",
                                          "maximum",
                                          "minimum",
                                          "igamma",
                                          "igammac",
                                          "gamma_log_draw_grad",
                                          "times_nonzero",
                                          "bernoulli_logit_log_prob",
                                          "bernoulli_logit_score",
                                          "normal_log_density",
                                          "eq",
                                          "ne",
                                          "lt",
                                          "le",
                                          "gt",
                                          "ge",
                                          "logical_and",
                                          "logical_or"};
  static_assert(std::size(names) == static_cast<std::size_t>(BinaryOp::logical_or) + 1, "one name per BinaryOp");
  return names[static_cast<int>(op)];
}

namespace prim {
namespace {

void check_defined(const char* op, const Tensor& x, const char* role = "input") {
  VARIATE_CHECK(x.defined(), op, "the ", role, " tensor is undefined");
}

void check_same_device(const char* op, const Tensor& a, const Tensor& b) {
  VARIATE_CHECK(a.device() == b.device(), op, "operands are on different devices (", a.device(), " and ", b.device(),
                ")");
}

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::eq || op == BinaryOp::ne || op == BinaryOp::lt || op == BinaryOp::le || op == BinaryOp::gt ||
         op == BinaryOp::ge || op == BinaryOp::logical_and || op == BinaryOp::logical_or;
}

// Flags for the axes to reduce; empty `axes` means all of them.
std::array<bool, kMaxRank> reduced_flags(const char* op, Axes axes, int rank) {
  std::array<bool, kMaxRank> flags{};
  if (axes.empty()) {
    std::fill(flags.begin(), flags.begin() + rank, true);
    return flags;
  }
  for (int a : axes) {
    const int ax = normalize_axis(op, a, rank);
    VARIATE_CHECK(!flags[ax], op, "axis ", a, " is listed twice");
    flags[ax] = true;
  }
  return flags;
}

}  // namespace

Tensor cast(const Tensor& x, DType dtype) {
  check_defined("cast", x);
  if (x.dtype() == dtype) return x;
  if (is_floating(x.dtype()) && (dtype == DType::i32 || dtype == DType::i64) && x.numel() > 0) {
    // Converting NaN, infinity or an out-of-range value to an integer is undefined behaviour.
    const double limit = dtype == DType::i32 ? 2147483647.0 : 9.2e18;
    const double largest = reduce(ReduceOp::max, unary(UnaryOp::abs, x), {}, false).item();
    VARIATE_CHECK(largest <= limit, "cast", "cannot convert values of magnitude ", largest, " (or NaN) in a ",
                  x.dtype(), " tensor of shape ", x.shape(), " to ", dtype);
  }
  Tensor out = Tensor::empty(x.shape(), dtype, x.device());
  backend(x.device()).cast(x, out);
  return out;
}

Tensor unary(UnaryOp op, const Tensor& x) {
  check_defined(name(op), x);
  const bool integer_ok = op == UnaryOp::neg || op == UnaryOp::abs || op == UnaryOp::sign || op == UnaryOp::square;
  if (op == UnaryOp::logical_not) {
    VARIATE_CHECK(x.dtype() == DType::boolean, "logical_not", "expected a bool tensor, got ", x.dtype());
  }
  const Tensor in =
      op == UnaryOp::logical_not || (integer_ok && x.dtype() != DType::boolean) ? x : cast(x, float_type(x.dtype()));
  Tensor out = Tensor::empty(in.shape(), in.dtype(), in.device());
  backend(in.device()).unary(op, in, out);
  return out;
}

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  check_defined(name(op), a, "first");
  check_defined(name(op), b, "second");
  check_same_device(name(op), a, b);
  const Shape shape = broadcast_shapes(name(op), a.shape(), b.shape());
  DType t = promote(a.dtype(), b.dtype());
  // True division, pow, the incomplete gamma functions and the density terms are floating point,
  // as in NumPy and SciPy; bool arithmetic counts as integer.
  const bool floating_op = op == BinaryOp::div || op == BinaryOp::pow || op == BinaryOp::igamma ||
                           op == BinaryOp::igammac || op == BinaryOp::gamma_log_draw_grad ||
                           op == BinaryOp::bernoulli_logit_log_prob || op == BinaryOp::bernoulli_logit_score ||
                           op == BinaryOp::normal_log_density;
  if (floating_op && !is_floating(t)) t = DType::f64;
  if (t == DType::boolean && !is_comparison(op)) t = DType::i64;
  const Tensor ca = cast(a, t), cb = cast(b, t);
  Tensor out = Tensor::empty(shape, is_comparison(op) ? DType::boolean : t, a.device());
  backend(a.device()).binary(op, ca, cb, out);
  return out;
}

Tensor binary(BinaryOp op, const Tensor& a, double b) {
  check_defined(name(op), a);
  // A scalar adopts the tensor's dtype (as a Python scalar does in NumPy and JAX) when it is
  // representable in it; otherwise both become floating point.
  const DType own = a.dtype() == DType::boolean ? DType::i64 : a.dtype();
  const double limit = own == DType::i32 ? 2147483647.0 : 9.2e18;
  const bool fits = is_floating(own) || (std::isfinite(b) && std::floor(b) == b && std::abs(b) <= limit);
  return binary(op, a, Tensor::scalar(b, fits ? own : float_type(own)));
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  check_defined("where", cond, "condition");
  check_defined("where", a, "first");
  check_defined("where", b, "second");
  VARIATE_CHECK(cond.dtype() == DType::boolean, "where", "the condition must be bool, got ", cond.dtype());
  const Shape shape = broadcast_shapes("where", cond.shape(), broadcast_shapes("where", a.shape(), b.shape()));
  const DType t = promote(a.dtype(), b.dtype());
  Tensor out = Tensor::empty(shape, t, a.device());
  backend(a.device()).where(cond, cast(a, t), cast(b, t), out);
  return out;
}

Tensor betainc(const Tensor& a, const Tensor& b, const Tensor& x) {
  check_defined("betainc", a, "a");
  check_defined("betainc", b, "b");
  check_defined("betainc", x, "x");
  check_same_device("betainc", a, b);
  check_same_device("betainc", a, x);
  const Shape shape = broadcast_shapes("betainc", a.shape(), broadcast_shapes("betainc", b.shape(), x.shape()));
  const DType t = float_type(promote(a.dtype(), promote(b.dtype(), x.dtype())));
  Tensor out = Tensor::empty(shape, t, a.device());
  backend(a.device()).betainc(cast(a, t), cast(b, t), cast(x, t), out);
  return out;
}

Tensor add(const Tensor& a, const Tensor& b) { return binary(BinaryOp::add, a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary(BinaryOp::sub, a, b); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary(BinaryOp::mul, a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return binary(BinaryOp::div, a, b); }
Tensor neg(const Tensor& x) { return unary(UnaryOp::neg, x); }

Tensor reduce(ReduceOp op, const Tensor& x, Axes axes, bool keepdims) {
  static const char* names[] = {"sum", "max", "min", "prod"};
  const char* opname = names[static_cast<int>(op)];
  check_defined(opname, x);
  const auto flags = reduced_flags(opname, axes, x.rank());
  Shape kept, dropped;
  for (int i = 0; i < x.rank(); ++i) {
    kept.push_back(flags[i] ? 1 : x.dim(i));
    if (!flags[i]) dropped.push_back(x.dim(i));
  }
  if (op == ReduceOp::max || op == ReduceOp::min) {
    for (int i = 0; i < x.rank(); ++i)
      VARIATE_CHECK(!flags[i] || x.dim(i) > 0, opname, "cannot reduce the empty axis ", i, " of shape ", x.shape(),
                    " (no identity for ", opname, ")");
  }
  const Tensor in = x.dtype() == DType::boolean ? cast(x, DType::i64) : x;
  Tensor out = Tensor::empty(kept, in.dtype(), x.device());
  backend(x.device()).reduce(op, in, std::span<const bool>(flags.data(), std::size_t(x.rank())), out);
  return keepdims ? out : out.view(dropped);
}

Tensor sum(const Tensor& x, Axes axes, bool keepdims) { return reduce(ReduceOp::sum, x, axes, keepdims); }
Tensor max(const Tensor& x, Axes axes, bool keepdims) { return reduce(ReduceOp::max, x, axes, keepdims); }

Tensor argmax(const Tensor& x, int axis, bool keepdims) {
  check_defined("argmax", x);
  const int ax = normalize_axis("argmax", axis, x.rank());
  VARIATE_CHECK(x.dim(ax) > 0, "argmax", "axis ", axis, " of shape ", x.shape(), " is empty");
  Shape kept = x.shape();
  kept[ax] = 1;
  Tensor out = Tensor::empty(kept, DType::i64, x.device());
  backend(x.device()).argmax(x, ax, out);
  return keepdims ? out : squeeze(out, ax);
}

Tensor cumsum(const Tensor& x, int axis, bool reverse) {
  check_defined("cumsum", x);
  const int ax = normalize_axis("cumsum", axis, x.rank());
  const Tensor in = x.dtype() == DType::boolean ? cast(x, DType::i64) : x;
  Tensor out = Tensor::empty(in.shape(), in.dtype(), in.device());
  backend(x.device()).cumsum(in, ax, reverse, out);
  return out;
}

Tensor linear_recurrence(const Tensor& a, const Tensor& u, int axis, bool adjoint) {
  check_defined("linear_recurrence", a, "coefficient");
  check_defined("linear_recurrence", u, "input");
  check_same_device("linear_recurrence", a, u);
  const Shape shape = broadcast_shapes("linear_recurrence", a.shape(), u.shape());
  const int ax = normalize_axis("linear_recurrence", axis, shape.rank());
  const DType t = float_type(promote(a.dtype(), u.dtype()));
  const auto full = [&](const Tensor& x) { return broadcast_to(cast(x, t), shape); };
  Tensor out = Tensor::empty(shape, t, a.device());
  backend(a.device()).linear_recurrence(full(a), full(u), ax, adjoint, out);
  return out;
}

Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b) {
  check_defined("matmul", a, "first");
  check_defined("matmul", b, "second");
  check_same_device("matmul", a, b);
  VARIATE_CHECK(a.rank() >= 1 && b.rank() >= 1, "matmul", "operands must have rank >= 1, got shapes ", a.shape(),
                " and ", b.shape());
  VARIATE_CHECK(!(transpose_a && a.rank() < 2) && !(transpose_b && b.rank() < 2), "matmul",
                "only operands of rank >= 2 can be transposed, got shapes ", a.shape(), " and ", b.shape());
  // NumPy: a 1-d first operand is a row vector, a 1-d second operand a column vector; the added
  // dimension is removed from the result.
  const Tensor a2 = a.rank() == 1 ? a.view(Shape{1, a.dim(0)}) : a;
  const Tensor b2 = b.rank() == 1 ? b.view(Shape{b.dim(0), 1}) : b;
  const std::int64_t m = transpose_a ? a2.dim(-1) : a2.dim(-2), ka = transpose_a ? a2.dim(-2) : a2.dim(-1);
  const std::int64_t kb = transpose_b ? b2.dim(-1) : b2.dim(-2), n = transpose_b ? b2.dim(-2) : b2.dim(-1);
  VARIATE_CHECK(ka == kb, "matmul", "contracted dimensions differ: shapes ", a.shape(),
                transpose_a ? " (transposed)" : "", " and ", b.shape(), transpose_b ? " (transposed)" : "", " give ",
                ka, " vs ", kb);
  const Shape batch = broadcast_shapes("matmul", Shape(std::span(a2.shape().begin(), std::size_t(a2.rank() - 2))),
                                       Shape(std::span(b2.shape().begin(), std::size_t(b2.rank() - 2))));
  const DType t = float_type(promote(a.dtype(), b.dtype()));
  Shape out_shape = batch;
  out_shape.push_back(m);
  out_shape.push_back(n);
  Tensor out = Tensor::empty(out_shape, t, a.device());
  backend(a.device()).matmul(cast(a2, t), transpose_a, cast(b2, t), transpose_b, out);
  Shape final_shape = batch;
  if (a.rank() > 1) final_shape.push_back(m);
  if (b.rank() > 1) final_shape.push_back(n);
  return out.view(final_shape);
}

Tensor reshape(const Tensor& x, const Shape& shape) {
  check_defined("reshape", x);
  return x.view(shape);
}

Tensor reshape(const Tensor& x, std::span<const std::int64_t> dims) {
  check_defined("reshape", x);
  VARIATE_CHECK(dims.size() <= std::size_t(kMaxRank), "reshape", "too many dimensions (", dims.size(), ")");
  std::array<std::int64_t, kMaxRank> resolved{};
  int inferred = -1;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      VARIATE_CHECK(inferred < 0, "reshape", "only one dimension may be -1");
      inferred = int(i);
    } else {
      VARIATE_CHECK(dims[i] >= 0, "reshape", "invalid dimension ", dims[i]);
      known *= dims[i];
    }
    resolved[i] = dims[i];
  }
  if (inferred >= 0) {
    VARIATE_CHECK(known > 0 && x.numel() % known == 0, "reshape", "cannot infer the -1 dimension: ", x.numel(),
                  " elements of shape ", x.shape(), " are not divisible by ", known);
    resolved[inferred] = x.numel() / known;
  }
  return x.view(Shape(std::span<const std::int64_t>(resolved.data(), dims.size())));
}

Tensor permute(const Tensor& x, std::span<const int> perm) {
  check_defined("permute", x);
  VARIATE_CHECK(int(perm.size()) == x.rank(), "permute", "permutation of length ", perm.size(),
                " for a tensor of shape ", x.shape());
  std::array<int, kMaxRank> axes{};
  std::array<bool, kMaxRank> seen{};
  Shape shape;
  bool identity = true;
  for (int i = 0; i < x.rank(); ++i) {
    axes[i] = normalize_axis("permute", perm[i], x.rank());
    VARIATE_CHECK(!seen[axes[i]], "permute", "axis ", perm[i], " appears twice in the permutation");
    seen[axes[i]] = true;
    shape.push_back(x.dim(axes[i]));
    identity = identity && axes[i] == i;
  }
  if (identity) return x;
  Tensor out = Tensor::empty(shape, x.dtype(), x.device());
  backend(x.device()).permute(x, std::span<const int>(axes.data(), std::size_t(x.rank())), out);
  return out;
}

Tensor transpose(const Tensor& x, int axis0, int axis1) {
  check_defined("transpose", x);
  VARIATE_CHECK(x.rank() >= 2, "transpose", "expected a tensor of rank >= 2, got shape ", x.shape());
  std::array<int, kMaxRank> perm{};
  for (int i = 0; i < x.rank(); ++i) perm[i] = i;
  std::swap(perm[normalize_axis("transpose", axis0, x.rank())], perm[normalize_axis("transpose", axis1, x.rank())]);
  return permute(x, std::span<const int>(perm.data(), std::size_t(x.rank())));
}

Tensor expand_dims(const Tensor& x, int axis) {
  check_defined("expand_dims", x);
  Shape s = x.shape();
  s.insert(normalize_axis("expand_dims", axis, x.rank() + 1), 1);
  return x.view(s);
}

Tensor squeeze(const Tensor& x, int axis) {
  check_defined("squeeze", x);
  const int ax = normalize_axis("squeeze", axis, x.rank());
  VARIATE_CHECK(x.dim(ax) == 1, "squeeze", "axis ", axis, " of shape ", x.shape(), " has size ", x.dim(ax),
                ", expected 1");
  Shape s = x.shape();
  s.erase(ax);
  return x.view(s);
}

Tensor broadcast_to(const Tensor& x, const Shape& shape) {
  check_defined("broadcast_to", x);
  VARIATE_CHECK(broadcast_shapes("broadcast_to", x.shape(), shape) == shape, "broadcast_to", "shape ", x.shape(),
                " cannot be broadcast to ", shape);
  if (x.shape() == shape) return x;
  Tensor out = Tensor::empty(shape, x.dtype(), x.device());
  backend(x.device()).broadcast_to(x, out);
  return out;
}

Tensor sum_to(const Tensor& grad, const Shape& shape) {
  if (grad.shape() == shape) return grad;
  VARIATE_CHECK(broadcast_shapes("sum_to", shape, grad.shape()) == grad.shape(), "sum_to", "shape ", shape,
                " does not broadcast to ", grad.shape());
  std::array<int, kMaxRank> axes{};
  int n = 0;
  const int lead = grad.rank() - shape.rank();
  for (int i = 0; i < grad.rank(); ++i)
    if (i < lead || (shape[i - lead] == 1 && grad.dim(i) != 1)) axes[n++] = i;
  Tensor summed = sum(grad, Axes(axes.data(), std::size_t(n)), true);
  return summed.view(shape);
}

}  // namespace prim
}  // namespace variate
