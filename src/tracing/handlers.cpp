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
  // A term that depends on the enumerated site has its values as one more, leading dim.
  if (!enumerated_.empty()) {
    auto it = unbatched_.find(m.name);
    VARIATE_CHECK(it != unbatched_.end(), "LogJoint", "site '", m.name,
                  "': with an enumerated site, the log joint needs each site's rank in an unbatched run "
                  "(make_log_joint and inference::Unconstrained provide them)");
    if (lp.rank() == 1 + batch_ndims_ + it->second) return add_enumerated_term(m, lp);
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
  VARIATE_CHECK(enumerated_.empty(), "Enumerate", "site '", m.name, "': site '", enumerated_,
                "' is enumerated already; one enumerated site per program is supported");
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
  // The values along a new leading dim, left of the batch dims and the site's own dims S.
  const Shape full = m.distribution->sample_full_shape(m.sample_shape);
  auto it = unbatched_.find(m.name);
  enumerated_rank_ = it != unbatched_.end() ? it->second : full.rank() - batch_ndims_;
  VARIATE_CHECK(enumerated_rank_ <= full.rank(), "Enumerate", "site '", m.name, "' has shape ", full,
                ", fewer dims than in an unbatched run");
  enumerated_shape_ = Shape(full.dims().subspan(std::size_t(full.rank() - enumerated_rank_)));
  Shape shape{std::int64_t(count)};
  for (int i = 0; i < batch_ndims_ + enumerated_rank_; ++i) shape.push_back(1);
  enumerated_values_ = prim::binary(BinaryOp::add, prim::cast(Tensor::arange(std::int64_t(count)), DType::f64), low);
  m.value = prim::cast(enumerated_values_, m.distribution->dtype()).view(shape);
  enumerated_ = m.name;
}

void LogJoint::add_enumerated_term(const Message& m, const Tensor& lp) {
  VARIATE_CHECK(m.scale == 1.0, "Enumerate", "site '", m.name, "' depends on the enumerated site '", enumerated_,
                "' and is scaled (minibatch); scaling inside the sum over its values is not supported");
  const int own = lp.rank() - 1 - batch_ndims_;  // the term's dims beyond the values and the batch
  Tensor term = lp;
  if (enumerated_rank_ == 0) {
    term = sum_site_terms(lp, 1 + batch_ndims_);
  } else {
    // Each element's term must come from its own value of the site: the site's shape S exactly (the
    // site's own prior may be the same for all, dims of 1).
    bool elementwise = own == enumerated_rank_;
    for (int i = 1; elementwise && i <= enumerated_rank_; ++i) {
      const std::int64_t got = lp.shape()[lp.rank() - i], want = enumerated_shape_[enumerated_shape_.rank() - i];
      elementwise = got == want || (got == 1 && m.name == enumerated_);
    }
    VARIATE_CHECK(elementwise, "Enumerate", "site '", m.name, "' depends on the enumerated site '", enumerated_,
                  "' of shape ", enumerated_shape_, ", but its log density has shape ", lp.shape(),
                  "; a term must be elementwise in the enumerated site (one value per element of it)");
  }
  if (m.log_jacobian.defined()) {  // the change of variables is counted once, outside the sum
    VARIATE_CHECK(m.log_jacobian.rank() <= batch_ndims_, "Enumerate", "site '", m.name,
                  "': its support depends on the enumerated site '", enumerated_, "', which is not supported");
    add_term(m, m.log_jacobian);
  }
  enumerated_total_ = enumerated_total_.defined() ? enumerated_total_ + term : term;
}

Tensor LogJoint::enumerated_marginal() const {
  VARIATE_CHECK(enumerated_total_.defined(), "LogJoint", "enumerated site '", enumerated_, "' has no term");
  // log sum_k exp(total_k) for each element of the site, then the sum over those elements.
  return sum_site_terms(logsumexp(enumerated_total_, std::vector<int>{0}), batch_ndims_);
}

Tensor LogJoint::value() const {
  const Tensor sum = rules_ ? rules_->total() : total_;
  if (!enumerated_.empty()) return sum.defined() ? enumerated_marginal() + sum : enumerated_marginal();
  return sum.defined() ? sum : Tensor::scalar(0.0);
}

}  // namespace variate::tracing
