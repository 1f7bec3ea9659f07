#include "variate/nn/optim.hpp"

#include <cmath>
#include <utility>

#include "variate/core/error.hpp"

namespace variate::nn {
namespace {

/// Calls f(T{}) with T the floating-point element type of `dtype`.
template <class F>
void with_float_type(DType dtype, const char* op, F&& f) {
  if (dtype == DType::f64)
    f(double{});
  else if (dtype == DType::f32)
    f(float{});
  else
    detail::fail(op, ": ", "parameters must be f32 or f64, got ", dtype);
}

template <class T>
struct AdamStep {
  T b1, b2, eps, step_size, sqrt_correction, coupled_decay, shrink;
};

// The loop the optimizer's time goes to: the pointers are restrict so that the compiler need not
// assume p, g, m and v overlap, and this file is compiled with -fno-math-errno (CMakeLists.txt) so
// that std::sqrt is the bare instruction; together they let it vectorize. The expression is the one
// the scalar loop computed, so the results are the same bits.
template <class T>
void adam_update(const AdamStep<T>& s, T* __restrict p, const T* __restrict g, T* __restrict m, T* __restrict v,
                 std::int64_t n) {
  for (std::int64_t k = 0; k < n; ++k) {
    const T d = g[k] + s.coupled_decay * p[k];
    m[k] = s.b1 * m[k] + (1 - s.b1) * d;
    v[k] = s.b2 * v[k] + (1 - s.b2) * d * d;
    p[k] = s.shrink * p[k] - s.step_size * m[k] / (std::sqrt(v[k]) / s.sqrt_correction + s.eps);
  }
}

}  // namespace

Optimizer::Optimizer(std::string kind, Parameters& params, Schedule schedule, std::vector<std::string> buffers)
    : params_(params), kind_(std::move(kind)), schedule_(std::move(schedule)), buffer_names_(std::move(buffers)) {
  const std::string op = "nn::" + kind_;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params.value(i);
    VARIATE_CHECK(p.defined() && (p.dtype() == DType::f64 || p.dtype() == DType::f32), op, "parameter '",
                  params.name(i), "' must be an f32 or f64 tensor");
    VARIATE_CHECK(p.device() == Device{}, op, "parameter '", params.name(i), "' must be on the CPU, got ", p.device());
  }
  buffers_.reserve(buffer_names_.size() * params.size());
  for (std::size_t b = 0; b < buffer_names_.size(); ++b)
    for (std::size_t i = 0; i < params.size(); ++i)
      buffers_.push_back(Tensor::zeros(params.value(i).shape(), params.value(i).dtype()));
}

void Optimizer::step(std::span<const Tensor> grads) {
  const std::string_view op = "nn::Optimizer::step";
  VARIATE_CHECK(grads.size() == params_.size(), op, params_.size(), " parameters but ", grads.size(), " gradients");
  for (std::size_t i = 0; i < grads.size(); ++i) {
    const Tensor& p = params_.value(i);
    VARIATE_CHECK(grads[i].defined() && grads[i].shape() == p.shape() && grads[i].dtype() == p.dtype() &&
                      grads[i].device() == p.device(),
                  op, "the gradient of '", params_.name(i), "' must be ", p.dtype(), " of shape ", p.shape().str(),
                  ", got ", grads[i].defined() ? grads[i].shape().str() : std::string("an undefined tensor"));
    for (std::size_t b = 0; b < buffer_names_.size(); ++b)
      VARIATE_CHECK(buffers_[b * params_.size() + i].shape() == p.shape(), op, "parameter '", params_.name(i),
                    "' changed shape to ", p.shape().str(), " after the optimizer was made");
  }
  const double lr = schedule_(steps_);
  for (std::size_t i = 0; i < grads.size(); ++i) update(i, grads[i], lr, steps_ + 1);
  ++steps_;
}

std::vector<NamedTensor> Optimizer::state() const {
  std::vector<NamedTensor> out;
  out.push_back({kind_ + ".step", Tensor::from(std::vector<std::int64_t>{steps_}, Shape{})});
  for (std::size_t b = 0; b < buffer_names_.size(); ++b)
    for (std::size_t i = 0; i < params_.size(); ++i)
      out.push_back({kind_ + "." + buffer_names_[b] + "." + params_.name(i), buffers_[b * params_.size() + i].clone()});
  return out;
}

void Optimizer::load_state(std::span<const NamedTensor> state) {
  const std::string op = "nn::" + kind_ + "::load_state";
  const std::vector<NamedTensor> expected = this->state();
  VARIATE_CHECK(state.size() == expected.size(), op, "expected ", expected.size(), " tensors (", expected.front().name,
                ", ...), got ", state.size());
  // Checked in full before anything is written, so a bad state leaves the optimizer as it was.
  for (std::size_t k = 0; k < expected.size(); ++k) {
    VARIATE_CHECK(state[k].name == expected[k].name, op, "tensor ", k, " must be '", expected[k].name, "', got '",
                  state[k].name, "'");
    VARIATE_CHECK(state[k].value.defined() && state[k].value.shape() == expected[k].value.shape() &&
                      state[k].value.dtype() == expected[k].value.dtype(),
                  op, "'", expected[k].name, "' must be ", expected[k].value.dtype(), " of shape ",
                  expected[k].value.shape().str());
  }
  const std::int64_t steps = state[0].value.data<std::int64_t>()[0];
  VARIATE_CHECK(steps >= 0, op, "the step count must be >= 0, got ", steps);
  for (std::size_t k = 1; k < expected.size(); ++k) buffers_[k - 1] = state[k].value.clone();
  steps_ = steps;
}

