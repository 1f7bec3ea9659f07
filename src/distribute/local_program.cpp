#include "variate/distribute/local_program.hpp"

#include "variate/distribute/mesh.hpp"

namespace variate::distribute {

namespace {
thread_local int local_depth = 0;
}  // namespace

LocalProgramScope::LocalProgramScope() { ++local_depth; }
LocalProgramScope::~LocalProgramScope() { --local_depth; }

const std::string* program_axis() { return local_depth > 0 ? nullptr : running_axis(); }

}  // namespace variate::distribute
