#include "variate/inference/target.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "variate/autodiff/transforms.hpp"
#include "variate/distribute/deferred_psum.hpp"
#include "variate/distribute/local_program.hpp"
#include "variate/tensor/replay.hpp"

namespace variate::inference {
namespace {

// One evaluation's buffers and, once recorded, its kernel replay (tensor/replay.hpp). A sampler's
// thread takes one for its batch size, so chains on different threads never share one.
struct Evaluation {
  std::int64_t batch = 0;
  Tensor positions, log_density, gradient;  // (batch, dimension) f64 in; f64 out
  std::unique_ptr<KernelReplay> replay;
};

// The recorded evaluations, and whether recording is still worth trying. A thread claims a free
// one of its batch size with one atomic exchange: a mutex here was contended by every gradient of
// every threaded chain.
class EvaluationPool {
 public:
  struct alignas(64) Slot {  // one cache line each, so that claiming one does not disturb the others
    std::atomic<bool> ready{false}, busy{false};
    std::unique_ptr<Evaluation> evaluation;
    std::atomic<std::int64_t> replays{0};  // written by the thread holding the slot only
  };

  // Starts from the slot this thread took last, which is usually free: threads then touch only
  // their own slots' cache lines, and a claim costs one uncontended exchange.
  Slot* take(std::int64_t batch) {
    static thread_local int last = 0;
    const int n = std::min(used_.load(std::memory_order_acquire), kSlots);
    for (int k = 0; k < n; ++k) {
      const int i = (last + k) % n;
      Slot& s = slots_[std::size_t(i)];
      if (!s.ready.load(std::memory_order_acquire) || s.evaluation->batch != batch) continue;
      if (!s.busy.load(std::memory_order_relaxed) && !s.busy.exchange(true, std::memory_order_acquire)) {
        last = i;
        return &s;
      }
    }
    return nullptr;
  }
  std::int64_t replays() const {
    std::int64_t total = 0;
    for (const Slot& s : slots_) total += s.replays.load(std::memory_order_relaxed);
    return total;
  }
  void give_back(Slot* s) { s->busy.store(false, std::memory_order_release); }
  /// Keeps a new evaluation, free for any thread (dropped if every slot is taken).
  void add(std::unique_ptr<Evaluation> e) {
    const int i = used_.fetch_add(1, std::memory_order_acq_rel);
    if (i >= kSlots) return;
    Slot& s = slots_[std::size_t(i)];
    s.evaluation = std::move(e);
    s.ready.store(true, std::memory_order_release);
  }
  // A computation that cannot be replayed once (it reads its own values on the host, ...) is not
  // recorded again. One that threw while recording (an initial point outside the support) may be.
  bool should_record() const { return enabled_ && !unreplayable_ && used_.load() < kSlots; }
  void mark_unreplayable() { unreplayable_ = true; }
  /// Whether a batch of this size still has to be checked against its states alone.
  bool unchecked(std::int64_t batch) {
    std::lock_guard lock(checked_mutex_);
    return std::find(checked_.begin(), checked_.end(), batch) == checked_.end();
  }
  void mark_checked(std::int64_t batch) {
    std::lock_guard lock(checked_mutex_);
    checked_.push_back(batch);
  }

