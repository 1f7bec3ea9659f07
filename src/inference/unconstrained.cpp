#include "variate/inference/unconstrained.hpp"

#include <algorithm>
#include <map>

#include "variate/autodiff/tape.hpp"
#include "variate/distribute/collectives.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/distributions/default_bijector.hpp"

namespace variate::inference {
namespace {

Shape with_leading(const Shape& lead, const Shape& s) {
  Shape out = lead;
  for (auto d : s) out.push_back(d);
  return out;
}

// (…, dimension) -> the batch shape in front of the last axis (rank 0 or 1).
Shape batch_of(const char* op, const Tensor& flat, std::int64_t dimension) {
  VARIATE_CHECK((flat.rank() == 1 || flat.rank() == 2) && flat.dim(-1) == dimension, op,
                "expected a flat vector of shape (", dimension, ") or (batch, ", dimension, "), got ", flat.shape());
  return flat.rank() == 2 ? Shape{flat.dim(0)} : Shape{};
}

// Inside a mesh, every device must see the same replicated sites: one whose size differs from
// device to device holds a part of something split over the devices, which must be a Sharded site
// (otherwise the devices' states and random streams would drift apart).
void check_replicated_sites(const std::vector<tracing::Site>& sites, const std::string& axis) {
  std::vector<const tracing::Site*> replicated;
  for (const tracing::Site& s : sites)
    if (s.distribution->shard_axis().empty()) replicated.push_back(&s);
  std::vector<double> sizes{double(replicated.size())};
  for (const tracing::Site* s : replicated) sizes.push_back(double(s->value.numel()));
  const Tensor mine = Tensor::from(std::span<const double>(sizes), Shape{1, std::int64_t(sizes.size())});
  const Tensor all = distribute::all_gather(mine, axis, 0);  // (devices, 1 + sites); throws if counts differ
  const std::int64_t width = all.dim(1);
  const double* v = all.data<double>();
  for (std::int64_t d = 1; d < all.dim(0); ++d)
    for (std::int64_t k = 1; k < width; ++k)
      VARIATE_CHECK(v[d * width + k] == v[k], "Unconstrained", "replicated site '", replicated[std::size_t(k - 1)]->name,
                    "' has ", v[k], " values on device 0 but ", v[d * width + k], " on device ", d,
                    "; a value split over the devices must be a Sharded site");
}

}  // namespace

Unconstrained::Unconstrained(tracing::Program program, random::Key key) {
  std::vector<tracing::Site> traced;
  {
    tracing::Trace trace;
    tracing::ProgramRun run;
    tracing::Seed seed(key);
    program();
    traced = trace.sites();
  }
  // Replicated sites first, then the sharded ones, so that the replicated coordinates lead.
  const std::string* mesh_axis = distribute::running_axis();
  if (mesh_axis != nullptr) check_replicated_sites(traced, *mesh_axis);
  const auto is_sharded = [mesh_axis](const tracing::Site& s) {
    return mesh_axis != nullptr && !s.distribution->shard_axis().empty();
  };
  std::map<std::string, int, std::less<>> order;
  for (const tracing::Site& s : traced)
    if (!s.observed && !s.intervened) order.emplace(s.name, int(order.size()));
  std::stable_partition(traced.begin(), traced.end(), [&](const tracing::Site& s) { return !is_sharded(s); });
  for (const tracing::Site& s : traced) {
    if (s.observed || s.intervened) continue;
    const Constraint support = s.distribution->support();
    VARIATE_CHECK(!support.is_discrete(), "Unconstrained", "latent site '", s.name, "' (", s.distribution->name(),
                  ") is discrete; gradient-based inference needs continuous latent sites (condition it on data or "
                  "marginalize it)");
    LatentSite site;
    site.name = s.name;
    site.shape = s.value.shape();
    site.bijector = dist::default_bijector(support);
    site.unconstrained_shape = site.bijector->inverse_shape(site.shape);
    site.offset = dimension_;
    site.size = site.unconstrained_shape.numel();
    site.sharded = is_sharded(s);
    site.program_order = order.at(s.name);
    if (site.sharded) {
      shard_axis_ = std::string(s.distribution->shard_axis());
    } else {
      replicated_dimension_ += site.size;
    }
    dimension_ += site.size;
    sites_.push_back(std::move(site));
  }
  log_joint_ = tracing::make_log_joint(program, 0);
  batched_log_joint_ = tracing::make_log_joint(program, 1);
}

tracing::Values Unconstrained::constrain(const Tensor& flat) const {
  const Shape batch = batch_of("Unconstrained::constrain", flat, dimension_);
  tracing::Values values;
  for (const LatentSite& s : sites_) {
    const Tensor piece = slice(flat, -1, s.offset, s.offset + s.size);
    values.emplace(s.name, s.bijector->forward(reshape(piece, with_leading(batch, s.unconstrained_shape).dims())));
  }
  return values;
}

Tensor Unconstrained::unconstrain(const tracing::Values& values) const {
  std::vector<Tensor> pieces;
  Shape batch;
  for (const LatentSite& s : sites_) {
    auto it = values.find(s.name);
    VARIATE_CHECK(it != values.end(), "Unconstrained::unconstrain", "no value for latent site '", s.name, "'");
    const Tensor x = s.bijector->inverse(it->second);
    batch = x.rank() > s.unconstrained_shape.rank() ? Shape{x.dim(0)} : Shape{};
    pieces.push_back(reshape(x, with_leading(batch, Shape{s.size}).dims()));
  }
  if (pieces.empty()) return Tensor::zeros(Shape{0});
  return concat(pieces, -1);
}

Tensor Unconstrained::log_det_jacobian(const Tensor& flat) const {
  const Shape batch = batch_of("Unconstrained::log_density", flat, dimension_);
  Tensor total = Tensor::zeros(batch, flat.dtype()), sharded = total;
  for (const LatentSite& s : sites_) {
    const Tensor x = reshape(slice(flat, -1, s.offset, s.offset + s.size), with_leading(batch, s.unconstrained_shape).dims());
    const Tensor ldj = s.bijector->forward_log_det_jacobian(x);
    std::vector<int> axes;
    for (int i = batch.rank(); i < ldj.rank(); ++i) axes.push_back(i);
    Tensor& into = s.sharded ? sharded : total;
    into = into + (axes.empty() ? ldj : sum(ldj, axes));
  }
  // The Jacobian terms of the sharded sites' parts add up over the devices, as their densities do.
  return shard_axis_.empty() ? total : total + distribute::psum(sharded, shard_axis_);
}

tracing::Values Unconstrained::constrain_gathered(const Tensor& flat) const {
  tracing::Values values = constrain(flat);
  if (shard_axis_.empty()) return values;
  const int dim = flat.rank() == 2 ? 1 : 0;
  for (const LatentSite& s : sites_) {
    if (!s.sharded) continue;
    Tensor& v = values.at(s.name);
    VARIATE_CHECK(v.rank() > dim, "Unconstrained::constrain_gathered", "sharded site '", s.name,
                  "' is a scalar; a sharded site needs a dimension to split");
    v = distribute::all_gather(autodiff::stop_gradient(v), shard_axis_, dim);
  }
  return values;
}

Tensor Unconstrained::log_density(const Tensor& flat) const {
  const tracing::Values values = constrain(flat);
  const Tensor lp = flat.rank() == 2 ? batched_log_joint_(values) : log_joint_(values);
  return lp + log_det_jacobian(flat);
}

}  // namespace variate::inference
