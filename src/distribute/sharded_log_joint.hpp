#pragma once
// The log joint of a model split over the devices of a mesh (DESIGN.md layer 6), as rules that
// tracing::LogJoint follows (tracing/log_joint_rules.hpp). sharded.cpp registers them, so that they
// are linked in exactly when a program can have sharded sites.
#include <memory>

#include "variate/tracing/log_joint_rules.hpp"

namespace variate::distribute::detail {

/// The rules for a LogJoint made on the calling thread, inside a mesh run or not.
std::unique_ptr<tracing::LogJointRules> sharded_log_joint_rules();

}  // namespace variate::distribute::detail
