#include "variate/inference/unconstrained.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

#include "distribute/sharded_program.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distribute/collectives.hpp"
#include "variate/distribute/deferred_psum.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/distributions/bijectors.hpp"
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
  for (const tracing::Site& s : sites)  // generated quantities may be computed from a device's part
    if (s.distribution->shard_axis().empty() && !s.deterministic) replicated.push_back(&s);
  std::vector<double> sizes{double(replicated.size())};
  for (const tracing::Site* s : replicated) sizes.push_back(double(s->value.numel()));
  const Tensor mine = Tensor::from(std::span<const double>(sizes), Shape{1, std::int64_t(sizes.size())});
  const Tensor all = distribute::all_gather(mine, axis, 0);  // (devices, 1 + sites); throws if counts differ
  const std::int64_t width = all.dim(1);
  const double* v = all.data<double>();
  for (std::int64_t d = 1; d < all.dim(0); ++d)
    for (std::int64_t k = 1; k < width; ++k)
      VARIATE_CHECK(v[d * width + k] == v[k], "Unconstrained", "replicated site '",
                    replicated[std::size_t(k - 1)]->name, "' has ", v[k], " values on device 0 but ", v[d * width + k],
                    " on device ", d, "; a value split over the devices must be a Sharded site");
}

const LatentSite* find_site(const std::vector<LatentSite>& sites, std::string_view name) {
  for (const LatentSite& s : sites)
    if (s.name == name) return &s;
  return nullptr;
}

// The sum of a per-element term over everything after the batch dims.
Tensor sum_to_batch(const Tensor& t, int batch_rank) {
  std::vector<int> axes;
  for (int i = batch_rank; i < t.rank(); ++i) axes.push_back(i);
  return axes.empty() ? t : sum(t, axes);
}

// A value that its bijector rounds onto a finite end of the open support: a logit beyond about 37
// (sigmoid(x) rounds to 1), or low + exp(x) with exp(x) under half an ulp of low. Its log density
// would be -inf, and a trajectory that only passes there would count as divergent, where Stan (which
// does not check its constrained parameters against their bounds) goes on. Such a value moves
// inside by the dtype's epsilon times the larger of |end| and the interval's width: at least an ulp
// of the end, and far less than the width unless the interval holds only a few numbers. Every other
// value keeps its bits. The end 0 of (0, inf) and (0, 1) is left out: exp(x) and sigmoid(x) reach it
// only below x = -745.
Tensor off_the_ends(const Constraint& support, Tensor y) {
  using K = Constraint::Kind;
  const DType dtype = y.dtype();
  const auto as_y = [&](const Tensor& b) { return b.dtype() == dtype ? b : cast(b, dtype); };
  Tensor low, high;
  switch (support.kind) {
    case K::unit_interval: high = Tensor::scalar(1.0, dtype); break;
    case K::interval: low = as_y(support.low), high = as_y(support.high); break;
    case K::greater_than: low = as_y(support.low); break;
    case K::less_than: high = as_y(support.high); break;
    default: return y;
  }
  const double epsilon = dtype == DType::f32 ? 0x1p-23 : 0x1p-52;
  // With one end only, the smallest normal number keeps the step above 0 at an end of 0.
  const Tensor floor = Tensor::scalar((dtype == DType::f32 ? 0x1p-126 : 0x1p-1022) / epsilon, dtype);
  const auto step = [&](const Tensor& end) {
    const Tensor width = support.kind == K::interval ? high - low : floor;
    return maximum(abs(end), width) * epsilon;
  };
  if (high.defined()) y = where(ge(y, high), high - step(high), y);
  if (low.defined()) y = where(le(y, low), low + step(low), y);
  return y;
}

// The lowest value of an enumerated site's support, in its shape.
Tensor placeholder(const tracing::Message& m) {
  const Constraint support = m.distribution->support();
  const Tensor low = support.low.defined() ? autodiff::stop_gradient(support.low) : Tensor::scalar(0.0);
  return broadcast_to(prim::cast(low, m.distribution->dtype()), m.distribution->sample_full_shape(m.sample_shape));
}

// What an enumerated site gets: nothing, for the LogJoint further out to sum it out, or a value of
// its support as a placeholder in runs that only want the latent sites' values.
enum class Enumerated { summed_out, placeholder };

