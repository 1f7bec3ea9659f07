#pragma once
// Tracing (layer 5): creating a random variable sends a message through a thread-local stack of
// tracers (effect handlers), innermost first. Each tracer may read or change the message: supply
// the value, mark it observed or intervened, scale it, derive its random key, stop it from reaching
// the tracers further out (block). If no tracer supplied a value, the value is drawn with the site's
// key; then the tracers see the finished message again (postprocess), outermost first, where they
// record it or add its log density.
//
// Tracers are RAII objects: constructing one pushes it, destroying it pops it, so a tracer used
// inside a model still composes with tracers that wrap the whole model (make_log_joint).
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
};

/// Runs `message` through the active tracers, drawing the value if none was supplied. Throws if the
/// site has neither a value nor a key.
void apply_stack(Message& message);

/// The name for a site created without one: "<Family>" then "<Family>_1", "<Family>_2", ... in the
/// order of creation within the current program run (deterministic across runs).
std::string generated_site_name(const char* family);

/// Marks the start of a program run: generated names count from the start again. Program
/// transformations call it; a run also starts whenever the first tracer is pushed.
void start_program_run();

/// Whether any tracer is active on this thread.
bool tracing_active();

}  // namespace variate::tracing
