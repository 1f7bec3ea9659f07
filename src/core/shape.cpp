#include "variate/core/shape.hpp"

#include <sstream>

#include "variate/core/error.hpp"

namespace variate {

Shape::Shape(std::initializer_list<std::int64_t> dims) : Shape(std::span(dims.begin(), dims.size())) {}

Shape::Shape(std::span<const std::int64_t> dims) {
  VARIATE_CHECK(dims.size() <= std::size_t(kMaxRank), "Shape", "rank ", dims.size(), " exceeds the maximum rank ",
                kMaxRank);
  for (auto d : dims) {
    VARIATE_CHECK(d >= 0, "Shape", "dimensions must be non-negative, got ", d);
    dims_[rank_++] = d;
  }
}

std::int64_t Shape::dim(int axis) const { return dims_[normalize_axis("Shape::dim", axis, rank_)]; }

void Shape::push_back(std::int64_t d) { insert(rank_, d); }

void Shape::insert(int pos, std::int64_t d) {
  VARIATE_CHECK(pos >= 0 && pos <= rank_, "Shape", "cannot insert at position ", pos, " of ", str());
  VARIATE_CHECK(rank_ < kMaxRank, "Shape", "cannot add a dimension to ", str(), ": maximum rank is ", kMaxRank);
  for (int i = rank_; i > pos; --i) dims_[i] = dims_[i - 1];
  dims_[pos] = d;
  ++rank_;
}

void Shape::erase(int pos) {
  VARIATE_CHECK(pos >= 0 && pos < rank_, "Shape", "cannot erase position ", pos, " of ", str());
  for (int i = pos; i + 1 < rank_; ++i) dims_[i] = dims_[i + 1];
  dims_[--rank_] = 0;
}

std::string Shape::str() const {
  std::ostringstream out;
  out << *this;
  return out.str();
}

std::ostream& operator<<(std::ostream& out, const Shape& s) {
  out << '[';
  for (int i = 0; i < s.rank(); ++i) out << (i ? ", " : "") << s[i];
  return out << ']';
}

std::array<std::int64_t, kMaxRank> row_major_strides(const Shape& s) {
  std::array<std::int64_t, kMaxRank> strides{};
  std::int64_t stride = 1;
  for (int i = s.rank() - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= s[i];
  }
  return strides;
}

Shape broadcast_shapes(const char* op, const Shape& a, const Shape& b) {
  const int rank = std::max(a.rank(), b.rank());
  std::array<std::int64_t, kMaxRank> dims{};
  for (int i = 0; i < rank; ++i) {
    const int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
    const std::int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    VARIATE_CHECK(da == db || da == 1 || db == 1, op, "shapes ", a, " and ", b,
                  " cannot be broadcast together (dimension ", i, " of the result: ", da, " vs ", db, ")");
    dims[i] = da == 1 ? db : da;
  }
  return Shape(std::span<const std::int64_t>(dims.data(), std::size_t(rank)));
}

int normalize_axis(const char* op, int axis, int rank) {
  VARIATE_CHECK(axis >= -rank && axis < rank, op, "axis ", axis, " is out of range for a tensor of rank ", rank,
                " (expected -", rank, " <= axis < ", rank, ")");
  return axis < 0 ? axis + rank : axis;
}

}  // namespace variate
