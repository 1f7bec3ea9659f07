// Normalizing flows (MaskedAutoregressiveFlow, InverseAutoregressiveFlow, RealNvpCoupling, and
// their stacks through Chain): log|det J| against the log |det| of the autodiff Jacobian, round
// trips to rounding, the autoregressive (triangular) structure of the MADE flows' Jacobians,
// gradients of a TransformedDistribution's log density in the flows' parameters against central
// differences, their use as nn modules, and errors that name the flow.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/distributions/chain.hpp"
#include "variate/distributions/independent.hpp"
#include "variate/distributions/inverse_autoregressive_flow.hpp"
#include "variate/distributions/masked_autoregressive_flow.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/distributions/real_nvp_coupling.hpp"
#include "variate/distributions/transformed_distribution.hpp"
#include "variate/nn/optim.hpp"

namespace variate {
using namespace dist;  // the flows under test
namespace {

using S = std::span<const Tensor>;
using testing::random_tensor;

// A flow as both of its faces: the bijector and the module that holds its parameters.
struct Flow {
  BijectorPtr bijector;
  std::vector<nn::Module*> modules;
  // Whether output i may depend on input j, for a single flow (undefined for a stack): the
  // structure that makes its Jacobian triangular.
  std::function<bool(std::size_t i, std::size_t j)> may_depend;
};

// A MADE flow: on the inputs no later in its autoregressive order.
template <class F>
Flow single(std::shared_ptr<F> flow) {
  const nn::Degrees order = flow->order();
  return {flow, {flow.get()}, [order](std::size_t i, std::size_t j) { return order[j] <= order[i]; }};
}

// A coupling: a kept output is its input; a transformed one depends on itself and the kept inputs.
Flow single(std::shared_ptr<RealNvpCoupling> flow) {
  const std::vector<bool> keep = flow->keep();
  return {flow, {flow.get()}, [keep](std::size_t i, std::size_t j) { return i == j || (!keep[i] && keep[j]); }};
}

// smooth activations, so that central differences in the parameters see no kinks.
AutoregressiveFlowOptions made_options(nn::Degrees order = {}) {
  return {.hidden = {8, 8}, .order = std::move(order), .activation = nn::ActivationKind::tanh};
}
RealNvpOptions coupling_options(std::vector<bool> keep = {}) {
  return {.keep = std::move(keep), .hidden = {8}, .activation = nn::ActivationKind::tanh};
}

struct FlowCase {
  std::string name;
  std::int64_t dims;
  std::function<Flow()> make;
};
void PrintTo(const FlowCase& c, std::ostream* out) { *out << c.name; }

std::vector<FlowCase> cases() {
  return {
      {"MAF", 3, [] { return single(std::make_shared<MaskedAutoregressiveFlow>(3, random::Key(1), made_options())); }},
      {"MAF_reversed", 4,
       [] {
         return single(
             std::make_shared<MaskedAutoregressiveFlow>(4, random::Key(2), made_options(nn::made_reversed_degrees(4))));
       }},
      {"MAF_permuted", 4,
       [] {
         return single(
             std::make_shared<MaskedAutoregressiveFlow>(4, random::Key(3), made_options(nn::Degrees{3, 1, 4, 2})));
       }},
      {"IAF", 3, [] { return single(std::make_shared<InverseAutoregressiveFlow>(3, random::Key(4), made_options())); }},
      {"IAF_reversed", 4,
       [] {
         return single(std::make_shared<InverseAutoregressiveFlow>(4, random::Key(5),
                                                                   made_options(nn::made_reversed_degrees(4))));
       }},
      {"RealNvp", 3, [] { return single(std::make_shared<RealNvpCoupling>(3, random::Key(6), coupling_options())); }},
      {"RealNvp_alternating", 4,
       [] {
         return single(
             std::make_shared<RealNvpCoupling>(4, random::Key(7), coupling_options({true, false, true, false})));
       }},
      {"Chain_IAF_IAF_reversed", 3,
       [] {
         auto a = std::make_shared<InverseAutoregressiveFlow>(3, random::Key(8), made_options());
         auto b =
             std::make_shared<InverseAutoregressiveFlow>(3, random::Key(9), made_options(nn::made_reversed_degrees(3)));
         return Flow{std::make_shared<Chain>(std::vector<BijectorPtr>{b, a}), {a.get(), b.get()}, nullptr};
       }},
      {"Chain_MAF_RealNvp", 4,
       [] {
         auto a = std::make_shared<MaskedAutoregressiveFlow>(4, random::Key(10), made_options());
         auto b = std::make_shared<RealNvpCoupling>(4, random::Key(11), coupling_options({false, true, false, true}));
         return Flow{std::make_shared<Chain>(std::vector<BijectorPtr>{b, a}), {a.get(), b.get()}, nullptr};
       }},
  };
}

// log|det J| of a square matrix from its LU-free form logdet(J^T J) / 2.
double log_abs_det(const Tensor& jac) { return 0.5 * logdet_spd(matmul(jac, jac, /*transpose_a=*/true)).item(); }

class Flows : public ::testing::TestWithParam<FlowCase> {};

TEST_P(Flows, LogDetIsTheLogAbsDetOfTheAutodiffJacobian) {
  const FlowCase& c = GetParam();
  const Flow flow = c.make();
  const Tensor xs = random_tensor(Shape{4, c.dims}, 21, 1.3);
  const Tensor fldj = flow.bijector->forward_log_det_jacobian(xs);
  const Tensor ys = flow.bijector->forward(xs);
  const Tensor ildj = flow.bijector->inverse_log_det_jacobian(ys);
  ASSERT_EQ(fldj.shape(), Shape({4}));
  ASSERT_EQ(ildj.shape(), Shape({4}));
  for (std::int64_t row = 0; row < 4; ++row) {
    const Tensor x = squeeze(slice(xs, 0, row, row + 1), 0);
    const Tensor jac = jacobian([&](const Tensor& v) { return flow.bijector->forward(v); }, x);
    ASSERT_EQ(jac.shape(), Shape({c.dims, c.dims}));
    const double expected = log_abs_det(jac);
    EXPECT_GT(std::abs(expected), 1e-3) << "a flow this close to volume-preserving tests little";
    EXPECT_NEAR(fldj.at(row), expected, 1e-11 * (1 + std::abs(expected))) << "event " << row;
    EXPECT_NEAR(ildj.at(row), -expected, 1e-11 * (1 + std::abs(expected))) << "event " << row;
    // The inverse's Jacobian at y, from autodiff through the inverse (sequential for IAF).
    const Tensor y = squeeze(slice(ys, 0, row, row + 1), 0);
    const Tensor inverse_jac = jacobian([&](const Tensor& v) { return flow.bijector->inverse(v); }, y);
    EXPECT_NEAR(log_abs_det(inverse_jac), -expected, 1e-10 * (1 + std::abs(expected))) << "event " << row;
  }
}

TEST_P(Flows, RoundTripsToRounding) {
  const FlowCase& c = GetParam();
  const Flow flow = c.make();
  const Tensor x = random_tensor(Shape{2, 5, c.dims}, 22, 1.5);
  const Tensor y = flow.bijector->forward(x);
  ASSERT_EQ(y.shape(), x.shape());
  const Tensor back = flow.bijector->inverse(y);
  const Tensor again = flow.bijector->forward(flow.bijector->inverse(x));
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    EXPECT_NEAR(back.at(i), x.at(i), 1e-13 * (1 + std::abs(x.at(i)))) << "inverse(forward(x)), element " << i;
    EXPECT_NEAR(again.at(i), x.at(i), 1e-13 * (1 + std::abs(x.at(i)))) << "forward(inverse(y)), element " << i;
  }
  EXPECT_EQ(flow.bijector->forward_log_det_jacobian(x).shape(), Shape({2, 5}));
}

// Output i depends on input j only when j comes no later than i in the autoregressive order (or,
// for a coupling, when j is kept or i itself): the Jacobian's other entries are exactly zero, in
// both directions, and the allowed ones are not.
TEST(Flows, JacobiansAreTriangularInTheFlowsOrder) {
  int checked = 0;
  for (const FlowCase& c : cases()) {
    const Flow flow = c.make();
    if (!flow.may_depend) continue;  // a stack of flows
    SCOPED_TRACE(c.name);
    ++checked;
    const Tensor x = random_tensor(Shape{c.dims}, 23, 1.1);
    const Tensor forward_jac = jacobian([&](const Tensor& v) { return flow.bijector->forward(v); }, x);
    const Tensor inverse_jac = jacobian([&](const Tensor& v) { return flow.bijector->inverse(v); }, x);
    for (const Tensor& jac : {forward_jac, inverse_jac})
      for (std::int64_t i = 0; i < c.dims; ++i)
        for (std::int64_t j = 0; j < c.dims; ++j) {
          const double entry = jac.at(i * c.dims + j);
          if (flow.may_depend(std::size_t(i), std::size_t(j)))
            EXPECT_NE(entry, 0.0) << "d out " << i << " / d in " << j;
          else
            EXPECT_EQ(entry, 0.0) << "d out " << i << " / d in " << j;
        }
  }
  EXPECT_EQ(checked, 7);
}

// The flow as a guide or prior: a TransformedDistribution over a standard normal base, whose log
// density's gradient in every flow parameter matches central differences.
TEST_P(Flows, TransformedLogProbGradientsInTheFlowParameters) {
  const FlowCase& c = GetParam();
  const Flow flow = c.make();
  std::vector<std::unique_ptr<nn::Parameters>> params;
  std::vector<Tensor*> slots;
  std::vector<Tensor> initial;
  for (nn::Module* m : flow.modules) {
    params.push_back(std::make_unique<nn::Parameters>(*m));
    for (std::size_t i = 0; i < params.back()->size(); ++i) {
      slots.push_back(&params.back()->value(i));
      initial.push_back(params.back()->value(i).clone());
    }
  }
  const auto base = std::make_shared<Independent>(std::make_shared<Normal>(Tensor::zeros(Shape{c.dims}), 1.0), 1);
  const TransformedDistribution q(base, flow.bijector);
  const Tensor y = random_tensor(Shape{3, c.dims}, 24, 1.2);
  const Tensor lp = q.log_prob(y);
  ASSERT_EQ(lp.shape(), Shape({3}));
  // Against the change of variables written out.
  const Tensor x = flow.bijector->inverse(y);
  const Tensor by_hand = base->log_prob(x) - flow.bijector->forward_log_det_jacobian(x);
  for (std::int64_t i = 0; i < 3; ++i) EXPECT_NEAR(lp.at(i), by_hand.at(i), 1e-12 * (1 + std::abs(by_hand.at(i))));
  // The checker's inputs are the parameters: installed in the modules while the density runs.
  testing::expect_ad(
      [&](S p) {
        for (std::size_t i = 0; i < slots.size(); ++i) *slots[i] = p[i];
        return q.log_prob(y);
      },
      initial, {.abs = 1e-7, .rel = 1e-6});
  for (std::size_t i = 0; i < slots.size(); ++i) *slots[i] = initial[i];
  // Draws are reparameterized: the flow's forward of the base's draws.
  const Tensor draws = q.sample(random::Key(3), Shape{2});
  EXPECT_EQ(draws.shape(), Shape({2, c.dims}));
}

INSTANTIATE_TEST_SUITE_P(All, Flows, ::testing::ValuesIn(cases()), [](const auto& info) { return info.param.name; });

TEST(Flows, AreModulesWithNamedParametersThatAdamTrains) {
  auto flow = std::make_shared<InverseAutoregressiveFlow>(2, random::Key(0), AutoregressiveFlowOptions{.hidden = {4}});
  const auto names = nn::named_parameters(*flow);
  ASSERT_EQ(names.size(), 4u);
  EXPECT_EQ(names[0].name, "made.layers.0.weight");
  // D = 2, one hidden layer of 4, two outputs per coordinate: 2 x 4 + 4 + 4 x 4 + 4.
  EXPECT_EQ(nn::count_parameters(*flow), 32);
  EXPECT_EQ(nn::count_parameters(RealNvpCoupling(3, random::Key(0), {.hidden = {5}})), 3 * 5 + 5 + 5 * 6 + 6);

  // Maximum likelihood of a few points under the flow: Adam lowers the negative log density.
  const TransformedDistribution q(
      std::make_shared<Independent>(std::make_shared<Normal>(Tensor::zeros(Shape{2}), 1.0), 1), flow);
  const Tensor data = random_tensor(Shape{16, 2}, 30, 0.3, 2.0);
  nn::Parameters params(*flow);
  nn::Adam adam(params, 0.05);
  std::vector<Tensor> grads(params.size());
  auto loss = [&] { return -mean(q.log_prob(data)); };
  const double before = loss().item();
  for (int step = 0; step < 50; ++step) {
    nn::value_and_grad(params, loss, grads);
    adam.step(grads);
  }
  EXPECT_LT(loss().item(), before - 1.0);
}

TEST(Flows, ScalesStayWithinTheLogScaleBound) {
  // A network pushed to huge raw outputs: every log-scale stays within the bound, so |log det| is at
  // most D times the bound and a sequential pass stays finite.
  auto flow = std::make_shared<MaskedAutoregressiveFlow>(
      3, random::Key(0), AutoregressiveFlowOptions{.hidden = {4}, .log_scale_bound = 2});
  nn::Parameters params(*flow);
  for (std::size_t i = 0; i < params.size(); ++i) params.value(i) = params.value(i) * 30.0;
  const Tensor x = random_tensor(Shape{5, 3}, 31);
  // The Jacobian's diagonal is exp(log-scale), coordinate by coordinate.
  double largest = 0;
  for (std::int64_t row = 0; row < 5; ++row) {
    const Tensor jac =
        jacobian([&](const Tensor& v) { return flow->forward(v); }, squeeze(slice(x, 0, row, row + 1), 0));
    for (std::int64_t d = 0; d < 3; ++d) {
      const double log_scale = std::log(jac.at(d * 3 + d));
      EXPECT_LE(std::abs(log_scale), 2.0);
      largest = std::max(largest, std::abs(log_scale));
    }
  }
  EXPECT_GT(largest, 1.9) << "the raw log-scales should have reached the bound's flat part";
  const Tensor back = flow->inverse(flow->forward(x));
  for (std::int64_t i = 0; i < x.numel(); ++i) EXPECT_NEAR(back.at(i), x.at(i), 1e-9 * (1 + std::abs(x.at(i))));
}

TEST(Flows, F32FlowsKeepF32) {
  const Tensor x = cast(random_tensor(Shape{4, 3}, 32), DType::f32);
  const MaskedAutoregressiveFlow maf(3, random::Key(0), {.hidden = {6}, .dtype = DType::f32});
  const InverseAutoregressiveFlow iaf(3, random::Key(0), {.hidden = {6}, .dtype = DType::f32});
  const RealNvpCoupling nvp(3, random::Key(0), {.hidden = {6}, .dtype = DType::f32});
  for (const Bijector* b : std::vector<const Bijector*>{&maf, &iaf, &nvp}) {
    const Tensor y = b->forward(x);
    EXPECT_EQ(y.dtype(), DType::f32) << b->name();
    EXPECT_EQ(b->forward_log_det_jacobian(x).dtype(), DType::f32) << b->name();
    EXPECT_EQ(b->inverse_log_det_jacobian(y).dtype(), DType::f32) << b->name();
    const Tensor back = b->inverse(y);
    for (std::int64_t i = 0; i < x.numel(); ++i)
      EXPECT_NEAR(back.at(i), x.at(i), 1e-5 * (1 + std::abs(x.at(i)))) << b->name() << ", element " << i;
  }
}

TEST(Flows, BadInputNamesTheFlow) {
  const MaskedAutoregressiveFlow maf(3, random::Key(0), {.hidden = {4}});
  const InverseAutoregressiveFlow iaf(3, random::Key(0), {.hidden = {4}});
  const RealNvpCoupling nvp(3, random::Key(0), {.hidden = {4}});
  const Tensor wrong = Tensor::zeros(Shape{2, 4});
  EXPECT_ERROR(maf.forward(wrong),
               "MaskedAutoregressiveFlow(dims=3, hidden=[4]).forward: expects events of size 3 along the last axis, "
               "got shape [2, 4]");
  EXPECT_ERROR(maf.inverse(wrong), "MaskedAutoregressiveFlow(dims=3, hidden=[4]).inverse: expects events of size 3");
  EXPECT_ERROR(maf.inverse_log_det_jacobian(wrong), "MaskedAutoregressiveFlow(dims=3, hidden=[4]).inverse_log_det");
  EXPECT_ERROR(iaf.forward(wrong), "InverseAutoregressiveFlow(dims=3, hidden=[4]).forward: expects events of size 3");
  EXPECT_ERROR(iaf.inverse(wrong), "InverseAutoregressiveFlow(dims=3, hidden=[4]).inverse: expects events of size 3");
  EXPECT_ERROR(iaf.forward_log_det_jacobian(Tensor::scalar(1.0)),
               "InverseAutoregressiveFlow(dims=3, hidden=[4]).forward_log_det_jacobian: expects events of size 3 "
               "along the last axis, got shape []");
  EXPECT_ERROR(nvp.forward(wrong), "RealNvpCoupling(dims=3, keep=100, hidden=[4]).forward: expects events of size 3");
  EXPECT_ERROR(nvp.inverse_log_det_jacobian(wrong), "RealNvpCoupling(dims=3, keep=100, hidden=[4]).inverse_log_det");

  // A base whose event does not match the flow's: the density and the draws name the flow.
  auto flow = std::make_shared<InverseAutoregressiveFlow>(3, random::Key(0), AutoregressiveFlowOptions{.hidden = {4}});
  const TransformedDistribution q(
      std::make_shared<Independent>(std::make_shared<Normal>(Tensor::zeros(Shape{2}), 1.0), 1), flow);
  EXPECT_ERROR(q.sample(random::Key(0)), "InverseAutoregressiveFlow(dims=3, hidden=[4]).forward");
  EXPECT_ERROR(q.log_prob(Tensor::zeros(Shape{2})), "InverseAutoregressiveFlow(dims=3, hidden=[4])");
  // A base with no event axis for the flow to act on.
  EXPECT_ERROR(TransformedDistribution(std::make_shared<Normal>(Tensor::zeros(Shape{3}), 1.0), flow),
               "the bijector InverseAutoregressiveFlow acts on 1 trailing axes but the base Normal has event shape []");

  // Options that do not fit the event size.
  EXPECT_ERROR(MaskedAutoregressiveFlow(3, random::Key(0), {.order = {1, 2}}),
               "MaskedAutoregressiveFlow: the order must have one degree per coordinate (3), got 2");
  EXPECT_ERROR(InverseAutoregressiveFlow(3, random::Key(0), {.order = {1, 1, 3}}),
               "InverseAutoregressiveFlow: the order must be a permutation of 1..3");
  EXPECT_ERROR(InverseAutoregressiveFlow(0, random::Key(0)), "InverseAutoregressiveFlow: the event size must be >= 1");
  EXPECT_ERROR(MaskedAutoregressiveFlow(2, random::Key(0), {.log_scale_bound = 0}),
               "MaskedAutoregressiveFlow: log_scale_bound must be > 0");
  EXPECT_ERROR(RealNvpCoupling(3, random::Key(0), {.keep = {true, false}}),
               "RealNvpCoupling: keep must have one flag per coordinate (3), got 2");
  EXPECT_ERROR(RealNvpCoupling(3, random::Key(0), {.keep = {true, true, true}}),
               "RealNvpCoupling: keep must keep at least one coordinate and transform at least one, got 3 kept of 3");
  EXPECT_ERROR(RealNvpCoupling(1, random::Key(0)), "RealNvpCoupling: the event size must be >= 2");
}

}  // namespace
}  // namespace variate
