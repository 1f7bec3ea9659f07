#pragma once
// Small matrix helpers shared by the tests of the matrix-valued families.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "variate/autodiff/ops.hpp"

namespace variate::testing {

// L L^T of a row-major k x k matrix.
inline std::vector<double> times_transpose(const std::vector<double>& l, std::size_t k) {
  std::vector<double> c(k * k, 0.0);
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < k; ++j)
      for (std::size_t m = 0; m < k; ++m) c[i * k + j] += l[i * k + m] * l[j * k + m];
  return c;
}

inline Tensor lower_mask(std::int64_t k) {
  Tensor m = Tensor::zeros(Shape{k, k});
  for (std::int64_t i = 0; i < k; ++i)
    for (std::int64_t j = 0; j <= i; ++j) m.data<double>()[i * k + j] = 1.0;
  return m;
}

// The Cholesky factor of a correlation matrix from d(d - 1)/2 canonical partial correlations
// tanh(z) (LKJ 2009, section 2): each row takes the next partial correlation times the length not
// yet used, and the diagonal takes the rest. Built from differentiable ops, so gradients in z reach
// log_prob through a path that stays on the support.
inline Tensor corr_cholesky_from(const Tensor& z, std::int64_t d) {
  std::vector<Tensor> rows;
  std::int64_t next = 0;
  for (std::int64_t i = 0; i < d; ++i) {
    std::vector<Tensor> entries;
    Tensor rest = Tensor::vec({1.0});
    for (std::int64_t j = 0; j < i; ++j) {
      const Tensor w = tanh(slice(z, 0, next, next + 1)) * sqrt(rest);
      ++next;
      rest = rest - square(w);
      entries.push_back(w);
    }
    entries.push_back(sqrt(rest));
    if (i + 1 < d) entries.push_back(Tensor::zeros(Shape{d - i - 1}));
    rows.push_back(concat(entries, 0));
  }
  return stack(rows, 0);
}

}  // namespace variate::testing
