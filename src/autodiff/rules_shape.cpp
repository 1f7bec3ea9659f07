// Backward rules of shape, indexing and product ops.
#include <algorithm>
#include <vector>

#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/rad.hpp"
#include "variate/autodiff/tape.hpp"

namespace variate {

using autodiff::BackwardContext;
using autodiff::record;

namespace {
Tensor constant(Tensor x) {
  x.set_tape_ref({});
  return x;
}

// The adjoint of slice: `grad` placed at [start:stop:step] along `axis` of zeros shaped `shape`. An
// op of its own, whose rule is the slice again, so that slice's rule can be differentiated.
Tensor slice_adjoint(const Tensor& grad, const Shape& shape, int axis, std::int64_t start, std::int64_t stop,
                     std::int64_t step) {
  Tensor padded = Tensor::zeros(shape, grad.dtype(), grad.device());
  backend(padded.device()).slice_add(grad, axis, start, step, padded);
  return record(
      std::move(padded), {grad}, {},
      [axis, start, stop, step](const BackwardContext& ctx) { ctx.add(0, slice(ctx.grad(), axis, start, stop, step)); },
      autodiff::SecondOrder::supported);
}
}  // namespace

Tensor reshape(const Tensor& x, std::span<const std::int64_t> dims) {
  return record(
      prim::reshape(x, dims), {x}, {},
      [](const BackwardContext& ctx) { ctx.add(0, reshape(ctx.grad(), ctx.input_shape(0).dims())); },
      autodiff::SecondOrder::supported);
}
Tensor reshape(const Tensor& x, std::initializer_list<std::int64_t> dims) {
  return reshape(x, std::span<const std::int64_t>(dims.begin(), dims.size()));
}

Tensor permute(const Tensor& x, std::span<const int> perm) {
  Tensor y = prim::permute(x, perm);
  std::array<int, kMaxRank> inverse{};
  for (int i = 0; i < x.rank(); ++i) inverse[normalize_axis("permute", perm[i], x.rank())] = i;
  const int rank = x.rank();
  return record(
      y, {x}, {},
      [inverse, rank](const BackwardContext& ctx) {
        ctx.add(0, permute(ctx.grad(), std::span<const int>(inverse.data(), std::size_t(rank))));
      },
      autodiff::SecondOrder::supported);
}
Tensor permute(const Tensor& x, std::initializer_list<int> perm) {
  return permute(x, std::span<const int>(perm.begin(), perm.size()));
}

Tensor transpose(const Tensor& x, int axis0, int axis1) {
  VARIATE_CHECK(x.rank() >= 2, "transpose", "expected a tensor of rank >= 2, got shape ", x.shape());
  std::array<int, kMaxRank> perm{};
  for (int i = 0; i < x.rank(); ++i) perm[i] = i;
  std::swap(perm[normalize_axis("transpose", axis0, x.rank())], perm[normalize_axis("transpose", axis1, x.rank())]);
  return permute(x, std::span<const int>(perm.data(), std::size_t(x.rank())));
}

Tensor expand_dims(const Tensor& x, int axis) { return reshape(x, prim::expand_dims(x, axis).shape().dims()); }
Tensor squeeze(const Tensor& x, int axis) { return reshape(x, prim::squeeze(x, axis).shape().dims()); }

Tensor broadcast_to(const Tensor& x, const Shape& shape) {
  return record(
      prim::broadcast_to(x, shape), {x}, {}, [](const BackwardContext& ctx) { ctx.add(0, ctx.grad()); },
      autodiff::SecondOrder::supported);
}

Tensor sum_to(const Tensor& x, const Shape& shape) {
  if (x.shape() == shape) return x;
  VARIATE_CHECK(broadcast_shapes("sum_to", shape, x.shape()) == x.shape(), "sum_to", "shape ", shape,
                " does not broadcast to ", x.shape());
  std::array<int, kMaxRank> axes{};
  int n = 0;
  const int lead = x.rank() - shape.rank();
  for (int i = 0; i < x.rank(); ++i)
    if (i < lead || (shape[i - lead] == 1 && x.dim(i) != 1)) axes[n++] = i;
  return reshape(sum(x, Axes(axes.data(), std::size_t(n)), true), shape.dims());
}

Tensor concat(std::span<const Tensor> xs, int axis) {
  Tensor y = prim::concat(xs, axis);
  const int ax = normalize_axis("concat", axis, y.rank());
  return autodiff::record(
      y, xs, {},
      [ax](const BackwardContext& ctx) {
        // Each input's gradient is its slice of the output's.
        std::int64_t start = 0;
        for (int i = 0; i < ctx.num_inputs(); ++i) {
          const std::int64_t len = ctx.input_shape(i)[ax];
          if (ctx.needs_grad(i)) ctx.add(i, slice(ctx.grad(), ax, start, start + len));
          start += len;
        }
      },
      autodiff::SecondOrder::supported);
}
Tensor concat(std::initializer_list<Tensor> xs, int axis) {
  return concat(std::span<const Tensor>(xs.begin(), xs.size()), axis);
}

Tensor stack(std::span<const Tensor> xs, int axis) {
  VARIATE_CHECK(!xs.empty(), "stack", "needs at least one tensor");
  const int ax = normalize_axis("stack", axis, xs[0].rank() + 1);
  std::vector<Tensor> expanded;
  expanded.reserve(xs.size());
  for (const Tensor& x : xs) {
    VARIATE_CHECK(x.shape() == xs[0].shape(), "stack", "all tensors must have the same shape, got ", xs[0].shape(),
                  " and ", x.shape());
    expanded.push_back(expand_dims(x, ax));
  }
  return concat(expanded, ax);
}
Tensor stack(std::initializer_list<Tensor> xs, int axis) {
  return stack(std::span<const Tensor>(xs.begin(), xs.size()), axis);
}

Tensor slice(const Tensor& x, int axis, std::int64_t start, std::int64_t stop, std::int64_t step) {
  const int ax = normalize_axis("slice", axis, x.rank());
  VARIATE_CHECK(step > 0, "slice", "step must be positive, got ", step);
  // Python's rules: negative bounds count from the end; bounds are clamped to [0, n].
  const std::int64_t n = x.dim(ax);
  auto clamp = [n](std::int64_t i) { return std::clamp<std::int64_t>(i < 0 ? i + n : i, 0, n); };
  const std::int64_t s = clamp(start), e = std::max(s, clamp(stop));
  return record(
      prim::slice(x, ax, s, e, step), {x}, {},
      [ax, s, e, step](const BackwardContext& ctx) {
        if (ctx.differentiable())
          ctx.add(0, slice_adjoint(ctx.grad(), ctx.input_shape(0), ax, s, e, step));
        else
          ctx.add_to_slice(0, ax, s, step, ctx.grad());
      },
      autodiff::SecondOrder::supported);
}

Tensor index(const Tensor& x, std::initializer_list<std::int64_t> indices) {
  VARIATE_CHECK(int(indices.size()) <= x.rank(), "index", indices.size(), " indices for a tensor of shape ", x.shape());
  Tensor out = x;
  int axis = 0;
  for (std::int64_t i : indices) {
    const std::int64_t n = x.dim(axis);
    VARIATE_CHECK(i >= -n && i < n, "index", "index ", i, " is out of range for axis ", axis, " of size ", n,
                  " (shape ", x.shape(), ")");
    const std::int64_t at = i < 0 ? i + n : i;
    out = squeeze(slice(out, 0, at, at + 1), 0);  // the indexed axes go, so the next is again axis 0
    ++axis;
  }
  return out;
}

// Tensor's element access is this op (tensor.hpp cannot include the autodiff layer).
Tensor Tensor::element(std::initializer_list<std::int64_t> indices) const { return index(*this, indices); }

Tensor gather(const Tensor& x, int axis, const Tensor& index) {
  const int ax = normalize_axis("gather", axis, x.rank());
  Tensor y = prim::gather(x, ax, index);
  return record(y, {x}, {index}, [ax](const BackwardContext& ctx) {
    // Scatter into x's shape along `axis`, broadcast elsewhere; sum_to (in add) folds broadcasting.
    Shape target = ctx.grad().shape();
    target[ax] = ctx.input_shape(0)[ax];
    const Tensor zeros = Tensor::zeros(target, ctx.grad().dtype(), ctx.grad().device());
    Shape index_shape = ctx.grad().shape();
    ctx.add(0, scatter_add(zeros, ax, broadcast_to(ctx.saved(0), index_shape), ctx.grad()));
  });
}

Tensor scatter_add(const Tensor& base, int axis, const Tensor& index, const Tensor& src) {
  const int ax = normalize_axis("scatter_add", axis, base.rank());
  return record(prim::scatter_add(base, ax, index, src), {base, src}, {index}, [ax](const BackwardContext& ctx) {
    ctx.add(0, ctx.grad());
    if (ctx.needs_grad(1)) ctx.add(1, gather(ctx.grad(), ax, broadcast_to(ctx.saved(0), ctx.input_shape(1))));
  });
}

Tensor take(const Tensor& x, const Tensor& index, int axis) {
  const int ax = normalize_axis("take", axis, x.rank());
  Tensor y = prim::take(x, index, ax);
  return record(y, {x}, {index}, [ax](const BackwardContext& ctx) {
    // The gradient of x[..., index, ...]: add each slice of the cotangent back at its index.
    const Tensor& index = ctx.saved(0);
    const Shape& xs = ctx.input_shape(0);
    Shape flat;
    for (int i = 0; i < ax; ++i) flat.push_back(xs[i]);
    flat.push_back(index.numel());
    for (int i = ax + 1; i < xs.rank(); ++i) flat.push_back(xs[i]);
    Tensor g = Tensor::zeros(xs, ctx.grad().dtype(), ctx.grad().device());
    backend(g.device()).take_add(ctx.grad().view(flat), ax, index.view(Shape{index.numel()}), g);
    ctx.add(0, g);
  });
}

Tensor one_hot(const Tensor& index, std::int64_t depth, DType dtype) {
  return constant(prim::one_hot(index, depth, dtype));
}

Tensor matmul(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  Tensor y = prim::matmul(a, b, ta, tb);
  std::uint64_t op_index = 0;
  // RAD sketches the left operand's rows, the layout of a batch of activations times a weight (an
  // empty contraction has nothing to sketch).
  const autodiff::RadConfig* rad =
      !ta && a.rank() >= 2 && b.rank() >= 2 && a.dim(-1) > 0 && autodiff::detail::is_tracked(b)
          ? autodiff::detail::rad_for_next_op(&op_index)
          : nullptr;
  if (rad != nullptr) {
    // As a linear layer: b's gradient a^T g comes from an unbiased estimate of a rebuilt from what
    // rad_save kept of its rows (over the contracted dim); a's gradient g b^T stays exact.
    const std::int64_t d = a.dim(-1);
    const auto [stored, ranges] = autodiff::detail::rad_save(*rad, op_index, prim::reshape(a, Shape{a.numel() / d, d}));
    const Tensor inputs[] = {a, b};
    const Tensor saved[] = {stored, ranges, autodiff::stop_gradient(b)};
    return record(y, inputs, saved, [tb, rad = *rad, op_index](const BackwardContext& ctx) {
      const Tensor &g = ctx.grad(), &b = ctx.saved(2);
      const Shape& a_shape = ctx.input_shape(0);
      if (ctx.needs_grad(0)) ctx.add(0, reshape(sum_to(matmul(g, b, false, !tb), a_shape), a_shape.dims()));
      if (ctx.needs_grad(1)) {
        const Tensor estimate =
            autodiff::detail::rad_estimate(rad, op_index, ctx.saved(0), ctx.saved(1), a_shape.dim(-1));
        const Tensor a_hat = reshape(estimate, a_shape.dims());
        const Tensor gb = !tb ? matmul(a_hat, g, true, false) : matmul(g, a_hat, true, false);
        ctx.add(1, reshape(sum_to(gb, b.shape()), b.shape().dims()));
      }
    });
  }
  return record(
      y, {a, b}, {a, b},
      [ta, tb](const BackwardContext& ctx) {
        // Work with >= 2-d views (as the forward did), then fold batch broadcasting in `add`.
        const Tensor& a0 = ctx.saved(0);
        const Tensor& b0 = ctx.saved(1);
        const Tensor a = a0.rank() == 1 ? reshape(a0, {1, a0.dim(0)}) : a0;
        const Tensor b = b0.rank() == 1 ? reshape(b0, {b0.dim(0), 1}) : b0;
        Shape gshape = ctx.grad().shape();
        if (a0.rank() == 1) gshape.insert(gshape.rank() - (b0.rank() == 1 ? 0 : 1), 1);
        if (b0.rank() == 1) gshape.push_back(1);
        const Tensor g = reshape(ctx.grad(), gshape.dims());
        auto fold = [](const Tensor& grad, const Tensor& operand, const Shape& original) {
          // Sum broadcast batch dims down to the operand's batch shape, then restore its rank.
          return reshape(sum_to(grad, operand.shape()), original.dims());
        };
        if (ctx.needs_grad(0)) {
          const Tensor ga = !ta ? matmul(g, b, false, !tb) : matmul(b, g, tb, true);
          ctx.add(0, fold(ga, a, a0.shape()));
        }
        if (ctx.needs_grad(1)) {
          const Tensor gb = !tb ? matmul(a, g, !ta, false) : matmul(g, a, true, ta);
          ctx.add(1, fold(gb, b, b0.shape()));
        }
      },
      autodiff::SecondOrder::supported);
}

Tensor diagonal(const Tensor& x) {
  VARIATE_CHECK(x.rank() >= 2 && x.dim(-1) == x.dim(-2), "diagonal", "expected square matrices (..., n, n), got shape ",
                x.shape());
  const std::int64_t n = x.dim(-1);
  Shape flat;
  for (int i = 0; i < x.rank() - 2; ++i) flat.push_back(x.dim(i));
  flat.push_back(n * n);
  // In row-major order the diagonal of an n x n matrix is every (n+1)-th element.
  return slice(reshape(x, flat.dims()), -1, 0, n * n, n + 1);
}

}  // namespace variate
