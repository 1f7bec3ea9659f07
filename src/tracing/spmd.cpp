#include "variate/tracing/spmd.hpp"

#include <atomic>

namespace variate::tracing {
namespace {
std::atomic<const SpmdCollectives*> registered{nullptr};
}  // namespace

void register_spmd_collectives(const SpmdCollectives* collectives) { registered.store(collectives); }

SpmdContext spmd_context() {
  const SpmdCollectives* c = registered.load();
  if (c == nullptr) return {};
  return {c, c->running_axis()};
}

}  // namespace variate::tracing
