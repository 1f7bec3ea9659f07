#pragma once
// Tracing (layer 5): creating a random variable sends a message through a thread-local stack of
// tracers (effect handlers), innermost first. Each tracer may read or change the message: supply
// the value, mark it observed or intervened, scale it, derive its random key, or hide it from the
// tracers further out (Block; only Seed still sees a hidden site, so that it can be drawn). If no tracer supplied a value, the value is drawn with the site's
// key; then the tracers see the finished message again (postprocess), outermost first, where they
// record it or add its log density.
//
// Tracers are RAII objects: constructing one pushes it, destroying it pops it, so a tracer used
// inside a model still composes with tracers that wrap the whole model (make_log_joint).
#include <map>
#include <optional>
#include <string>

#include "variate/distributions/distribution.hpp"
#include "variate/random/key.hpp"

namespace variate::tracing {

/// What a tracer sees of one random-variable site.
struct Message {
  std::string name;
  DistributionPtr distribution;
  Shape sample_shape;
  Tensor value;                         // undefined until a tracer or the default draw sets it
  std::optional<random::Key> key;       // the site's key, when some tracer seeded it
  bool observed = false;                // the value is data (condition)
  bool intervened = false;              // do-operator: the value is fixed and has no density term
  double scale = 1.0;                   // multiplies the site's log density (minibatching)
  bool stop = false;                    // set by Block: tracers further out do not see the site
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
};

/// Runs `message` through the active tracers, drawing the value if none was supplied. Throws if the
/// site has neither a value nor a key.
void apply_stack(Message& message);

/// The name for a site created without one: "<Family>" then "<Family>_1", "<Family>_2", ... in the
/// order of creation within the current program run (deterministic across runs).
std::string generated_site_name(const char* family);

/// A program run inside a scope: generated names count from the start again, and the counters of a
/// run that encloses it (a transformation called inside a traced model) are restored at scope exit.
/// A run also starts whenever the first tracer is pushed.
class ProgramRun {
 public:
  ProgramRun();
  ~ProgramRun();
  ProgramRun(const ProgramRun&) = delete;
  ProgramRun& operator=(const ProgramRun&) = delete;

 private:
  std::map<std::string, int, std::less<>> saved_;
};

/// Whether any tracer is active on this thread.
bool tracing_active();

}  // namespace variate::tracing
