// The Laplace approximation and its whitened target, on Gaussians whose answers are known exactly:
// differences of the gradient are exact for a quadratic log density up to rounding.
#include "variate/inference/laplace.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/expect_error.hpp"

namespace variate::inference {
namespace {

// log p(q) = -½ (q − μ)ᵀ P (q − μ) with a correlated precision P (condition number about 700).
const std::vector<double> kMean{1.0, -2.0, 0.5};
const std::vector<double> kPrecision{4.0, 1.9, 0.0, 1.9, 1.0, 0.01, 0.0, 0.01, 1e-2};

Target gaussian(double sign = 1.0) {
  Target t;
  t.dimension = 3;
  t.evaluate = [sign](std::span<const double> q, std::int64_t batch, std::span<double> lp, std::span<double> grad) {
    for (std::int64_t b = 0; b < batch; ++b) {
      double r[3];
      for (int i = 0; i < 3; ++i) r[i] = q[std::size_t(b * 3 + i)] - kMean[std::size_t(i)];
      lp[std::size_t(b)] = 0;
      for (int i = 0; i < 3; ++i) {
        double pr = 0;
        for (int j = 0; j < 3; ++j) pr += kPrecision[std::size_t(i * 3 + j)] * r[j];
        grad[std::size_t(b * 3 + i)] = -sign * pr;
        lp[std::size_t(b)] -= 0.5 * sign * r[i] * pr;
      }
    }
  };
  return t;
}

TEST(Laplace, VariancesAreTheInverseHessiansDiagonal) {
  const LaplaceApproximation laplace = LaplaceApproximation::at(gaussian(), kMean, {.batch = 2});
  EXPECT_EQ(laplace.gradients(), 4);
  // P⁻¹'s diagonal, from the cofactors of P.
  const double det = 4.0 * (1.0 * 1e-2 - 0.01 * 0.01) - 1.9 * (1.9 * 1e-2);
  const std::vector<double> expected{(1.0 * 1e-2 - 1e-4) / det, 4.0 * 1e-2 / det, (4.0 - 1.9 * 1.9) / det};
  const std::vector<double> got = laplace.variances();
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(got[std::size_t(i)], expected[std::size_t(i)], 1e-6 * expected[std::size_t(i)]);
}

TEST(Laplace, TheWhitenedGaussianIsStandardNormal) {
  const LaplaceApproximation laplace = LaplaceApproximation::at(gaussian(), kMean);
  const Target whitened = laplace.whiten(gaussian());
  // Two points in one batch: log p(μ + A z) = -½|z|² and its gradient is -z.
  const std::vector<double> z{0.3, -1.2, 2.0, 0.0, 0.0, 0.0};
  std::vector<double> lp(2), grad(6);
  whitened.evaluate(z, 2, lp, grad);
  EXPECT_NEAR(lp[0], -0.5 * (0.09 + 1.44 + 4.0), 1e-6);
  EXPECT_NEAR(lp[1], 0.0, 1e-12);
  for (std::size_t i = 0; i < 6; ++i) EXPECT_NEAR(grad[i], -z[i], 1e-6);
  // z = 0 is the mode.
  std::vector<double> q(3);
  laplace.to_position(std::span<const double>(z).subspan(3), 1, q);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(q[i], kMean[i]);
}

// A chain of 300 coordinates, each tied to the next (tridiagonal precision 2, -0.99): the inverse is
// built and packed in several blocks, and the products split over rows in blocks too.
TEST(Laplace, WhitensAGaussianOfManyCoordinates) {
  const std::int64_t d = 300;
  Target t;
  t.dimension = d;
  t.evaluate = [d](std::span<const double> q, std::int64_t batch, std::span<double> lp, std::span<double> grad) {
    for (std::int64_t b = 0; b < batch; ++b) {
      const double* x = q.data() + b * d;
      lp[std::size_t(b)] = 0;
      for (std::int64_t i = 0; i < d; ++i) {
        const double px = 2 * x[i] - 0.99 * ((i > 0 ? x[i - 1] : 0) + (i + 1 < d ? x[i + 1] : 0));
        grad[std::size_t(b * d + i)] = -px;
        lp[std::size_t(b)] -= 0.5 * x[i] * px;
      }
    }
  };
  const LaplaceApproximation laplace = LaplaceApproximation::at(t, std::vector<double>(std::size_t(d), 0.0));
  EXPECT_EQ(laplace.gradients(), d + 1);
  const Target whitened = laplace.whiten(t);
  // 5 spread-out points: the products take them 4 at a time.
  std::vector<double> z(std::size_t(5 * d)), lp(5), grad(std::size_t(5 * d));
  for (std::size_t i = 0; i < z.size(); ++i) z[i] = std::sin(0.7 * double(i));
  whitened.evaluate(z, 5, lp, grad);
  for (std::int64_t b = 0; b < 5; ++b) {
    double half_norm = 0;
    for (std::int64_t i = 0; i < d; ++i) half_norm += 0.5 * z[std::size_t(b * d + i)] * z[std::size_t(b * d + i)];
    // The factor is kept in f32: relative errors near 1e-7 per entry.
    EXPECT_NEAR(lp[std::size_t(b)], -half_norm, 1e-4 * half_norm) << b;
  }
  for (std::size_t i = 0; i < z.size(); ++i) EXPECT_NEAR(grad[i], -z[i], 1e-3) << i;
}

// A model written for one point at a time refuses a batch; the differences then go point by point.
TEST(Laplace, DifferencesAModelThatTakesOnePointAtATime) {
  Target t = gaussian();
  t.evaluate = [inner = t.evaluate](std::span<const double> q, std::int64_t batch, std::span<double> lp,
                                    std::span<double> grad) {
    if (batch > 1) throw Error("one point at a time");
    inner(q, batch, lp, grad);
  };
  const LaplaceApproximation laplace = LaplaceApproximation::at(t, kMean);
  const std::vector<double> expected = LaplaceApproximation::at(gaussian(), kMean).variances();
  const std::vector<double> got = laplace.variances();
  for (std::size_t i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(got[i], expected[i]);
}

// What `variate sample` checks against the machine before the init: for MNIST's 7,850
// coordinates the Hessian (493 MB) and the two packed triangles (247 MB).
TEST(Laplace, PeakMemoryIsTheHessianAndBothPackings) {
  EXPECT_DOUBLE_EQ(LaplaceApproximation::peak_bytes(7850), 8.0 * 7850 * 7850 + 8.0 * 7850 * 7851 / 2);
  EXPECT_DOUBLE_EQ(LaplaceApproximation::peak_bytes(1), 16.0);  // 8 + two packings of 4
}

TEST(Laplace, RefusesANearlySingularHessian) {
  Target t = gaussian();
  // A second coordinate the density does not depend on but for a curvature of 1e-14.
  t.dimension = 2;
  t.evaluate = [](std::span<const double> q, std::int64_t batch, std::span<double> lp, std::span<double> grad) {
    for (std::int64_t b = 0; b < batch; ++b) {
      const double x = q[std::size_t(2 * b)], y = q[std::size_t(2 * b + 1)];
      lp[std::size_t(b)] = -0.5 * x * x - 0.5e-14 * y * y;
      grad[std::size_t(2 * b)] = -x;
      grad[std::size_t(2 * b + 1)] = -1e-14 * y;
    }
  };
  EXPECT_ERROR(LaplaceApproximation::at(t, std::vector<double>{0.0, 0.0}), "nearly singular");
}

TEST(Laplace, RefusesAPointThatIsNotAMaximum) {
  EXPECT_ERROR(LaplaceApproximation::at(gaussian(-1.0), kMean), "not positive definite");
}

TEST(Laplace, RefusesANonFiniteDensityAtOrNextToTheMode) {
  Target t = gaussian();
  // Finite at the mode only: the mode sits on the edge of the support.
  t.evaluate = [](std::span<const double> q, std::int64_t batch, std::span<double> lp, std::span<double> grad) {
    for (std::int64_t b = 0; b < batch; ++b) lp[std::size_t(b)] = q[std::size_t(b * 3)] == kMean[0] ? 0.0 : NAN;
    std::fill(grad.begin(), grad.end(), 0.0);
  };
  EXPECT_ERROR(LaplaceApproximation::at(t, kMean), "log density is nan next to the mode (coordinate 0 moved)");
  EXPECT_ERROR(LaplaceApproximation::at(t, std::vector<double>{0.0, 0.0, 0.0}), "the log density at the mode is nan");
}

TEST(Laplace, RefusesAModeOfTheWrongSize) {
  EXPECT_ERROR(LaplaceApproximation::at(gaussian(), std::vector<double>{1.0, 2.0}),
               "the mode has 2 coordinates; the target has 3");
}

}  // namespace
}  // namespace variate::inference
