// Pathfinder's pieces on cases with exact answers, and its errors for bad arguments.
#include "variate/inference/pathfinder.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "inference/pathfinder_approximation.hpp"
#include "support/expect_error.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::inference {
namespace {

using Vector = std::vector<double>;
using Matrix = std::vector<Vector>;  // rows

Vector times(const Matrix& m, const Vector& v) {
  Vector out(m.size(), 0.0);
  for (std::size_t i = 0; i < m.size(); ++i)
    for (std::size_t j = 0; j < v.size(); ++j) out[i] += m[i][j] * v[j];
  return out;
}

Matrix transpose(const Matrix& m) {
  Matrix out(m[0].size(), Vector(m.size()));
  for (std::size_t i = 0; i < m.size(); ++i)
    for (std::size_t j = 0; j < m[0].size(); ++j) out[j][i] = m[i][j];
  return out;
}

Matrix product(const Matrix& a, const Matrix& b) {
  const Matrix bt = transpose(b);
  Matrix out(a.size(), Vector(bt.size()));
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = times(bt, a[i]);
  return out;
}

// A quadratic log p = -x'Ax/2 + b'x with A^-1 = P P', P = U diag(sd) for a unit upper triangular U:
// the columns of P are A-conjugate (P' A P = I), det A = prod sd^-2, and A^-1 has condition number
// near 1e4 with these sds.
struct Quadratic {
  Matrix p, p_inverse;  // P and P^-1
  Vector b = {-1, 0.5, 2};
  Quadratic() {
    const double a = 0.7, c = -1.3, e = 0.4, sd[3] = {1, 10, 100};
    const Matrix u = {{1, a, e}, {0, 1, c}, {0, 0, 1}}, u_inverse = {{1, -a, a * c - e}, {0, 1, -c}, {0, 0, 1}};
    p = u;
    p_inverse = u_inverse;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        p[std::size_t(i)][std::size_t(j)] *= sd[j], p_inverse[std::size_t(i)][std::size_t(j)] /= sd[i];
  }
  Matrix precision() const { return product(transpose(p_inverse), p_inverse); }
  Matrix covariance() const { return product(p, transpose(p)); }
  Vector gradient(const Vector& x) const {
    Vector g = times(precision(), x);
    for (std::size_t i = 0; i < 3; ++i) g[i] = b[i] - g[i];
    return g;
  }
};

// On a quadratic with A-conjugate steps each BFGS update keeps the earlier secant conditions
// H y_j = s_j (s' A s_j = 0 makes the update act as the identity on y_j), so after d steps H = A^-1
// whatever the initial diagonal, and the approximation's mean x + H g is the mode.
TEST(PathfinderApproximation, ConjugateStepsOnAQuadraticGiveTheExactGaussian) {
  const Quadratic f;
  detail::InverseHessianEstimate h(3, 5);
  Vector x = {0.5, 0.5, 0.5};
  const Matrix directions = transpose(f.p);
  for (std::size_t j = 0; j < 3; ++j) {
    Vector next = x;
    for (std::size_t i = 0; i < 3; ++i) next[i] += (double(j) + 1) * directions[j][i];
    h.add_step(x, f.gradient(x), next, f.gradient(next));
    x = next;
  }
  ASSERT_EQ(h.steps().size(), 3u);
  const detail::PathfinderGaussian q(h, x, f.gradient(x));
  const Matrix covariance = f.covariance();
  const Vector mode = times(covariance, f.b);
  const Vector variance = q.variance();
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(q.mean()[i], mode[i], 1e-9 * std::sqrt(covariance[i][i])) << i;
    EXPECT_NEAR(variance[i], covariance[i][i], 1e-9 * covariance[i][i]) << i;
  }
  // A draw's log q is the N(mode, A^-1) log density there: -(|P^-1 r|^2 + log det A^-1 + 3 log 2 pi) / 2.
  const Vector u = {-1.5, 0.2, 0.7};
  Vector draw(3);
  const double log_q = q.draw(u, draw);
  EXPECT_NEAR(q.log_density(draw), log_q, 1e-9 * std::abs(log_q));
  for (std::size_t i = 0; i < 3; ++i) draw[i] -= mode[i];
  const Vector z = times(f.p_inverse, draw);
  const double expected =
      -0.5 * (z[0] * z[0] + z[1] * z[1] + z[2] * z[2] + 2 * std::log(1e3) + 3 * std::log(2 * std::numbers::pi));
  EXPECT_NEAR(log_q, expected, 1e-9 * std::abs(expected));
}

