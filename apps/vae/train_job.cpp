#include "train_job.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include "../write_file.hpp"
#include "evaluate.hpp"
#include "figures.hpp"
#include "image_data.hpp"
#include "replicas.hpp"
#include "run_record.hpp"
#include "training_curve.hpp"
#include "vae_training.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/core/error.hpp"

namespace variate::cli::vae {

namespace {

constexpr const char* kJob = "variate train";

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

Bound parse_bound(const TrainJobOptions& o) {
  VARIATE_CHECK(o.bound == "elbo" || o.bound == "iwae", kJob, "unknown --bound '", o.bound, "'; expected elbo or iwae");
  VARIATE_CHECK(o.particles >= 0, kJob, "--particles must be >= 1, got ", o.particles);
  const BoundKind kind = o.bound == "iwae" ? BoundKind::iwae : BoundKind::elbo;
  return {kind, o.particles > 0 ? o.particles : (kind == BoundKind::iwae ? 5 : 1)};
}

void check_options(const TrainJobOptions& o) {
  VARIATE_CHECK(o.epochs >= 0, kJob, "--epochs must be >= 0, got ", o.epochs);
  VARIATE_CHECK(o.minutes >= 0, kJob, "--minutes must be >= 0, got ", o.minutes);
  VARIATE_CHECK(o.batch >= 1, kJob, "--batch must be >= 1, got ", o.batch);
  VARIATE_CHECK(o.devices >= 1, kJob, "--devices must be >= 1, got ", o.devices);
  VARIATE_CHECK(o.batch % o.devices == 0, kJob, "--batch ", o.batch, " does not split evenly over --devices ",
                o.devices, "; choose a batch that is a multiple of ", o.devices);
  VARIATE_CHECK(o.learning_rate > 0, kJob, "--learning-rate must be > 0, got ", o.learning_rate);
  VARIATE_CHECK(o.eval_samples >= 0, kJob, "--eval-samples must be >= 0, got ", o.eval_samples);
  VARIATE_CHECK(o.eval_images >= 1, kJob, "--eval-images must be >= 1, got ", o.eval_images);
  VARIATE_CHECK(o.precision == "f64" || o.precision == "f32", kJob, "unknown --precision '", o.precision,
                "'; expected f64 or f32");
  VARIATE_CHECK(!o.output_dir.empty(), kJob, "--output-dir must not be empty");
  VARIATE_CHECK(o.flow_layers >= 1, kJob, "--flow-layers must be >= 1, got ", o.flow_layers);
  VARIATE_CHECK(o.flow_devices >= 1, kJob, "--flow-devices must be >= 1, got ", o.flow_devices);
  VARIATE_CHECK(o.placement == "contiguous" || o.placement == "round-robin", kJob, "unknown --placement '", o.placement,
                "'; expected contiguous or round-robin");
  if (o.flow_devices == 1) return;
  VARIATE_CHECK(o.devices == 1, kJob, "--devices ", o.devices, " (data parallel) and --flow-devices ", o.flow_devices,
                " (model parallel) cannot be combined; choose one");
  VARIATE_CHECK(o.posterior == "iaf", kJob, "--flow-devices ", o.flow_devices,
                " splits the IAF posterior's flow layers over devices; it needs --posterior iaf");
  VARIATE_CHECK(o.flow_devices <= o.flow_layers, kJob, "--flow-devices ", o.flow_devices, " but the IAF posterior has ",
                o.flow_layers, " flow layers (--flow-layers); each device must hold at least one");
}

// The flow's layers and, with --devices > 1, the device of each (the encoder and decoder on 0).
FlowLayout flow_layout(const TrainJobOptions& o) {
  FlowLayout layout;
  layout.layers = o.flow_layers;
  if (o.flow_devices > 1)
    layout.devices = distribute::place_layers(o.flow_layers, o.flow_devices,
                                              o.placement == "round-robin" ? distribute::LayerPlacement::round_robin
                                                                           : distribute::LayerPlacement::contiguous);
  return layout;
}

// The options the checkpoint depends on (the rest, epochs, minutes and evaluation, may change).
RunRecord run_record(const TrainJobOptions& o, const Bound& bound) {
  std::ostringstream rate;
  rate << std::setprecision(17) << o.learning_rate;
  RunRecord record{{"--model", o.model},
                   {"--bound", o.bound},
                   {"--particles", std::to_string(bound.particles)},
                   {"--posterior", o.posterior},
                   {"--batch", std::to_string(o.batch)},
                   {"--learning-rate", rate.str()},
                   {"--seed", std::to_string(o.seed)},
                   {"--precision", o.precision},
                   {"--train-images", std::to_string(o.train_images)}};
  // Recorded only when not the default, so that the records of earlier runs still match. The
  // devices and the placement fix which parameters each device's checkpoint holds.
  if (o.flow_layers != 2) record["--flow-layers"] = std::to_string(o.flow_layers);
  if (o.flow_devices > 1) {
    record["--flow-devices"] = std::to_string(o.flow_devices);
    record["--placement"] = o.placement;
  }
  return record;
}

// Creates `dir`; a checkpoint there must come from a run with the same `record`, else the record
// is written for the runs that resume this one.
void prepare_output_dir(const std::filesystem::path& dir, const RunRecord& record) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  VARIATE_CHECK(!error && std::filesystem::is_directory(dir), kJob, "cannot create the output directory '",
                dir.string(), "'", error ? ": " + error.message() : std::string());
  const std::filesystem::path checkpoint = dir / "checkpoint", record_path = dir / "run.json";
  if (std::filesystem::exists(checkpoint))
    check_run_record(record_path, record, checkpoint);
  else
    write_run_record(record_path, record);
}

std::string describe_model(const TrainJobOptions& o, const Architecture& a, const Bound& bound,
                           std::int64_t parameters) {
  std::ostringstream s;
  s << "VAE " << a.pixels << "-" << a.hidden << "-" << a.hidden << "-" << a.latent << " (tanh), " << o.posterior
    << " posterior, ";
  if (o.posterior == "iaf" && (o.flow_layers != 2 || o.flow_devices > 1)) {
    s << o.flow_layers << " flow layers";
    if (o.flow_devices > 1)
      s << " on " << o.flow_devices << " thread devices (" << o.placement << "; encoder and decoder on device 0)";
    s << ", ";
  }
  s << parameters << " parameters, " << o.precision << "; " << (bound.kind == BoundKind::iwae ? "IWAE bound" : "ELBO")
    << " with " << bound.particles << (bound.particles == 1 ? " particle" : " particles") << ", Adam (lr "
    << o.learning_rate << ", beta2 0.999, eps 1e-4), batch " << o.batch;
  if (o.devices > 1) s << " over " << o.devices << " devices (data parallel)";
  return s.str();
}

// The K-sample test NLL after `epochs` epochs: printed, and written to test_nll.json.
void report_test_nll(const TrainJobOptions& o, const Vae& vae, const Tensor& eval_images, random::Key key,
                     std::int64_t epochs, std::ostream& out, std::ostream& log) {
  const auto start = Clock::now();
  const MeanAndError nll =
      test_negative_log_likelihood(vae, eval_images, o.eval_samples, random::fold_in(key, "test nll"), &log);
  const double seconds = seconds_since(start);
  out << "test NLL (K = " << o.eval_samples << " importance samples, " << eval_images.dim(0)
      << " test images): " << std::fixed << std::setprecision(2) << nll.mean << " +- " << nll.standard_error
      << " nats (" << std::setprecision(1) << seconds << " s)" << std::defaultfloat << std::setprecision(6) << "\n";
  const std::filesystem::path path = std::filesystem::path(o.output_dir) / "test_nll.json";
  write_file(kJob, path.string(), [&](std::ostream& file) {
    file << std::setprecision(10) << "{\"epochs\": " << epochs << ", \"samples\": " << o.eval_samples
         << ", \"images\": " << eval_images.dim(0) << ", \"nll\": " << nll.mean
         << ", \"standard_error\": " << nll.standard_error << ", \"seconds\": " << seconds << "}\n";
  });
}

// How the job trains the VAE: data parallel over --devices (replicas.hpp) or with its flow's layers
// over --flow-devices (vae_training.hpp). On one device both are the one-device run.
class Trainer {
 public:
  virtual ~Trainer() = default;
  /// The VAE to evaluate (device 0's).
  virtual const Vae& vae() const = 0;
  virtual std::int64_t parameter_count() const = 0;
  virtual nn::TrainResult train(const nn::TrainOptions& options) = 0;
};

class DataParallel final : public Trainer {
 public:
  DataParallel(const TrainJobOptions& o, const Architecture& architecture, PosteriorKind posterior,
               const Tensor& images, const Bound& bound, random::Key key)
      : replicas_(o.devices, architecture, posterior, random::fold_in(key, "init"), o.learning_rate, flow_layout(o)),
        images_(images),
        bound_(bound),
        key_(key) {}
  const Vae& vae() const override { return replicas_.vae(); }
  std::int64_t parameter_count() const override { return replicas_.parameter_count(); }
  nn::TrainResult train(const nn::TrainOptions& options) override {
    return replicas_.train(images_, bound_, key_, options);
  }

