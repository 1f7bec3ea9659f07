// The reaction-diffusion solve and its adjoint (autodiff/pde_ops.hpp). Hand-written loops on the
// host: one node of 40961 steps costs microseconds a step, where a node per step would pay the
// tape's per-op overhead tens of thousands of times.
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <vector>

#include "variate/autodiff/pde_ops.hpp"
#include "variate/autodiff/rad.hpp"
#include "variate/autodiff/tape.hpp"

namespace variate {

namespace {

constexpr double pi = std::numbers::pi;
constexpr std::int64_t num_params = 7;

// What every step shares: the grid's sines, the initial state and the problem's constants.
struct Grid {
  std::int64_t n, cells;
  double dt, diffusion_over_h2;
  std::vector<double> sin_pi, sin_2pi, cos_2pi;  // of x (or y) at the n grid lines
  std::vector<double> initial;                   // sin(pi x) sin(pi y)
  std::vector<double> wave;                      // 1/4 sin(2 pi x) sin(pi y), the target's moving part

  explicit Grid(const ReactionDiffusionProblem& p)
      : n(p.grid),
        cells(p.grid * p.grid),
        dt(p.dt),
        diffusion_over_h2(p.diffusion * double((p.grid - 1) * (p.grid - 1))) {
    for (std::int64_t i = 0; i < n; ++i) {
      const double x = double(i) / double(n - 1);
      sin_pi.push_back(i == 0 || i == n - 1 ? 0.0 : std::sin(pi * x));  // exactly 0 on the boundary
      sin_2pi.push_back(i == 0 || i == n - 1 ? 0.0 : std::sin(2 * pi * x));
      cos_2pi.push_back(std::cos(2 * pi * x));
    }
    for (std::int64_t iy = 0; iy < n; ++iy)
      for (std::int64_t ix = 0; ix < n; ++ix) {
        initial.push_back(sin_pi[ix] * sin_pi[iy]);
        wave.push_back(0.25 * sin_2pi[ix] * sin_pi[iy]);
      }
  }

  // C(x, t_m) along x (it does not depend on y).
  void source(const double* theta, std::int64_t m, std::vector<double>& c) const {
    const double s = std::sin(pi * double(m) * dt), co = std::cos(pi * double(m) * dt);
    const double a = theta[0] + theta[1] * s + theta[2] * co, b = theta[3] * s + theta[4] * co,
                 e = theta[5] * s + theta[6] * co;
    for (std::int64_t ix = 0; ix < n; ++ix) c[std::size_t(ix)] = a + b * sin_2pi[ix] + e * cos_2pi[ix];
  }

  // The target at t_m in cell p, given sin(pi t_m).
  double target(double sin_t, std::int64_t p) const { return initial[std::size_t(p)] + wave[std::size_t(p)] * sin_t; }

  // One FTCS step, out = u + dt (D lap u + c u) inside, 0 on the boundary. It is its own transpose
  // on vectors that vanish on the boundary, so the adjoint sweep calls it too.
  void step(const std::vector<double>& u, const std::vector<double>& c, std::vector<double>& out) const {
    std::fill(out.begin(), out.end(), 0.0);
    for (std::int64_t iy = 1; iy < n - 1; ++iy)
      for (std::int64_t ix = 1; ix < n - 1; ++ix) {
        const auto p = std::size_t(iy * n + ix), row = std::size_t(n);
        const double lap = u[p - 1] + u[p + 1] + u[p - row] + u[p + row] - 4 * u[p];
        out[p] = u[p] + dt * (diffusion_over_h2 * lap + c[std::size_t(ix)] * u[p]);
      }
  }

  // The residual is exactly 0 on the boundary (phi is held there and the target's sines are exact
  // zeros), so a sketch chooses among the interior cells only: 961 of 1089 on the 33 x 33 grid.
  std::int64_t interior() const { return (n - 2) * (n - 2); }
  // Turns RAD's choice of interior cells (0 .. interior() - 1) into cell numbers, in place.
  void to_cells(Tensor& choice) const {
    std::int64_t* j = choice.data<std::int64_t>();
    for (std::int64_t i = 0; i < choice.numel(); ++i) j[i] = (1 + j[i] / (n - 2)) * n + 1 + j[i] % (n - 2);
  }

