#pragma once
// Small matrix helpers shared by the tests of the matrix-valued families.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <vector>

#include "variate/autodiff/ops.hpp"

namespace variate::testing {

// log N(x; loc, cov) by Cholesky-Banachiewicz and forward substitution, for one k-vector.
inline double normal_log_density(const std::vector<double>& x, const std::vector<double>& loc,
                                 const std::vector<double>& cov) {
  const std::size_t k = x.size();
  std::vector<double> l(k * k, 0.0), z(k, 0.0);
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      double s = cov[i * k + j];
      for (std::size_t m = 0; m < j; ++m) s -= l[i * k + m] * l[j * k + m];
      l[i * k + j] = i == j ? std::sqrt(s) : s / l[j * k + j];
    }
  double quad = 0, log_det = 0;
  for (std::size_t i = 0; i < k; ++i) {
    double s = x[i] - loc[i];
    for (std::size_t m = 0; m < i; ++m) s -= l[i * k + m] * z[m];
    z[i] = s / l[i * k + i];
    quad += z[i] * z[i];
    log_det += std::log(l[i * k + i]);
  }
  return -0.5 * quad - log_det - 0.5 * double(k) * std::log(2 * std::numbers::pi);
}

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
