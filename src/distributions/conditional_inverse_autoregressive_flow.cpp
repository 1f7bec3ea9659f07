#include "variate/distributions/conditional_inverse_autoregressive_flow.hpp"

#include "distributions/affine_flow.hpp"

namespace variate::dist {

namespace {

constexpr const char* kName = "ConditionalInverseAutoregressiveFlow";

// The flow at one context: what given() returns.
class FlowAtContext final : public Bijector {
 public:
  FlowAtContext(std::shared_ptr<const ConditionalInverseAutoregressiveFlow> flow, Tensor context)
      : flow_(std::move(flow)), context_(std::move(context)) {}
  const char* name() const override { return kName; }
  Tensor forward(const Tensor& x) const override { return flow_->forward(x, context_); }
  Tensor inverse(const Tensor& y) const override { return flow_->inverse(y, context_); }
  Tensor forward_log_det_jacobian(const Tensor& x) const override {
    return flow_->forward_log_det_jacobian(x, context_);
  }
  int forward_event_ndims() const override { return 1; }
  Constraint forward_image(const Constraint& domain) const override {
    return domain.kind == Constraint::Kind::real ? domain : Bijector::forward_image(domain);
  }

 private:
  std::shared_ptr<const ConditionalInverseAutoregressiveFlow> flow_;
  Tensor context_;
};

}  // namespace

ConditionalInverseAutoregressiveFlow::ConditionalInverseAutoregressiveFlow(std::int64_t dims, std::int64_t context,
                                                                           random::Key key,
                                                                           ConditionalIafOptions options)
    : made_(detail::autoregressive_made(
          kName, dims, key,
          {.hidden = options.hidden, .order = options.order, .activation = options.activation, .dtype = options.dtype},
          context)),
      hidden_(options.hidden),
      forget_bias_(options.forget_bias) {
  VARIATE_CHECK(context >= 1, kName, "the context size must be >= 1, got ", context,
                " (InverseAutoregressiveFlow is the flow without one)");
}

BijectorPtr ConditionalInverseAutoregressiveFlow::given(const Tensor& context) const {
  std::shared_ptr<const ConditionalInverseAutoregressiveFlow> self = weak_from_this().lock();
  VARIATE_CHECK(self != nullptr, describe(), "given() needs the flow held by a std::shared_ptr");
  VARIATE_CHECK(context.defined() && context.rank() >= 1 && context.dim(-1) == context_size(), describe() + ".given",
                "expects contexts of size ", context_size(), " along the last axis, got shape ",
                context.defined() ? context.shape().str() : std::string("undefined"));
  return std::make_shared<FlowAtContext>(std::move(self), context);
}

ConditionalInverseAutoregressiveFlow::Gate ConditionalInverseAutoregressiveFlow::gate(const Tensor& x,
                                                                                      const Tensor& context,
                                                                                      const char* method) const {
  detail::check_flow_event(describe(), method, x, dims());
  const Tensor out = made_.forward(x, context);  // (..., 2 D): unit p * D + d is parameter p of coordinate d
  const std::int64_t d = dims();
  const Tensor gate_input = slice(out, -1, d, 2 * d) + forget_bias_;
  return {slice(out, -1, 0, d), log_sigmoid(gate_input), sigmoid(gate_input)};
}

Tensor ConditionalInverseAutoregressiveFlow::forward(const Tensor& x, const Tensor& context) const {
  const Gate g = gate(x, context, "forward");
  return g.sigma * x + (1.0 - g.sigma) * g.shift;
}

Tensor ConditionalInverseAutoregressiveFlow::inverse(const Tensor& y, const Tensor& context) const {
  detail::check_flow_event(describe(), "inverse", y, dims());
  // As InverseAutoregressiveFlow::inverse: pass k makes the coordinate of degree k exact.
  Tensor x = Tensor::zeros(y.shape(), float_type(y.dtype()));
  for (std::int64_t pass = 0; pass < dims(); ++pass) {
    const Gate g = gate(x, context, "inverse");
    x = (y - (1.0 - g.sigma) * g.shift) / g.sigma;
  }
  return x;
}

Tensor ConditionalInverseAutoregressiveFlow::forward_log_det_jacobian(const Tensor& x, const Tensor& context) const {
  return detail::sum_event(gate(x, context, "forward_log_det_jacobian").log_sigma);
}

void ConditionalInverseAutoregressiveFlow::visit_parameters(const nn::ParameterVisitor& visit) {
  nn::visit_child("made", made_, visit);
}

std::string ConditionalInverseAutoregressiveFlow::describe() const {
  return std::string(kName) + "(dims=" + std::to_string(dims()) + ", context=" + std::to_string(context_size()) +
         ", hidden=" + detail::widths_str(hidden_) + ")";
}

}  // namespace variate::dist
