#include "variate/tracing/random_variable.hpp"

#include <vector>

namespace variate {

RandomVariable::RandomVariable(DistributionPtr distribution, std::string name, Shape sample_shape)
    : distribution_(std::move(distribution)), sample_shape_(sample_shape) {
  VARIATE_CHECK(distribution_ != nullptr, "RandomVariable", "the distribution of site '", name, "' is null");
  name_ = name.empty() ? tracing::generated_site_name(distribution_->name()) : std::move(name);
  tracing::Message m;
  m.name = name_;
  m.distribution = distribution_;
  m.sample_shape = sample_shape_;
  tracing::apply_stack(m);
  value_ = std::move(m.value);
}

RandomVariable::RandomVariable(DistributionPtr distribution, std::string name, Tensor value, GivenValue role)
    : distribution_(std::move(distribution)) {
  VARIATE_CHECK(distribution_ != nullptr, "RandomVariable", "the distribution of site '", name, "' is null");
  VARIATE_CHECK(value.defined(), "RandomVariable", "the value given for site '", name, "' is undefined");
  name_ = name.empty() ? tracing::generated_site_name(distribution_->name()) : std::move(name);
  tracing::Message m;
  m.name = name_;
  m.distribution = distribution_;
  m.value = std::move(value);
  m.observed = role == GivenValue::observed;
  m.deterministic = role == GivenValue::deterministic;
  tracing::apply_stack(m);
  value_ = std::move(m.value);
}

Tensor RandomVariable::log_prob() const { return tracing::sum_site_terms(distribution_->log_prob(value_)); }

namespace tracing {

Tensor sum_site_terms(const Tensor& lp, int keep) {
  if (lp.rank() <= keep) return lp;
  std::vector<int> axes;
  for (int i = keep; i < lp.rank(); ++i) axes.push_back(i);
  return sum(lp, axes);
}

}  // namespace tracing
}  // namespace variate
