#include "pathfinder_approximation.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "variate/core/error.hpp"

namespace variate::inference::detail {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using ConstVector = Eigen::Map<const VectorXd>;

// Algorithm 4's curvature test: a step is kept when y.s > epsilon |y|^2.
constexpr double kCurvatureEpsilon = 2.2e-16;

MatrixXd columns(const std::deque<std::vector<double>>& vectors, std::int64_t rows) {
  MatrixXd out(rows, std::int64_t(vectors.size()));
  for (std::size_t j = 0; j < vectors.size(); ++j) out.col(std::int64_t(j)) = ConstVector(vectors[j].data(), rows);
  return out;
}

}  // namespace

InverseHessianEstimate::InverseHessianEstimate(std::int64_t dimension, int history)
    : history_(history), alpha_(std::size_t(dimension), 1.0) {}

void InverseHessianEstimate::add_step(std::span<const double> x, std::span<const double> g,
                                      std::span<const double> x_next, std::span<const double> g_next) {
  const std::size_t d = alpha_.size();
  std::vector<double> s(d), y(d);
  double sy = 0, yy = 0;
  for (std::size_t j = 0; j < d; ++j) {
    s[j] = x_next[j] - x[j];
    y[j] = g[j] - g_next[j];  // the change of the gradient of -log p, which L-BFGS minimizes
    sy += s[j] * y[j];
    yy += y[j] * y[j];
  }
  if (!(sy > kCurvatureEpsilon * yy)) return;
  // Algorithm 4's diagonal update (after Gilbert & Lemarechal 1989): the diagonal of the BFGS update
  // of the Hessian estimate diag(1/alpha) scaled by a / b, inverted:
  // 1/alpha_new = a / (b alpha) + y^2 / b - a s^2 / (b c alpha^2), a = y' diag(alpha) y, b = y's,
  // c = s' diag(alpha)^-1 s. Each term stays positive (s_j^2 / alpha_j <= c); a coordinate where
  // round-off makes it infinite keeps its value.
  double a = 0, c = 0;
  for (std::size_t j = 0; j < d; ++j) {
    a += y[j] * alpha_[j] * y[j];
    c += s[j] * s[j] / alpha_[j];
  }
  const double b = sy;
  for (std::size_t j = 0; j < d; ++j) {
    const double updated =
        1 / (a / (b * alpha_[j]) + y[j] * y[j] / b - a * s[j] * s[j] / (b * c * alpha_[j] * alpha_[j]));
    if (std::isfinite(updated) && updated > 0) alpha_[j] = updated;
  }
  s_.push_back(std::move(s));
  y_.push_back(std::move(y));
  if (int(s_.size()) > history_) s_.pop_front(), y_.pop_front();
}