 private:
  static constexpr int kSlots = 64;  // threads x batch sizes in use at once
  std::array<Slot, kSlots> slots_;
  std::atomic<int> used_{0};
  // VARIATE_REPLAY=0 evaluates every call through the tracers (to measure what replay saves).
  const bool enabled_ = [] {
    const char* v = std::getenv("VARIATE_REPLAY");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  std::atomic<bool> unreplayable_{false};
  std::mutex checked_mutex_;
  std::vector<std::int64_t> checked_;  // batch sizes whose terms matched their states' own
};

}  // namespace

Target make_target(Unconstrained unconstrained, DType dtype, Jacobian jacobian) {
  VARIATE_CHECK(dtype == DType::f64 || dtype == DType::f32, "make_target", "expected dtype f64 or f32, got ",
                name(dtype));
  Target target;
  target.dimension = unconstrained.dimension();
  target.shard_axis = unconstrained.shard_axis();
  target.replicated_dimension = unconstrained.replicated_dimension();
  auto pool = std::make_shared<EvaluationPool>();
  target.replayed_calls = [pool] { return pool->replays(); };
  auto space = std::make_shared<const Unconstrained>(std::move(unconstrained));
  target.evaluate = [space, dtype, jacobian, d = space->dimension(), pool](
                        std::span<const double> positions, std::int64_t batch, std::span<double> log_density,
                        std::span<double> gradient) {
    VARIATE_CHECK(batch >= 1 && std::int64_t(positions.size()) == batch * d &&
                      std::int64_t(log_density.size()) == batch && gradient.size() == positions.size(),
                  "Target::evaluate", "expected ", batch, " positions of dimension ", d, ", got ", positions.size(),
                  " numbers, ", log_density.size(), " log densities and ", gradient.size(), " gradient entries");
    EvaluationPool::Slot* slot = pool->take(batch);
    if (slot != nullptr) {
      Evaluation& e = *slot->evaluation;
      std::copy(positions.begin(), positions.end(), e.positions.data<double>());
      bool replayed = false;
      try {
        replayed = e.replay->run();
      } catch (...) {  // a host_check failed, as the evaluation's own check would have
        pool->give_back(slot);
        throw;
      }
      if (replayed) {
        // Read through const handles: the mutable data() would count a write.
        std::copy_n(std::as_const(e.log_density).data<double>(), batch, log_density.data());
        std::copy_n(std::as_const(e.gradient).data<double>(), batch * d, gradient.data());
        // Only the holder writes the count, so a plain store suffices (no locked read-modify-write).
        slot->replays.store(slot->replays.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      }
      pool->give_back(slot);
      if (replayed) return;
      // The computation took another path at these values: evaluate it normally.
    }
    // A single position stays rank 1, so the model sees no batch dimension at all.
    const Shape shape = batch == 1 ? Shape{d} : Shape{batch, d};
    const Tensor input = Tensor::from(positions, shape);
    // A model that does not broadcast a leading chain dim can still run on a batch whose size
    // matches one of its own dims (8 chains of eight schools), with the chains mixed up.
    if (batch > 1 && pool->unchecked(batch)) {
      const std::string error = space->find_batching_error(prim::cast(input, dtype));
      VARIATE_CHECK(error.empty(), "make_target", "vectorized states: ", error);
      pool->mark_checked(batch);
    }
    std::optional<KernelRecorder> recorder;
    if (slot == nullptr && pool->should_record()) recorder.emplace(input);
    // On a mesh device the log density and the gradient are summed over the devices in one
    // collective (distribute/deferred_psum.hpp).
    const std::string* axis = distribute::program_axis();
    std::optional<distribute::DeferredPsumScope> deferred;
    if (axis != nullptr) deferred.emplace();
    auto result = vjp([&space, jacobian](const Tensor& x) { return space->log_density(x, jacobian); },
                      Tensor::ones(batch == 1 ? Shape{} : Shape{batch}, dtype), prim::cast(input, dtype));
    deferred.reset();
    if (axis != nullptr)
      std::tie(result.value, result.grads[0]) =
          distribute::psum_value_and_gradient(result.value, result.grads[0], space->replicated_dimension(), *axis);
    const Tensor lp = prim::cast(result.value, DType::f64);
    const Tensor g = prim::cast(result.grads[0], DType::f64);
    std::unique_ptr<KernelReplay> replay = recorder ? recorder->finish({lp, g}) : nullptr;
    std::copy_n(lp.data<double>(), batch, log_density.data());
    std::copy_n(g.data<double>(), batch * d, gradient.data());
    if (replay != nullptr) {  // once added, another thread may replay into lp and g
      pool->add(std::make_unique<Evaluation>(Evaluation{batch, input, lp, g, std::move(replay)}));
    } else if (recorder) {
      pool->mark_unreplayable();
    }
  };
  return target;
}

}  // namespace variate::inference
