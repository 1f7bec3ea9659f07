#include "variate/inference/laplace.hpp"

#include <omp.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>

#include "tensor/cpu/parallel_tasks.hpp"
#include "variate/core/error.hpp"
#include "variate/random/samplers.hpp"

namespace variate::inference {

// H = R Rᵀ with R lower triangular, so A = R⁻ᵀ: q = mode + R⁻ᵀ z and Aᵀ g = R⁻¹ g. Both are
// dot products with the rows of a triangle, so R⁻¹ is kept twice, packed, in f32: by columns (the
// rows of A: column i holds rows i..d-1) and by rows (row j holds columns 0..j). The products are
// bound by reading these, once per call for the whole batch; and any fixed A is as exact a change of
// variables as another.
struct LaplaceApproximation::Factor {
  std::vector<double> mode;
  std::vector<float> by_columns, by_rows;
  std::int64_t gradients = 0;
  std::int64_t dimension() const { return std::int64_t(mode.size()); }
};

namespace {

constexpr const char* kOp = "Laplace approximation";
// Row blocks per product: enough for every thread to find work when others are late.
constexpr std::int64_t kBlocks = 64;
// The products' vectors: 4 f32 entries widened to f64, times 4 f64 coordinates of up to kGroup
// points at a time (each row chunk is widened once per group).
constexpr int kLanes = 4;
constexpr std::int64_t kGroup = 4;
typedef float Floats __attribute__((vector_size(kLanes * sizeof(float))));
typedef double Doubles __attribute__((vector_size(kLanes * sizeof(double))));

// Evaluates a batch of points, or each alone when the model does not take a batch (a model written
// for one point at a time, which threaded chains sample as well).
void evaluate_points(const Target& target, std::span<const double> points, std::int64_t batch, std::span<double> lp,
                     std::span<double> grad) {
  const std::int64_t d = target.dimension;
  if (batch > 1) {
    try {
      target.evaluate(points, batch, lp, grad);
      return;
    } catch (const std::exception&) {
    }
  }
  for (std::int64_t k = 0; k < batch; ++k)
    target.evaluate(points.subspan(std::size_t(k * d), std::size_t(d)), 1, lp.subspan(std::size_t(k), 1),
                    grad.subspan(std::size_t(k * d), std::size_t(d)));
}

// The negative Hessian of the log density at `mode` by forward differences of the gradient (one
// gradient per coordinate and one at the mode), its lower triangle symmetrized; `gradients` counts
// the evaluations.
Eigen::MatrixXd negative_hessian(const Target& target, std::span<const double> mode, const LaplaceOptions& o,
                                 std::int64_t& gradients) {
  const std::int64_t d = target.dimension;
  Eigen::MatrixXd h(d, d);
  std::vector<double> lp(1), at_mode(static_cast<std::size_t>(d)), points, grad;
  target.evaluate(mode, 1, lp, at_mode);
  gradients = 1;
  VARIATE_CHECK(std::isfinite(lp[0]), kOp, "the log density at the mode is ", lp[0]);
  VARIATE_CHECK(std::all_of(at_mode.begin(), at_mode.end(), [](double g) { return std::isfinite(g); }), kOp,
                "the gradient at the mode is not finite");
  for (std::int64_t first = 0; first < d; first += o.batch) {
    const std::int64_t batch = std::min(o.batch, d - first);
    points.resize(std::size_t(batch * d));
    lp.resize(std::size_t(batch));
    grad.resize(std::size_t(batch * d));
    for (std::int64_t k = 0; k < batch; ++k) {
      std::copy(mode.begin(), mode.end(), points.begin() + k * d);
      points[std::size_t(k * d + first + k)] += o.step * std::max(1.0, std::abs(mode[std::size_t(first + k)]));
    }
    evaluate_points(target, points, batch, lp, grad);
    gradients += batch;
    for (std::int64_t k = 0; k < batch; ++k) {
      const std::int64_t j = first + k;
      VARIATE_CHECK(std::isfinite(lp[std::size_t(k)]), kOp, "the log density is ", lp[std::size_t(k)],
                    " next to the mode (coordinate ", j,
                    " moved); the mode must be inside the model's support with a finite gradient around it");
      const double step = points[std::size_t(k * d + j)] - mode[std::size_t(j)];
      for (std::int64_t i = 0; i < d; ++i) h(i, j) = -(grad[std::size_t(k * d + i)] - at_mode[std::size_t(i)]) / step;
    }
  }
  VARIATE_CHECK(h.allFinite(), kOp, "the gradient is not finite next to the mode");
  // The factorization reads the lower triangle only.
  for (std::int64_t j = 0; j < d; ++j)
    for (std::int64_t i = j + 1; i < d; ++i) h(i, j) = 0.5 * (h(i, j) + h(j, i));
  return h;
}

// o[b·d] = Σ_j row[j] · v[b·d + j] for b < G: each chunk of the row is widened once for the G
// points, whose accumulators stay in registers.
template <int G>
void row_dots(const float* row, std::int64_t n, const double* v, std::int64_t d, double* o) {
  Doubles acc[G] = {};
  std::int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    Floats f;
    std::memcpy(&f, row + j, sizeof f);
    const Doubles entries = __builtin_convertvector(f, Doubles);
    for (int b = 0; b < G; ++b) {
      Doubles xs;
      std::memcpy(&xs, v + b * d + j, sizeof xs);
      acc[b] += entries * xs;
    }
  }
  for (int b = 0; b < G; ++b) {
    double sum = 0;
    for (int l = 0; l < kLanes; ++l) sum += acc[b][l];
    for (std::int64_t t = j; t < n; ++t) sum += double(row[t]) * v[b * d + t];
    o[b * d] = sum;
  }
}

// out_b = T x_b for every b in the batch (rows of `batch` × d), where T is a triangle packed row
// after row: row r holds r + 1 entries starting at column 0 when `lower`, else d − r entries
// starting at column r. Rows go to the threads in blocks of about equal area; each row is read
// from memory once and multiplied with the whole batch from cache.
void triangle_products(const std::vector<float>& packed, std::int64_t d, bool lower, std::span<const double> x,
                       std::int64_t batch, std::span<double> out) {
  const auto entries_before = [&](std::int64_t r) { return lower ? r * (r + 1) / 2 : r * d - r * (r - 1) / 2; };
  std::vector<std::int64_t> bounds{0};
  const std::int64_t total = d * (d + 1) / 2;
  for (std::int64_t r = 1; r < d; ++r)
    if (entries_before(r) >= total * std::int64_t(bounds.size()) / kBlocks) bounds.push_back(r);
  bounds.push_back(d);
  cpu::parallel_tasks(std::int64_t(bounds.size()) - 1, omp_get_max_threads(), [&](std::int64_t k) {
    for (std::int64_t r = bounds[std::size_t(k)]; r < bounds[std::size_t(k) + 1]; ++r) {
      const float* row = packed.data() + entries_before(r);
      const std::int64_t first = lower ? 0 : r, n = lower ? r + 1 : d - r;
      for (std::int64_t b0 = 0; b0 < batch; b0 += kGroup) {
        const double* v = x.data() + b0 * d + first;
        double* o = out.data() + b0 * d + r;
        switch (std::min(kGroup, batch - b0)) {
          case 1: row_dots<1>(row, n, v, d, o); break;
          case 2: row_dots<2>(row, n, v, d, o); break;
          case 3: row_dots<3>(row, n, v, d, o); break;
          default: row_dots<4>(row, n, v, d, o); break;
        }
      }
    }
  });
}

// R⁻¹ from R (the lower triangle of `llt`) into f's two packings. Column block [c0, c1) of R⁻¹
// is zero above row c0, so it solves only R's trailing block: the blocks are independent (threads
// take them), and together cost about d³/3 flops instead of a full triangular solve's d³.
void pack_inverse(const Eigen::MatrixXd& llt, LaplaceApproximation::Factor& f) {
  const std::int64_t d = f.dimension(), width = 128, blocks = (d + width - 1) / width;
  f.by_columns.resize(std::size_t(d * (d + 1) / 2));
  f.by_rows.resize(f.by_columns.size());
  const auto column_start = [d](std::int64_t i) { return i * d - i * (i - 1) / 2; };
  cpu::parallel_tasks(blocks, omp_get_max_threads(), [&](std::int64_t k) {
    const std::int64_t c0 = k * width, w = std::min(width, d - c0), n = d - c0;
    Eigen::MatrixXd x = Eigen::MatrixXd::Identity(n, w);
    llt.bottomRightCorner(n, n).triangularView<Eigen::Lower>().solveInPlace(x);
    for (std::int64_t c = 0; c < w; ++c) {  // column c0 + c holds rows c0 + c .. d - 1
      float* column = f.by_columns.data() + column_start(c0 + c);
      for (std::int64_t r = c; r < n; ++r) column[r - c] = float(x(r, c));
    }
    for (std::int64_t r = 0; r < n; ++r) {  // row c0 + r holds columns 0 .. c0 + r
      float* row = f.by_rows.data() + (c0 + r) * (c0 + r + 1) / 2 + c0;
      for (std::int64_t c = 0; c < std::min(w, r + 1); ++c) row[c] = float(x(r, c));
    }
  });
}

}  // namespace

