// Randomized autodiff on the paper's MNIST network (Oktay et al., "Randomized Automatic
// Differentiation", ICLR 2021, section 5): a 784-300-300-300-10 ReLU net trained with Adam at
// batch 150 exactly, at batch 150 with RAD keeping 10% of each linear layer's input (one choice for
// the batch, "same sample", and one per example, "different sample"), and at the small batch whose
// exact tape is about as large as RAD's; and at batch 150 with the activations compressed to 2 and
// 4 bits (ActNN, stochastic rounding per group of 128), at about RAD's activation memory. Writes the
// curves (loss on a fixed training subset and test accuracy against steps) and a summary with each
// run's measured peak tape bytes, activation bytes (the tape less the weights the linear layers
// save), processor time per gradient and the ratio of the fastest to exact's, timed in alternation,
// and plots the curves.
//
// Usage: rad_mlp [--data DIR] [--out DIR] [--steps N] [--eval-every N] [--keep F] [--small-batch N]
//                [--mode with|without|projection] [--f64] [--test-images N] [--runs NAME,NAME,...]
// Defaults: ../shared/data/mnist, rad_mlp_out, 300 steps, eval every 50, keep 0.1, small batch 20,
// sampling with replacement, f32, 2000 test images, every run (exact_b150, rad_same_b150,
// rad_diff_b150, small_bN, actnn2_b150, actnn4_b150). Exits 77 without the data.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "line_plot.hpp"
#include "rad_mode.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/rad.hpp"
#include "variate/autodiff/tape_bytes.hpp"
#include "variate/data/idx.hpp"
#include "variate/nn/nn.hpp"
#include "variate/random/samplers.hpp"

using namespace variate;

namespace {

struct Options {
  std::string data = "../shared/data/mnist", out = "rad_mlp_out";
  std::int64_t steps = 300, eval_every = 50, small_batch = 20, test_images = 2000;
  std::string runs;  // comma-separated names; empty: all
  double keep = 0.1;
  autodiff::RadMode mode = autodiff::RadMode::with_replacement;
  DType dtype = DType::f32;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error("rad_mlp: " + a + " needs a value");
      return argv[++i];
    };
    if (a == "--data") {
      o.data = value();
    } else if (a == "--out") {
      o.out = value();
    } else if (a == "--steps") {
      o.steps = std::stoll(value());
    } else if (a == "--eval-every") {
      o.eval_every = std::stoll(value());
    } else if (a == "--small-batch") {
      o.small_batch = std::stoll(value());
    } else if (a == "--keep") {
      o.keep = std::stod(value());
    } else if (a == "--test-images") {
      o.test_images = std::stoll(value());
    } else if (a == "--runs") {
      o.runs = value();
    } else if (a == "--f64") {
      o.dtype = DType::f64;
    } else if (a == "--mode") {
      o.mode = bench::parse_rad_mode("rad_mlp", value());
    } else {
      throw std::runtime_error("rad_mlp: unknown option " + a);
    }
  }
  return o;
}

struct Run {
  std::string name;
  std::int64_t batch;
  double keep;  // 1: exact
  autodiff::RadSharing sharing;
  int quantize_bits = 0;  // 0: no compression
};

const std::int64_t widths[] = {784, 300, 300, 300, 10};
constexpr int kTimingRounds = 40;

// The bytes of the weights the linear layers save whole, whatever the run: the tape less these is
// the activations.
std::size_t weight_bytes(DType dtype) {
  std::size_t values = 0;
  for (std::size_t l = 0; l + 1 < std::size(widths); ++l) values += std::size_t(widths[l] * widths[l + 1]);
  return values * itemsize(dtype);
}

nn::Sequential network(DType dtype) {
  nn::Sequential net;
  for (std::size_t l = 0; l + 1 < std::size(widths); ++l) {
    net.push(nn::Linear(widths[l], widths[l + 1], random::split_at(random::Key(1), l), dtype));
    if (l + 2 < std::size(widths)) net.push(nn::Activation(nn::ActivationKind::relu));
  }
  return net;
}

// The mean cross-entropy of the rows of x against labels (one-hot).
Tensor cross_entropy(const nn::Sequential& net, const Tensor& x, const Tensor& one_hot) {
  return -sum(log_softmax(net(x)) * one_hot) / double(x.dim(0));
}

