#include "variate/nn/lbfgs.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <iomanip>
#include <limits>
#include <optional>
#include <sstream>
#include <vector>

#include "variate/core/error.hpp"

namespace variate::nn {
namespace {

using Vec = std::vector<double>;

/// Copies the elements of an f32 or f64 tensor to out[at...]; returns the position after them.
std::size_t append(const Tensor& t, Vec& out, std::size_t at) {
  if (t.dtype() == DType::f64) {
    const double* v = t.data<double>();
    std::copy(v, v + t.numel(), out.begin() + std::ptrdiff_t(at));
  } else {
    const float* v = t.data<float>();
    std::copy(v, v + t.numel(), out.begin() + std::ptrdiff_t(at));
  }
  return at + std::size_t(t.numel());
}

// A number for a message, to 3 significant digits (std::to_string writes 1e-9 as 0.000000).
std::string short_number(double v) {
  std::ostringstream out;
  out << std::setprecision(3) << v;
  return out.str();
}

double dot(const Vec& a, const Vec& b) {
  double s = 0;
  for (std::size_t k = 0; k < a.size(); ++k) s += a[k] * b[k];
  return s;
}

/// The loss as a function of all parameter elements laid end to end, in double.
class Objective {
 public:
  Objective(Parameters& params, const std::function<Tensor()>& loss)
      : params_(params), loss_(loss), grads_(params.size()) {
    for (std::size_t i = 0; i < params.size(); ++i) {
      const Tensor& p = params.value(i);
      VARIATE_CHECK(p.defined() && (p.dtype() == DType::f64 || p.dtype() == DType::f32), "nn::minimize_lbfgs",
                    "parameter '", params.name(i), "' must be an f32 or f64 tensor");
      size_ += std::size_t(p.numel());
    }
  }
  std::size_t size() const { return size_; }
  std::int64_t evaluations() const { return evaluations_; }

  Vec read() const {
    Vec x(size_);
    std::size_t at = 0;
    for (std::size_t i = 0; i < params_.size(); ++i) at = append(params_.value(i), x, at);
    return x;
  }

  void write(const Vec& x) {
    std::size_t at = 0;
    for (std::size_t i = 0; i < params_.size(); ++i) {
      Tensor& p = params_.value(i);
      if (p.dtype() == DType::f64) {
        double* v = p.data<double>();
        for (std::int64_t k = 0; k < p.numel(); ++k) v[k] = x[at++];
      } else {
        float* v = p.data<float>();
        for (std::int64_t k = 0; k < p.numel(); ++k) v[k] = float(x[at++]);
      }
    }
  }

  /// Sets the parameters to x; returns the loss there and writes its gradient to g.
  double evaluate(const Vec& x, Vec& g) {
    write(x);
    ++evaluations_;
    const double f = value_and_grad(params_, loss_, grads_).item();
    g.resize(size_);
    std::size_t at = 0;
    for (const Tensor& grad : grads_) at = append(grad, g, at);
    return f;
  }

 private:
  Parameters& params_;
  const std::function<Tensor()>& loss_;
  std::vector<Tensor> grads_;
  std::size_t size_ = 0;
  std::int64_t evaluations_ = 0;
};

/// phi(alpha) = f(x + alpha d) and its derivative g(x + alpha d) . d.
struct Trial {
  double alpha, phi, dphi;
};

/// The minimizer of the cubic through lo and hi with their slopes (Nocedal & Wright eq. 3.59),
/// or the midpoint when the cubic has none or it lies within a tenth of the interval's ends.
double interpolate(const Trial& lo, const Trial& hi) {
  const double mid = 0.5 * (lo.alpha + hi.alpha);
  const double d1 = lo.dphi + hi.dphi - 3 * (lo.phi - hi.phi) / (lo.alpha - hi.alpha);
  const double disc = d1 * d1 - lo.dphi * hi.dphi;
  if (!std::isfinite(disc) || disc < 0) return mid;
  const double d2 = std::copysign(std::sqrt(disc), hi.alpha - lo.alpha);
  const double a = hi.alpha - (hi.alpha - lo.alpha) * (hi.dphi + d2 - d1) / (hi.dphi - lo.dphi + 2 * d2);
  const double left = std::min(lo.alpha, hi.alpha), width = std::abs(hi.alpha - lo.alpha);
  if (!std::isfinite(a) || a < left + 0.1 * width || a > left + 0.9 * width) return mid;
  return a;
}

struct LineSearch {
  Objective& objective;
  const LbfgsOptions& options;
  const Vec& x0;
  const Vec& d;
  double phi0, dphi0;
  Vec x, g;           // the last point evaluated and its gradient
  std::string error;  // why the search failed, empty on success

