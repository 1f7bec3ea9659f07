#pragma once
// The tracers (effect handlers). Each is an RAII scope: it acts on the random variables created
// while it is alive, and composes with the tracers around it.
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "variate/tracing/log_joint_rules.hpp"
#include "variate/tracing/tracer.hpp"

namespace variate::tracing {

/// Values by site name.
using Values = std::map<std::string, Tensor, std::less<>>;

/// Gives every site the key fold_in(key, site name), so draws are reproducible and independent of
/// the order of sites.
///   tracing::Seed seed{random::Key(42)};  auto z = Normal(0.0, 1.0, "z");
/// (Braces: `Seed seed(random::Key(n));` with a variable n declares a function, and the program then
/// fails for want of a key.)
class Seed : public Tracer {
 public:
  explicit Seed(random::Key key) : key_(key) {}
  void process(Message& m) override;
  bool sees_blocked_sites() const override { return true; }

 private:
  random::Key key_;
};

/// The base of the tracers that take values by site name. A name that meets no site is an error
/// (ProgramRun::check_names_matched, made by every program transformation): a misspelt data name
/// would otherwise leave the site latent. A value must broadcast with the site's shape.
class NamedValues : public Tracer {
 public:
  ~NamedValues() override;
  void unmatched_names(std::uint64_t run, std::vector<std::string>& out) const override;
  const Values& values() const { return values_; }

 protected:
  NamedValues(const char* handler, Values values);
  /// Whether `m` is one of the named sites; marks the name as met.
  bool meets(const Message& m);
  /// The value given for site `m` (checked against its shape), or null; marks the name as met.
  const Tensor* find(const Message& m);

 private:
  const char* handler_;
  Values values_;
  std::vector<std::uint64_t> met_;  // per value in map order: the last program run it met a site in
  std::uint64_t created_in_;        // the program run this tracer began in
};

/// Uses the given values for the named sites (latent values, e.g. an inference state).
///   tracing::Substitute s({{"z", z0}});  model();
class Substitute : public NamedValues {
 public:
  explicit Substitute(Values values) : NamedValues("Substitute", std::move(values)) {}
  void process(Message& m) override;
};

/// Conditions the named sites on data: their values are fixed and marked observed. Data must be
/// finite (a NaN or infinite datum is an error naming the site).
///   tracing::Condition c({{"y", y_data}});  model();
class Condition : public NamedValues {
 public:
  explicit Condition(Values data);
  void process(Message& m) override;
};

/// Marks discrete sites to be summed out of the log joint exactly (NumPyro's parallel enumeration,
/// a hand-marginalized Stan model): LogJoint gives such a site every value of its finite support
/// (Bernoulli, Categorical, Binomial) along a dim of its own and adds log sum over the values of
/// the terms that depend on it; the sites are then no parameters of inference. Site j (in program
/// order) has its values along the j-th dim left of the batch dims, counted from the right, so a
/// site whose distribution uses an earlier enumerated site's value (a hidden Markov chain) gets a
/// term over both, and the sites are summed out one by one (variable elimination: the forward
/// algorithm, for a chain). As with vectorized chains, write the model with right-aligned
/// broadcasting (a scalar site used against a vector of data: expand_dims(g, -1)).
/// A site may have a shape S of its own (say N mixture labels, one per datum): every term
/// depending on it must then have shape S (each datum's likelihood depends on its own label only);
/// a site with S = () (one change point) may have terms of any shape. Anything else is an error
/// naming the term's site. inference::infer_discrete draws a program's one enumerated site from its
/// conditional.
///   auto z = Categorical(Probs{weights}, "z", {N});  with  tracing::Enumerate e({"z"});
class Enumerate : public NamedValues {
 public:
  explicit Enumerate(const std::set<std::string, std::less<>>& names);
  void process(Message& m) override;
};

/// Suspends every Condition on this thread while it lives (those around it too): their sites are
/// drawn (or take values from other tracers) as if unobserved. What predictive checks need: under Seed it gives the
/// prior predictive, with the latent values substituted the posterior predictive.
///   { tracing::Uncondition u;  tracing::Seed s{key};  model(); }   // y drawn, not the data
class Uncondition : public Tracer {
 public:
  Uncondition();
  ~Uncondition() override;
};

/// The do-operator: replaces the named sites by fixed values and removes their log-density terms;
/// variables downstream see the intervened value.
///   tracing::Intervene d({{"treatment", 1.0}});  model();
class Intervene : public NamedValues {
 public:
  explicit Intervene(Values values) : NamedValues("Intervene", std::move(values)) {}
  void process(Message& m) override;
};

/// Multiplies the log density of the sites inside by `factor` (minibatch likelihoods: N / batch).
///   { tracing::Scale s(n / batch);  auto y = Bernoulli(...); }
class Scale : public Tracer {
 public:
  explicit Scale(double factor);
  void process(Message& m) override { m.scale *= factor_; }