Sgd::Sgd(Parameters& params, Schedule lr, SgdOptions options)
    : Optimizer("sgd", params, std::move(lr),
                options.momentum != 0 ? std::vector<std::string>{"momentum"} : std::vector<std::string>{}),
      options_(options) {
  VARIATE_CHECK(options.momentum >= 0 && options.momentum < 1, "nn::Sgd", "momentum must be in [0, 1), got ",
                options.momentum);
  VARIATE_CHECK(!options.nesterov || options.momentum > 0, "nn::Sgd", "Nesterov momentum needs momentum > 0");
  VARIATE_CHECK(options.weight_decay >= 0, "nn::Sgd", "weight_decay must be >= 0, got ", options.weight_decay);
}

void Sgd::update(std::size_t i, const Tensor& grad, double lr, std::int64_t) {
  Tensor& param = params_.value(i);
  with_float_type(param.dtype(), "nn::Sgd", [&]<class T>(T) {
    T* p = param.data<T>();
    const T* g = grad.data<T>();
    const std::int64_t n = param.numel();
    const T rate = T(lr), decay = T(options_.weight_decay), mu = T(options_.momentum);
    if (options_.momentum == 0) {
      for (std::int64_t k = 0; k < n; ++k) p[k] -= rate * (g[k] + decay * p[k]);
      return;
    }
    T* v = buffer(0, i).data<T>();
    for (std::int64_t k = 0; k < n; ++k) {
      const T d = g[k] + decay * p[k];
      v[k] = mu * v[k] + d;
      p[k] -= rate * (options_.nesterov ? d + mu * v[k] : v[k]);
    }
  });
}

Adam::Adam(Parameters& params, Schedule lr, AdamOptions options)
    : Adam("adam", params, std::move(lr), options, false) {}

Adam::Adam(std::string kind, Parameters& params, Schedule lr, AdamOptions options, bool decoupled)
    : Optimizer(std::move(kind), params, std::move(lr), {"m", "v"}), options_(options), decoupled_(decoupled) {
  const char* op = decoupled ? "nn::AdamW" : "nn::Adam";
  VARIATE_CHECK(options.beta1 >= 0 && options.beta1 < 1, op, "beta1 must be in [0, 1), got ", options.beta1);
  VARIATE_CHECK(options.beta2 >= 0 && options.beta2 < 1, op, "beta2 must be in [0, 1), got ", options.beta2);
  VARIATE_CHECK(options.eps > 0, op, "eps must be > 0, got ", options.eps);
  VARIATE_CHECK(options.weight_decay >= 0, op, "weight_decay must be >= 0, got ", options.weight_decay);
}

void Adam::update(std::size_t i, const Tensor& grad, double lr, std::int64_t t) {
  Tensor& param = params_.value(i);
  with_float_type(param.dtype(), "nn::Adam", [&]<class T>(T) {
    AdamStep<T> step;
    step.b1 = T(options_.beta1);
    step.b2 = T(options_.beta2);
    step.eps = T(options_.eps);
    step.step_size = T(lr / (1 - std::pow(options_.beta1, double(t))));
    step.sqrt_correction = T(std::sqrt(1 - std::pow(options_.beta2, double(t))));
    step.coupled_decay = decoupled_ ? T(0) : T(options_.weight_decay);
    step.shrink = decoupled_ ? T(1 - lr * options_.weight_decay) : T(1);
    adam_update(step, param.data<T>(), grad.data<T>(), buffer(0, i).data<T>(), buffer(1, i).data<T>(), param.numel());
  });
}

AdamW::AdamW(Parameters& params, Schedule lr, AdamOptions options)
    : Adam("adamw", params, std::move(lr), options, true) {}

double clip_grad_norm(std::span<Tensor> grads, double max_norm) {
  VARIATE_CHECK(max_norm >= 0, "nn::clip_grad_norm", "max_norm must be >= 0, got ", max_norm);
  double sum_sq = 0;
  for (const Tensor& g : grads) {
    VARIATE_CHECK(g.defined(), "nn::clip_grad_norm", "a gradient is undefined");
    with_float_type(g.dtype(), "nn::clip_grad_norm", [&]<class T>(T) {
      const T* x = g.data<T>();
      for (std::int64_t k = 0; k < g.numel(); ++k) sum_sq += double(x[k]) * double(x[k]);
    });
  }
  const double norm = std::sqrt(sum_sq);
  if (!std::isfinite(norm) || norm <= max_norm) return norm;
  const double scale = max_norm / (norm + 1e-6);
  for (Tensor& g : grads) {
    if (g.use_count() != 1) g = g.clone();
    with_float_type(g.dtype(), "nn::clip_grad_norm", [&]<class T>(T) {
      T* x = g.data<T>();
      for (std::int64_t k = 0; k < g.numel(); ++k) x[k] *= T(scale);
    });
  }
  return norm;
}

}  // namespace variate::nn