// With fewer steps than dimensions (a rank-2 update in 4 dimensions) log_density inverts draw.
TEST(PathfinderApproximation, TheDensityAtADrawIsTheDrawsLogQ) {
  detail::InverseHessianEstimate h(4, 5);
  const Vector x = {1, -2, 0.5, 3}, next = {0.2, -1, 0.4, 1};
  const auto gradient = [](const Vector& at) {  // of log p = -sum_i (i + 1) at_i^2 / 2
    Vector g(at.size());
    for (std::size_t i = 0; i < at.size(); ++i) g[i] = -(double(i) + 1) * at[i];
    return g;
  };
  h.add_step(x, gradient(x), next, gradient(next));
  ASSERT_EQ(h.steps().size(), 1u);
  const detail::PathfinderGaussian q(h, next, gradient(next));
  for (const Vector& u : {Vector{0.3, -1.2, 2.0, 0.1}, Vector{-2.5, 0.4, -0.3, 1.7}}) {
    Vector draw(4);
    const double log_q = q.draw(u, draw);
    EXPECT_NEAR(q.log_density(draw), log_q, 1e-12 * std::abs(log_q));
  }
}

TEST(PathfinderApproximation, AStepWithoutCurvatureIsLeftOut) {
  detail::InverseHessianEstimate h(2, 5);
  const Vector x = {0, 0}, next = {1, 1};
  // The gradient of log p grows along the step: y.s < 0, a direction of negative curvature.
  const Vector g = {0, 0}, g_next = {1, 1};
  h.add_step(x, g, next, g_next);
  EXPECT_TRUE(h.empty());
  EXPECT_EQ(h.alpha(), Vector({1.0, 1.0}));
  EXPECT_ERROR(detail::PathfinderGaussian(h, next, g_next), "at least one L-BFGS step");
}

TEST(PathfinderApproximation, KeepsOnlyTheLastHistorySteps) {
  detail::InverseHessianEstimate h(1, 2);
  double x = 3;
  for (int j = 0; j < 4; ++j) {
    const double next = x / 2;
    h.add_step(Vector{x}, Vector{-4 * x}, Vector{next}, Vector{-4 * next});
    x = next;
  }
  ASSERT_EQ(h.steps().size(), 2u);
  EXPECT_DOUBLE_EQ(h.steps().back()[0], 3.0 / 16 - 3.0 / 8);
  EXPECT_DOUBLE_EQ(h.alpha()[0], 0.25);  // log p = -2 x^2: the exact inverse Hessian
}

void normal_model() { Normal(Tensor::zeros(Shape{2}), 1.0, "x"); }

TEST(Pathfinder, InvalidOptionsAreNamed) {
  EXPECT_ERROR(pathfinder(normal_model, {.paths = 0}), "paths must be >= 1, got 0");
  EXPECT_ERROR(pathfinder(normal_model, {.draws = 0}), "draws must be >= 1, got 0");
  EXPECT_ERROR(pathfinder(normal_model, {.draws_per_path = -1}), "draws_per_path must be >= 1, got -1");
  EXPECT_ERROR(pathfinder(normal_model, {.elbo_draws = 0}), "elbo_draws must be >= 1, got 0");
  EXPECT_ERROR(pathfinder(normal_model, {.history = 0}), "history must be >= 1, got 0");
  EXPECT_ERROR(pathfinder(normal_model, {.iterations = 0}), "iterations must be >= 1, got 0");
  EXPECT_ERROR(pathfinder(normal_model, {.init_radius = -1}), "the init radius must be finite and >= 0, got -1");
  EXPECT_ERROR(pathfinder(normal_model, {.gradient = -1}), "tolerances must be >= 0");
}

