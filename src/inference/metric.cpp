#include "variate/inference/metric.hpp"

#include <cmath>

#include "variate/core/error.hpp"
#include "variate/distribute/collectives.hpp"

namespace variate::inference {

Metric Metric::unit(MetricKind kind, std::int64_t dimension) {
  if (kind == MetricKind::diagonal) return diagonal(std::vector<double>(std::size_t(dimension), 1.0));
  if (kind == MetricKind::low_rank) return low_rank(std::vector<double>(std::size_t(dimension), 1.0), {}, {});
  std::vector<double> eye(std::size_t(dimension * dimension), 0.0);
  for (std::int64_t i = 0; i < dimension; ++i) eye[std::size_t(i * dimension + i)] = 1.0;
  return dense(std::move(eye), dimension);
}

Metric Metric::diagonal(std::vector<double> inverse_diagonal) {
  Metric m;
  m.kind_ = MetricKind::diagonal;
  m.dimension_ = std::int64_t(inverse_diagonal.size());
  m.cholesky_.resize(inverse_diagonal.size());
  for (std::size_t i = 0; i < inverse_diagonal.size(); ++i) {
    const double v = inverse_diagonal[i];
    VARIATE_CHECK(std::isfinite(v) && v > 0, "Metric::diagonal", "inverse mass matrix entry ", i,
                  " must be positive and finite, got ", v);
    m.cholesky_[i] = 1.0 / std::sqrt(v);
  }
  m.inverse_ = std::move(inverse_diagonal);
  return m;
}

Metric Metric::dense(std::vector<double> inverse, std::int64_t dimension) {
  const auto d = std::size_t(dimension);
  VARIATE_CHECK(inverse.size() == d * d, "Metric::dense", "expected ", d * d, " entries for a ", d, "x", d,
                " inverse mass matrix, got ", inverse.size());
  Metric m;
  m.kind_ = MetricKind::dense;
  m.dimension_ = dimension;
  m.cholesky_.assign(d * d, 0.0);
  auto& L = m.cholesky_;
  for (std::size_t j = 0; j < d; ++j) {
    for (std::size_t i = j; i < d; ++i) {
      VARIATE_CHECK(std::isfinite(inverse[i * d + j]) && inverse[i * d + j] == inverse[j * d + i], "Metric::dense",
                    "the inverse mass matrix must be finite and symmetric; entries (", i, ",", j, ") and (", j, ",", i,
                    ") are ", inverse[i * d + j], " and ", inverse[j * d + i]);
      double s = inverse[i * d + j];
      for (std::size_t k = 0; k < j; ++k) s -= L[i * d + k] * L[j * d + k];
      if (i == j) {
        VARIATE_CHECK(s > 0, "Metric::dense", "the inverse mass matrix is not positive definite (pivot ", j, " is ", s,
                      ")");
        L[j * d + j] = std::sqrt(s);
      } else {
        L[i * d + j] = s / L[j * d + j];
      }
    }
  }
  m.inverse_ = std::move(inverse);
  return m;
}

Metric Metric::low_rank(std::vector<double> diagonal, std::vector<double> directions, std::vector<double> eigenvalues) {
  Metric m = Metric::diagonal(std::move(diagonal));
  const std::size_t d = m.inverse_.size(), k = eigenvalues.size();
  VARIATE_CHECK(directions.size() == k * d, "Metric::low_rank", "expected ", k * d, " direction entries (", k,
                " eigenvalues x dimension ", d, "), got ", directions.size());
  for (std::size_t j = 0; j < k; ++j) {
    VARIATE_CHECK(std::isfinite(eigenvalues[j]) && eigenvalues[j] > 0, "Metric::low_rank", "eigenvalue ", j,
                  " must be positive and finite, got ", eigenvalues[j]);
    for (std::size_t l = 0; l <= j; ++l) {
      double dot = 0;
      for (std::size_t i = 0; i < d; ++i) dot += directions[j * d + i] * directions[l * d + i];
      VARIATE_CHECK(std::abs(dot - (l == j ? 1.0 : 0.0)) < 1e-8, "Metric::low_rank",
                    "the directions must be orthonormal; directions ", l, " and ", j, " have dot product ", dot);
    }
  }
  m.kind_ = MetricKind::low_rank;
  for (double& c : m.cholesky_) c = 1.0 / c;  // sqrt(D)
  m.directions_ = std::move(directions);
  m.eigenvalues_ = std::move(eigenvalues);
  return m;
}

std::vector<double> Metric::reported_inverse() const {
  if (kind_ != MetricKind::low_rank) return inverse_;
  const auto d = std::size_t(dimension_);
  std::vector<double> diag(d, 1.0);
  for (std::size_t j = 0; j < eigenvalues_.size(); ++j)
    for (std::size_t i = 0; i < d; ++i)
      diag[i] += (eigenvalues_[j] - 1) * directions_[j * d + i] * directions_[j * d + i];
  for (std::size_t i = 0; i < d; ++i) diag[i] *= inverse_[i];
  return diag;
}

// The low-rank products read their input once per direction rather than keep Uᵀ(·) in a buffer, so a
// metric stays a plain value without scratch space.
void Metric::velocity(const double* p, double* v) const {
  const auto d = std::size_t(dimension_);
  if (kind_ != MetricKind::dense) {
    for (std::size_t i = 0; i < d; ++i) v[i] = inverse_[i] * p[i];
    // v = D p + D^½ U (Λ − I) Uᵀ D^½ p.
    for (std::size_t j = 0; j < eigenvalues_.size(); ++j) {
      const double* u = directions_.data() + j * d;
      double c = 0;
      for (std::size_t i = 0; i < d; ++i) c += u[i] * cholesky_[i] * p[i];
      c *= eigenvalues_[j] - 1;
      for (std::size_t i = 0; i < d; ++i) v[i] += cholesky_[i] * u[i] * c;
    }
    return;
  }
  for (std::size_t i = 0; i < d; ++i) {
    double s = 0;
    const double* row = inverse_.data() + i * d;
    for (std::size_t j = 0; j < d; ++j) s += row[j] * p[j];
    v[i] = s;
  }
}

double Metric::kinetic_energy(const double* p) const {
  const auto d = std::size_t(dimension_);
  double k = 0;
  if (sharded()) {  // diagonal: this device's part, summed over the devices, then the replicated part
    const auto r = std::size_t(replicated_);
    double local = 0;
    for (std::size_t i = r; i < d; ++i) local += inverse_[i] * p[i] * p[i];
    sum_over_devices({&local, 1}, "kinetic energy");
    for (std::size_t i = 0; i < r; ++i) k += inverse_[i] * p[i] * p[i];
    return 0.5 * (k + local);
  }
  if (kind_ != MetricKind::dense) {
    for (std::size_t i = 0; i < d; ++i) k += inverse_[i] * p[i] * p[i];
    for (std::size_t j = 0; j < eigenvalues_.size(); ++j) {  // + Σ_j (λ_j − 1) (u_jᵀ D^½ p)²
      const double* u = directions_.data() + j * d;
      double c = 0;
      for (std::size_t i = 0; i < d; ++i) c += u[i] * cholesky_[i] * p[i];
      k += (eigenvalues_[j] - 1) * c * c;
    }
  } else {
    for (std::size_t i = 0; i < d; ++i) {
      double s = 0;
      const double* row = inverse_.data() + i * d;
      for (std::size_t j = 0; j < d; ++j) s += row[j] * p[j];
      k += p[i] * s;
    }
  }
  return 0.5 * k;
}

void Metric::momentum_from_normals(const double* z, double* p) const {
  const auto d = std::size_t(dimension_);
  if (kind_ == MetricKind::diagonal) {
    for (std::size_t i = 0; i < d; ++i) p[i] = z[i] * cholesky_[i];
    return;
  }
  if (kind_ == MetricKind::low_rank) {  // (I + U (Λ^-½ − I) Uᵀ)² = I + U (Λ⁻¹ − I) Uᵀ, as U is orthonormal
    for (std::size_t i = 0; i < d; ++i) p[i] = z[i] / cholesky_[i];
    for (std::size_t j = 0; j < eigenvalues_.size(); ++j) {
      const double* u = directions_.data() + j * d;
      double c = 0;
      for (std::size_t i = 0; i < d; ++i) c += u[i] * z[i];
      c *= 1 / std::sqrt(eigenvalues_[j]) - 1;
      for (std::size_t i = 0; i < d; ++i) p[i] += u[i] * c / cholesky_[i];
    }
    return;
  }
  // Back substitution with Lᵀ: Cov(p) = L⁻ᵀ L⁻¹ = (L Lᵀ)⁻¹ = M.
  for (std::size_t ii = d; ii-- > 0;) {
    double s = z[ii];
    for (std::size_t k = ii + 1; k < d; ++k) s -= cholesky_[k * d + ii] * p[k];
    p[ii] = s / cholesky_[ii * d + ii];
  }
}

Metric Metric::sharded_over(std::string axis, std::int64_t replicated) const {
  VARIATE_CHECK(!axis.empty() && replicated >= 0 && replicated <= dimension_, "Metric::sharded_over",
                "expected a mesh axis and 0 <= replicated <= ", dimension_, ", got axis '", axis, "' and ", replicated);
  VARIATE_CHECK(kind_ == MetricKind::diagonal, "Metric::sharded_over", "a ",
                kind_ == MetricKind::dense ? "dense" : "low-rank",
                " metric cannot be sharded: it would couple coordinates held by different devices; use a diagonal "
                "metric (diag or fisher-diag) for sharded models");
  Metric m = *this;
  m.axis_ = std::move(axis);
  m.replicated_ = replicated;
  return m;
}

void Metric::sum_over_devices(std::span<double> partial, const char* what) const {
  if (sharded()) distribute::psum_in_place(partial, axis_, what);
}

WelfordEstimator::WelfordEstimator(MetricKind kind, std::int64_t dimension) : kind_(kind), dimension_(dimension) {
  restart();
}

void WelfordEstimator::restart() {
  const auto d = std::size_t(dimension_);
  count_ = 0;
  mean_.assign(d, 0.0);
  delta_.assign(d, 0.0);
  m2_.assign(kind_ == MetricKind::dense ? d * d : d, 0.0);
}

void WelfordEstimator::restore(WelfordState state) {
  const auto d = std::size_t(dimension_);
  const std::size_t m2_size = kind_ == MetricKind::dense ? d * d : d;
  VARIATE_CHECK(state.count >= 0 && state.mean.size() == d && state.m2.size() == m2_size, "WelfordEstimator::restore",
                "expected a count >= 0, ", d, " means and ", m2_size, " sums of squares, got ", state.count, ", ",
                state.mean.size(), " and ", state.m2.size());
  count_ = state.count;
  mean_ = std::move(state.mean);
  m2_ = std::move(state.m2);
}

void WelfordEstimator::add(std::span<const double> x) {
  const auto d = std::size_t(dimension_);
  VARIATE_CHECK(x.size() == d, "WelfordEstimator::add", "expected ", d, " numbers, got ", x.size());
  ++count_;
  for (std::size_t i = 0; i < d; ++i) {
    delta_[i] = x[i] - mean_[i];
    mean_[i] += delta_[i] / double(count_);
  }
  // Sums of products of the deviation from the old mean and from the new one.
  if (kind_ == MetricKind::diagonal) {
    for (std::size_t i = 0; i < d; ++i) m2_[i] += delta_[i] * (x[i] - mean_[i]);
  } else {
    for (std::size_t i = 0; i < d; ++i)
      for (std::size_t j = 0; j < d; ++j) m2_[i * d + j] += delta_[i] * (x[j] - mean_[j]);
  }
}

Metric WelfordEstimator::regularized_metric() const {
  VARIATE_CHECK(count_ >= 2, "WelfordEstimator::regularized_metric", "needs at least 2 draws, got ", count_);
  const auto d = std::size_t(dimension_);
  const double n = double(count_);
  const double shrink = n / (n + 5.0), ridge = 1e-3 * 5.0 / (n + 5.0);
  std::vector<double> out(m2_.size());
  for (std::size_t k = 0; k < m2_.size(); ++k) out[k] = shrink * m2_[k] / (n - 1.0);
  if (kind_ == MetricKind::diagonal) {
    for (auto& v : out) v += ridge;
    return Metric::diagonal(std::move(out));
  }
  // Symmetrize: the Welford update accumulates (i,j) and (j,i) with different roundings.
  for (std::size_t i = 0; i < d; ++i) {
    out[i * d + i] += ridge;
    for (std::size_t j = 0; j < i; ++j) out[i * d + j] = out[j * d + i] = 0.5 * (out[i * d + j] + out[j * d + i]);
  }
  return Metric::dense(std::move(out), dimension_);
}

}  // namespace variate::inference