 private:
  double factor_;
};

/// Hides sites from the tracers outside it: all of them, only `names`, or all but `names`.
///   { tracing::Block b;  auxiliary(); }   // an outer Trace does not record them
///   tracing::Block b(tracing::Block::Mode::hide, {"z"});
class Block : public Tracer {
 public:
  enum class Mode { all, hide, expose };
  explicit Block(Mode mode = Mode::all, std::set<std::string, std::less<>> names = {})
      : mode_(mode), names_(std::move(names)) {}
  void process(Message& m) override;

 private:
  Mode mode_;
  std::set<std::string, std::less<>> names_;
};

/// One recorded site.
struct Site {
  std::string name;
  DistributionPtr distribution;
  Shape sample_shape;
  Tensor value;
  bool observed;
  bool intervened;
  bool deterministic;  // a generated quantity
  bool enumerated;     // summed out of the log joint (Enumerate)
  double scale;
};

/// Records the sites in creation order (Edward2's tape).
///   tracing::Trace tape;  model();  for (auto& s : tape.sites()) ...
class Trace : public Tracer {
 public:
  void postprocess(const Message& m) override;
  const std::vector<Site>& sites() const { return sites_; }
  const Site& site(std::string_view name) const;

 private:
  std::vector<Site> sites_;
};

/// The rank of each site's log density in one unbatched run of a program.
using SiteRanks = std::map<std::string, int, std::less<>>;

/// Accumulates the log joint density: the sum over sites of scale * log_prob(value) (plus the
/// site's log_jacobian when its value came from the unconstrained space), except intervened sites. Each term is summed
/// to a scalar; with `batch_ndims` > 0 (a batch of program states, e.g. chains) a site's log density whose rank exceeds
/// its unbatched rank (`unbatched`) by batch_ndims keeps those leading dims, and a site without them (data that no
/// state touches) counts once for every state.
///
/// The terms are summed by the LogJointRules registered by a layer above (log_joint_rules.hpp), if
/// any: distribute's give a model split over the devices of a mesh the unsharded model's density
/// and gradient (distribute/sharded.hpp), and may require a site's value to be supplied before this
/// tracer sees the site (by make_log_joint or a Substitute inside the LogJoint scope).
class LogJoint : public Tracer {
 public:
  /// One site's term of the log joint (batch-shaped), kept on request.
  struct Term {
    std::string name;
    Tensor value;
  };

  LogJoint() : LogJoint(0, {}) {}
  /// With `keep_terms`, each site's term is also kept (terms()), e.g. to find the site at fault.
  LogJoint(int batch_ndims, SiteRanks unbatched, bool keep_terms = false);
  /// Every site's log density keeps its first `ndims` dims, whatever its rank in an unbatched run:
  /// they index independent data points and the latents local to them (a VAE's minibatch), so
  /// that a bound can be taken per data point. A site with fewer dims is an error naming it; an
  /// enumerated site is not supported.
  struct LeadingDims {
    int ndims;
  };
  explicit LogJoint(LeadingDims keep, bool keep_terms = false);
  void process(Message& m) override;
  void postprocess(const Message& m) override;
  /// The accumulated log density (0 when no site contributed). With rules that sum over the devices
  /// of a mesh, a collective: every device must call it.
  Tensor value() const;
  /// Each site's term as this tracer took it, in program order (with keep_terms).
  const std::vector<Term>& terms() const { return terms_; }
  /// The enumerated sites, in program order.
  std::vector<std::string> enumerated_sites() const;
  /// With one enumerated site: the log joint at each of its values before they are summed out,
  /// (K, batch..., S), and those values; an error naming the sites with more than one.
  Tensor enumerated_log_joint() const;
  const Tensor& enumerated_values() const;
  /// The enumerated sites summed out (batch-shaped).
  Tensor enumerated_marginal() const;

 private:
  int batch_ndims_ = 0;
  SiteRanks unbatched_;
  int leading_ndims_ = 0;
  bool keep_terms_ = false;
  std::vector<Term> terms_;
  std::unique_ptr<LogJointRules> rules_;  // null: the terms are added up in total_
  Tensor total_;
  // The enumerated sites, in program order: name, values (K) and own shape S.
  struct EnumeratedSite {
    std::string name;
    Tensor values;
    Shape shape;
  };
  // A term that depends on enumerated sites, (enumeration dims..., batch..., own dims...), with the
  // count of its own dims.
  struct Factor {
    Tensor log_value;
    int own_ndims;
    int enumeration_ndims(int batch_ndims) const { return log_value.rank() - batch_ndims - own_ndims; }
  };
  std::vector<EnumeratedSite> enumerated_;
  std::vector<Factor> factors_;
  void enumerate(Message& m);
  void add_enumerated_term(const Message& m, const Tensor& lp, int own_ndims);
  bool depends(const Factor& f, std::size_t site) const;
  // The factors that depend on `site` summed, over its values (K, ...).
  Tensor joint_of(const std::vector<Factor>& factors, std::size_t site) const;
  void add_term(const Message& m, const Tensor& term);
};

}  // namespace variate::tracing
