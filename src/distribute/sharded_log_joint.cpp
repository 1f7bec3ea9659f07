#include "distribute/sharded_log_joint.hpp"

#include <optional>
#include <string>
#include <string_view>

#include "distribute/sharded_program.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/core/error.hpp"
#include "variate/distribute/deferred_psum.hpp"
#include "variate/distribute/local_program.hpp"
#include "variate/distribute/mesh.hpp"

namespace variate::distribute::detail {
namespace {

// Inside a mesh run the program is one model split over the devices of the mesh's axis: a site of a
// Sharded distribution holds this device's part of its value, every other site is replicated (the
// same value on every device). The log joint is then the unsharded model's, identical on every
// device, and so is its gradient: the values of replicated sites pass through pbroadcast, so the
// gradient contributions of every device's terms are summed, and the total is
// psum(replicated terms / n + this device's sharded terms), so that a replicated term counts once.
// (Dividing by n is exact for n = 1 and costs rounding otherwise.) The value of a replicated site
// must therefore be known when the LogJoint sees the site (supplied by make_log_joint or a
// Substitute inside the LogJoint scope); a differentiable value drawn or set later is an error
// naming the site.
//
// Collectives the program calls itself give replicated values that enter it as the sites' values
// do (sharded_program.hpp).
//
// In a DeferredPsumScope (deferred_psum.hpp) the total is this device's share, unsummed.
//
// Outside a mesh run the replicated and the sharded terms are summed apart too, then added, so that
// a program gives the same log density whether or not it is split.
class ShardedLogJoint final : public tracing::LogJointRules {
 public:
  ShardedLogJoint() : axis_(program_axis()), deferred_(psum_deferred()) {
    if (axis_ != nullptr) program_.emplace();
  }

  void process(tracing::Message& m) override {
    VARIATE_CHECK(axis_ == nullptr || !m.enumerate || m.value.defined(), "Enumerate", "site '", m.name,
                  "': enumeration inside a mesh run is not supported");
    // A deterministic site's value is made of values that passed here already.
    if (axis_ == nullptr || !m.value.defined() || m.prepared || m.deterministic || is_sharded(m)) return;
    m.value = broadcast_entering_value(m.value, *axis_);
    m.prepared = true;
  }

  void postprocess(const tracing::Message& m) override {
    // A replicated value set after the LogJoint saw the site (drawn, or supplied by a tracer outside
    // it) missed pbroadcast: its gradient would lack the other devices' terms.
    VARIATE_CHECK(axis_ == nullptr || m.intervened || m.deterministic || is_sharded(m) || m.prepared ||
                      !autodiff::detail::is_tracked(m.value),
                  "LogJoint", "inside a mesh run, the value of replicated site '", m.name,
                  "' must be supplied before the log joint sees the site (by make_log_joint, or a Substitute inside "
                  "the LogJoint scope); it was drawn or set by a tracer outside it");
  }

  void add(const tracing::Message& m, const Tensor& term) override {
    Tensor& total = is_sharded(m) ? sharded_ : replicated_;
    total = total.defined() ? total + term : term;
  }

  Tensor total() const override {
    if (axis_ == nullptr) {
      if (replicated_.defined() && sharded_.defined()) return replicated_ + sharded_;
      return replicated_.defined() ? replicated_ : sharded_;
    }
    const int n = axis_size(*axis_);
    Tensor local = replicated_.defined() ? (n == 1 ? replicated_ : replicated_ * (1.0 / n)) : Tensor();
    if (sharded_.defined()) local = local.defined() ? local + sharded_ : sharded_;
    if (!local.defined()) local = Tensor::scalar(0.0);
    // Every device takes part in the psum, also one whose program had no term.
    return deferred_ ? local : psum_of_terms(local, *axis_);
  }

 private:
  const std::string* axis_;  // the running mesh's axis, null outside a mesh run or in a LocalProgramScope
  const bool deferred_;      // the caller sums the total over the devices
  std::optional<ShardedProgramScope> program_;
  Tensor replicated_, sharded_;

  bool is_sharded(const tracing::Message& m) const {
    const std::string_view axis = m.distribution->shard_axis();
    if (axis.empty()) return false;
    VARIATE_CHECK(axis_ == nullptr || axis == *axis_, "LogJoint", "site '", m.name, "' is sharded over axis '", axis,
                  "', but the running mesh's axis is '", *axis_, "'");
    return true;
  }
};

}  // namespace

std::unique_ptr<tracing::LogJointRules> sharded_log_joint_rules() { return std::make_unique<ShardedLogJoint>(); }

}  // namespace variate::distribute::detail
