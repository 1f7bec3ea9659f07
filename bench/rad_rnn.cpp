// Randomized autodiff on a recurrent network (Oktay et al., "Randomized Automatic
// Differentiation", ICLR 2021, section 5): row-by-row sequential MNIST (28 steps of 28 pixels) read
// by a ReLU Elman network of 100 units started as the IRNN (nn::ReluRnn), then a linear readout,
// trained with Adam and gradient-norm clipping at batch 150 exactly, at batch 150 with RAD keeping
// 10% of the input of each linear map, input-to-hidden and hidden-to-hidden, at every step (one
// choice per example, "different sample"), and at the small batch whose exact tape holds as many
// activations as RAD's. Writes the curves (loss on a fixed training subset, test accuracy and the
// peak tape bytes so far, against steps) and a summary with each run's peak tape bytes and time
// per gradient (also timed in alternation with exact's), and plots the curves.
//
// The tape counts a weight each time a linear node saves it, though the nodes of all 28 steps hold
// the same storage; the summary's activation_bytes leaves these repeats out.
//
// Usage: rad_rnn [--data DIR] [--out DIR] [--steps N] [--eval-every N] [--keep F] [--small-batch N]
//                [--mode with|without|projection] [--lr X]
// Defaults: ../shared/data/mnist, rad_rnn_out, 1000 steps (a few minutes), eval every 100, keep
// 0.1, Adam lr 1e-3, sampling with replacement, and the small batch of equal activation bytes
// (measured from the exact and RAD runs). f32. Exits 77 without the data.
#include <algorithm>
#include <chrono>
#include <cstdio>
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

constexpr std::int64_t kSteps = 28, kPixels = 28;  // an image as 28 rows of 28 pixels
constexpr std::int64_t kHidden = 100, kBatch = 150, kProbe = 1000;
constexpr double kClipNorm = 1.0;
constexpr int kTimingRounds = 30;

struct Options {
  std::string data = "../shared/data/mnist", out = "rad_rnn_out";
  std::int64_t steps = 1000, eval_every = 100, small_batch = 0;  // 0: equal activation bytes
  double keep = 0.1, lr = 1e-3;
  autodiff::RadMode mode = autodiff::RadMode::with_replacement;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error("rad_rnn: " + a + " needs a value");
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
    } else if (a == "--lr") {
      o.lr = std::stod(value());
    } else if (a == "--mode") {
      o.mode = bench::parse_rad_mode("rad_rnn", value());
    } else {
      throw std::runtime_error("rad_rnn: unknown option " + a);
    }
  }
  if (o.steps < 1 || o.eval_every < 1 || o.small_batch < 0)
    throw std::runtime_error("rad_rnn: --steps and --eval-every must be >= 1 and --small-batch >= 0");
  return o;
}

struct Run {
  std::string name;
  std::int64_t batch;
  double keep;  // 1: exact
};

// Images as sequences of their rows: (n, 784) -> (n, 28 steps, 28 pixels).
Tensor rows_of(const Tensor& images) { return prim::reshape(images, Shape{images.dim(0), kSteps, kPixels}); }

nn::Sequential network() {
  nn::Sequential net;
  net.push(nn::ReluRnn(kPixels, kHidden, random::split_at(random::Key(1), 0), DType::f32));
  net.push(nn::Linear(kHidden, 10, random::split_at(random::Key(1), 1), DType::f32));
  return net;
}

// The bytes of the weights the tape counts again at every step: W_ih at each step, W_hh at each
// step but the first (h_0 = 0 has no recurrent term), the readout once.
std::size_t weight_bytes_on_tape(const nn::Sequential& net) {
  const auto& rnn = dynamic_cast<const nn::ReluRnn&>(net[0]);
  const auto& readout = dynamic_cast<const nn::Linear&>(net[1]);
  return kSteps * rnn.input_weight.nbytes() + (kSteps - 1) * rnn.recurrent_weight.nbytes() + readout.weight.nbytes();
}

// The mean cross-entropy of the sequences x against labels (one-hot).
Tensor cross_entropy(const nn::Sequential& net, const Tensor& x, const Tensor& one_hot) {
  return -sum(log_softmax(net(x)) * one_hot) / double(x.dim(0));
}

