#include "vae_trainers.hpp"

#include <chrono>
#include <iomanip>
#include <optional>
#include <sstream>

#include "../write_file.hpp"
#include "figures.hpp"
#include "image_batches.hpp"
#include "learning_rate.hpp"
#include "replicas.hpp"
#include "vae_training.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/rad.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/autodiff/tape_bytes.hpp"

namespace variate::cli::vae {

namespace {

constexpr const char* kJob = "variate train";
const nn::AdamOptions kAdam{.beta1 = 0.9, .beta2 = 0.999, .eps = 1e-4};

// The flow's layers and, with --flow-devices > 1, the device of each (the encoder and decoder on 0).
FlowLayout flow_layout(const TrainJobOptions& o) {
  FlowLayout layout;
  layout.layers = o.flow_layers;
  if (o.flow_devices > 1)
    layout.devices = distribute::place_layers(o.flow_layers, o.flow_devices,
                                              o.placement == "round-robin" ? distribute::LayerPlacement::round_robin
                                                                           : distribute::LayerPlacement::contiguous);
  return layout;
}

std::string describe_model(const TrainJobOptions& o, const Architecture& a, const Bound& bound, std::int64_t parameters,
                           int data_devices) {
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
    << o.learning_rate << describe_schedule(o) << ", beta2 0.999, eps 1e-4), batch " << o.batch;
  if (data_devices > 1) s << " over " << data_devices << " devices (data parallel)";
  if (o.rad_fraction < 1)
    s << "; RAD keeping " << o.rad_fraction << " of each linear layer's input (" << o.rad_mode
      << (o.rad_mode == "projection" ? ")" : " replacement)");
  if (o.rad_bits > 0) s << "; linear layers' saved inputs in " << o.rad_bits << "-bit codes (stochastic rounding)";
  return s.str();
}

autodiff::RadMode rad_mode(const std::string& mode) {
  if (mode == "without") return autodiff::RadMode::without_replacement;
  if (mode == "projection") return autodiff::RadMode::projection;
  return autodiff::RadMode::with_replacement;  // "with"; the job checked the name
}

// The RAD configuration of one step's loss from the step's key; nullopt for the exact gradient.
std::optional<autodiff::RadConfig> rad_config(const TrainJobOptions& o, random::Key step_key) {
  if (o.rad_fraction >= 1 && o.rad_bits == 0) return std::nullopt;
  return autodiff::RadConfig{.keep_fraction = o.rad_fraction,
                             .mode = rad_mode(o.rad_mode),
                             .key = step_key.words,
                             .quantize_bits = o.rad_bits};
}

// What the tape of the running sweep saved so far: at the end of a loss, the whole forward pass.
TapeBytes tape_so_far() {
  TapeBytes bytes{autodiff::saved_bytes(), 0};
  for (const autodiff::OpSavedBytes& op : autodiff::saved_bytes_by_op())
    if (op.op == "linear") bytes.linear = op.bytes;
  return bytes;
}

// What both ways of training share: the scores, figures and test NLL of the VAE.
class VaeTrainer : public Trainer {
 public:
  VaeTrainer(const TrainJobOptions& o, const Bound& bound, random::Key key) : o_(o), bound_(bound), key_(key) {}
  /// The VAE to evaluate (this process's first device's).
  virtual const Vae& vae() const = 0;
  virtual std::int64_t parameter_count() const = 0;
  /// The devices that split each minibatch.
  virtual int data_devices() const = 0;

  std::string describe() const override {
    return describe_model(o_, vae().architecture, bound_, parameter_count(), data_devices());
  }
  // Epoch e's bound is drawn with the key numbered e - 1 (the numbering of earlier releases).
  MeanAndError test_bound(const Tensor& images, std::int64_t epoch) override {
    const random::Key key = random::fold_in(random::fold_in(key_, "evaluate"), std::uint64_t(epoch - 1));
    return mean_bound(vae(), images, bound_, key);
  }
  std::optional<TapeBytes> step_tape_bytes() const override { return tape_; }
  std::vector<std::filesystem::path> write_figures(const std::filesystem::path& dir, const Tensor& images,
                                                   std::int64_t image_rows, std::int64_t image_cols) override {
    write_samples_png(dir / "samples.png", vae(), random::fold_in(key_, "samples"), image_rows, image_cols);
    write_reconstructions_png(dir / "reconstructions.png", vae(), images, image_rows, image_cols);
    return {dir / "samples.png", dir / "reconstructions.png"};
  }
  // The K-sample importance-sampled estimate (none with --eval-samples 0).
  void report_test_nll(const std::filesystem::path& dir, const Tensor& images, std::int64_t epochs, std::ostream& out,
                       std::ostream& log) override {
    if (o_.eval_samples == 0) return;
    const auto start = std::chrono::steady_clock::now();
    const std::vector<double> per_image =
        test_negative_log_likelihoods(vae(), images, o_.eval_samples, random::fold_in(key_, "test nll"), &log);
    const MeanAndError nll = mean_and_error(per_image);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out << "test NLL (K = " << o_.eval_samples << " importance samples, " << images.dim(0)
        << " test images): " << std::fixed << std::setprecision(2) << nll.mean << " +- " << nll.standard_error
        << " nats (" << std::setprecision(1) << seconds << " s)" << std::defaultfloat << std::setprecision(6) << "\n";
    write_file(kJob, (dir / "test_nll.json").string(), [&](std::ostream& file) {
      file << std::setprecision(10) << "{\"epochs\": " << epochs << ", \"samples\": " << o_.eval_samples
           << ", \"images\": " << images.dim(0) << ", \"nll\": " << nll.mean
           << ", \"standard_error\": " << nll.standard_error << ", \"seconds\": " << seconds << "}\n";
    });
    // Per image, so that two models scored on the same images can be compared pairwise.
    write_file(kJob, (dir / "test_nll_images.csv").string(), [&](std::ostream& file) {
      file << "image,nll\n" << std::setprecision(10);
      for (std::size_t i = 0; i < per_image.size(); ++i) file << i << ',' << per_image[i] << '\n';
    });
  }