double accuracy(const nn::Sequential& net, const Tensor& x, const Tensor& labels) {
  const Tensor predicted = prim::argmax(net(x), 1);
  const Tensor hits = prim::cast(prim::binary(BinaryOp::eq, predicted, prim::cast(labels, DType::i64)), DType::f64);
  return prim::sum(hits).item() / double(x.dim(0));
}

struct Summary {
  std::size_t peak_tape_bytes = 0;
  double seconds_per_gradient = 0, final_loss = 0, final_accuracy = 0;
};

// The processor time of one gradient of `run` on a batch drawn from `key`: on a loaded machine the
// wall-clock time measures the load more than the gradient.
double timed_gradient(const nn::Sequential& net, nn::Parameters& params, const Tensor& images, const Tensor& one_hot,
                      const Run& run, const Options& o, const random::Key& key, std::vector<Tensor>& grads) {
  const Tensor u = random::uniform(random::split_at(key, 0), Shape{run.batch});
  const Tensor rows = prim::cast(prim::mul(u, Tensor::scalar(double(images.dim(0)))), DType::i64);
  const Tensor x = take(images, rows), y = take(one_hot, rows);
  const std::clock_t start = std::clock();
  const autodiff::RadScope rad({.keep_fraction = run.keep,
                                .mode = o.mode,
                                .sharing = run.sharing,
                                .key = random::split_at(key, 1).words,
                                .quantize_bits = run.quantize_bits});
  nn::value_and_grad(
      params, [&] { return cross_entropy(net, x, y); }, grads);
  return double(std::clock() - start) / CLOCKS_PER_SEC;
}

Summary train(const Run& run, const Options& o, const data::MnistSplit& train_set, const data::MnistSplit& test_set,
              std::ofstream& curves) {
  nn::Sequential net = network(o.dtype);
  nn::Parameters params(net);
  nn::Adam adam(params, 1e-3);
  std::vector<Tensor> grads(params.size());
  const std::int64_t n = train_set.images.dim(0);
  const Tensor train_one_hot = prim::one_hot(prim::cast(train_set.labels, DType::i64), 10, o.dtype);
  // A fixed subset of the training set, to compare losses across batch sizes without their noise.
  const Tensor probe_rows = Tensor::arange(std::min<std::int64_t>(n, 2000));
  const Tensor probe_x = take(train_set.images, probe_rows), probe_y = take(train_one_hot, probe_rows);
  Summary s;
  double seconds = 0;
  for (std::int64_t step = 0; step <= o.steps; ++step) {
    if (step % o.eval_every == 0 || step == o.steps) {
      s.final_loss = cross_entropy(net, probe_x, probe_y).item();
      s.final_accuracy = accuracy(net, test_set.images, test_set.labels);
      curves << run.name << ',' << step << ',' << s.final_loss << ',' << s.final_accuracy << std::endl;
      std::printf("%-16s step %5lld  train loss %.4f  test accuracy %.4f\n", run.name.c_str(),
                  static_cast<long long>(step), s.final_loss, s.final_accuracy);
      std::fflush(stdout);  // progress of a long run, also when stdout is a file
    }
    if (step == o.steps) break;
    const random::Key key = random::fold_in(random::Key(2), std::uint64_t(step));
    seconds += timed_gradient(net, params, train_set.images, train_one_hot, run, o, key, grads);
    adam.step(grads);
    s.peak_tape_bytes = std::max(s.peak_tape_bytes, autodiff::last_sweep_saved_bytes());
  }
  s.seconds_per_gradient = seconds / double(o.steps);
  return s;
}