TEST(Pathfinder, ModelsItCannotApproximateAreNamed) {
  EXPECT_ERROR(pathfinder([] {}), "the model has no continuous latent site to approximate");
  auto discrete = [] { Bernoulli(Probs{Tensor::scalar(0.3)}, "z"); };
  EXPECT_ERROR(pathfinder(discrete), "latent site 'z' (Bernoulli) is discrete");
  // Started at its mode (radius 0), L-BFGS makes no step, so no iterate has an approximation.
  EXPECT_ERROR(pathfinder(normal_model, {.init_radius = 0}), "no iterate of the L-BFGS path has an approximation");
}

TEST(Pathfinder, TheSameKeyGivesTheSameDrawsOnThreadsOrNot) {
  const PathfinderOptions options{.paths = 3, .draws = 50, .draws_per_path = 40, .key = random::Key(5)};
  PathfinderOptions sequential = options;
  sequential.parallel = false;
  const PathfinderResult a = pathfinder(normal_model, options), b = pathfinder(normal_model, sequential);
  ASSERT_EQ(a.unconstrained_draws.shape(), Shape({50, 2}));
  EXPECT_EQ(a.unconstrained_draws.to_vector<double>(), b.unconstrained_draws.to_vector<double>());
  EXPECT_EQ(a.log_p, b.log_p);
  ASSERT_EQ(a.paths.size(), 3u);
  EXPECT_NE(a.paths[0].mean, a.paths[1].mean);  // different starts, different paths
  std::int64_t gradients = 0;
  for (const PathfinderPath& p : a.paths) {
    EXPECT_GE(p.gradients, p.iterations + 1);  // the start and one line-search point per iteration at least
    EXPECT_EQ(std::int64_t(p.elbo.size()), p.iterations);
    EXPECT_GE(p.best_iteration, 1);
    gradients += p.gradients;
  }
  EXPECT_EQ(a.gradients, gradients);
  EXPECT_EQ(a.draws.at("x").shape(), Shape({50, 2}));
}

TEST(Pathfinder, WithoutResamplingReturnsThePool) {
  const PathfinderResult r =
      pathfinder(normal_model, {.paths = 2, .draws = 7, .draws_per_path = 30, .psis_resample = false});
  ASSERT_EQ(r.unconstrained_draws.shape(), Shape({60, 2}));
  EXPECT_EQ(r.path_of_draw.front(), 0);
  EXPECT_EQ(r.path_of_draw.back(), 1);
  EXPECT_EQ(r.log_density_evaluations, r.paths[0].log_density_evaluations + r.paths[1].log_density_evaluations);
}

// The pool is drawn from the equal mixture of the paths' approximations, and log q is that mixture's
// density, so p / q are the importance ratios of the pool. In one dimension each path's approximation
// is N(mean, variance) exactly; on a Student-t the paths stop at different iterates, so the mixture
// differs from each path's own Gaussian.
TEST(Pathfinder, LogQIsTheMixtureOfThePathsApproximations) {
  const auto heavy_tailed = [] { StudentT(3.0, 0.0, 1.0, "x"); };
  const PathfinderResult r =
      pathfinder(heavy_tailed, {.paths = 3, .draws_per_path = 40, .psis_resample = false, .key = random::Key(11)});
  ASSERT_EQ(r.log_q.size(), 120u);
  EXPECT_NE(r.paths[0].variance, r.paths[1].variance);
  const double* x = r.unconstrained_draws.data<double>();
  for (std::size_t s = 0; s < r.log_q.size(); ++s) {
    double mixture = 0;
    for (const PathfinderPath& p : r.paths) {
      const double z = (x[s] - p.mean[0]) / std::sqrt(p.variance[0]);
      mixture += std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi * p.variance[0]) / 3;
    }
    EXPECT_NEAR(r.log_q[s], std::log(mixture), 1e-9) << "draw " << s;
  }
}

}  // namespace
}  // namespace variate::inference
