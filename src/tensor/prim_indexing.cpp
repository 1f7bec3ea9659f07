// Tensor-layer indexing operations: concatenation, slicing, gathers and scatters, sorting.
#include <algorithm>
#include <vector>

#include "variate/tensor/prim.hpp"

namespace variate::prim {
namespace {

void check_defined(const char* op, const Tensor& x, const char* role = "input") {
  VARIATE_CHECK(x.defined(), op, "the ", role, " tensor is undefined");
}

void check_index_dtype(const char* op, const Tensor& index) {
  VARIATE_CHECK(index.dtype() == DType::i32 || index.dtype() == DType::i64, op, "indices must be i32 or i64, got ",
                index.dtype());
}

// Throws unless every index lies in [0, size). Kernels trust their indices, so this must run before
// any of them. It uses the backend's reductions, which keeps it device-agnostic.
void check_index_range(const char* op, const Tensor& index, int axis, std::int64_t size) {
  if (index.numel() == 0) return;
  const auto lo = std::int64_t(reduce(ReduceOp::min, index, {}, false).item());
  const auto hi = std::int64_t(reduce(ReduceOp::max, index, {}, false).item());
  VARIATE_CHECK(lo >= 0 && hi < size, op, "index ", lo < 0 ? lo : hi, " is out of range for axis ", axis, " of size ",
                size, " (expected 0 <= index < ", size, ")");
}

// Python's rule for a slice bound: negative counts from the end, then clamp to [0, n].
std::int64_t slice_bound(std::int64_t bound, std::int64_t n) {
  if (bound < 0) bound += n;
  return std::clamp<std::int64_t>(bound, 0, n);
}

}  // namespace

Tensor concat(std::span<const Tensor> xs, int axis) {
  VARIATE_CHECK(!xs.empty(), "concat", "expected at least one tensor");
  for (const Tensor& x : xs) check_defined("concat", x);
  const Tensor& first = xs[0];
  VARIATE_CHECK(first.rank() >= 1, "concat", "cannot concatenate rank-0 tensors (use stack)");
  const int ax = normalize_axis("concat", axis, first.rank());
  Shape shape = first.shape();
  shape[ax] = 0;
  DType t = first.dtype();
  for (std::size_t k = 0; k < xs.size(); ++k) {
    const Tensor& x = xs[k];
    bool matches = x.rank() == first.rank();
    for (int i = 0; i < first.rank() && matches; ++i) matches = i == ax || x.dim(i) == first.dim(i);
    VARIATE_CHECK(matches, "concat", "tensor ", k, " has shape ", x.shape(), " but tensor 0 has shape ", first.shape(),
                  "; expected equal shapes except along axis ", ax);
    VARIATE_CHECK(x.device() == first.device(), "concat", "tensor ", k, " is on ", x.device(), ", tensor 0 on ",
                  first.device());
    shape[ax] += x.dim(ax);
    t = promote(t, x.dtype());
  }
  Tensor out = Tensor::empty(shape, t, first.device());
  const bool same_dtype = std::all_of(xs.begin(), xs.end(), [t](const Tensor& x) { return x.dtype() == t; });
  if (same_dtype) {
    backend(out.device()).concat(xs, ax, out);
  } else {
    std::vector<Tensor> converted;
    converted.reserve(xs.size());
    for (const Tensor& x : xs) converted.push_back(cast(x, t));
    backend(out.device()).concat(converted, ax, out);
  }
  return out;
}

Tensor stack(std::span<const Tensor> xs, int axis) {
  VARIATE_CHECK(!xs.empty(), "stack", "expected at least one tensor");
  for (const Tensor& x : xs) check_defined("stack", x);
  const int ax = normalize_axis("stack", axis, xs[0].rank() + 1);
  std::vector<Tensor> expanded;
  expanded.reserve(xs.size());
  for (std::size_t k = 0; k < xs.size(); ++k) {
    VARIATE_CHECK(xs[k].shape() == xs[0].shape(), "stack", "tensor ", k, " has shape ", xs[k].shape(),
                  " but tensor 0 has shape ", xs[0].shape(), "; expected equal shapes");
    expanded.push_back(expand_dims(xs[k], ax));
  }
  return concat(expanded, ax);
}

Tensor slice(const Tensor& x, int axis, std::int64_t start, std::int64_t stop, std::int64_t step) {
  check_defined("slice", x);
  const int ax = normalize_axis("slice", axis, x.rank());
  VARIATE_CHECK(step > 0, "slice", "step must be positive, got ", step);
  const std::int64_t n = x.dim(ax), first = slice_bound(start, n), last = slice_bound(stop, n);
  Shape shape = x.shape();
  shape[ax] = last > first ? (last - first - 1) / step + 1 : 0;
  Tensor out = Tensor::empty(shape, x.dtype(), x.device());
  backend(x.device()).slice(x, ax, first, step, out);
  return out;
}

Tensor gather(const Tensor& x, int axis, const Tensor& index) {
  check_defined("gather", x);
  check_defined("gather", index, "index");
  check_index_dtype("gather", index);
  VARIATE_CHECK(index.rank() == x.rank(), "gather", "index of shape ", index.shape(),
                " must have the rank of the input's shape ", x.shape());
  const int ax = normalize_axis("gather", axis, x.rank());
  Shape shape = index.shape();
  for (int i = 0; i < x.rank(); ++i) {
    if (i == ax) continue;
    VARIATE_CHECK(x.dim(i) == index.dim(i) || x.dim(i) == 1 || index.dim(i) == 1, "gather", "index of shape ",
                  index.shape(), " does not broadcast against the input's shape ", x.shape(), " (dimension ", i, ")");
    if (x.dim(i) != 1) shape[i] = x.dim(i);
  }
  check_index_range("gather", index, ax, x.dim(ax));
  Tensor out = Tensor::empty(shape, x.dtype(), x.device());
  backend(x.device()).gather(x, ax, broadcast_to(index, shape), out);
  return out;
}

Tensor scatter_add(const Tensor& base, int axis, const Tensor& index, const Tensor& src) {
  check_defined("scatter_add", base, "base");
  check_defined("scatter_add", index, "index");
  check_defined("scatter_add", src, "source");
  check_index_dtype("scatter_add", index);
  VARIATE_CHECK(index.rank() == base.rank() && src.rank() == base.rank(), "scatter_add", "base ", base.shape(),
                ", index ", index.shape(), " and source ", src.shape(), " must have the same rank");
  const int ax = normalize_axis("scatter_add", axis, base.rank());
  for (int i = 0; i < base.rank(); ++i) {
    VARIATE_CHECK(i == ax || src.dim(i) == base.dim(i), "scatter_add", "source of shape ", src.shape(),
                  " must match the base's shape ", base.shape(), " except along axis ", ax);
    VARIATE_CHECK(index.dim(i) == src.dim(i) || index.dim(i) == 1, "scatter_add", "index of shape ", index.shape(),
                  " does not broadcast to the source's shape ", src.shape());
  }
  check_index_range("scatter_add", index, ax, base.dim(ax));
  const DType t = promote(base.dtype(), src.dtype());
  Tensor out = Tensor::empty(base.shape(), t, base.device());
  Backend& be = backend(base.device());
  be.cast(base, out);
  be.scatter_add(cast(src, t), ax, broadcast_to(index, src.shape()), out);
  return out;
}

Tensor take(const Tensor& x, const Tensor& index, int axis) {
  check_defined("take", x);
  check_defined("take", index, "index");
  check_index_dtype("take", index);
  const int ax = normalize_axis("take", axis, x.rank());
  VARIATE_CHECK(x.rank() - 1 + index.rank() <= kMaxRank, "take", "the result of indexing shape ", x.shape(),
                " with indices of shape ", index.shape(), " would exceed the maximum rank ", kMaxRank);
  check_index_range("take", index, ax, x.dim(ax));
  Shape flat = x.shape(), shape;
  flat[ax] = index.numel();
  for (int i = 0; i < ax; ++i) shape.push_back(x.dim(i));
  for (std::int64_t d : index.shape()) shape.push_back(d);
  for (int i = ax + 1; i < x.rank(); ++i) shape.push_back(x.dim(i));
  Tensor out = Tensor::empty(flat, x.dtype(), x.device());
  backend(x.device()).take(x, ax, index.view(Shape{index.numel()}), out);
  return out.view(shape);
}

Tensor one_hot(const Tensor& index, std::int64_t depth, DType dtype) {
  check_defined("one_hot", index, "index");
  check_index_dtype("one_hot", index);
  VARIATE_CHECK(depth >= 0, "one_hot", "depth must be non-negative, got ", depth);
  VARIATE_CHECK(index.rank() < kMaxRank, "one_hot", "indices of shape ", index.shape(),
                " leave no room for the one-hot axis (maximum rank ", kMaxRank, ")");
  check_index_range("one_hot", index, -1, depth);
  const Tensor hot = binary(BinaryOp::eq, expand_dims(index, -1), Tensor::arange(depth, index.dtype()));
  return cast(hot, dtype);
}

Tensor sort(const Tensor& x, int axis, bool descending) {
  check_defined("sort", x);
  const int ax = normalize_axis("sort", axis, x.rank());
  Tensor values = Tensor::empty(x.shape(), x.dtype(), x.device());
  backend(x.device()).sort(x, ax, descending, &values, nullptr);
  return values;
}

Tensor argsort(const Tensor& x, int axis, bool descending) {
  check_defined("argsort", x);
  const int ax = normalize_axis("argsort", axis, x.rank());
  Tensor indices = Tensor::empty(x.shape(), DType::i64, x.device());
  backend(x.device()).sort(x, ax, descending, nullptr, &indices);
  return indices;
}

}  // namespace variate::prim