LaplaceApproximation LaplaceApproximation::at(const Target& target, std::span<const double> mode,
                                              const LaplaceOptions& o) {
  VARIATE_CHECK(target.shard_axis.empty(), kOp, "sharded targets are not supported");
  VARIATE_CHECK(std::int64_t(mode.size()) == target.dimension, kOp, "the mode has ", mode.size(),
                " coordinates; the target has ", target.dimension);
  VARIATE_CHECK(o.step > 0 && std::isfinite(o.step), kOp, "the difference step must be positive, got ", o.step);
  VARIATE_CHECK(o.batch >= 1, kOp, "the batch must be at least 1, got ", o.batch);
  auto f = std::make_shared<Factor>();
  f->mode.assign(mode.begin(), mode.end());
  Eigen::MatrixXd h = negative_hessian(target, mode, o, f->gradients);
  const Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(h);  // in place: R in h's lower triangle
  VARIATE_CHECK(llt.info() == Eigen::Success, kOp,
                "the negative Hessian at the mode is not positive definite: the point is not a strict maximum, or "
                "the density is flat or not log-concave there; start from random points or Pathfinder instead");
  // A nearly flat direction (a parameter the model does not identify) would send the draws from the
  // approximation, and so the chains' starts, absurdly far.
  const double rcond = llt.rcond();
  VARIATE_CHECK(rcond > 1e-12, kOp, "the negative Hessian at the mode is nearly singular (reciprocal condition number ",
                rcond,
                "): some direction is almost flat, which a Gaussian cannot approximate; start from random "
                "points or Pathfinder instead");
  pack_inverse(h, *f);
  LaplaceApproximation out;
  out.factor_ = std::move(f);
  return out;
}