double accuracy(const nn::Sequential& net, const Tensor& x, const Tensor& labels) {
  const Tensor predicted = prim::argmax(net(x), 1);
  const Tensor hits = prim::cast(prim::binary(BinaryOp::eq, predicted, prim::cast(labels, DType::i64)), DType::f64);
  return prim::sum(hits).item() / double(x.dim(0));
}

struct Summary {
  std::size_t peak_tape_bytes = 0, activation_bytes = 0;
  double seconds_per_gradient = 0, final_loss = 0, final_accuracy = 0;
};

struct Data {
  Tensor train_x, train_one_hot, probe_x, probe_y, test_x, test_labels;
};

// The gradient of the loss of a minibatch drawn from `key` into grads, under the run's keep
// fraction; returns the seconds it took (drawing the batch excluded).
double timed_gradient(const nn::Sequential& net, nn::Parameters& params, const Data& d, const Run& run,
                      autodiff::RadMode mode, random::Key key, std::vector<Tensor>& grads) {
  const Tensor u = random::uniform(random::split_at(key, 0), Shape{run.batch});
  const Tensor rows = prim::cast(prim::mul(u, Tensor::scalar(double(d.train_x.dim(0)))), DType::i64);
  const Tensor x = take(d.train_x, rows), y = take(d.train_one_hot, rows);
  const auto start = std::chrono::steady_clock::now();
  const autodiff::RadScope rad({.keep_fraction = run.keep,
                                .mode = mode,
                                .sharing = autodiff::RadSharing::per_example,
                                .key = random::split_at(key, 1).words});
  nn::value_and_grad(
      params, [&] { return cross_entropy(net, x, y); }, grads);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Summary train(const Run& run, const Options& o, const Data& d, std::ofstream& curves) {
  nn::Sequential net = network();
  nn::Parameters params(net);
  nn::Adam adam(params, o.lr);
  std::vector<Tensor> grads(params.size());
  Summary s;
  double seconds = 0;
  for (std::int64_t step = 0; step <= o.steps; ++step) {
    if (step % o.eval_every == 0 || step == o.steps) {
      s.final_loss = cross_entropy(net, d.probe_x, d.probe_y).item();
      s.final_accuracy = accuracy(net, d.test_x, d.test_labels);
      curves << run.name << ',' << step << ',' << s.final_loss << ',' << s.final_accuracy << ',' << s.peak_tape_bytes
             << std::endl;
      std::printf("%-12s step %5lld  train loss %.4f  test accuracy %.4f\n", run.name.c_str(),
                  static_cast<long long>(step), s.final_loss, s.final_accuracy);
      std::fflush(stdout);  // progress of a long run, also when stdout is a file
    }
    if (step == o.steps) break;
    seconds += timed_gradient(net, params, d, run, o.mode, random::fold_in(random::Key(2), std::uint64_t(step)), grads);
    nn::clip_grad_norm(grads, kClipNorm);
    adam.step(grads);
    s.peak_tape_bytes = std::max(s.peak_tape_bytes, autodiff::last_sweep_saved_bytes());
  }
  s.activation_bytes = s.peak_tape_bytes - weight_bytes_on_tape(net);
  s.seconds_per_gradient = seconds / double(o.steps);
  return s;
}

// The time of each run's gradient over the exact one's, the median over `rounds` rounds that each
// time all three on one batch in turn: other work on a shared machine then slows them alike, which
// it does not for runs timed one after another.
std::vector<double> paired_time_ratios(const std::vector<Run>& runs, const Options& o, const Data& d, int rounds) {
  nn::Sequential net = network();
  nn::Parameters params(net);
  std::vector<Tensor> grads(params.size());
  std::vector<std::vector<double>> ratios(runs.size());
  for (int r = 0; r < rounds; ++r) {
    const random::Key key = random::fold_in(random::Key(3), std::uint64_t(r));
    const double exact = timed_gradient(net, params, d, runs[0], o.mode, key, grads);
    for (std::size_t i = 0; i < runs.size(); ++i)
      ratios[i].push_back(i == 0 ? 1.0 : timed_gradient(net, params, d, runs[i], o.mode, key, grads) / exact);
  }
  std::vector<double> medians;
  for (std::vector<double>& v : ratios) {
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
    medians.push_back(v[v.size() / 2]);
  }
  return medians;
}

// Each run's memory and time against the exact run's (the first), to `path` and stdout.
void write_summary(const std::filesystem::path& path, std::span<const Run> runs, std::span<const Summary> summaries,
                   std::span<const double> time_ratios) {
  const Summary& exact = summaries[0];
  std::ofstream summary(path);
  summary << "run,batch,keep,peak_tape_bytes,tape_vs_exact,activation_bytes,activations_vs_exact,"
             "seconds_per_gradient,paired_time_vs_exact,final_train_loss,final_test_accuracy\n";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Run& run = runs[i];
    const Summary& s = summaries[i];
    const double tape = double(s.peak_tape_bytes) / double(exact.peak_tape_bytes);
    const double activations = double(s.activation_bytes) / double(exact.activation_bytes);
    summary << run.name << ',' << run.batch << ',' << run.keep << ',' << s.peak_tape_bytes << ',' << tape << ','
            << s.activation_bytes << ',' << activations << ',' << s.seconds_per_gradient << ',' << time_ratios[i] << ','
            << s.final_loss << ',' << s.final_accuracy << '\n';
    std::printf(
        "%-12s peak tape %zu bytes (%.3f of exact), activations %zu bytes (%.3f), %.2f ms per gradient, "
        "%.2fx exact's time (paired)\n",
        run.name.c_str(), s.peak_tape_bytes, tape, s.activation_bytes, activations, 1e3 * s.seconds_per_gradient,
        time_ratios[i]);
  }
}