PathfinderGaussian::PathfinderGaussian(const InverseHessianEstimate& h, std::span<const double> x,
                                       std::span<const double> g) {
  const std::int64_t d = h.dimension(), m = std::int64_t(h.steps().size());
  VARIATE_CHECK(m >= 1, "pathfinder", "an approximation needs at least one L-BFGS step");
  const VectorXd alpha = ConstVector(h.alpha().data(), d);
  const MatrixXd s = columns(h.steps(), d), y = columns(h.gradient_changes(), d);
  // The compact form (Byrd, Nocedal & Schnabel 1994, as Algorithm 4 writes it): R the upper
  // triangle of S'Y, D its diagonal, beta = [diag(alpha) Y, S] and
  // gamma = [[0, -R^-1], [-R^-T, R^-T (D + Y' diag(alpha) Y) R^-1]].
  const MatrixXd sty = s.transpose() * y;
  const MatrixXd r = sty.triangularView<Eigen::Upper>();
  const MatrixXd r_inv = r.triangularView<Eigen::Upper>().solve(MatrixXd::Identity(m, m));
  MatrixXd beta(d, 2 * m);
  beta << alpha.asDiagonal() * y, s;
  MatrixXd gamma = MatrixXd::Zero(2 * m, 2 * m);
  gamma.topRightCorner(m, m) = -r_inv;
  gamma.bottomLeftCorner(m, m) = -r_inv.transpose();
  MatrixXd middle = y.transpose() * alpha.asDiagonal() * y;
  middle.diagonal() += sty.diagonal();
  gamma.bottomRightCorner(m, m) = r_inv.transpose() * middle * r_inv;
  // Algorithm 2: the mean is one quasi-Newton step ahead, x + H g; the covariance's factor comes
  // from the thin QR of diag(alpha)^-1/2 beta = Q R and the Cholesky factor L of I + R gamma R'.
  const VectorXd grad = ConstVector(g.data(), d);
  const VectorXd mean =
      ConstVector(x.data(), d) + alpha.cwiseProduct(grad) + beta * (gamma * (beta.transpose() * grad));
  const VectorXd sqrt_alpha = alpha.cwiseSqrt();
  const Eigen::HouseholderQR<MatrixXd> qr(sqrt_alpha.cwiseInverse().asDiagonal() * beta);
  k_ = std::min(d, 2 * m);
  const MatrixXd q = qr.householderQ() * MatrixXd::Identity(d, k_);
  const MatrixXd rq = qr.matrixQR().topRows(k_).triangularView<Eigen::Upper>();
  MatrixXd inner = MatrixXd::Identity(k_, k_) + rq * gamma * rq.transpose();
  inner = 0.5 * (inner + inner.transpose());
  const Eigen::LLT<MatrixXd> llt(inner);
  const MatrixXd l = llt.matrixL();
  VARIATE_CHECK(llt.info() == Eigen::Success && l.diagonal().minCoeff() > 0 && mean.allFinite(), "pathfinder",
                "the L-BFGS inverse Hessian estimate is not positive definite to working precision");
  log_det_ = alpha.array().log().sum() + 2 * l.diagonal().array().log().sum();
  mean_.assign(mean.data(), mean.data() + d);
  sqrt_alpha_.assign(sqrt_alpha.data(), sqrt_alpha.data() + d);
  q_.assign(q.data(), q.data() + q.size());
  l_.assign(l.data(), l.data() + l.size());
}

std::vector<double> PathfinderGaussian::variance() const {
  // H = diag(sqrt_alpha) (I + Q (L L' - I) Q') diag(sqrt_alpha).
  const std::int64_t d = dimension();
  const Eigen::Map<const MatrixXd> q(q_.data(), d, k_), l(l_.data(), k_, k_);
  const MatrixXd inner = l * l.transpose() - MatrixXd::Identity(k_, k_);
  std::vector<double> out(static_cast<std::size_t>(d));
  for (std::int64_t i = 0; i < d; ++i) {
    const double a = sqrt_alpha_[std::size_t(i)] * sqrt_alpha_[std::size_t(i)];
    out[std::size_t(i)] = a * (1 + q.row(i).dot(inner * q.row(i).transpose()));
  }
  return out;
}

double PathfinderGaussian::draw(std::span<const double> normals, std::span<double> out) const {
  // mean + diag(sqrt_alpha) (Q (L - I) Q' u + u): its covariance is H, and u'u is the quadratic form.
  const std::int64_t d = dimension();
  const Eigen::Map<const MatrixXd> q(q_.data(), d, k_), l(l_.data(), k_, k_);
  const ConstVector u(normals.data(), d);
  const VectorXd projected = q.transpose() * u;
  const VectorXd z = q * (l * projected - projected) + u;
  Eigen::Map<VectorXd>(out.data(), d) =
      ConstVector(mean_.data(), d) + ConstVector(sqrt_alpha_.data(), d).cwiseProduct(z);
  return -0.5 * (log_det_ + u.squaredNorm() + double(d) * std::log(2 * std::numbers::pi));
}

double PathfinderGaussian::log_density(std::span<const double> x) const {
  // Inverts draw: z = (x - mean) / sqrt_alpha = Q L a + u_perp for u = Q a + u_perp, so
  // u'u = |L^-1 Q'z|^2 + |z|^2 - |Q'z|^2.
  const std::int64_t d = dimension();
  const Eigen::Map<const MatrixXd> q(q_.data(), d, k_), l(l_.data(), k_, k_);
  const VectorXd z =
      (ConstVector(x.data(), d) - ConstVector(mean_.data(), d)).cwiseQuotient(ConstVector(sqrt_alpha_.data(), d));
  const VectorXd projected = q.transpose() * z;
  const VectorXd a = l.triangularView<Eigen::Lower>().solve(projected);
  const double uu = a.squaredNorm() + std::max(0.0, z.squaredNorm() - projected.squaredNorm());
  return -0.5 * (log_det_ + uu + double(d) * std::log(2 * std::numbers::pi));
}

}  // namespace variate::inference::detail