 protected:
  const TrainJobOptions& o_;
  Bound bound_;
  random::Key key_;
  std::optional<TapeBytes> tape_;  // written by device 0's loss (data parallel), read after training joins the devices
};

// Draws: each step binarizes the whole minibatch from the step's key and every device keeps its
// rows, so the images are those of a one-device run whatever the device count. The bound's noise is
// drawn per device, on its own rows, from the step's key folded with the slice's position, so runs
// on different device counts follow different (equally valid) noise; on one device it is exactly
// the one-device run's. A checkpoint resumes on any device count.
class DataParallel final : public VaeTrainer {
 public:
  DataParallel(const TrainJobOptions& o, const Architecture& architecture, PosteriorKind posterior,
               const Tensor& images, const Bound& bound, random::Key key)
      : VaeTrainer(o, bound, key),
        replicas_(
            o.devices,
            [&] {
              return std::make_unique<Vae>(architecture, posterior, random::fold_in(key, "init"), flow_layout(o));
            },
            learning_rate_schedule(o, images.dim(0)), kAdam),
        images_(images) {}
  const Vae& vae() const override { return replicas_.model(); }
  std::int64_t parameter_count() const override { return replicas_.parameter_count(); }
  int data_devices() const override { return replicas_.devices(); }
  bool writer() const override { return replicas_.writer(); }
  nn::TrainResult train(const nn::TrainOptions& options) override {
    const random::Key binarize_key = random::fold_in(key_, "binarize"), bound_key = random::fold_in(key_, "bound");
    const random::Key rad_key = random::fold_in(key_, "rad");
    const bool one_device = replicas_.devices() == 1;
    const Replicas<Vae>::Loss loss = [&](const Vae& vae, const distribute::BatchShard& shard, std::int64_t step) {
      if (shard.examples.empty()) return Tensor::zeros(Shape{}, vae.architecture.dtype);
      const Tensor x = binarized_shard(images_, shard, random::fold_in(binarize_key, std::uint64_t(step)));
      random::Key noise = random::fold_in(bound_key, std::uint64_t(step));
      random::Key sketch = random::fold_in(rad_key, std::uint64_t(step));
      if (!one_device) {
        noise = random::fold_in(noise, std::uint64_t(shard.offset));
        sketch = random::fold_in(sketch, std::uint64_t(shard.offset));
      }
      // The scope covers the forward pass, which records the sketches; the backward rules keep
      // their configuration.
      const std::optional<autodiff::RadConfig> rad = rad_config(o_, sketch);
      std::optional<autodiff::RadScope> scope;
      if (rad) scope.emplace(*rad);
      Tensor shard_loss = -minibatch_bound(vae, x, bound_, noise).surrogate / double(shard.global_size());
      if (shard.offset == 0) tape_ = tape_so_far();
      return shard_loss;
    };
    return replicas_.train(images_.dim(0), key_, loss, options);
  }

 private:
  Replicas<Vae> replicas_;
  Tensor images_;
};

class ModelParallel final : public VaeTrainer {
 public:
  ModelParallel(const TrainJobOptions& o, const Architecture& architecture, PosteriorKind posterior,
                const Tensor& images, const Bound& bound, random::Key key)
      : VaeTrainer(o, bound, key),
        vae_(architecture, posterior, random::fold_in(key, "init"), flow_layout(o)),
        training_(vae_, learning_rate_schedule(o, images.dim(0))),
        images_(images) {}
  const Vae& vae() const override { return vae_; }
  std::int64_t parameter_count() const override { return training_.parameter_count(); }
  int data_devices() const override { return 1; }
  bool writer() const override { return true; }
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
};

}  // namespace

std::unique_ptr<Trainer> make_vae_trainer(const TrainJobOptions& o, const Bound& bound, const Tensor& images,
                                          random::Key key) {
  Architecture architecture;
  architecture.pixels = images.dim(1);
  architecture.dtype = images.dtype();
  const PosteriorKind posterior = posterior_kind(o.posterior);
  if (o.flow_devices > 1) return std::make_unique<ModelParallel>(o, architecture, posterior, images, bound, key);
  return std::make_unique<DataParallel>(o, architecture, posterior, images, bound, key);
}

}  // namespace variate::cli::vae
