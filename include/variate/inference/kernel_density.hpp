#pragma once
// Gaussian kernel density estimates for plotting marginal posteriors, computed by linear binning
// (Wand 1994, "Fast computation of multivariate kernel density estimates", JCGS 3(4)): the draws
// are spread over a fine grid and the kernel is summed over grid cells, so the cost depends on
// the grid, not on the number of draws times the number of points.
//
//   const double h = inference::silverman_bandwidth(x);
//   std::vector<double> y = inference::kernel_density(x, {.lo = -3, .hi = 3, .points = 64}, h);
#include <vector>

namespace variate::inference {

/// Where a density is evaluated: `points` equally spaced points from `lo` to `hi` inclusive.
struct DensityGrid {
  double lo = 0, hi = 1;
  int points = 64;
  /// The i-th point.
  double at(int i) const { return points == 1 ? lo : lo + (hi - lo) * i / (points - 1); }
};

/// Silverman's rule of thumb, 0.9 min(sd, IQR / 1.34) n^(-1/5) (Silverman 1986, "Density
/// Estimation for Statistics and Data Analysis", eq. 3.31); the sd alone when the IQR is 0.
/// Throws naming "silverman_bandwidth" for fewer than 2 values or a non-finite value; returns 0
/// for constant values (a density is then undefined, and kernel_density refuses it).
double silverman_bandwidth(const std::vector<double>& x);

/// The Gaussian kernel density estimate of `x` with bandwidth `bandwidth` at each point of
/// `grid`: (1 / n) sum_i phi((t - x_i) / h) / h, to within about 1e-3 of its peak (the binning
/// error). Throws naming "kernel_density" for no values, a non-finite value, a bandwidth that is
/// not positive and finite, or a grid with hi <= lo or fewer than 2 points.
std::vector<double> kernel_density(const std::vector<double>& x, const DensityGrid& grid, double bandwidth);

}  // namespace variate::inference