// Sets each latent site's value from its piece of a point of the unconstrained space, through the
// bijector of the site's support as the program makes it in this run (so that bounds depending on
// other sites follow them), and puts log|det J| on the message for LogJoint. Inside a mesh run a
// replicated site's piece passes through pbroadcast first, so that its Jacobian term, which LogJoint
// counts once over the devices, gets the whole gradient on every device.
class FromUnconstrained : public tracing::Tracer {
 public:
  /// `probing`: also find out whether a bijector depends on other sites (tracked_support()).
  FromUnconstrained(const std::vector<LatentSite>& sites, const Tensor& flat, const std::string* mesh_axis,
                    Enumerated enumerated, bool probing = false, Jacobian jacobian = Jacobian::included)
      : sites_(sites),
        flat_(flat),
        mesh_axis_(mesh_axis),
        batch_(flat.rank() == 2 ? Shape{flat.dim(0)} : Shape{}),
        enumerated_(enumerated),
        probing_(probing),
        jacobian_(jacobian) {}

  void process(tracing::Message& m) override {
    if (m.value.defined()) return;  // data, or set inside the program
    if (m.enumerate) {
      if (enumerated_ == Enumerated::placeholder) m.value = placeholder(m);
      return;
    }
    const LatentSite* s = find_site(sites_, m.name);
    VARIATE_CHECK(s != nullptr, "Unconstrained", "site '", m.name,
                  "' has no value and was not a latent site when the program was traced; a program must make the "
                  "same latent sites at every run");
    const Constraint support = m.distribution->support();
    VARIATE_CHECK(support.kind == s->support, "Unconstrained", "the support of site '", m.name, "' was ",
                  Constraint{s->support, {}, {}}.str(), " when the program was traced and is now ", support.str(),
                  "; a site's support may change its bounds but not its kind");
    const Shape full = m.distribution->sample_full_shape(m.sample_shape);
    bool same_shape = full.rank() >= s->shape.rank();
    for (int i = 1; same_shape && i <= s->shape.rank(); ++i)
      same_shape = full[full.rank() - i] == s->shape[s->shape.rank() - i];
    VARIATE_CHECK(same_shape, "Unconstrained", "site '", m.name, "' had shape ", s->shape,
                  " when the program was traced and now has shape ", full, "; a latent site's shape must not change");
    Tensor x =
        reshape(slice(flat_, -1, s->offset, s->offset + s->size), with_leading(batch_, s->unconstrained_shape).dims());
    if (mesh_axis_ != nullptr && !s->sharded) {
      // In a DeferredPsumScope the caller sums the gradient over the devices (deferred_psum.hpp).
      if (!distribute::psum_deferred()) x = distribute::detail::broadcast_entering_value(x, *mesh_axis_);
      m.prepared = true;  // so the log joint's sharding rules do not pbroadcast the value again
    }
    const BijectorPtr bijector = dist::unconstraining_bijector(*m.distribution);
    tracked_support_ =
        tracked_support_ || autodiff::detail::is_tracked(support.low) || autodiff::detail::is_tracked(support.high);
    // A bijector built from other sites' values (an offset and multiplier, say) shows as an image
    // of an untracked point that is tracked.
    if (probing_ && !tracked_support_)
      tracked_support_ = autodiff::detail::is_tracked(bijector->forward(autodiff::stop_gradient(x)));
    m.value = off_the_ends(support, bijector->forward(x));
    values_.emplace(m.name, m.value);
    // The identity's log|det J| is 0: no term to add (a kernel call per site at every gradient).
    if (dynamic_cast<const dist::Identity*>(bijector.get()) != nullptr) return;
    const Tensor log_jacobian = bijector->forward_log_det_jacobian(x);
    // More dims than the batch and the site's own: the bijector broadcast against values with dims
    // of their own (a bound that depends on a summed-out site).
    VARIATE_CHECK(log_jacobian.rank() <= batch_.rank() + s->unconstrained_shape.rank(), "Unconstrained", "site '",
                  m.name, "': its bijector gives log|det J| of shape ", log_jacobian.shape(),
                  "; its support must not depend on an enumerated site");
    if (jacobian_ == Jacobian::included) m.log_jacobian = sum_to_batch(log_jacobian, batch_.rank());
  }

  /// The latent sites' values; throws if a latent site was not made.
  tracing::Values take_values() {
    for (const LatentSite& s : sites_)
      VARIATE_CHECK(values_.count(s.name) > 0, "Unconstrained", "latent site '", s.name,
                    "' was not made in this run of the program; a program must make the same latent sites at "
                    "every run");
    return std::move(values_);
  }
  /// Whether some support's bounds (or, when probing, some bijector) were computed from tracked
  /// values (another site's, when the point is tracked).
  bool tracked_support() const { return tracked_support_; }

 private:
  const std::vector<LatentSite>& sites_;
  const Tensor& flat_;
  const std::string* mesh_axis_;
  Shape batch_;
  tracing::Values values_;
  Enumerated enumerated_;
  bool probing_ = false;
  Jacobian jacobian_;
  bool tracked_support_ = false;
};

bool is_latent(const tracing::Site& s) { return !s.observed && !s.intervened && !s.deterministic && !s.enumerated; }

}  // namespace