 private:
  Replicas replicas_;
  Tensor images_;
  Bound bound_;
  random::Key key_;
};

class ModelParallel final : public Trainer {
 public:
  ModelParallel(const TrainJobOptions& o, const Architecture& architecture, PosteriorKind posterior,
                const Tensor& images, const Bound& bound, random::Key key)
      : vae_(architecture, posterior, random::fold_in(key, "init"), flow_layout(o)),
        training_(vae_, o.learning_rate),
        images_(images),
        bound_(bound),
        key_(key) {}
  const Vae& vae() const override { return vae_; }
  std::int64_t parameter_count() const override { return training_.parameter_count(); }
  nn::TrainResult train(const nn::TrainOptions& options) override {
    const random::Key binarize_key = random::fold_in(key_, "binarize"), bound_key = random::fold_in(key_, "bound");
    const nn::BatchLoss loss = [&](std::span<const std::int64_t> batch) {
      const std::int64_t step = training_.home_optimizer().steps_taken();
      const Tensor rows = Tensor::from(batch, Shape{std::int64_t(batch.size())});
      const Tensor x = binarize(take(images_, rows), random::fold_in(binarize_key, std::uint64_t(step)));
      return -minibatch_bound(vae_, x, bound_, random::fold_in(bound_key, std::uint64_t(step))).surrogate /
             double(batch.size());
    };
    return training_.train(images_.dim(0), key_, loss, bound_.particles, options);
  }