Data load(const Options& o) {
  const data::MnistSplit train_set = data::load_mnist(o.data, "train", DType::f32);
  const data::MnistSplit test_set = data::load_mnist(o.data, "t10k", DType::f32, 2000);
  Data d;
  d.train_x = rows_of(train_set.images);
  d.train_one_hot = prim::one_hot(prim::cast(train_set.labels, DType::i64), 10, DType::f32);
  // A fixed subset of the training set, to compare losses across batch sizes without their noise.
  const Tensor probe_rows = Tensor::arange(std::min(d.train_x.dim(0), kProbe));
  d.probe_x = take(d.train_x, probe_rows);
  d.probe_y = take(d.train_one_hot, probe_rows);
  d.test_x = rows_of(test_set.images);
  d.test_labels = test_set.labels;
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (!std::filesystem::is_directory(o.data)) {
    std::printf("MNIST not found in %s: skipped\n", o.data.c_str());
    return 77;
  }
  const Data d = load(o);
  const std::filesystem::path out(o.out);
  std::filesystem::create_directories(out);
  std::ofstream curves(out / "curves.csv");
  curves << "run,step,train_loss,test_accuracy,peak_tape_bytes\n";
  const Run exact_run{"exact_b" + std::to_string(kBatch), kBatch, 1.0};
  const Summary exact = train(exact_run, o, d, curves);
  const Run rad_run{"rad_b" + std::to_string(kBatch), kBatch, o.keep};
  const Summary rad = train(rad_run, o, d, curves);
  // The exact tape's activations grow in proportion to the batch.
  const std::int64_t small = o.small_batch > 0 ? o.small_batch
                                               : std::max<std::int64_t>(1, kBatch * std::int64_t(rad.activation_bytes) /
                                                                               std::int64_t(exact.activation_bytes));
  const Run small_run{"small_b" + std::to_string(small), small, 1.0};
  const Summary small_summary = train(small_run, o, d, curves);
  const std::vector<Run> runs = {exact_run, rad_run, small_run};
  const Summary summaries[] = {exact, rad, small_summary};
  const std::vector<double> time_ratios = paired_time_ratios(runs, o, d, kTimingRounds);
  write_summary(out / "summary.csv", runs, summaries, time_ratios);
  curves.close();
  bench::plot_csv(out / "curves.csv", out / "train_loss.svg", {.y = "train_loss", .title = "RNN on sequential MNIST"});
  bench::plot_csv(out / "curves.csv", out / "test_accuracy.svg",
                  {.y = "test_accuracy", .title = "RNN on sequential MNIST"});
  std::printf("curves, summary and plots written to %s\n", o.out.c_str());
  return 0;
}
