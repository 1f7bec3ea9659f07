// One training step of the Image Transformer on 28 x 28 binary images (forward, backward through the
// exact log-likelihood, Adam) and one evaluation pass, for a model size given on the command line.
// Prints the best wall time of repeats and the process's CPU time per step: on a loaded machine the
// CPU time (with OMP_NUM_THREADS=1) is what the step costs one core.
//
//   OMP_NUM_THREADS=1 build/bench/image_transformer_step [embed_dim layers heads block_length batch f32|f64]
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "timing.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/distributions/autoregressive_bernoulli.hpp"
#include "variate/nn/nn.hpp"
#include "variate/random/samplers.hpp"

namespace {

using namespace variate;

double cpu_seconds() { return double(std::clock()) / CLOCKS_PER_SEC; }

// The best wall time and the mean CPU time of f() over `repeats` calls.
template <class F>
std::pair<double, double> timed(F&& f, int repeats) {
  const double cpu_start = cpu_seconds();
  const double best = bench::best_seconds(f, 0.0);  // five repeats
  for (int r = 5; r < repeats; ++r) f();
  return {best, (cpu_seconds() - cpu_start) / std::max(5, repeats)};
}

}  // namespace

int main(int argc, char** argv) {
  auto arg = [&](int i, std::int64_t fallback) { return argc > i ? std::stoll(argv[i]) : fallback; };
  const nn::AutoregressiveTransformer::Options options{
      .length = 784,
      .embed_dim = arg(1, 64),
      .layers = arg(2, 4),
      .num_heads = arg(3, 4),
      .block_length = arg(4, 112),
      .dtype = argc > 6 && std::string(argv[6]) == "f64" ? DType::f64 : DType::f32};
  const std::int64_t batch = arg(5, 32);
  nn::AutoregressiveTransformer net(options, random::Key(1));
  const dist::AutoregressiveBernoulli law(net);
  nn::Parameters params(net);
  std::vector<Tensor> grads(params.size());
  nn::Adam adam(params, 1e-3);
  const Tensor x = cast(lt(random::uniform(random::Key(2), Shape{batch, 784}), Tensor::scalar(0.3)), options.dtype);

  const auto [step_wall, step_cpu] = timed(
      [&] {
        nn::value_and_grad(
            params, [&] { return -sum(law.log_prob(x)) / double(batch); }, grads);
        adam.step(grads);
      },
      5);
  const auto [eval_wall, eval_cpu] = timed([&] { (void)sum(law.log_prob(x)).item(); }, 5);
  std::printf("%s, %lld parameters, batch %lld, %s\n", net.describe().c_str(), static_cast<long long>(params.count()),
              static_cast<long long>(batch), name(options.dtype));
  std::printf("training step: best %.1f ms wall, %.1f ms CPU; %.1f examples/s (wall), %.1f examples per CPU second\n",
              step_wall * 1e3, step_cpu * 1e3, double(batch) / step_wall, double(batch) / step_cpu);
  std::printf("evaluation:    best %.1f ms wall, %.1f ms CPU; %.1f images/s (wall)\n", eval_wall * 1e3, eval_cpu * 1e3,
              double(batch) / eval_wall);
  return 0;
}
