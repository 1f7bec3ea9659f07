#include "variate/tracing/tracer.hpp"

#include <algorithm>
#include <map>
#include <vector>

namespace variate::tracing {
namespace {

// Per thread: the tracer stack, and the counters for generated site names of the current program
// run (reset when the first tracer is pushed and when a transformation starts a run).
struct ThreadState {
  std::vector<Tracer*> stack;
  std::map<std::string, int, std::less<>> generated;
};
thread_local ThreadState state;

}  // namespace

Tracer::Tracer() {
  if (state.stack.empty()) state.generated.clear();
  state.stack.push_back(this);
}

Tracer::~Tracer() {
  // Scopes nest, so this tracer is the innermost one.
  auto it = std::find(state.stack.rbegin(), state.stack.rend(), this);
  if (it != state.stack.rend()) state.stack.erase(std::next(it).base());
}

bool tracing_active() { return !state.stack.empty(); }

ProgramRun::ProgramRun() : saved_(std::move(state.generated)) { state.generated.clear(); }
ProgramRun::~ProgramRun() { state.generated = std::move(saved_); }

std::string generated_site_name(const char* family) {
  const int n = state.generated[family]++;
  return n == 0 ? std::string(family) : std::string(family) + "_" + std::to_string(n);
}

void apply_stack(Message& m) {
  // process: innermost first; past a Block only the tracers that see hidden sites (Seed).
  std::size_t reached = 0;  // how many tracers (from the innermost) saw the message unhidden
  for (auto it = state.stack.rbegin(); it != state.stack.rend(); ++it) {
    if (m.stop) {
      if ((*it)->sees_blocked_sites()) (*it)->process(m);
      continue;
    }
    ++reached;
    (*it)->process(m);
  }
  if (!m.value.defined()) {
    VARIATE_CHECK(m.key.has_value(), "RandomVariable",
                  "site '", m.name, "' has no value and no random key: run the program under tracing::Seed(key), "
                  "or supply the value (Substitute, Condition, make_log_joint)");
    m.value = m.distribution->sample(*m.key, m.sample_shape);
  }
  // postprocess: from the outermost tracer that saw the message inwards.
  const std::size_t first = state.stack.size() - reached;
  for (std::size_t i = first; i < state.stack.size(); ++i) state.stack[i]->postprocess(m);
}

}  // namespace variate::tracing