 private:
  Vae vae_;
  VaeTraining training_;
  Tensor images_;
  Bound bound_;
  random::Key key_;
};

std::unique_ptr<Trainer> make_trainer(const TrainJobOptions& o, const Architecture& architecture,
                                      PosteriorKind posterior, const Tensor& images, const Bound& bound,
                                      random::Key key) {
  if (o.flow_devices > 1) return std::make_unique<ModelParallel>(o, architecture, posterior, images, bound, key);
  return std::make_unique<DataParallel>(o, architecture, posterior, images, bound, key);
}

}  // namespace

int run_train_job(const TrainJobOptions& o, std::ostream& out, std::ostream& log) {
  check_options(o);
  const Bound bound = parse_bound(o);
  const PosteriorKind posterior = posterior_kind(o.posterior);
  const DType dtype = o.precision == "f32" ? DType::f32 : DType::f64;
  const ImageData images = load_image_data(o.model, o.data_dir, dtype, o.train_images);
  const Tensor eval_images = slice(images.test_binary, 0, 0, std::min(o.eval_images, images.test_binary.dim(0)));
  out << "data: " << images.description << "\n";

  const std::filesystem::path dir = o.output_dir, checkpoint = dir / "checkpoint";
  prepare_output_dir(dir, run_record(o, bound));

  const random::Key key(o.seed);
  Architecture architecture;
  architecture.pixels = images.train.dim(1);
  architecture.dtype = dtype;
  const std::unique_ptr<Trainer> trainer = make_trainer(o, architecture, posterior, images.train, bound, key);
  const Vae& vae = trainer->vae();
  out << "model: " << describe_model(o, architecture, bound, trainer->parameter_count()) << "\n";

  const std::int64_t n = images.train.dim(0);
  const std::int64_t per_epoch = (n + o.batch - 1) / o.batch;
  nn::TrainOptions train;
  train.batch_size = o.batch;
  train.checkpoint = checkpoint;
  train.checkpoint_every = per_epoch;
  train.epochs = 0;  // restores the checkpoint, if any, and takes no step
  const std::int64_t resumed_epoch = trainer->train(train).resumed_from / per_epoch;
  if (resumed_epoch > 0) out << "resumed from " << checkpoint.string() << " after epoch " << resumed_epoch << "\n";

  TrainingCurve curve(dir / "curve.csv", resumed_epoch);
  const random::Key eval_key = random::fold_in(key, "evaluate");
  const auto run_start = Clock::now();
  double trained = 0;  // seconds of training in this run
  std::int64_t epoch = resumed_epoch;
  for (; epoch < o.epochs; ++epoch) {
    if (o.minutes > 0 && trained >= o.minutes * 60) {
      out << "time budget of " << o.minutes << " min reached after epoch " << epoch << "\n";
      break;
    }
    train.epochs = epoch + 1;
    const auto start = Clock::now();
    const nn::TrainResult result = trainer->train(train);
    const double seconds = seconds_since(start);
    trained += seconds;
    const MeanAndError test = mean_bound(vae, eval_images, bound, random::fold_in(eval_key, std::uint64_t(epoch)));
    curve.append({epoch + 1, -result.epoch_loss, test.mean, curve.seconds() + seconds});
    log << "epoch " << epoch + 1 << "/" << o.epochs << ": train bound " << std::fixed << std::setprecision(2)
        << -result.epoch_loss << ", test bound " << test.mean << " nats/image, " << std::setprecision(0)
        << double(n) / seconds << " examples/s, " << std::setprecision(1) << seconds << " s" << std::defaultfloat
        << std::setprecision(6) << "\n";
  }
  out << "trained " << epoch - resumed_epoch << " epochs in this run (" << std::fixed << std::setprecision(1) << trained
      << " s of training, " << seconds_since(run_start) << " s with evaluation), " << epoch << " in all"
      << std::defaultfloat << std::setprecision(6) << "\n";

  write_samples_png(dir / "samples.png", vae, random::fold_in(key, "samples"), images.rows, images.cols);
  write_reconstructions_png(dir / "reconstructions.png", vae, eval_images, images.rows, images.cols);
  out << "wrote " << (dir / "curve.csv").string() << ", " << (dir / "samples.png").string() << ", "
      << (dir / "reconstructions.png").string() << "\n";

  if (o.eval_samples > 0) report_test_nll(o, vae, eval_images, key, epoch, out, log);
  return 0;
}

}  // namespace variate::cli::vae