  Trial evaluate(double alpha) {
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = x0[k] + alpha * d[k];
    const double phi = objective.evaluate(x, g);
    return {alpha, std::isfinite(phi) ? phi : std::numeric_limits<double>::infinity(), dot(g, d)};
  }
  bool sufficient_decrease(const Trial& t) const { return t.phi <= phi0 + options.c1 * t.alpha * dphi0; }
  bool curvature(const Trial& t) const { return std::abs(t.dphi) <= -options.c2 * dphi0; }

  /// Algorithm 3.5: returns the accepted point (x and g then hold it), or nothing with `error` set.
  std::optional<Trial> run(double alpha) {
    x.resize(x0.size());
    Trial prev{0, phi0, dphi0};
    for (int n = 0; n < options.max_line_search_evaluations; ++n) {
      const Trial t = evaluate(alpha);
      if (!sufficient_decrease(t) || (n > 0 && t.phi >= prev.phi)) return zoom(prev, t, n + 1);
      if (curvature(t)) return t;
      if (t.dphi >= 0) return zoom(t, prev, n + 1);
      prev = t;
      alpha *= 2;
    }
    error = "no step satisfying the strong Wolfe conditions within " +
            std::to_string(options.max_line_search_evaluations) + " evaluations while extrapolating";
    return std::nullopt;
  }