std::int64_t LaplaceApproximation::dimension() const { return factor_->dimension(); }

double LaplaceApproximation::peak_bytes(std::int64_t dimension) {
  const double d = double(dimension);
  return 8 * d * d + 2 * 4 * (d * (d + 1) / 2);
}

std::int64_t LaplaceApproximation::gradients() const { return factor_->gradients; }

std::vector<double> LaplaceApproximation::variances() const {
  // diag(R⁻ᵀ R⁻¹): the squared norms of R⁻¹'s columns.
  const Factor& f = *factor_;
  const std::int64_t d = f.dimension();
  std::vector<double> v(f.mode.size(), 0.0);
  const float* c = f.by_columns.data();
  for (std::int64_t i = 0; i < d; c += d - i, ++i)
    for (std::int64_t j = 0; j < d - i; ++j) v[std::size_t(i)] += double(c[j]) * double(c[j]);
  return v;
}

void LaplaceApproximation::to_position(std::span<const double> z, std::int64_t batch, std::span<double> q) const {
  const Factor& f = *factor_;
  const std::int64_t d = f.dimension();
  VARIATE_CHECK(std::int64_t(z.size()) == batch * d && q.size() == z.size(), kOp, "expected ", batch * d,
                " coordinates in and out for a batch of ", batch, ", got ", z.size(), " and ", q.size());
  // q_i = mode_i + Σ_{j ≥ i} R⁻¹(j, i) z_j.
  triangle_products(f.by_columns, d, false, z, batch, q);
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t i = 0; i < d; ++i) q[std::size_t(b * d + i)] += f.mode[std::size_t(i)];
}

