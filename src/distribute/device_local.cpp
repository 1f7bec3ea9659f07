#include "variate/distribute/device_local.hpp"

namespace variate::distribute {
namespace {
thread_local int depth = 0;
}  // namespace

DeviceLocalPrograms::DeviceLocalPrograms() { ++depth; }
DeviceLocalPrograms::~DeviceLocalPrograms() { --depth; }
bool device_local_programs() { return depth > 0; }

}  // namespace variate::distribute