// The fastest processor time of each run's gradient over `rounds` rounds that each time every run
// on the same batch in turn, over the exact run's (the first): on a shared machine the fastest time
// is the one that other work slowed least, and alternating exposes every run to the same load.
std::vector<double> fastest_time_ratios(std::span<const Run> runs, const Options& o, const data::MnistSplit& train_set,
                                        int rounds) {
  nn::Sequential net = network(o.dtype);
  nn::Parameters params(net);
  std::vector<Tensor> grads(params.size());
  const Tensor one_hot = prim::one_hot(prim::cast(train_set.labels, DType::i64), 10, o.dtype);
  std::vector<double> fastest(runs.size(), 1e30);
  for (int r = 0; r < rounds; ++r) {
    const random::Key key = random::fold_in(random::Key(3), std::uint64_t(r));
    for (std::size_t i = 0; i < runs.size(); ++i)
      fastest[i] = std::min(fastest[i], timed_gradient(net, params, train_set.images, one_hot, runs[i], o, key, grads));
  }
  const double exact = fastest.front();
  for (double& t : fastest) t /= exact;
  return fastest;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (!std::filesystem::is_directory(o.data)) {
    std::printf("MNIST not found in %s: skipped\n", o.data.c_str());
    return 77;
  }
  const data::MnistSplit train_set = data::load_mnist(o.data, "train", o.dtype);
  const data::MnistSplit test_set = data::load_mnist(o.data, "t10k", o.dtype, o.test_images);
  std::filesystem::create_directories(o.out);
  std::ofstream curves(std::filesystem::path(o.out) / "curves.csv");
  curves << "run,step,train_loss,test_accuracy\n";
  const Run all_runs[] = {
      {"exact_b150", 150, 1.0, autodiff::RadSharing::per_example},
      {"rad_same_b150", 150, o.keep, autodiff::RadSharing::shared},
      {"rad_diff_b150", 150, o.keep, autodiff::RadSharing::per_example},
      {"small_b" + std::to_string(o.small_batch), o.small_batch, 1.0, autodiff::RadSharing::per_example},
      {"actnn2_b150", 150, 1.0, autodiff::RadSharing::per_example, 2},
      {"actnn4_b150", 150, 1.0, autodiff::RadSharing::per_example, 4},
  };
  std::vector<Run> runs;  // exact first: the others are measured against it
  for (const Run& run : all_runs)
    if (o.runs.empty() || run.name == "exact_b150" ||
        ("," + o.runs + ",").find("," + run.name + ",") != std::string::npos)
      runs.push_back(run);
  std::ofstream summary(std::filesystem::path(o.out) / "summary.csv");
  summary << "run,batch,keep,bits,peak_tape_bytes,tape_vs_exact,activation_bytes,activations_vs_exact,"
             "seconds_per_gradient,gradient_time_vs_exact,final_train_loss,final_test_accuracy\n";
  std::vector<Summary> summaries;
  for (const Run& run : runs) summaries.push_back(train(run, o, train_set, test_set, curves));
  const std::vector<double> time_ratios = fastest_time_ratios(runs, o, train_set, kTimingRounds);
  const double weights = double(weight_bytes(o.dtype)), exact_tape = double(summaries[0].peak_tape_bytes);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Run& run = runs[i];
    const Summary& s = summaries[i];
    const double tape = double(s.peak_tape_bytes), activations = tape - weights;
    const double tape_ratio = tape / exact_tape, activation_ratio = activations / (exact_tape - weights);
    summary << run.name << ',' << run.batch << ',' << run.keep << ',' << run.quantize_bits << ',' << s.peak_tape_bytes
            << ',' << tape_ratio << ',' << activations << ',' << activation_ratio << ',' << s.seconds_per_gradient
            << ',' << time_ratios[i] << ',' << s.final_loss << ',' << s.final_accuracy << '\n';
    std::printf(
        "%-16s peak tape %zu bytes (%.3f of exact), activations %.0f bytes (%.3f of exact), %.2f CPU ms per gradient, "
        "gradient %.2fx exact (fastest of %d alternating rounds)\n",
        run.name.c_str(), s.peak_tape_bytes, tape_ratio, activations, activation_ratio, 1e3 * s.seconds_per_gradient,
        time_ratios[i], kTimingRounds);
  }
  curves.close();
  const std::filesystem::path out(o.out);
  bench::plot_csv(out / "curves.csv", out / "train_loss.svg", {.y = "train_loss", .title = "MLP on MNIST"});
  bench::plot_csv(out / "curves.csv", out / "test_accuracy.svg", {.y = "test_accuracy", .title = "MLP on MNIST"});
  std::printf("curves, summary and plots written to %s\n", o.out.c_str());
  return 0;
}
