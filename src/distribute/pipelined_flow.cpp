#include "variate/distribute/pipelined_flow.hpp"

#include <algorithm>

#include "variate/core/error.hpp"
#include "variate/distribute/collectives.hpp"
#include "variate/distribute/mesh.hpp"

namespace variate::distribute {

std::vector<int> place_layers(int layers, int devices, LayerPlacement placement) {
  VARIATE_CHECK(devices >= 1, "place_layers", "needs at least 1 device, got ", devices);
  VARIATE_CHECK(devices <= layers, "place_layers", devices, " devices but ", layers,
                " flow layers; each device must hold at least one layer (use at most ", layers, " devices)");
  std::vector<int> device(static_cast<std::size_t>(layers));
  for (int k = 0; k < layers; ++k)
    device[std::size_t(k)] =
        placement == LayerPlacement::round_robin ? k % devices : int(std::int64_t(k) * devices / layers);
  return device;
}

PipelinedFlow::PipelinedFlow(std::vector<BijectorPtr> layers, std::vector<int> placement, std::string axis, int home)
    : PipelinedFlow(std::move(layers), {}, std::move(placement), std::move(axis), home) {}

PipelinedFlow::PipelinedFlow(std::vector<ConditionalBijectorPtr> layers, std::vector<int> placement, std::string axis,
                             int home)
    : PipelinedFlow({}, std::move(layers), std::move(placement), std::move(axis), home) {}

PipelinedFlow::PipelinedFlow(std::vector<BijectorPtr> layers, std::vector<ConditionalBijectorPtr> conditional_layers,
                             std::vector<int> placement, std::string axis, int home)
    : layers_(std::move(layers)),
      conditional_layers_(std::move(conditional_layers)),
      placement_(std::move(placement)),
      axis_(std::move(axis)),
      home_(home) {
  const std::size_t count = conditional() ? conditional_layers_.size() : layers_.size();
  VARIATE_CHECK(count > 0, "PipelinedFlow", "needs at least one layer");
  VARIATE_CHECK(placement_.size() == count, "PipelinedFlow", count, " layers but a placement of ", placement_.size(),
                "; the placement names one device per layer");
  VARIATE_CHECK(home_ >= 0, "PipelinedFlow", "home device must be >= 0, got ", home_);
  for (std::size_t k = 0; k < count; ++k) {
    VARIATE_CHECK(conditional() ? conditional_layers_[k] != nullptr : layers_[k] != nullptr, "PipelinedFlow", "layer ",
                  k, " is null");
    VARIATE_CHECK(placement_[k] >= 0, "PipelinedFlow", "layer ", k, " is placed on device ", placement_[k],
                  "; devices are numbered from 0");
  }
  if (conditional()) {
    event_ndims_ = conditional_layers_[0]->forward_event_ndims();
    for (std::size_t k = 0; k < count; ++k)
      VARIATE_CHECK(conditional_layers_[k]->forward_event_ndims() == event_ndims_, "PipelinedFlow", "layer ", k,
                    " acts on ", conditional_layers_[k]->forward_event_ndims(), " trailing axes but layer 0 on ",
                    event_ndims_, "; the layers must agree");
    return;
  }
  event_ndims_ = layers_[0]->forward_event_ndims();
  for (std::size_t k = 0; k < count; ++k)
    VARIATE_CHECK(
        layers_[k]->forward_event_ndims() == event_ndims_ && layers_[k]->inverse_event_ndims() == event_ndims_,
        "PipelinedFlow", "layer ", k, " (", layers_[k]->name(), ") acts on ", layers_[k]->forward_event_ndims(),
        " trailing axes but layer 0 on ", event_ndims_, "; the layers must agree");
}

BijectorPtr PipelinedFlow::layer(std::size_t k, const Tensor& context) const {
  return conditional() ? conditional_layers_[k]->given(context) : layers_[k];
}

PipelinedFlow::Pass PipelinedFlow::run_pass(Tensor z, Tensor log_det, Tensor context) const {
  // Outside a mesh of this axis every layer runs here, as in a Chain.
  const std::string* running = running_axis();
  const bool local = running == nullptr || *running != axis_;
  const int me = local ? home_ : axis_index(axis_);
  if (!local) {
    const int devices = axis_size(axis_);
    const int highest = std::max(home_, *std::max_element(placement_.begin(), placement_.end()));
    VARIATE_CHECK(highest < devices, "PipelinedFlow", "places a layer (or its home) on device ", highest, " but axis '",
                  axis_, "' has ", devices, " devices");
  }
  int at = home_;  // the device holding the activation (and the context, which no layer changes)
  const auto move_to = [&](int device) {
    const Transfer transfer[] = {{at, device}};
    z = ppermute(z, axis_, transfer);
    log_det = ppermute(log_det, axis_, transfer);
    if (conditional() && device != home_) {
      // The home device keeps its own context (the encoder's); the others take the one they receive.
      // Every device's copy also enters the log-determinant with weight 0, so that every device's
      // backward sweep reaches this transfer's transpose, whether or not a layer used the copy.
      const Tensor received = ppermute(context, axis_, transfer);
      log_det = log_det + sum(received * 0.0);  // zero even where the sum would overflow
      if (me != home_) context = received;
    }
    at = device;
  };
  for (std::size_t k = 0; k < placement_.size(); ++k) {
    const int owner = local ? home_ : placement_[k];
    if (owner != at) move_to(owner);
    if (me != at) continue;
    const BijectorPtr layer_k = layer(k, context);
    log_det = log_det + layer_k->forward_log_det_jacobian(z);
    z = layer_k->forward(z);
  }
  if (at != home_) move_to(home_);
  return {z, log_det};
}

PipelinedFlow::Pass PipelinedFlow::home_pass(const Tensor& x, const Tensor& context) const {
  const std::string* running = running_axis();
  if (running != nullptr && *running == axis_)
    VARIATE_CHECK(axis_index(axis_) == home_, "PipelinedFlow", "forward runs on the home device ", home_, " of axis '",
                  axis_, "'; device ", axis_index(axis_), " takes its part in each pass with serve()");
  VARIATE_CHECK(x.rank() >= event_ndims_, "PipelinedFlow", "expects at least ", event_ndims_,
                " trailing event axes, got shape ", x.shape());
  Shape batch = x.shape();
  for (int i = 0; i < event_ndims_; ++i) batch.erase(batch.rank() - 1);
  Pass pass = run_pass(x, Tensor::zeros(batch, float_type(x.dtype()), x.device()), context);
  const std::lock_guard lock(mutex_);
  last_ = {x, context, pass.log_det, x.write_count()};
  return pass;
}

namespace {

// Whether a and b are the same tensor on the same tape (both undefined counts).
bool same_tensor(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined()) return a.defined() == b.defined();
  return a.raw() == b.raw() && a.shape() == b.shape() && a.dtype() == b.dtype() &&
         a.tape_ref().epoch == b.tape_ref().epoch && a.tape_ref().slot == b.tape_ref().slot;
}

}  // namespace

