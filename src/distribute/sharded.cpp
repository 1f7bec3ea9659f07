#include "variate/distribute/sharded.hpp"

#include "distribute/sharded_log_joint.hpp"
#include "variate/distribute/collectives.hpp"
#include "variate/distribute/mesh.hpp"

namespace variate {
namespace distribute {
namespace {

// Whether a mesh with `axis` runs here; a mesh with another axis is an error naming both.
bool in_mesh(const char* op, const std::string& axis) {
  const std::string* running = running_axis();
  if (running == nullptr) return false;
  VARIATE_CHECK(*running == axis, op, "the site is sharded over axis '", axis, "', but the running mesh's axis is '",
                *running, "'");
  return true;
}

// Linked in with ShardedDistribution, i.e. exactly when a program can have sharded sites.
const bool registered = (tracing::register_log_joint_rules(&detail::sharded_log_joint_rules), true);

}  // namespace

ShardedDistribution::ShardedDistribution(DistributionPtr inner, std::string axis)
    : Distribution(inner ? inner->batch_shape() : Shape{}, inner ? inner->event_shape() : Shape{},
                   inner ? inner->dtype() : DType::f64),
      inner_(std::move(inner)),
      axis_(std::move(axis)) {
  VARIATE_CHECK(inner_ != nullptr, "Sharded", "the inner distribution is null");
  VARIATE_CHECK(!axis_.empty(), "Sharded", "the axis name is empty");
  VARIATE_CHECK(inner_->shard_axis().empty(), "Sharded", "the inner distribution (", inner_->name(),
                ") is already sharded over axis '", inner_->shard_axis(), "'");
  name_ = std::string("Sharded(") + inner_->name() + ")";
  (void)registered;
}

Tensor ShardedDistribution::sample(random::Key key, const Shape& sample_shape) const {
  if (!in_mesh("Sharded::sample", axis_)) return inner_->sample(key, sample_shape);
  return inner_->sample(random::fold_in(key, std::uint64_t(axis_index(axis_))), sample_shape);
}

Tensor ShardedDistribution::log_prob(const Tensor& value) const {
  const Tensor local = sum(local_log_prob(value));
  return in_mesh("Sharded::log_prob", axis_) ? psum(local, axis_) : local;
}

}  // namespace distribute

RandomVariable Sharded(DistributionPtr inner, std::string axis, std::string name, Shape sample_shape) {
  return RandomVariable(std::make_shared<distribute::ShardedDistribution>(std::move(inner), std::move(axis)),
                        std::move(name), sample_shape);
}

}  // namespace variate
