// Data-parallel training steps against the number of devices (issue 24, item 3), on random binary
// 28 x 28 images, f32, Adam, one global minibatch split over the devices, the gradients summed in
// one fused all-reduce per step (distribute/data_parallel.hpp). Two models:
//   - autoencoder: an MLP 784-H-784 (tanh, Bernoulli logits), little compute per gradient byte;
//   - image-transformer: the Image Transformer of `variate train` at its default size (4 layers,
//     embedding 64, 2 heads, local attention in blocks of two image rows), trained on the exact
//     log-likelihood.
// Prints per device count the step time, examples per second, the speed-up over one device and the
// time in the all-reduce (its copies into and out of the fused buffer included, and any wait for a
// slower device), measured apart. Each device runs its kernels on one thread, so 1 and 2 devices
// use 1 and 2 cores. Each figure is the best of a few rounds (the machine is shared).
//
//   build/bench/data_parallel_scaling [BATCH] [HIDDEN]        autoencoder (default 128 and 512)
//   build/bench/data_parallel_scaling image-transformer [BATCH]        (default 32)
//   mpirun -np 2 build/bench/data_parallel_scaling [...]      1 device, then the ranks (rank 0 prints)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "variate/autodiff/ops.hpp"
#include "variate/distribute/collectives.hpp"
#include "variate/distribute/data_parallel.hpp"
#include "variate/distribute/mesh.hpp"
#include "variate/distributions/autoregressive_bernoulli.hpp"
#include "variate/nn/autoregressive_transformer.hpp"
#include "variate/nn/layers.hpp"
#include "variate/nn/linear.hpp"
#include "variate/nn/optim.hpp"
#include "variate/nn/sequential.hpp"
#include "variate/random/samplers.hpp"

namespace {

using namespace variate;
using Clock = std::chrono::steady_clock;

constexpr std::int64_t kPixels = 784, kImages = 4096;

enum class Model { autoencoder, image_transformer };

struct Setup {
  Model model = Model::autoencoder;
  std::int64_t batch = 128;
  std::int64_t hidden = 512;  // of the autoencoder
  int steps = 20;             // per round
  int rounds = 3;
};

struct Timing {
  double step_ms = 0;
  double allreduce_ms = 0;  // per step
  double bytes = 0;         // of the fused buffer
  std::int64_t parameters = 0;
  std::string model;  // the network's description
};

// On each device: warm-up steps, then the best of s.rounds rounds of s.steps Adam steps.
Timing time_replica(const Setup& s, const nn::Module& net, nn::Parameters& params, const distribute::ShardLoss& loss) {
  nn::Adam adam(params, 1e-3);
  std::vector<Tensor> grads(params.size());
  std::int64_t next = 0;
  auto step = [&](distribute::AllReduceStats* stats) {
    std::vector<std::int64_t> batch(std::size_t(s.batch));
    for (auto& b : batch) b = next++ % kImages;
    distribute::data_parallel_value_and_grad(params, batch, loss, grads, "data", stats);
    adam.step(grads);
  };
  for (int w = 0; w < 2; ++w) step(nullptr);  // warm the caches and the allocator
  Timing best;
  for (int round = 0; round < s.rounds; ++round) {
    distribute::AllReduceStats stats;
    const auto t0 = Clock::now();
    for (int i = 0; i < s.steps; ++i) step(&stats);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / s.steps;
    if (round == 0 || ms < best.step_ms)
      best = {ms, stats.seconds * 1e3 / double(stats.calls), double(stats.bytes) / double(stats.calls), params.count(),
              net.describe()};
  }
  return best;
}

Timing time_steps(const Setup& s, const Tensor& images, distribute::Mesh& mesh) {
  const auto timings = mesh.run([&] {
    omp_set_num_threads(1);  // one core per device: the speed-up over devices is the speed-up over cores
    auto shard_images = [&](const distribute::BatchShard& shard) {
      return take(images, Tensor::from(shard.examples, Shape{std::int64_t(shard.examples.size())}));
    };
    if (s.model == Model::image_transformer) {
      nn::AutoregressiveTransformer net(
          {.length = kPixels, .embed_dim = 64, .layers = 4, .num_heads = 2, .block_length = 56, .dtype = DType::f32},
          random::Key(1));
      const dist::AutoregressiveBernoulli law(net);
      nn::Parameters params(net);
      return time_replica(s, net, params, [&](const distribute::BatchShard& shard) {
        return -sum(law.log_prob(shard_images(shard))) / double(shard.global_size());
      });
    }
    nn::Sequential net;
    net.push(nn::Linear(kPixels, s.hidden, random::Key(1), DType::f32));
    net.push(nn::Activation(nn::ActivationKind::tanh));
    net.push(nn::Linear(s.hidden, kPixels, random::Key(2), DType::f32));
    nn::Parameters params(net);
    return time_replica(s, net, params, [&](const distribute::BatchShard& shard) {
      const Tensor x = shard_images(shard);
      const Tensor logits = net(x);
      return sum(softplus(logits) - x * logits) / double(shard.global_size());
    });
  });
  return timings[0];
}

void print_title(const Timing& t, const char* mesh) {
  std::printf("%s f32, %lld parameters, Adam; %s\n", t.model.c_str(), static_cast<long long>(t.parameters), mesh);
}

void print_header(const char* what) {
  std::printf("%-8s %8s %10s %12s %8s %14s %12s %10s\n", what, "batch", "step ms", "examples/s", "speedup",
              "allreduce ms", "% of step", "MB fused");
}

void print_row(int devices, const Setup& s, const Timing& t, double one_ms) {
  std::printf("%-8d %8lld %10.2f %12.0f %8.2f %14.3f %12.1f %10.2f\n", devices, static_cast<long long>(s.batch),
              t.step_ms, double(s.batch) / t.step_ms * 1e3, one_ms / t.step_ms, t.allreduce_ms,
              100 * t.allreduce_ms / t.step_ms, t.bytes / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  Setup s;
  int arg = 1;
  if (argc > arg && std::string(argv[arg]) == "image-transformer") {
    s.model = Model::image_transformer;
    s.batch = 32;
    s.steps = 4;
    s.rounds = 2;
    ++arg;
  }
  if (argc > arg) s.batch = std::stoll(argv[arg++]);
  if (argc > arg) s.hidden = std::stoll(argv[arg++]);
  const Tensor images = random::bernoulli(random::Key(3), Tensor::scalar(0.3, DType::f32), Shape{kImages, kPixels});
  if (distribute::launched_with_mpi()) {
    distribute::Mesh ranks = distribute::Mesh::mpi("data");
    const bool rank0 = ranks.first_local_device() == 0;
    double one = 0;
    if (rank0) {
      distribute::Mesh alone(1, "data");
      const Timing t = time_steps(s, images, alone);
      one = t.step_ms;
      print_title(t, "MPI ranks");
      print_header("ranks");
      print_row(1, s, t, one);
    }
    ranks.run([] { distribute::psum(Tensor::scalar(0.0), "data"); });  // the other ranks wait for rank 0
    const Timing t = time_steps(s, images, ranks);
    if (rank0) print_row(ranks.size(), s, t, one);
    return 0;
  }
  double one = 0;
  for (int devices : {1, 2}) {
    distribute::Mesh mesh(devices, "data");
    const Timing t = time_steps(s, images, mesh);
    if (devices == 1) {
      one = t.step_ms;
      const std::string mesh_name = std::to_string(distribute::default_device_count()) + " cores; thread devices";
      print_title(t, mesh_name.c_str());
      print_header("devices");
    }
    print_row(devices, s, t, one);
  }
  return 0;
}
