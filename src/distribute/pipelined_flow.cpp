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
    : layers_(std::move(layers)), placement_(std::move(placement)), axis_(std::move(axis)), home_(home) {
  VARIATE_CHECK(!layers_.empty(), "PipelinedFlow", "needs at least one layer");
  VARIATE_CHECK(placement_.size() == layers_.size(), "PipelinedFlow", layers_.size(), " layers but a placement of ",
                placement_.size(), "; the placement names one device per layer");
  VARIATE_CHECK(home_ >= 0, "PipelinedFlow", "home device must be >= 0, got ", home_);
  event_ndims_ = layers_[0]->forward_event_ndims();
  for (std::size_t k = 0; k < layers_.size(); ++k) {
    VARIATE_CHECK(layers_[k] != nullptr, "PipelinedFlow", "layer ", k, " is null");
    VARIATE_CHECK(placement_[k] >= 0, "PipelinedFlow", "layer ", k, " is placed on device ", placement_[k],
                  "; devices are numbered from 0");
    VARIATE_CHECK(
        layers_[k]->forward_event_ndims() == event_ndims_ && layers_[k]->inverse_event_ndims() == event_ndims_,
        "PipelinedFlow", "layer ", k, " (", layers_[k]->name(), ") acts on ", layers_[k]->forward_event_ndims(),
        " trailing axes but layer 0 on ", event_ndims_, "; the layers must agree");
  }
}

PipelinedFlow::Pass PipelinedFlow::run_pass(Tensor z, Tensor log_det) const {
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
  int at = home_;  // the device holding the activation
  const auto move_to = [&](int device) {
    const Transfer transfer[] = {{at, device}};
    z = ppermute(z, axis_, transfer);
    log_det = ppermute(log_det, axis_, transfer);
    at = device;
  };
  for (std::size_t k = 0; k < layers_.size(); ++k) {
    const int owner = local ? home_ : placement_[k];
    if (owner != at) move_to(owner);
    if (me != at) continue;
    log_det = log_det + layers_[k]->forward_log_det_jacobian(z);
    z = layers_[k]->forward(z);
  }
  if (at != home_) move_to(home_);
  return {z, log_det};
}

PipelinedFlow::Pass PipelinedFlow::home_pass(const Tensor& x) const {
  const std::string* running = running_axis();
  if (running != nullptr && *running == axis_)
    VARIATE_CHECK(axis_index(axis_) == home_, "PipelinedFlow", "forward runs on the home device ", home_, " of axis '",
                  axis_, "'; device ", axis_index(axis_), " takes its part in each pass with serve()");
  VARIATE_CHECK(x.rank() >= event_ndims_, "PipelinedFlow", "expects at least ", event_ndims_,
                " trailing event axes, got shape ", x.shape());
  Shape batch = x.shape();
  for (int i = 0; i < event_ndims_; ++i) batch.erase(batch.rank() - 1);
  Pass pass = run_pass(x, Tensor::zeros(batch, float_type(x.dtype()), x.device()));
  const std::lock_guard lock(mutex_);
  last_ = {x, pass.log_det, x.write_count()};
  return pass;
}

Tensor PipelinedFlow::forward(const Tensor& x) const { return home_pass(x).y; }

Tensor PipelinedFlow::forward_log_det_jacobian(const Tensor& x) const {
  {
    // The same tensor on the same tape, unwritten since: the remembered pass is this one's.
    const std::lock_guard lock(mutex_);
    const Tensor& seen = last_.x;
    if (seen.defined() && x.defined() && seen.raw() == x.raw() && seen.shape() == x.shape() &&
        seen.dtype() == x.dtype() && x.write_count() == last_.writes && seen.tape_ref().epoch == x.tape_ref().epoch &&
        seen.tape_ref().slot == x.tape_ref().slot)
      return last_.log_det;
  }
  return home_pass(x).log_det;
}

Tensor PipelinedFlow::inverse(const Tensor& y) const {
  const std::string* running = running_axis();
  VARIATE_CHECK(running == nullptr || *running != axis_, "PipelinedFlow", "inverse runs outside Mesh::run of axis '",
                axis_, "' only (every layer on one device)");
  Tensor x = y;
  for (auto it = layers_.rbegin(); it != layers_.rend(); ++it) x = (*it)->inverse(x);
  return x;
}

Constraint PipelinedFlow::forward_image(const Constraint& domain) const {
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
  const Pass pass = run_pass(placeholder, placeholder);
  return cast(sum(pass.y), dtype) + cast(sum(pass.log_det), dtype);
}

}  // namespace variate::distribute
