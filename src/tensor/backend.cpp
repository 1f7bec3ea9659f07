// Which backend runs a device's kernels: the device's own, or, while this thread records kernels
// for a replay (tensor/replay.hpp), the recording backend in front of it.
#include "variate/tensor/backend.hpp"

#include "tensor/cpu/cpu_backend.hpp"
#include "tensor/cpu/cpu_binder.hpp"
#include "tensor/kernel_binder.hpp"

namespace variate {
namespace detail {

Backend* recording_backend();  // tensor/replay.cpp

const KernelBinder* kernel_binder(Device device) {
  static const cpu::CpuBinder cpu_binder;
  return device.kind == DeviceKind::cpu ? &cpu_binder : nullptr;
}

}  // namespace detail

Backend& backend(Device device) {
  if (detail::t_recording != nullptr) [[unlikely]]
    if (Backend* b = detail::recording_backend()) return *b;
  // Never destroyed: tensors owned by static objects are released during exit, after function-local
  // statics constructed later than them would already be gone.
  static cpu::CpuBackend* const cpu_backend = new cpu::CpuBackend;
  VARIATE_CHECK(device.kind == DeviceKind::cpu, "backend", "no backend for device ", device,
                " in this build (only cpu)");
  return *cpu_backend;
}

}  // namespace variate