void LaplaceApproximation::to_whitened_gradient(std::span<double> gradient, std::int64_t batch,
                                                std::span<double> scratch) const {
  const Factor& f = *factor_;
  // (R⁻¹ g)_j = Σ_{i ≤ j} R⁻¹(j, i) g_i.
  triangle_products(f.by_rows, f.dimension(), true, gradient, batch, scratch);
  std::copy(scratch.begin(), scratch.end(), gradient.begin());
}

Target LaplaceApproximation::whiten(Target target) const {
  VARIATE_CHECK(target.shard_axis.empty(), kOp, "sharded targets are not supported");
  VARIATE_CHECK(target.dimension == dimension(), kOp, "the target has ", target.dimension,
                " coordinates; the approximation has ", dimension());
  Target out = target;
  out.evaluate = [self = *this, inner = std::move(target.evaluate)](std::span<const double> z, std::int64_t batch,
                                                                    std::span<double> log_density,
                                                                    std::span<double> gradient) {
    std::vector<double> q(z.size());  // per call: threaded chains evaluate concurrently
    self.to_position(z, batch, q);
    inner(q, batch, log_density, gradient);
    self.to_whitened_gradient(gradient, batch, q);  // q is done with: the product's output
  };
  return out;
}

LaplaceStart laplace_start(const tracing::Program& program, int chains, random::Key key) {
  VARIATE_CHECK(chains >= 1, kOp, "expected at least one chain, got ", chains);
  OptimizeResult mode =
      optimize(program, {.jacobian = Jacobian::included, .key = random::fold_in(key, "laplace mode")});
  const Unconstrained space(program);
  LaplaceApproximation approximation =
      LaplaceApproximation::at(make_target(space, DType::f64), mode.point.to_vector<double>());
  std::vector<double> starts =
      random::normal(random::fold_in(key, "laplace starts"), Shape{chains, space.dimension()}).to_vector<double>();
  return {std::move(mode), std::move(approximation), std::move(starts)};
}

void LaplaceStart::place_chains(SamplerOptions& sampler) {
  sampler.initial_positions = std::move(starts);
  sampler.initial_metric = Metric::unit(sampler.metric, approximation.dimension());
}

LaplaceDraws::LaplaceDraws(const LaplaceApproximation& laplace, int chains)
    : laplace_(laplace), positions_(std::size_t(chains), std::vector<double>(std::size_t(laplace.dimension()))) {}

Draw LaplaceDraws::to_model(const Draw& whitened) {
  std::vector<double>& q = positions_[std::size_t(whitened.chain)];
  laplace_.to_position(whitened.position, 1, q);
  Draw d = whitened;
  d.position = q;
  return d;
}

void LaplaceDraws::to_model(SampleResult& result) const {
  for (ChainResult& chain : result.chains) {
    const std::int64_t n = chain.draw_count();
    if (n == 0) continue;
    std::vector<double> q(chain.draws.size());
    laplace_.to_position(chain.draws, n, q);
    chain.draws = std::move(q);
  }
}

}  // namespace variate::inference
