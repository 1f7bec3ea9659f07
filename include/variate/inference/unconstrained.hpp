#pragma once
// The unconstrained parameterization inference works in (layer 7): trace the model once to find its
// latent sites (neither observed nor intervened), their shapes and supports; lay them out in one
// flat real vector through each site's bijector (dist::unconstraining_bijector: its support's
// default bijector, or the one a dist::Reparameterized site names), with the log|det J| terms. The
// bijector is built from the distribution as the program makes it at each evaluation, so a bound
// that depends on another parameter (`Uniform(0, a)`, Stan's `<lower=0, upper=a>`) or an offset and
// multiplier that do (Stan's `<offset=mu, multiplier=tau>`) follow it.
//
//   inference::Unconstrained space(model);
//   Tensor lp = space.log_density(flat);        // flat: (dimension) or (chains, dimension)
//   tracing::Values draws = space.constrain(flat);
//
// Inside a mesh run, a program with Sharded sites gives a sharded space: the replicated sites come
// first in the flat vector and the sharded sites (this device's parts) follow, so the first
// replicated_dimension() coordinates are the same on every device (see inference::Target).
#include <string>
#include <vector>

#include "variate/distributions/bijector.hpp"
#include "variate/tracing/program.hpp"

namespace variate::inference {

/// Where one latent site lives in the flat unconstrained vector: shapes, offset, support, bijector.
struct LatentSite {
  std::string name;
  Shape shape;  // of the constrained value
  Shape unconstrained_shape;
  std::int64_t offset = 0;  // into the flat vector
  std::int64_t size = 0;
  Constraint::Kind support = Constraint::Kind::real;  // must stay the same from run to run
  BijectorPtr bijector;   // unconstrained -> support, as traced (see Unconstrained::static_supports)
  bool sharded = false;   // a Sharded site in a mesh run: shape and flat part are this device's
  int program_order = 0;  // the site's place among the latent sites in the program (sites() puts
                          // the sharded ones last)
};

/// A deterministic site (a generated quantity): computed by the program, reported per draw.
struct GeneratedSite {
  std::string name;
  Shape shape;
};

/// Whether a log density on the unconstrained space adds the bijectors' log|det J| (the density of
/// the unconstrained point, what samplers and ADVI need) or leaves it out (the model's density at
/// the constrained point, whose maximum Stan's optimizer finds by default).
enum class Jacobian { included, excluded };

/// A program's latent sites mapped to one flat unconstrained vector: log density and gradient there,
/// and the map back to constrained values.
class Unconstrained {
 public:
  /// Traces `program` once under Seed(key). Throws naming the site if a latent site is discrete.
  /// Inside a mesh run every device constructs its own space (a collective: it checks that the
  /// replicated sites have the same size on every device).
  explicit Unconstrained(tracing::Program program, random::Key key = random::Key(0));

  const std::vector<LatentSite>& sites() const { return sites_; }
  /// The program's deterministic sites, in program order.
  const std::vector<GeneratedSite>& generated_sites() const { return generated_sites_; }
  std::int64_t dimension() const { return dimension_; }
  /// The mesh axis the sharded sites are split over; empty when there are none or no mesh runs.
  const std::string& shard_axis() const { return shard_axis_; }
  /// How many leading coordinates belong to replicated sites (dimension() when not sharded).
  std::int64_t replicated_dimension() const { return replicated_dimension_; }
  /// Whether no site's support or bijector depends on another site's value: then constrain and
  /// unconstrain use the traced bijectors and need not run the program.
  bool static_supports() const { return static_supports_; }

  /// The constrained value of every latent site; `flat` is (dimension) or (batch, dimension).
  tracing::Values constrain(const Tensor& flat) const;
  /// The value of every deterministic site at `flat` ((dimension) or (batch, dimension)): runs the
  /// program once.
  tracing::Values generated_quantities(const Tensor& flat) const;
  /// The log density of each site (its Jacobian term included) at a batch of points, for each
  /// point alone and for the batch: the first site whose batch term differs from its points' own
  /// terms, described, or "" if none does (a model that does not broadcast a leading batch dim).
  std::string find_batching_error(const Tensor& flat) const;
  /// The inverse: the flat vector (with the values' leading batch dim, if any).
  Tensor unconstrain(const tracing::Values& values) const;
  /// log p(constrain(flat)) + sum of log|det J|: the density HMC samples; shape () or (batch).
  /// Sharded: the unsharded model's density, the same on every device (a collective). With
  /// Jacobian::excluded, log p(constrain(flat)) alone.
  Tensor log_density(const Tensor& flat, Jacobian jacobian = Jacobian::included) const;
  /// constrain(flat) for the unsharded model: each sharded site's parts concatenated over the
  /// devices along its first dim (after the batch dim), in device order; replicated sites as they
  /// are. A collective when sharded; constrain(flat) otherwise.
  tracing::Values constrain_gathered(const Tensor& flat) const;

 private:
  std::vector<tracing::LogJoint::Term> site_terms(const Tensor& flat) const;
  tracing::Program program_;
  std::vector<LatentSite> sites_;
  std::vector<GeneratedSite> generated_sites_;
  std::string enumerated_site_;  // the first site summed out of the log density (tracing::Enumerate), if any
  std::int64_t dimension_ = 0, replicated_dimension_ = 0;
  std::string shard_axis_;
  tracing::SiteRanks unbatched_;  // each site's log-density rank in an unbatched run
  bool static_supports_ = true;
};

}  // namespace variate::inference
