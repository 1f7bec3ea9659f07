#include "variate/inference/target.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>

#include "variate/autodiff/transforms.hpp"
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

// The evaluations not in use, and whether recording is still worth trying.
class EvaluationPool {
 public:
  std::unique_ptr<Evaluation> take(std::int64_t batch) {
    std::lock_guard lock(mutex_);
    for (auto it = idle_.begin(); it != idle_.end(); ++it)
      if ((*it)->batch == batch) {
        auto e = std::move(*it);
        idle_.erase(it);
        return e;
      }
    return nullptr;
  }
  void give_back(std::unique_ptr<Evaluation> e) {
    std::lock_guard lock(mutex_);
    idle_.push_back(std::move(e));
  }
  // A computation that cannot be replayed once (it reads its own values on the host, ...) is not
  // recorded again. One that threw while recording (an initial point outside the support) may be.
  bool should_record() const { return enabled_ && !unreplayable_; }
  void mark_unreplayable() { unreplayable_ = true; }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<Evaluation>> idle_;
  // VARIATE_REPLAY=0 evaluates every call through the tracers (to measure what replay saves).
  const bool enabled_ = [] {
    const char* v = std::getenv("VARIATE_REPLAY");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  std::atomic<bool> unreplayable_{false};
};

}  // namespace

Target make_target(const Unconstrained& space, DType dtype) {
  VARIATE_CHECK(dtype == DType::f64 || dtype == DType::f32, "make_target", "expected dtype f64 or f32, got ",
                name(dtype));
  Target target;
  target.dimension = space.dimension();
  target.shard_axis = space.shard_axis();
  target.replicated_dimension = space.replicated_dimension();
  auto pool = std::make_shared<EvaluationPool>();
  target.evaluate = [&space, dtype, d = space.dimension(), pool](std::span<const double> positions, std::int64_t batch,
                                                                 std::span<double> log_density,
                                                                 std::span<double> gradient) {
    VARIATE_CHECK(batch >= 1 && std::int64_t(positions.size()) == batch * d &&
                      std::int64_t(log_density.size()) == batch && gradient.size() == positions.size(),
                  "Target::evaluate", "expected ", batch, " positions of dimension ", d, ", got ", positions.size(),
                  " numbers, ", log_density.size(), " log densities and ", gradient.size(), " gradient entries");
    std::unique_ptr<Evaluation> e = pool->take(batch);
    if (e != nullptr) {
      std::copy(positions.begin(), positions.end(), e->positions.data<double>());
      bool replayed = false;
      try {
        replayed = e->replay->run();
      } catch (...) {  // a host_check failed, as the evaluation's own check would have
        pool->give_back(std::move(e));
        throw;
      }
      if (replayed) {
        std::copy_n(e->log_density.data<double>(), batch, log_density.data());
        std::copy_n(e->gradient.data<double>(), batch * d, gradient.data());
        pool->give_back(std::move(e));
        return;
      }
      // The computation took another path at these values: evaluate it normally.
    }
    // A single position stays rank 1, so the model sees no batch dimension at all.
    const Shape shape = batch == 1 ? Shape{d} : Shape{batch, d};
    const Tensor input = Tensor::from(positions, shape);
    std::optional<KernelRecorder> recorder;
    if (e == nullptr && pool->should_record()) recorder.emplace(input);
    auto result = vjp([&space](const Tensor& x) { return space.log_density(x); },
                      Tensor::ones(batch == 1 ? Shape{} : Shape{batch}, dtype), prim::cast(input, dtype));
    const Tensor lp = prim::cast(result.value, DType::f64);
    const Tensor g = prim::cast(result.grads[0], DType::f64);
    if (recorder) {
      std::unique_ptr<KernelReplay> replay = recorder->finish({lp, g});
      if (replay != nullptr) {
        e = std::make_unique<Evaluation>(Evaluation{batch, input, lp, g, std::move(replay)});
      } else {
        pool->mark_unreplayable();
      }
    }
    std::copy_n(lp.data<double>(), batch, log_density.data());
    std::copy_n(g.data<double>(), batch * d, gradient.data());
    if (e != nullptr) pool->give_back(std::move(e));
  };
  return target;
}

}  // namespace variate::inference
