#include "variate/tracing/log_joint_rules.hpp"

#include <atomic>

namespace variate::tracing {
namespace {
std::atomic<LogJointRulesFactory> registered{nullptr};
}  // namespace

void register_log_joint_rules(LogJointRulesFactory factory) { registered.store(factory); }

std::unique_ptr<LogJointRules> make_log_joint_rules() {
  const LogJointRulesFactory factory = registered.load();
  return factory == nullptr ? nullptr : factory();
}

}  // namespace variate::tracing
