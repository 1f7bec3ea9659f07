// Backward rules of reductions, scans and sorting.
#include <algorithm>
#include <cmath>

#include "variate/autodiff/no_recording.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/tape.hpp"

namespace variate {

using autodiff::BackwardContext;
using autodiff::record;

namespace {

// x's shape with the reduced axes set to 1 (all axes when `axes` is empty), and without them.
struct ReducedShapes {
  Shape kept, dropped;
};
ReducedShapes reduced_shapes(const char* op, const Shape& x, Axes axes) {
  std::array<bool, kMaxRank> reduced{};
  for (int a : axes) reduced[normalize_axis(op, a, x.rank())] = true;
  ReducedShapes s;
  for (int i = 0; i < x.rank(); ++i) {
    const bool r = axes.empty() || reduced[i];
    s.kept.push_back(r ? 1 : x[i]);
    if (!r) s.dropped.push_back(x[i]);
  }
  return s;
}
Shape keepdims_shape(const char* op, const Shape& x, Axes axes) { return reduced_shapes(op, x, axes).kept; }

Tensor constant(Tensor x) {
  x.set_tape_ref({});
  return x;
}

// max and min: the gradient is shared equally among the elements that attain the extremum.
Tensor extremum(ReduceOp op, const Tensor& x, Axes axes, bool keepdims) {
  const Shape kept = keepdims_shape(op == ReduceOp::max ? "max" : "min", x.shape(), axes);
  Tensor y = prim::reduce(op, x, axes, keepdims);
  return record(
      y, {x}, {x, y},
      [kept](const BackwardContext& ctx) {
        const Tensor& x = ctx.saved(0);
        const Tensor mask = cast(eq(x, ctx.saved(1).view(kept)), x.dtype());
        std::array<int, kMaxRank> axes{};
        int n = 0;
        for (int i = 0; i < kept.rank(); ++i)
          if (kept[i] == 1 && x.dim(i) != 1) axes[n++] = i;
        const Tensor ties = n ? sum(mask, Axes(axes.data(), std::size_t(n)), true) : Tensor::ones(kept, x.dtype());
        ctx.add(0, mask * (reshape(ctx.grad(), kept.dims()) / ties));
      },
      autodiff::SecondOrder::supported);
}

// all (the minimum of the 0/1 values) and any (their maximum), with the empty reduction's answer
// (true for all, false for any) where the kernels' min and max have no identity.
Tensor every_or_some(ReduceOp op, const char* name, const Tensor& x, Axes axes, bool keepdims) {
  VARIATE_CHECK(x.dtype() == DType::boolean, name, "expected a bool tensor, got ", x.dtype());
  if (x.numel() == 0) {
    const ReducedShapes shapes = reduced_shapes(name, x.shape(), axes);
    const Shape& shape = keepdims ? shapes.kept : shapes.dropped;
    return op == ReduceOp::min ? Tensor::ones(shape, DType::boolean, x.device())
                               : Tensor::zeros(shape, DType::boolean, x.device());
  }
  return constant(prim::binary(BinaryOp::eq, prim::reduce(op, prim::cast(x, DType::i64), axes, keepdims), 1.0));
}

}  // namespace

Tensor sum(const Tensor& x, Axes axes, bool keepdims) {
  const Shape kept = keepdims_shape("sum", x.shape(), axes);
  return record(
      prim::sum(x, axes, keepdims), {x}, {},
      [kept](const BackwardContext& ctx) {
        ctx.add(0, broadcast_to(reshape(ctx.grad(), kept.dims()), ctx.input_shape(0)));
      },
      autodiff::SecondOrder::supported);
}

Tensor mean(const Tensor& x, Axes axes, bool keepdims) {
  const Shape kept = keepdims_shape("mean", x.shape(), axes);
  const std::int64_t count = x.numel() / std::max<std::int64_t>(1, kept.numel());
  return sum(x, axes, keepdims) / double(count);
}

Tensor max(const Tensor& x, Axes axes, bool keepdims) { return extremum(ReduceOp::max, x, axes, keepdims); }
Tensor min(const Tensor& x, Axes axes, bool keepdims) { return extremum(ReduceOp::min, x, axes, keepdims); }

Tensor all(const Tensor& x, Axes axes, bool keepdims) { return every_or_some(ReduceOp::min, "all", x, axes, keepdims); }
Tensor any(const Tensor& x, Axes axes, bool keepdims) { return every_or_some(ReduceOp::max, "any", x, axes, keepdims); }

Tensor logsumexp(const Tensor& x, Axes axes, bool keepdims) {
  // Shifting by the (constant) maximum keeps exp() in range; an all -inf slice has shift 0 and
  // gives -inf, and +inf gives +inf, instead of NaN.
  Tensor shift;
  {
    const autodiff::NoRecording constant_shift;
    const Tensor m = max(x, axes, true);
    shift = where(lt(abs(m), INFINITY), m, Tensor::scalar(0.0, m.dtype()));
  }
  Tensor result = log(sum(exp(x - shift), axes, true)) + shift;
  return keepdims ? result : reshape(result, reduced_shapes("logsumexp", x.shape(), axes).dropped.dims());
}

Tensor log_softmax(const Tensor& x, int axis) {
  const int ax[] = {axis};
  return x - logsumexp(x, ax, true);
}

Tensor softmax(const Tensor& x, int axis) { return exp(log_softmax(x, axis)); }

Tensor argmax(const Tensor& x, int axis, bool keepdims) { return constant(prim::argmax(x, axis, keepdims)); }

Tensor cumsum(const Tensor& x, int axis) {
  const int ax = normalize_axis("cumsum", axis, x.rank());
  return record(prim::cumsum(x, ax), {x}, {}, [ax](const BackwardContext& ctx) {
    ctx.add(0, prim::cumsum(ctx.grad(), ax, /*reverse=*/true));  // no op sums in reverse: a backward value only
  });
}

namespace {

// x_(t-1) along `ax`, with a zero at t = 0.
Tensor shifted_forward(const Tensor& x, int ax) {
  const std::int64_t n = x.dim(ax);
  if (n == 0) return x;
  Shape first = x.shape();
  first[ax] = 1;
  return concat({Tensor::zeros(first, x.dtype(), x.device()), slice(x, ax, 0, n - 1)}, ax);
}

// The recurrence (adjoint = false) or its transpose (true). Each one's cotangent in u is the other
// applied to the output's cotangent, so the rule is written with differentiable ops alone.
Tensor recurrence(const Tensor& a, const Tensor& u, int ax, bool adjoint) {
  Tensor h = prim::linear_recurrence(a, u, ax, adjoint);
  return record(
      h, {a, u}, {a, h},
      [ax, adjoint](const BackwardContext& ctx) {
        const Tensor& h = ctx.saved(1);
        const Tensor lambda = recurrence(ctx.saved(0), ctx.grad(), ax, !adjoint);
        ctx.add(1, lambda);
        // a_t multiplies h_(t-1) in the recurrence, and h_t in the transpose's step to h_(t-1).
        if (ctx.needs_grad(0)) ctx.add(0, adjoint ? shifted_forward(lambda, ax) * h : lambda * shifted_forward(h, ax));
      },
      autodiff::SecondOrder::supported);
}

}  // namespace

Tensor linear_recurrence(const Tensor& a, const Tensor& u, int axis) {
  VARIATE_CHECK(a.defined() && u.defined(), "linear_recurrence", "the ", a.defined() ? "input" : "coefficient",
                " tensor is undefined");
  const int rank = std::max(a.rank(), u.rank());
  return recurrence(a, u, normalize_axis("linear_recurrence", axis, rank), false);
}

Tensor sort(const Tensor& x, int axis, bool descending) {
  const int ax = normalize_axis("sort", axis, x.rank());
  const Tensor order = prim::argsort(x, ax, descending);
  return record(prim::gather(x, ax, order), {x}, {order}, [ax](const BackwardContext& ctx) {
    const Tensor zeros = Tensor::zeros(ctx.input_shape(0), ctx.grad().dtype(), ctx.grad().device());
    ctx.add(0, scatter_add(zeros, ax, ctx.saved(0), ctx.grad()));
  });
}

Tensor argsort(const Tensor& x, int axis, bool descending) { return constant(prim::argsort(x, axis, descending)); }

}  // namespace variate
