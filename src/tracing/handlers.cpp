#include "variate/tracing/handlers.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <iterator>

#include "variate/autodiff/tape.hpp"
#include "variate/tracing/random_variable.hpp"

namespace variate::tracing {

void Seed::process(Message& m) {
  if (!m.key) m.key = random::fold_in(key_, m.name);
}

namespace {

// Right-aligned broadcasting, as the site's log_prob will apply it.
bool broadcasts(const Shape& a, const Shape& b) {
  for (int i = 1; i <= std::min(a.rank(), b.rank()); ++i) {
    const std::int64_t x = a[a.rank() - i], y = b[b.rank() - i];
    if (x != y && x != 1 && y != 1) return false;
  }
  return true;
}

}  // namespace

NamedValues::NamedValues(const char* handler, Values values)
    : handler_(handler), values_(std::move(values)), met_(values_.size(), 0), created_in_(current_run()) {
  for (const auto& [name, value] : values_)
    VARIATE_CHECK(value.defined(), handler_, "the value for site '", name, "' is undefined");
}

NamedValues::~NamedValues() {
  // A tracer that ends inside the program run it began in reports to that run; one that wraps the
  // run is asked by the run itself (unmatched_names). None reports while an error unwinds.
  if (std::uncaught_exceptions() > 0 || current_run() != created_in_) return;
  std::vector<std::string> unmatched;
  unmatched_names(created_in_, unmatched);
  if (!unmatched.empty()) report_unmatched(std::move(unmatched));
}

void NamedValues::unmatched_names(std::uint64_t run, std::vector<std::string>& out) const {
  if (enclosing_run(created_in_)) return;  // made inside an outer run's program: that run checks it
  std::size_t i = 0;
  for (const auto& entry : values_) {
    if (met_[i++] < run) out.push_back(std::string(handler_) + " '" + entry.first + "'");
  }
}

bool NamedValues::meets(const Message& m) {
  auto it = values_.find(m.name);
  if (it == values_.end()) return false;
  met_[std::size_t(std::distance(values_.begin(), it))] = current_run();
  return true;
}

const Tensor* NamedValues::find(const Message& m) {
  if (!meets(m)) return nullptr;
  auto it = values_.find(m.name);
  const Shape expected = m.distribution->sample_full_shape(m.sample_shape);
  VARIATE_CHECK(broadcasts(it->second.shape(), expected), handler_, "the value for site '", m.name, "' has shape ",
                it->second.shape(), ", which does not broadcast with the site's shape ", expected, " (",
                m.distribution->name(), ")");
  return &it->second;
}

void Substitute::process(Message& m) {
  const Tensor* v = find(m);
  if (v != nullptr && !m.value.defined()) m.value = *v;
}

Condition::Condition(Values data) : NamedValues("Condition", std::move(data)) {
  for (const auto& [name, value] : values()) {
    const Tensor v = prim::cast(value, DType::f64);
    const double total = prim::sum(prim::unary(UnaryOp::abs, v)).item();
    if (!std::isfinite(total)) {
      const double* p = v.data<double>();
      for (std::int64_t i = 0; i < v.numel(); ++i)
        VARIATE_CHECK(std::isfinite(p[i]), "Condition", "the data for site '", name, "' has the non-finite value ",
                      p[i], " at index ", i, " of shape ", value.shape(), "; data must be finite");
    }
  }
}

namespace {
thread_local int t_unconditioned = 0;  // live Uncondition scopes on this thread
}  // namespace

Uncondition::Uncondition() { ++t_unconditioned; }
Uncondition::~Uncondition() { --t_unconditioned; }

void Condition::process(Message& m) {
  const Tensor* v = find(m);
  if (v == nullptr || m.value.defined() || t_unconditioned > 0) return;
  m.value = autodiff::stop_gradient(*v);
  m.observed = true;
}

namespace {
Values placeholders(const std::set<std::string, std::less<>>& names) {
  Values out;
  for (const auto& n : names) out.emplace(n, Tensor::scalar(0.0));
  return out;
}
}  // namespace

Enumerate::Enumerate(const std::set<std::string, std::less<>>& names) : NamedValues("Enumerate", placeholders(names)) {}

void Enumerate::process(Message& m) {
  if (meets(m)) m.enumerate = true;
}

void Intervene::process(Message& m) {
  if (const Tensor* v = find(m)) {
    m.value = *v;
    m.intervened = true;
  }
}

Scale::Scale(double factor) : factor_(factor) {
  VARIATE_CHECK(std::isfinite(factor) && factor > 0, "Scale", "the factor must be positive and finite, got ", factor);
}

void Block::process(Message& m) {
  const bool listed = names_.count(m.name) > 0;
  m.stop = mode_ == Mode::all || (mode_ == Mode::hide && listed) || (mode_ == Mode::expose && !listed);
}

void Trace::postprocess(const Message& m) {
  sites_.push_back({m.name, m.distribution, m.sample_shape, m.value, m.observed, m.intervened, m.deterministic,
                    m.enumerate, m.scale});
}

const Site& Trace::site(std::string_view name) const {
  for (const Site& s : sites_)
    if (s.name == name) return s;
  std::string known;
  for (const Site& s : sites_) known += (known.empty() ? "" : ", ") + s.name;
  detail::fail("Trace", ": no site named '", name, "'; the recorded sites are: ", known.empty() ? "(none)" : known);
}

LogJoint::LogJoint(int batch_ndims, SiteRanks unbatched, bool keep_terms)
    : batch_ndims_(batch_ndims),
      unbatched_(std::move(unbatched)),
      keep_terms_(keep_terms),
      rules_(make_log_joint_rules()) {
  VARIATE_CHECK(batch_ndims >= 0, "LogJoint", "batch_ndims must be >= 0, got ", batch_ndims);
}

LogJoint::LogJoint(LeadingDims keep, bool keep_terms) : LogJoint(0, {}, keep_terms) {
  VARIATE_CHECK(keep.ndims >= 0, "LogJoint", "the leading dims kept must be >= 0, got ", keep.ndims);
  leading_ndims_ = keep.ndims;
}

void LogJoint::process(Message& m) {
  if (rules_) rules_->process(m);
  if (m.enumerate && !m.value.defined()) enumerate(m);
}

void LogJoint::postprocess(const Message& m) {
  if (rules_) rules_->postprocess(m);
  if (m.intervened || m.deterministic) return;
  Tensor lp;
  try {
    lp = m.distribution->local_log_prob(m.value);
  } catch (const Error& e) {
    rethrow_naming_site(m.name, e);
  }
  // A term that depends on enumerated sites has their values as more leading dims.
  if (!enumerated_.empty()) {
    auto it = unbatched_.find(m.name);
    VARIATE_CHECK(it != unbatched_.end(), "LogJoint", "site '", m.name,
                  "': with an enumerated site, the log joint needs each site's rank in an unbatched run "
                  "(make_log_joint and inference::Unconstrained provide them)");
    if (lp.rank() > batch_ndims_ + it->second) return add_enumerated_term(m, lp, it->second);
  }
  int keep = 0;
  if (leading_ndims_ > 0) {
    VARIATE_CHECK(lp.rank() >= leading_ndims_, "LogJoint", "the log density of site '", m.name, "' has shape ",
                  lp.shape(), "; every site needs the ", leading_ndims_, " leading dims of the data points");
    keep = leading_ndims_;
  } else if (batch_ndims_ > 0) {
    auto it = unbatched_.find(m.name);
    VARIATE_CHECK(it != unbatched_.end(), "LogJoint", "site '", m.name, "' did not occur in the unbatched run");
    const int extra = lp.rank() - it->second;
    VARIATE_CHECK(extra == 0 || extra == batch_ndims_, "LogJoint", "the log density of site '", m.name, "' has ", extra,
                  " dims more than in an unbatched run; expected 0 or the ", batch_ndims_,
                  " batch dims (write the model with right-aligned broadcasting)");
    keep = extra;
  }
  Tensor term = sum_site_terms(lp, keep);
  if (m.scale != 1.0) term = term * m.scale;
  // The change of variables is not part of the likelihood: unscaled.
  if (m.log_jacobian.defined()) term = term + m.log_jacobian;
  if (keep_terms_) terms_.push_back({m.name, term});
  add_term(m, term);
}

void LogJoint::add_term(const Message& m, const Tensor& term) {
  if (rules_) return rules_->add(m, term);
  total_ = total_.defined() ? total_ + term : term;
}

void LogJoint::enumerate(Message& m) {
  VARIATE_CHECK(leading_ndims_ == 0, "Enumerate", "site '", m.name,
                "': a log joint kept per data point (LogJoint::LeadingDims) cannot enumerate a site");
  VARIATE_CHECK(m.scale == 1.0, "Enumerate", "site '", m.name, "': a scaled (minibatch) site cannot be enumerated");
  const Constraint support = m.distribution->support();
  double low = 0, high = 1;
  if (support.kind == Constraint::Kind::integer_interval) {
    // Bounds that vary over the batch: every value up to the largest, the others get -inf.
    low = -prim::max(prim::neg(prim::cast(support.low, DType::f64))).item();
    high = prim::max(prim::cast(support.high, DType::f64)).item();
  } else {
    VARIATE_CHECK(support.kind == Constraint::Kind::boolean, "Enumerate", "site '", m.name, "' (",
                  m.distribution->name(), ") has the ", support.str(),
                  " support; only finite supports (boolean, integer_interval) can be enumerated");
  }
  const double count = high - low + 1;
  VARIATE_CHECK(count >= 1 && count <= 1e6, "Enumerate", "site '", m.name, "' has ", count,
                " values; enumeration takes 1 to 1e6");
  // The values along a new dim, left of the earlier enumerated sites' dims, the batch dims and the
  // site's own dims S.
  const Shape full = m.distribution->sample_full_shape(m.sample_shape);
  const auto earlier = std::int64_t(enumerated_.size());
  auto it = unbatched_.find(m.name);
  VARIATE_CHECK(it != unbatched_.end() || earlier == 0, "Enumerate", "site '", m.name,
                "': with more than one enumerated site, the log joint needs each site's rank in an unbatched run "
                "(make_log_joint and inference::Unconstrained provide them)");
  const int rank = it != unbatched_.end() ? it->second : full.rank() - batch_ndims_;
  VARIATE_CHECK(rank <= full.rank(), "Enumerate", "site '", m.name, "' has shape ", full,
                ", fewer dims than in an unbatched run");
  VARIATE_CHECK(1 + earlier + batch_ndims_ + rank <= kMaxRank, "Enumerate", "site '", m.name,
                "' is enumerated site number ", earlier + 1, ", and its values need ",
                1 + earlier + batch_ndims_ + rank,
                " dims (one per enumerated site, the batch's and its own); tensors have at most ", kMaxRank,
                " (reusing the dims of a chain's earlier sites, as Pyro's markov does, is not supported)");
  Shape shape{std::int64_t(count)};
  for (std::int64_t i = 0; i < earlier + batch_ndims_ + rank; ++i) shape.push_back(1);
  const Tensor values = prim::binary(BinaryOp::add, prim::cast(Tensor::arange(std::int64_t(count)), DType::f64), low);
  m.value = prim::cast(values, m.distribution->dtype()).view(shape);
  enumerated_.push_back({m.name, values, Shape(full.dims().subspan(std::size_t(full.rank() - rank)))});
}

bool LogJoint::depends(const Factor& f, std::size_t site) const {
  const int dims = f.enumeration_ndims(batch_ndims_);
  return int(site) < dims && f.log_value.dim(dims - 1 - int(site)) > 1;
}

void LogJoint::add_enumerated_term(const Message& m, const Tensor& lp, int own_ndims) {
  const Factor factor{lp, own_ndims};
  const int dims = factor.enumeration_ndims(batch_ndims_);
  VARIATE_CHECK(dims <= int(enumerated_.size()), "Enumerate", "site '", m.name, "': its log density has shape ",
                lp.shape(), ", ", dims, " dims more than the batch and its own ", own_ndims, ", but only ",
                enumerated_.size(), " sites are enumerated");
  for (std::size_t j = 0; j < enumerated_.size(); ++j) {
    if (!depends(factor, j)) continue;
    const EnumeratedSite& site = enumerated_[j];
    VARIATE_CHECK(m.scale == 1.0, "Enumerate", "site '", m.name, "' depends on the enumerated site '", site.name,
                  "' and is scaled (minibatch); scaling inside the sum over its values is not supported");
    const int rank = site.shape.rank();
    if (rank == 0) continue;  // a scalar site: terms of any shape
    // Each element's term must come from its own value of the site: the site's shape S exactly (the
    // site's own prior may be the same for all, dims of 1).
    bool elementwise = own_ndims == rank;
    for (int i = 1; elementwise && i <= rank; ++i) {
      const std::int64_t got = lp.shape()[lp.rank() - i], want = site.shape[rank - i];
      elementwise = got == want || (got == 1 && m.name == site.name);
    }
    VARIATE_CHECK(elementwise, "Enumerate", "site '", m.name, "' depends on the enumerated site '", site.name,
                  "' of shape ", site.shape, ", but its log density has shape ", lp.shape(),
                  "; a term must be elementwise in the enumerated site (one value per element of it)");
  }
  if (m.log_jacobian.defined()) {  // the change of variables is counted once, outside the sum
    VARIATE_CHECK(m.log_jacobian.rank() <= batch_ndims_, "Enumerate", "site '", m.name,
                  "': its support depends on an enumerated site, which is not supported");
    add_term(m, m.log_jacobian);
  }
  factors_.push_back(factor);
}

namespace {
Tensor sum_trailing(const Tensor& x, int ndims) {
  std::vector<int> axes;
  for (int i = x.rank() - ndims; i < x.rank(); ++i) axes.push_back(i);
  return axes.empty() ? x : sum(x, axes);
}
}  // namespace

Tensor LogJoint::joint_of(const std::vector<Factor>& factors, std::size_t site) const {
  const bool scalar = enumerated_[site].shape.rank() == 0;
  Tensor joint;
  for (const Factor& f : factors) {
    if (!depends(f, site)) continue;
    // A scalar site's terms are summed over their own dims first: one value for all their elements.
    // (A site with dims of its own has terms of exactly those dims.)
    const Tensor term = scalar ? sum_trailing(f.log_value, f.own_ndims) : f.log_value;
    joint = joint.defined() ? joint + term : term;
  }
  return joint;
}

std::vector<std::string> LogJoint::enumerated_sites() const {
  std::vector<std::string> names;
  for (const EnumeratedSite& s : enumerated_) names.push_back(s.name);
  return names;
}

Tensor LogJoint::enumerated_log_joint() const {
  VARIATE_CHECK(enumerated_.size() == 1, "LogJoint",
                "the log joint at each value of the enumerated site needs one "
                "enumerated site; the program has ",
                enumerated_.size());
  const Tensor joint = joint_of(factors_, 0);
  VARIATE_CHECK(joint.defined(), "LogJoint", "enumerated site '", enumerated_[0].name, "' has no term");
  return joint;
}

const Tensor& LogJoint::enumerated_values() const {
  VARIATE_CHECK(enumerated_.size() == 1, "LogJoint",
                "the values of the enumerated site need one enumerated site; "
                "the program has ",
                enumerated_.size());
  return enumerated_[0].values;
}

Tensor LogJoint::enumerated_marginal() const {
  VARIATE_CHECK(!factors_.empty(), "LogJoint", "no term depends on the enumerated sites");
  // Sites with dims of their own first (their terms are elementwise, so each element is summed on
  // its own), then the scalar ones, the latest first: for a chain z_1 -> z_2 -> ... the backward
  // algorithm, K^2 per step rather than K^T.
  std::vector<std::size_t> order(enumerated_.size());
  for (std::size_t j = 0; j < order.size(); ++j) order[j] = order.size() - 1 - j;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return enumerated_[a].shape.rank() > enumerated_[b].shape.rank();
  });
  std::vector<Factor> factors = factors_;
  for (std::size_t site : order) {
    const Tensor joint = joint_of(factors, site);
    if (!joint.defined()) continue;  // one value only
    std::vector<Factor> rest;
    for (const Factor& f : factors)
      if (!depends(f, site)) rest.push_back(f);
    const int own = enumerated_[site].shape.rank();
    const int axis[] = {joint.rank() - batch_ndims_ - own - 1 - int(site)};
    rest.push_back({logsumexp(joint, axis, /*keepdims=*/true), own});
    factors = std::move(rest);
  }
  // What is left has dims of 1 for every site.
  Tensor total;
  for (const Factor& f : factors) {
    const std::vector<std::int64_t> dims(f.log_value.shape().dims().begin() + f.enumeration_ndims(batch_ndims_),
                                         f.log_value.shape().dims().end());
    const Tensor term = sum_site_terms(reshape(f.log_value, dims), batch_ndims_);
    total = total.defined() ? total + term : term;
  }
  return total;
}

Tensor LogJoint::value() const {
  const Tensor sum = rules_ ? rules_->total() : total_;
  if (!enumerated_.empty()) return sum.defined() ? enumerated_marginal() + sum : enumerated_marginal();
  return sum.defined() ? sum : Tensor::scalar(0.0);
}

}  // namespace variate::tracing
