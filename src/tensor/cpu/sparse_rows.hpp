#pragma once
// A design matrix with mostly zeros (MNIST's pixels: 81%) in compressed sparse rows, and the two
// products the categorical GLM needs, at a cost in proportion to the nonzeros.
#include <cstdint>

#include "variate/tensor/tensor.hpp"

namespace variate::cpu {

/// Row i of x holds values[p] in column columns[p] for p in [starts[i], starts[i+1]), the columns
/// ascending; every other element is zero. `starts` is i64 (n + 1), `columns` i32, `values` x's dtype.
struct SparseRows {
  Tensor starts, columns, values;
};

/// x (n x d, row-major, f32 or f64) as SparseRows, or none when at least
/// kSparseRowsMaxDensity of its elements are nonzero (undefined `starts`), where the dense products
/// are faster.
/// Kept like glm_panels: made once per x, reused while x is unchanged.
SparseRows sparse_rows(const Tensor& x);

inline constexpr double kSparseRowsMaxDensity = 0.4;

/// The row length of the dense operands below for n columns: n rounded up to whole SIMD vectors, so
/// that no column is left to scalar code.
template <class T>
std::int64_t sparse_rows_stride(std::int64_t n);

/// z (rows x n) = x[r0 : r0 + rows] (rows x d) w (d x n, rows sparse_rows_stride<T>(n) apart, the
/// padding finite).
template <class T>
void sparse_rows_times(const SparseRows& x, std::int64_t r0, std::int64_t rows, const T* w, T* z, std::int64_t n);

/// out (d x n, rows sparse_rows_stride<T>(n) apart) += x[r0 : r0 + rows]^T (d x rows) g (rows x n);
/// the padding gets 0 added.
template <class T>
void sparse_rows_transposed_times_add(const SparseRows& x, std::int64_t r0, std::int64_t rows, const T* g, T* out,
                                      std::int64_t n);

}  // namespace variate::cpu