Unconstrained::Unconstrained(tracing::Program program, random::Key key) : program_(std::move(program)) {
  std::vector<tracing::Site> traced;
  {
    tracing::Trace trace;
    tracing::StartImproperSites start;
    tracing::Seed seed(key);
    tracing::run_program(program_);
    traced = trace.sites();
  }
  // Replicated sites first, then the sharded ones, so that the replicated coordinates lead.
  const std::string* mesh_axis = distribute::running_axis();
  if (mesh_axis != nullptr) check_replicated_sites(traced, *mesh_axis);
  const auto is_sharded = [mesh_axis](const tracing::Site& s) {
    return mesh_axis != nullptr && !s.distribution->shard_axis().empty();
  };
  std::map<std::string, int, std::less<>> order;
  for (const tracing::Site& s : traced) {
    if (s.deterministic) {
      generated_sites_.push_back({s.name, s.value.shape()});
      continue;
    }
    if (s.enumerated && enumerated_site_.empty()) enumerated_site_ = s.name;
    VARIATE_CHECK(!s.enumerated || s.distribution->shard_axis().empty(), "Unconstrained", "site '", s.name,
                  "' is sharded and enumerated, which is not supported");
    unbatched_[s.name] = s.distribution->local_log_prob(s.value).rank();
    if (is_latent(s)) order.emplace(s.name, int(order.size()));
  }
  std::stable_partition(traced.begin(), traced.end(), [&](const tracing::Site& s) { return !is_sharded(s); });
  for (const tracing::Site& s : traced) {
    if (!is_latent(s)) continue;
    const Constraint support = s.distribution->support();
    VARIATE_CHECK(!support.is_discrete(), "Unconstrained", "latent site '", s.name, "' (", s.distribution->name(),
                  ") is discrete; gradient-based inference needs continuous latent sites (condition it on data or "
                  "marginalize it)");
    LatentSite site;
    site.name = s.name;
    site.shape = s.value.shape();
    site.support = support.kind;
    site.bijector = dist::unconstraining_bijector(*s.distribution);
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
  // Whether a support depends on another site shows as bounds that depend on a tracked point.
  try {
    autodiff::detail::TapeScope scope;
    const Tensor flat = scope.track(Tensor::zeros(Shape{dimension_}));
    FromUnconstrained probe(sites_, flat, nullptr, Enumerated::placeholder, /*probing=*/true);
    tracing::run_program(program_);
    static_supports_ = !probe.tracked_support();
  } catch (const Error&) {
    static_supports_ = false;  // undecided: running the program every time is right in any case
  }
}

tracing::Values Unconstrained::constrain(const Tensor& flat) const {
  const Shape batch = batch_of("Unconstrained::constrain", flat, dimension_);
  tracing::Values values;
  if (!static_supports_) {
    FromUnconstrained from(sites_, flat, nullptr, Enumerated::placeholder);
    tracing::run_program(program_);
    return from.take_values();
  }
  for (const LatentSite& s : sites_) {
    const Tensor piece = slice(flat, -1, s.offset, s.offset + s.size);
    values.emplace(s.name, s.bijector->forward(reshape(piece, with_leading(batch, s.unconstrained_shape).dims())));
  }
  return values;
}

namespace {

// Unconstrains each latent site's given value through the site's bijector in this run.
class ToUnconstrained : public tracing::Tracer {
 public:
  ToUnconstrained(const std::vector<LatentSite>& sites, const tracing::Values& values)
      : sites_(sites), values_(values) {}
  void process(tracing::Message& m) override {
    if (m.value.defined()) return;
    if (m.enumerate) {  // it has no say in the latent sites' values
      m.value = placeholder(m);
      return;
    }
    if (find_site(sites_, m.name) == nullptr) return;
    auto it = values_.find(m.name);
    VARIATE_CHECK(it != values_.end(), "Unconstrained::unconstrain", "no value for latent site '", m.name, "'");
    m.value = it->second;
    unconstrained_.emplace(m.name, dist::unconstraining_bijector(*m.distribution)->inverse(m.value));
  }
  const Tensor& at(const std::string& name) const {
    auto it = unconstrained_.find(name);
    VARIATE_CHECK(it != unconstrained_.end(), "Unconstrained::unconstrain", "latent site '", name,
                  "' was not made when the program ran");
    return it->second;
  }

 private:
  const std::vector<LatentSite>& sites_;
  const tracing::Values& values_;
  tracing::Values unconstrained_;
};

}  // namespace

Tensor Unconstrained::unconstrain(const tracing::Values& values) const {
  for (const LatentSite& s : sites_)
    VARIATE_CHECK(values.count(s.name) > 0, "Unconstrained::unconstrain", "no value for latent site '", s.name, "'");
  std::optional<ToUnconstrained> dynamic;
  if (!static_supports_) {
    dynamic.emplace(sites_, values);
    tracing::run_program(program_);
  }
  std::vector<Tensor> pieces;
  Shape batch;
  for (const LatentSite& s : sites_) {
    const Tensor x = dynamic ? dynamic->at(s.name) : s.bijector->inverse(values.find(s.name)->second);
    batch = x.rank() > s.unconstrained_shape.rank() ? Shape{x.dim(0)} : Shape{};
    pieces.push_back(reshape(x, with_leading(batch, Shape{s.size}).dims()));
  }
  if (pieces.empty()) return Tensor::zeros(Shape{0});
  return concat(pieces, -1);
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

Tensor Unconstrained::log_density(const Tensor& flat, Jacobian jacobian) const {
  batch_of("Unconstrained::log_density", flat, dimension_);
  tracing::LogJoint log_joint(flat.rank() - 1, unbatched_);
  {
    // Inside any mesh run, also one whose only sharded sites are data: LogJoint counts a replicated
    // site's Jacobian once over the devices, so its piece must pass through pbroadcast too.
    FromUnconstrained from(sites_, flat, distribute::running_axis(), Enumerated::summed_out, false, jacobian);
    tracing::run_program(program_);
    from.take_values();
  }
  return log_joint.value();
}

tracing::Values Unconstrained::generated_quantities(const Tensor& flat) const {
  batch_of("Unconstrained::generated_quantities", flat, dimension_);
  VARIATE_CHECK(enumerated_site_.empty(), "Unconstrained::generated_quantities", "site '", enumerated_site_,
                "' is enumerated (summed out), so it has no value for generated quantities to use; draw it with "
                "inference::infer_discrete");
  tracing::Trace trace;
  {
    FromUnconstrained from(sites_, flat, nullptr, Enumerated::placeholder);
    tracing::run_program(program_);
    from.take_values();
  }
  tracing::Values out;
  for (const tracing::Site& s : trace.sites())
    if (s.deterministic) out.emplace(s.name, autodiff::stop_gradient(s.value));
  return out;
}

std::vector<tracing::LogJoint::Term> Unconstrained::site_terms(const Tensor& flat) const {
  tracing::LogJoint log_joint(flat.rank() - 1, unbatched_, true);
  FromUnconstrained from(sites_, flat, nullptr, Enumerated::summed_out);
  tracing::run_program(program_);
  std::vector<tracing::LogJoint::Term> terms = log_joint.terms();
  std::string enumerated;
  for (const std::string& name : log_joint.enumerated_sites()) enumerated += (enumerated.empty() ? "" : ", ") + name;
  if (!enumerated.empty()) terms.push_back({enumerated + " (summed out)", log_joint.enumerated_marginal()});
  return terms;
}

std::string Unconstrained::find_batching_error(const Tensor& flat) const {
  const Shape batch = batch_of("Unconstrained::find_batching_error", flat, dimension_);
  if (batch.rank() == 0 || !shard_axis_.empty()) return {};
  const Tensor points = autodiff::stop_gradient(flat);
  // Sums over the data run in another order for a batch: f32 rounding is that much coarser.
  const double tolerance = points.dtype() == DType::f32 ? 1e-4 : 1e-8;
  const std::vector<tracing::LogJoint::Term> together = site_terms(points);
  for (std::int64_t b = 0; b < batch[0]; ++b) {
    std::vector<tracing::LogJoint::Term> alone;
    try {
      alone = site_terms(reshape(slice(points, 0, b, b + 1), Shape{dimension_}.dims()));
    } catch (const Error&) {
      continue;  // a state outside the support: nothing to compare
    }
    for (std::size_t i = 0; i < together.size() && i < alone.size(); ++i) {
      if (together[i].name != alone[i].name) break;  // the sites depend on the values: nothing to pair
      const Tensor term = together[i].value;
      const double mine = term.rank() == 0 ? term.item() : prim::cast(slice(term, 0, b, b + 1), DType::f64).item();
      const double own = alone[i].value.item();
      const bool same = mine == own || std::abs(mine - own) <= tolerance * (1 + std::abs(own)) ||
                        (std::isnan(mine) && std::isnan(own));
      if (!same) {
        std::ostringstream out;
        out << "site '" << alone[i].name << "': in a batch of " << batch[0] << " states, state " << b
            << "'s log density term is " << mine << ", but " << own << " for that state alone; the site's "
            << "distribution does not broadcast a leading batch (chain) dimension (write the model with "
            << "right-aligned broadcasting, e.g. expand_dims(mu, -1), or run threaded chains)";
        return out.str();
      }
    }
  }
  return {};
}

}  // namespace variate::inference