Tensor PipelinedFlow::log_det_at(const Tensor& x, const Tensor& context) const {
  {
    // The same tensors, x unwritten since: the remembered pass is this one's.
    const std::lock_guard lock(mutex_);
    if (x.defined() && same_tensor(last_.x, x) && x.write_count() == last_.writes &&
        same_tensor(last_.context, context))
      return last_.log_det;
  }
  return home_pass(x, context).log_det;
}

Tensor PipelinedFlow::inverse_at(const Tensor& y, const Tensor& context) const {
  const std::string* running = running_axis();
  VARIATE_CHECK(running == nullptr || *running != axis_, "PipelinedFlow", "inverse runs outside Mesh::run of axis '",
                axis_, "' only (every layer on one device)");
  Tensor x = y;
  for (std::size_t k = placement_.size(); k-- > 0;) x = layer(k, context)->inverse(x);
  return x;
}

// The flow of conditional layers at one context: what given() returns.
class PipelinedFlow::AtContext final : public Bijector {
 public:
  AtContext(std::shared_ptr<const PipelinedFlow> flow, Tensor context)
      : flow_(std::move(flow)), context_(std::move(context)) {}
  const char* name() const override { return "PipelinedFlow"; }
  Tensor forward(const Tensor& x) const override { return flow_->home_pass(x, context_).y; }
  Tensor inverse(const Tensor& y) const override { return flow_->inverse_at(y, context_); }
  Tensor forward_log_det_jacobian(const Tensor& x) const override { return flow_->log_det_at(x, context_); }
  int forward_event_ndims() const override { return flow_->event_ndims_; }
  Constraint forward_image(const Constraint& domain) const override {
    Constraint c = domain;
    for (std::size_t k = 0; k < flow_->placement_.size(); ++k) c = flow_->layer(k, context_)->forward_image(c);
    return c;
  }

 private:
  std::shared_ptr<const PipelinedFlow> flow_;
  Tensor context_;
};

BijectorPtr PipelinedFlow::given(const Tensor& context) const {
  VARIATE_CHECK(conditional(), "PipelinedFlow", "given() needs conditional layers; this flow's map with forward()");
  std::shared_ptr<const PipelinedFlow> self = weak_from_this().lock();
  VARIATE_CHECK(self != nullptr, "PipelinedFlow", "given() needs the flow held by a std::shared_ptr");
  return std::make_shared<AtContext>(std::move(self), context);
}

Tensor PipelinedFlow::forward(const Tensor& x) const {
  VARIATE_CHECK(!conditional(), "PipelinedFlow", "its layers are conditional; map with given(context)");
  return home_pass(x, Tensor()).y;
}

Tensor PipelinedFlow::forward_log_det_jacobian(const Tensor& x) const {
  VARIATE_CHECK(!conditional(), "PipelinedFlow", "its layers are conditional; map with given(context)");
  return log_det_at(x, Tensor());
}

Tensor PipelinedFlow::inverse(const Tensor& y) const {
  VARIATE_CHECK(!conditional(), "PipelinedFlow", "its layers are conditional; map with given(context)");
  return inverse_at(y, Tensor());
}

Constraint PipelinedFlow::forward_image(const Constraint& domain) const {
  VARIATE_CHECK(!conditional(), "PipelinedFlow", "its layers are conditional; map with given(context)");
  Constraint c = domain;
  for (const BijectorPtr& layer : layers_) c = layer->forward_image(c);
  return c;
}

Tensor PipelinedFlow::serve(DType dtype) const {
  const std::string* running = running_axis();
  VARIATE_CHECK(running != nullptr && *running == axis_, "PipelinedFlow::serve", "runs inside Mesh::run of axis '",
                axis_, "'");
  VARIATE_CHECK(axis_index(axis_) != home_, "PipelinedFlow::serve", "runs on the devices other than home (", home_,
                "), which calls forward");
  // What this device holds before the pass reaches it; it never reaches a layer (a device runs
  // layers only on what it received), and what it holds after the pass is zeros again.
  const Tensor placeholder = Tensor::zeros({}, dtype);
  const Pass pass = run_pass(placeholder, placeholder, conditional() ? placeholder : Tensor());
  return cast(sum(pass.y), dtype) + cast(sum(pass.log_det), dtype);
}

}  // namespace variate::distribute
