#pragma once
// A tensor shape stored inline (no heap), so shapes can be created on hot paths.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <span>
#include <string>

namespace variate {

inline constexpr int kMaxRank = 8;

/// Dimensions of a row-major tensor, at most kMaxRank of them.
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<std::int64_t> dims);
  explicit Shape(std::span<const std::int64_t> dims);

  int rank() const { return rank_; }
  std::int64_t operator[](int i) const { return dims_[i]; }
  std::int64_t& operator[](int i) { return dims_[i]; }
  /// Dimension `axis`, negative counting from the end; throws if out of range.
  std::int64_t dim(int axis) const;
  std::int64_t numel() const {
    std::int64_t n = 1;
    for (int i = 0; i < rank_; ++i) n *= dims_[i];
    return n;
  }
  const std::int64_t* begin() const { return dims_.data(); }
  const std::int64_t* end() const { return dims_.data() + rank_; }
  std::span<const std::int64_t> dims() const { return {dims_.data(), std::size_t(rank_)}; }

  void push_back(std::int64_t d);
  void insert(int pos, std::int64_t d);
  void erase(int pos);

  friend bool operator==(const Shape& a, const Shape& b) {
    if (a.rank_ != b.rank_) return false;
    for (int i = 0; i < a.rank_; ++i)
      if (a.dims_[i] != b.dims_[i]) return false;
    return true;
  }
  std::string str() const;

 private:
  std::array<std::int64_t, kMaxRank> dims_{};
  int rank_ = 0;
};

std::ostream& operator<<(std::ostream& out, const Shape& s);

/// Row-major strides (in elements) of a shape.
std::array<std::int64_t, kMaxRank> row_major_strides(const Shape& s);

/// The NumPy broadcast of two shapes; throws naming `op` and both shapes when incompatible.
Shape broadcast_shapes(const char* op, const Shape& a, const Shape& b);

/// Normalizes a possibly negative axis for a tensor of `rank`; throws naming `op` if out of range.
int normalize_axis(const char* op, int axis, int rank);

}  // namespace variate