  /// Algorithm 3.6: lo satisfies sufficient decrease with the least loss so far, and the minimizer
  /// lies between lo and hi.
  std::optional<Trial> zoom(Trial lo, Trial hi, int used) {
    for (; used < options.max_line_search_evaluations; ++used) {
      const double alpha = interpolate(lo, hi);
      if (std::abs(hi.alpha - lo.alpha) <= 1e-16 * std::max(1.0, std::abs(lo.alpha))) break;
      const Trial t = evaluate(alpha);
      if (!sufficient_decrease(t) || t.phi >= lo.phi) {
        hi = t;
        continue;
      }
      if (curvature(t)) return t;
      if (t.dphi * (hi.alpha - lo.alpha) >= 0) hi = lo;
      lo = t;
    }
    std::ostringstream why;
    why << "the zoom between steps " << lo.alpha << " and " << hi.alpha
        << " found no point satisfying the strong Wolfe conditions (the loss may be too flat or noisy "
           "at this precision)";
    error = why.str();
    return std::nullopt;
  }
};

/// Algorithm 7.4: the L-BFGS direction -H g from the stored pairs, with H0 = (s.y / y.y) I.
Vec direction(const Vec& g, const std::deque<Vec>& s, const std::deque<Vec>& y, const std::deque<double>& rho) {
  Vec q = g;
  std::vector<double> a(s.size());
  for (std::size_t j = s.size(); j-- > 0;) {
    a[j] = rho[j] * dot(s[j], q);
    for (std::size_t k = 0; k < q.size(); ++k) q[k] -= a[j] * y[j][k];
  }
  if (!s.empty()) {
    const double gamma = dot(s.back(), y.back()) / dot(y.back(), y.back());
    for (double& v : q) v *= gamma;
  }
  for (std::size_t j = 0; j < s.size(); ++j) {
    const double b = rho[j] * dot(y[j], q);
    for (std::size_t k = 0; k < q.size(); ++k) q[k] += s[j][k] * (a[j] - b);
  }
  for (double& v : q) v = -v;
  return q;
}

}  // namespace

LbfgsResult minimize_lbfgs(Parameters& params, const std::function<Tensor()>& loss, LbfgsOptions options) {
  const char* op = "nn::minimize_lbfgs";
  VARIATE_CHECK(options.history > 0, op, "history must be > 0, got ", options.history);
  VARIATE_CHECK(options.max_iterations >= 0, op, "max_iterations must be >= 0, got ", options.max_iterations);
  VARIATE_CHECK(0 < options.c1 && options.c1 < options.c2 && options.c2 < 1, op,
                "the Wolfe constants must satisfy 0 < c1 < c2 < 1, got c1 = ", options.c1, ", c2 = ", options.c2);
  VARIATE_CHECK(options.max_line_search_evaluations > 0, op, "max_line_search_evaluations must be > 0");

  Objective objective(params, loss);
  Vec x = objective.read(), g;
  double f = objective.evaluate(x, g);
  double gnorm = std::sqrt(dot(g, g));
  VARIATE_CHECK(std::isfinite(f) && std::isfinite(gnorm), op, "the loss (", f, ") or its gradient's norm (", gnorm,
                ") is not finite at the starting point");
  if (options.on_iterate) options.on_iterate(x, f, g);

  LbfgsResult result;
  auto finish = [&](LbfgsStatus status, std::string message) {
    result.status = status;
    result.loss = f;
    result.gradient_norm = gnorm;
    result.evaluations = objective.evaluations();
    result.message = std::move(message);
    return result;
  };
  if (gnorm <= options.gradient_tolerance) return finish(LbfgsStatus::converged, "converged at the starting point");

  std::deque<Vec> s, y;
  std::deque<double> rho;
  for (std::int64_t k = 0; k < options.max_iterations; ++k) {
    Vec d = direction(g, s, y, rho);
    double dphi0 = dot(g, d);
    if (!(dphi0 < 0)) {  // round-off made the quasi-Newton direction useless: restart from -g
      s.clear(), y.clear(), rho.clear();
      for (std::size_t j = 0; j < d.size(); ++j) d[j] = -g[j];
      dphi0 = -gnorm * gnorm;
    }
    // Without curvature pairs the direction is -g: a first step of unit length in x.
    const double alpha0 = s.empty() ? std::min(1.0, 1.0 / gnorm) : 1.0;
    LineSearch search{objective, options, x, d, f, dphi0, {}, {}, {}};
    std::optional<Trial> accepted;
    try {
      accepted = search.run(alpha0);
    } catch (...) {
      objective.write(x);  // a loss that throws at a trial point leaves the caller the best point
      throw;
    }
    if (!accepted) {
      objective.write(x);  // back to the best point
      return finish(LbfgsStatus::line_search_failed,
                    "iteration " + std::to_string(k + 1) + ": the line search failed: " + search.error);
    }
    Vec sk(x.size()), yk(x.size());
    for (std::size_t j = 0; j < x.size(); ++j) sk[j] = search.x[j] - x[j], yk[j] = search.g[j] - g[j];
    const double step = std::sqrt(dot(sk, sk)), sy = dot(sk, yk);
    if (sy > 0) {  // the strong Wolfe conditions guarantee it but for round-off
      if (int(s.size()) == options.history) s.pop_front(), y.pop_front(), rho.pop_front();
      s.push_back(std::move(sk));
      y.push_back(std::move(yk));
      rho.push_back(1 / sy);
    }
    x = std::move(search.x);
    g = std::move(search.g);
    const double decrease = f - accepted->phi;
    const double scale = std::max({std::abs(f), std::abs(accepted->phi), 1.0});
    f = accepted->phi;
    gnorm = std::sqrt(dot(g, g));
    result.iterations = k + 1;
    if (options.on_iterate) options.on_iterate(x, f, g);
    const std::string after = "converged after " + std::to_string(k + 1) + " iterations: ";
    if (gnorm <= options.gradient_tolerance)
      return finish(LbfgsStatus::converged, after + "gradient norm " + short_number(gnorm));
    if (options.loss_tolerance > 0 && decrease <= options.loss_tolerance)
      return finish(LbfgsStatus::converged, after + "the loss fell by " + short_number(decrease));
    if (options.relative_loss_tolerance > 0 && decrease <= options.relative_loss_tolerance * scale)
      return finish(LbfgsStatus::converged,
                    after + "the loss fell by " + short_number(decrease / scale) + " relative to its size");
    if (options.parameter_tolerance > 0 && step <= options.parameter_tolerance)
      return finish(LbfgsStatus::converged, after + "the parameters moved by " + short_number(step));
  }
  return finish(LbfgsStatus::max_iterations, "stopped after " + std::to_string(options.max_iterations) +
                                                 " iterations with gradient norm " + short_number(gnorm));
}

}  // namespace variate::nn
