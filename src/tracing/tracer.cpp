#include "variate/tracing/tracer.hpp"

#include <algorithm>
#include <map>
#include <vector>

namespace variate::tracing {
namespace {

// Per thread: the tracer stack and the current program run: its counters for generated site
// names, the site names made so far, the unmatched names reported by named-value tracers that
// ended inside it, and its id (reset when the first tracer is pushed and when a transformation
// starts a run).
struct ThreadState {
  std::vector<Tracer*> stack;
  std::map<std::string, int, std::less<>> generated;
  std::vector<std::string> sites, unmatched;
  std::uint64_t run = 0, next_run = 1;
  std::vector<std::uint64_t> open_runs;  // the ProgramRun scopes alive, outermost first
};
thread_local ThreadState state;

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "(none)" : out;
}

}  // namespace

Tracer::Tracer() {
  if (state.stack.empty()) {
    state.generated.clear();
    state.sites.clear();
    state.unmatched.clear();
    state.run = state.next_run++;
  }
  state.stack.push_back(this);
}

Tracer::~Tracer() {
  // Scopes nest, so this tracer is the innermost one.
  auto it = std::find(state.stack.rbegin(), state.stack.rend(), this);
  if (it != state.stack.rend()) state.stack.erase(std::next(it).base());
}

ProgramRun::ProgramRun() {
  saved_.generated = std::move(state.generated);
  saved_.sites = std::move(state.sites);
  saved_.unmatched = std::move(state.unmatched);
  saved_.id = state.run;
  state.generated.clear();
  state.sites.clear();
  state.unmatched.clear();
  state.run = state.next_run++;
  state.open_runs.push_back(state.run);
}

ProgramRun::~ProgramRun() {
  state.open_runs.pop_back();
  state.generated = std::move(saved_.generated);
  state.sites = std::move(saved_.sites);
  state.unmatched = std::move(saved_.unmatched);
  state.run = saved_.id;
}

void ProgramRun::check_names_matched() const {
  std::vector<std::string> unmatched = state.unmatched;
  for (const Tracer* t : state.stack) t->unmatched_names(state.run, unmatched);
  if (unmatched.empty()) return;
  detail::fail("program: ", join(unmatched), unmatched.size() == 1 ? " names no site" : " name no site",
               " of the program; its sites are: ", join(state.sites));
}

std::uint64_t current_run() { return state.run; }

bool enclosing_run(std::uint64_t run) {
  return run != state.run && std::find(state.open_runs.begin(), state.open_runs.end(), run) != state.open_runs.end();
}

void report_unmatched(std::vector<std::string> names) {
  for (auto& n : names) state.unmatched.push_back(std::move(n));
}

void rethrow_naming_site(std::string_view site, const Error& e) {
  const std::string_view what = e.what();
  if (what.rfind("site '", 0) == 0) throw e;
  throw Error("site '" + std::string(site) + "': " + std::string(what));
}

std::string generated_site_name(const char* family) {
  const int n = state.generated[family]++;
  return n == 0 ? std::string(family) : std::string(family) + "_" + std::to_string(n);
}

void apply_stack(Message& m) {
  // Checked here, not by a tracer, so that no combination of tracers lets a name through twice.
  VARIATE_CHECK(std::find(state.sites.begin(), state.sites.end(), m.name) == state.sites.end(), "RandomVariable",
                "the site name '", m.name,
                "' occurs twice in one program run; site names must be unique (give each its own name)");
  state.sites.push_back(m.name);
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
    VARIATE_CHECK(m.key.has_value(), "RandomVariable", "site '", m.name,
                  "' has no value and no random key: run the program under a Seed (write "
                  "`tracing::Seed seed{random::Key(n)};` with braces: `Seed seed(random::Key(n));` declares a "
                  "function), or supply the value (Substitute, Condition, make_log_joint)");
    try {
      m.value = m.distribution->sample(*m.key, m.sample_shape);
    } catch (const Error& e) {
      rethrow_naming_site(m.name, e);
    }
  }
  // postprocess: from the outermost tracer that saw the message inwards.
  const std::size_t first = state.stack.size() - reached;
  for (std::size_t i = first; i < state.stack.size(); ++i) state.stack[i]->postprocess(m);
}

}  // namespace variate::tracing