  // The trapezoid rule's weight of state m of `steps` + 1, over the mean's cell count.
  double loss_weight(std::int64_t m, std::int64_t steps) const {
    return (m == 0 || m == steps ? 0.5 : 1.0) * dt / double(cells);
  }
};

// Each state's residual phi_m - target_m: all of it (exact) or its sketch's k values at `index` (k
// per state). The residual, not phi_m, because the target is recomputed for free: phi_m is then
// estimated as target_m + the expanded residual, whose variance scales with the residual's size,
// which the fit drives towards 0, rather than with phi_m's.
struct SavedStates {
  const double* values;
  const std::int64_t* index;  // null when exact
  std::int64_t k;
};

// Runs the solve, writing each state's saved values to `out` as `save` lays them out (none when
// `out` is null).
double solve(const Grid& g, const double* theta, std::int64_t steps, const SavedStates& save, double* out) {
  std::vector<double> u = g.initial, next(u.size()), residual(u.size()), c(std::size_t(g.n));
  double loss = 0;
  for (std::int64_t m = 0;; ++m) {
    const double sin_t = std::sin(pi * double(m) * g.dt);
    double squares = 0;
    for (std::int64_t p = 0; p < g.cells; ++p) {
      const double r = u[std::size_t(p)] - g.target(sin_t, p);
      squares += r * r;
      residual[std::size_t(p)] = r;
    }
    loss += g.loss_weight(m, steps) * squares;
    double* row = out + m * save.k;
    if (out == nullptr) {
      // a constant theta: nothing to save
    } else if (save.index == nullptr) {
      std::copy(residual.begin(), residual.end(), row);
    } else {
      for (std::int64_t j = 0; j < save.k; ++j) row[j] = residual[std::size_t(save.index[m * save.k + j])];
    }
    if (m == steps) return loss;
    g.source(theta, m, c);
    g.step(u, c, next);
    u.swap(next);
  }
}

// The adjoint sweep: lambda_m = step^T lambda_{m+1} + d loss / d phi_m, and theta's gradient
// dt sum_m lambda_{m+1} . (phi_m dC_m / dtheta), with each phi_m = target_m + the saved residual,
// expanded by interior cells / k under RAD (only its k chosen entries are nonzero: sums run over them).
std::array<double, num_params> adjoint(const Grid& g, const double* theta, std::int64_t steps, const SavedStates& saved,
                                       double cotangent) {
  std::vector<double> lambda(std::size_t(g.cells), 0.0), next(lambda.size()), c(std::size_t(g.n));
  std::array<double, num_params> grad{};
  const double scale = saved.index == nullptr ? 1.0 : double(g.interior()) / double(saved.k);
  const std::int64_t width = saved.index == nullptr ? g.cells : saved.k;
  auto cell = [&](std::int64_t m, std::int64_t j) { return saved.index == nullptr ? j : saved.index[m * width + j]; };
  auto add_loss_term = [&](std::int64_t m) {
    const double w = 2 * cotangent * g.loss_weight(m, steps);
    for (std::int64_t j = 0; j < width; ++j) lambda[std::size_t(cell(m, j))] += w * scale * saved.values[m * width + j];
  };
  add_loss_term(steps);
  for (std::int64_t m = steps - 1; m >= 0; --m) {
    // sum_p lambda phi_m times 1, sin(2 pi x), cos(2 pi x): C's three spatial parts.
    double plain = 0, by_sin = 0, by_cos = 0;
    const double sin_t = std::sin(pi * double(m) * g.dt);
    for (std::int64_t p = 0; p < g.cells; ++p) {
      const std::int64_t ix = p % g.n;
      const double v = g.target(sin_t, p) * lambda[std::size_t(p)];
      plain += v;
      by_sin += v * g.sin_2pi[ix];
      by_cos += v * g.cos_2pi[ix];
    }
    for (std::int64_t j = 0; j < width; ++j) {
      const std::int64_t p = cell(m, j), ix = p % g.n;
      const double v = scale * saved.values[m * width + j] * lambda[std::size_t(p)];
      plain += v;
      by_sin += v * g.sin_2pi[ix];
      by_cos += v * g.cos_2pi[ix];
    }
    const double s = sin_t, co = std::cos(pi * double(m) * g.dt);
    const double parts[num_params] = {plain, s * plain, co * plain, s * by_sin, co * by_sin, s * by_cos, co * by_cos};
    for (std::int64_t i = 0; i < num_params; ++i) grad[std::size_t(i)] += g.dt * parts[i];
    g.source(theta, m, c);
    g.step(lambda, c, next);
    lambda.swap(next);
    add_loss_term(m);
  }
  return grad;
}

}  // namespace

Tensor reaction_diffusion_loss(const Tensor& theta, const ReactionDiffusionProblem& problem) {
  VARIATE_CHECK(theta.dtype() == DType::f64 && theta.shape() == Shape{num_params}, "reaction_diffusion_loss",
                "theta must be f64 of shape [7], got ", theta.dtype(), " ", theta.shape());
  VARIATE_CHECK(problem.grid >= 3 && problem.steps >= 1 && problem.dt > 0, "reaction_diffusion_loss",
                "needs grid >= 3, steps >= 1 and dt > 0, got grid ", problem.grid, ", steps ", problem.steps, ", dt ",
                problem.dt);
  const Grid grid(problem);
  const std::int64_t states = problem.steps + 1;
  std::uint64_t op_index = 0;
  const autodiff::RadConfig* rad =
      autodiff::detail::is_tracked(theta) ? autodiff::detail::rad_for_next_op(&op_index) : nullptr;
  if (rad != nullptr) {
    // A state shared by all steps would correlate each sketch with the adjoint it multiplies, and
    // a projection's signs would outweigh the states: per-example sampling only.
    VARIATE_CHECK(rad->mode != autodiff::RadMode::projection && rad->sharing == autodiff::RadSharing::per_example,
                  "reaction_diffusion_loss", "RAD needs a sampling mode with one choice per state (per_example)");
  }
  const std::int64_t k = rad == nullptr ? grid.cells : autodiff::rad_kept(rad->keep_fraction, grid.interior());
  Tensor index;
  if (rad != nullptr) {
    index = autodiff::detail::rad_choice(*rad, op_index, states, grid.interior(), k, DType::f64);
    grid.to_cells(index);
  }
  if (!autodiff::detail::is_tracked(theta))
    return Tensor::scalar(solve(grid, theta.data<double>(), problem.steps, {nullptr, nullptr, k}, nullptr), DType::f64);
  Tensor states_saved = Tensor::empty(Shape{states, k}, DType::f64);
  double* out = states_saved.data<double>();
  const SavedStates save{out, rad == nullptr ? nullptr : index.data<std::int64_t>(), k};
  const double loss = solve(grid, theta.data<double>(), problem.steps, save, out);
  const Tensor saved[] = {states_saved, autodiff::stop_gradient(theta)};
  const Tensor inputs[] = {theta};
  const autodiff::RadConfig config = rad == nullptr ? autodiff::RadConfig{} : *rad;
  return autodiff::record(
      Tensor::scalar(loss, DType::f64), inputs, saved,
      [problem, config, op_index, sketched = rad != nullptr](const autodiff::BackwardContext& ctx) {
        const Grid g(problem);
        const Tensor& states = ctx.saved(0);
        const std::int64_t kept = states.dim(1);
        Tensor choice;
        if (sketched) {
          choice = autodiff::detail::rad_choice(config, op_index, problem.steps + 1, g.interior(), kept, DType::f64);
          g.to_cells(choice);
        }
        const SavedStates saved{states.data<double>(), sketched ? choice.data<std::int64_t>() : nullptr, kept};
        const std::array<double, num_params> grad =
            adjoint(g, ctx.saved(1).data<double>(), problem.steps, saved, ctx.grad().item());
        Tensor out = Tensor::empty(Shape{num_params}, DType::f64);
        std::copy(grad.begin(), grad.end(), out.data<double>());
        ctx.add(0, out);
      });
}

}  // namespace variate
