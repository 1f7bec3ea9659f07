#pragma once
// Tracing (layer 5): creating a random variable sends a message through a thread-local stack of
// tracers (effect handlers), innermost first. Each tracer may read or change the message: supply
// the value, mark it observed or intervened, scale it, derive its random key, or hide it from the
// tracers further out (Block; only Seed still sees a hidden site, so that it can be drawn). If no tracer supplied a
// value, the value is drawn with the site's key; then the tracers see the finished message again (postprocess),
// outermost first, where they record it or add its log density.
//
// Tracers are RAII objects: constructing one pushes it, destroying it pops it, so a tracer used
// inside a model still composes with tracers that wrap the whole model (make_log_joint).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "variate/distributions/distribution.hpp"
#include "variate/random/key.hpp"

namespace variate::tracing {

/// What a tracer sees of one random-variable site.
struct Message {
  std::string name;
  DistributionPtr distribution;
  Shape sample_shape;
  Tensor value;                    // undefined until a tracer or the default draw sets it
  std::optional<random::Key> key;  // the site's key, when some tracer seeded it
  bool observed = false;           // the value is data (condition)
  bool intervened = false;         // do-operator: the value is fixed and has no density term
  bool deterministic = false;      // a quantity the program computes (generated quantity): no density term
  bool enumerate = false;          // summed out by LogJoint (Enumerate): no value is substituted
  double scale = 1.0;              // multiplies the site's log density (minibatching)
  bool stop = false;               // set by Block: tracers further out do not see the site
  // Set when the value was made from a point of the unconstrained space (inference): log|det J| of
  // that map, summed to the batch dims; LogJoint adds it to the site's term.
  Tensor log_jacobian;
  // The value is already as LogJoint's rules (log_joint_rules.hpp) want it: they made it so, or a
  // tracer did their work itself (inference::Unconstrained); the rules leave it alone.
  bool prepared = false;
};

/// An effect handler. Subclasses override what they need; the defaults forward untouched.
class Tracer {
 public:
  Tracer();
  virtual ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  /// Before the value is final, innermost tracer first.
  virtual void process(Message&) {}
  /// After the value is final, from the outermost tracer that saw the site inwards.
  virtual void postprocess(const Message&) {}
  /// Whether process() still runs for sites a Block further in has hidden. Only Seed says yes:
  /// keys are plumbing, so a blocked site can still be drawn.
  virtual bool sees_blocked_sites() const { return false; }
  /// Names this tracer was given (Substitute, Condition, Intervene, Enumerate) that met no site
  /// since program run `run` began; appended to `out` as "Handler 'name'".
  virtual void unmatched_names(std::uint64_t /*run*/, std::vector<std::string>& /*out*/) const {}
};

/// Runs `message` through the active tracers, drawing the value if none was supplied. Throws if the
/// site has neither a value nor a key.
void apply_stack(Message& message);

/// The name for a site created without one: "<Family>" then "<Family>_1", "<Family>_2", ... in the
/// order of creation within the current program run (deterministic across runs).
std::string generated_site_name(const char* family);

/// A program run inside a scope: generated names count from the start again, site names must be
/// unique within it, and the state of a run that encloses it (a transformation called inside a
/// traced model) is restored at scope exit. A run also starts whenever the first tracer is pushed.
class ProgramRun {
 public:
  ProgramRun();
  ~ProgramRun();
  ProgramRun(const ProgramRun&) = delete;
  ProgramRun& operator=(const ProgramRun&) = delete;

  /// Throws, listing the run's sites, if a name given to Substitute, Condition or Intervene met no
  /// site in this run: a misspelt data name would otherwise leave the site latent.
  void check_names_matched() const;

 private:
  struct State {
    std::map<std::string, int, std::less<>> generated;
    std::vector<std::string> sites, unmatched;
    std::uint64_t id = 0;
  };
  State saved_;
};

/// The id of the current program run on this thread (increasing: a run nested in another has a
/// larger id).
std::uint64_t current_run();
/// Whether `run` is a program run that encloses the current one (a transformation called inside a
/// model): its own tracers are checked by it, not by the run nested in it.
bool enclosing_run(std::uint64_t run);
/// A named-value tracer that ends inside a run reports the names it never matched here; the run's
/// check_names_matched() throws with them.
void report_unmatched(std::vector<std::string> names);

/// Rethrows `e` with "site '<site>': " in front, so that an error deep inside a density says which
/// site it came from (an error that already names a site is rethrown as it is).
[[noreturn]] void rethrow_naming_site(std::string_view site, const Error& e);

}  // namespace variate::tracing
