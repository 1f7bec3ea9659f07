#include "train_job.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <optional>
#include <sstream>

#include "image_data.hpp"
#include "image_transformer.hpp"
#include "run_record.hpp"
#include "training_curve.hpp"
#include "vae_trainers.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/core/error.hpp"
#include "variate/distribute/mesh.hpp"

namespace variate::cli::vae {

namespace {

constexpr const char* kJob = "variate train";
// The record's mark of an IAF posterior whose flows take the encoder's context; the records of runs
// with the context-free one (earlier versions) lack it.
constexpr const char* kIafContext = "posterior context";

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

Bound parse_bound(const TrainJobOptions& o) {
  VARIATE_CHECK(o.bound == "elbo" || o.bound == "iwae", kJob, "unknown --bound '", o.bound, "'; expected elbo or iwae");
  VARIATE_CHECK(o.particles >= 0, kJob, "--particles must be >= 1, got ", o.particles);
  const BoundKind kind = o.bound == "iwae" ? BoundKind::iwae : BoundKind::elbo;
  return {kind, o.particles > 0 ? o.particles : (kind == BoundKind::iwae ? 5 : 1)};
}

bool uses_rad(const TrainJobOptions& o) { return o.rad_fraction < 1.0 || o.rad_bits != 0; }

void check_image_transformer_options(const TrainJobOptions& o) {
  VARIATE_CHECK(!uses_rad(o), kJob,
                "--rad-fraction and --rad-bits apply to the VAE's linear layers; the Image Transformer does not "
                "support randomized autodiff");
  VARIATE_CHECK(o.flow_devices == 1, kJob,
                "--flow-devices splits the VAE's IAF posterior; the Image Transformer "
                "trains data parallel with --devices");
  VARIATE_CHECK(o.layers >= 1, kJob, "--layers must be >= 1, got ", o.layers);
  VARIATE_CHECK(o.heads >= 1 && o.embed_dim >= 1 && o.embed_dim % o.heads == 0, kJob, "--embed-dim ", o.embed_dim,
                " must be a positive multiple of --heads ", o.heads);
  VARIATE_CHECK(o.block_length >= 0, kJob, "--block-length must be >= 0 (0: two image rows), got ", o.block_length);
}

// Under mpirun every rank must take the same decisions, so none may depend on its own clock.
void check_mpi_options(const TrainJobOptions& o) {
  if (!distribute::launched_with_mpi()) return;
  VARIATE_CHECK(o.minutes == 0, kJob,
                "--minutes is not supported under mpirun (the ranks' clocks could end training at different "
                "epochs); give --epochs");
  VARIATE_CHECK(o.flow_devices == 1, kJob,
                "--flow-devices is not supported under mpirun (the flow's layers are placed on the thread devices "
                "of one process); run it without mpirun");
}

void check_options(const TrainJobOptions& o) {
  VARIATE_CHECK(o.epochs >= 0, kJob, "--epochs must be >= 0, got ", o.epochs);
  VARIATE_CHECK(o.minutes >= 0, kJob, "--minutes must be >= 0, got ", o.minutes);
  VARIATE_CHECK(o.batch >= 1, kJob, "--batch must be >= 1, got ", o.batch);
  VARIATE_CHECK(o.devices >= 1, kJob, "--devices must be >= 1, got ", o.devices);
  VARIATE_CHECK(o.batch % o.devices == 0, kJob, "--batch ", o.batch, " does not split evenly over --devices ",
                o.devices, "; choose a batch that is a multiple of ", o.devices);
  VARIATE_CHECK(o.learning_rate > 0, kJob, "--learning-rate must be > 0, got ", o.learning_rate);
  VARIATE_CHECK(o.lr_schedule == "constant" || o.lr_schedule == "cosine" || o.lr_schedule == "iwae", kJob,
                "unknown --lr-schedule '", o.lr_schedule, "'; expected constant, cosine or iwae");
  VARIATE_CHECK(o.lr_schedule != "cosine" || o.epochs >= 1, kJob,
                "--lr-schedule cosine decays over --epochs, which must be >= 1, got ", o.epochs);
  VARIATE_CHECK(o.eval_samples >= 0, kJob, "--eval-samples must be >= 0, got ", o.eval_samples);
  VARIATE_CHECK(o.eval_images >= 1, kJob, "--eval-images must be >= 1, got ", o.eval_images);
  VARIATE_CHECK(o.precision == "f64" || o.precision == "f32", kJob, "unknown --precision '", o.precision,
                "'; expected f64 or f32");
  VARIATE_CHECK(!o.output_dir.empty(), kJob, "--output-dir must not be empty");
  VARIATE_CHECK(o.rad_fraction > 0 && o.rad_fraction <= 1, kJob, "--rad-fraction must be in (0, 1], got ",
                o.rad_fraction);
  VARIATE_CHECK(o.rad_mode == "with" || o.rad_mode == "without" || o.rad_mode == "projection", kJob,
                "unknown --rad-mode '", o.rad_mode, "'; expected with, without or projection");
  VARIATE_CHECK(o.rad_bits == 0 || o.rad_bits == 1 || o.rad_bits == 2 || o.rad_bits == 4 || o.rad_bits == 8, kJob,
                "--rad-bits must be 0, 1, 2, 4 or 8, got ", o.rad_bits);
  check_mpi_options(o);
  if (is_image_transformer(o.model)) return check_image_transformer_options(o);
  VARIATE_CHECK(o.flow_layers >= 1, kJob, "--flow-layers must be >= 1, got ", o.flow_layers);
  VARIATE_CHECK(o.flow_devices >= 1, kJob, "--flow-devices must be >= 1, got ", o.flow_devices);
  VARIATE_CHECK(o.placement == "contiguous" || o.placement == "round-robin", kJob, "unknown --placement '", o.placement,
                "'; expected contiguous or round-robin");
  if (o.flow_devices == 1) return;
  VARIATE_CHECK(!uses_rad(o), kJob,
                "--rad-fraction and --rad-bits are not supported with --flow-devices (model parallel); train data "
                "parallel");
  VARIATE_CHECK(o.devices == 1, kJob, "--devices ", o.devices, " (data parallel) and --flow-devices ", o.flow_devices,
                " (model parallel) cannot be combined; choose one");
  VARIATE_CHECK(o.posterior == "iaf", kJob, "--flow-devices ", o.flow_devices,
                " splits the IAF posterior's flow layers over devices; it needs --posterior iaf");
  VARIATE_CHECK(o.flow_devices <= o.flow_layers, kJob, "--flow-devices ", o.flow_devices, " but the IAF posterior has ",
                o.flow_layers, " flow layers (--flow-layers); each device must hold at least one");
}

// The options the checkpoint depends on (the rest, epochs, minutes and evaluation, may change).
RunRecord run_record(const TrainJobOptions& o) {
  std::ostringstream rate;
  rate << std::setprecision(17) << o.learning_rate;
  RunRecord record{{"--model", o.model},
                   {"--batch", std::to_string(o.batch)},
                   {"--learning-rate", rate.str()},
                   {"--seed", std::to_string(o.seed)},
                   {"--precision", o.precision},
                   {"--train-images", std::to_string(o.train_images)}};
  // Recorded only when not constant, so that the records of earlier runs still match; a cosine
  // schedule's length is --epochs, which then may not change either.
  if (o.lr_schedule != "constant") record["--lr-schedule"] = o.lr_schedule;
  if (o.lr_schedule == "cosine") record["--epochs"] = std::to_string(o.epochs);
  if (is_image_transformer(o.model)) {
    record["--layers"] = std::to_string(o.layers);
    record["--embed-dim"] = std::to_string(o.embed_dim);
    record["--heads"] = std::to_string(o.heads);
    record["--block-length"] = std::to_string(o.block_length);
    return record;
  }
  record["--bound"] = o.bound;
  record["--particles"] = std::to_string(parse_bound(o).particles);
  record["--posterior"] = o.posterior;
  if (o.posterior == "iaf") record[kIafContext] = "encoder trunk";
  // Recorded only when not the default, so that the records of earlier runs still match. The
  // devices and the placement fix which parameters each device's checkpoint holds.
  if (o.flow_layers != 2) record["--flow-layers"] = std::to_string(o.flow_layers);
  if (uses_rad(o)) {
    std::ostringstream fraction;
    fraction << std::setprecision(17) << o.rad_fraction;
    record["--rad-fraction"] = fraction.str();
    record["--rad-mode"] = o.rad_mode;
    record["--rad-bits"] = std::to_string(o.rad_bits);
  }
  if (o.flow_devices > 1) {
    record["--flow-devices"] = std::to_string(o.flow_devices);
    record["--placement"] = o.placement;
  }
  return record;
}

// A checkpoint in `dir` must come from a run with the same `record`. Every MPI rank checks, so that
// a mismatch stops all of them before the first collective.
void check_resumable(const std::filesystem::path& dir, const RunRecord& record) {
  const std::filesystem::path checkpoint = dir / "checkpoint";
  if (!std::filesystem::exists(checkpoint)) return;
  const RunRecord saved = read_run_record(dir / "run.json", checkpoint);
  const auto posterior = saved.find("--posterior");
  VARIATE_CHECK(!record.contains(kIafContext) || saved.contains(kIafContext) || posterior == saved.end() ||
                    posterior->second != "iaf",
                kJob, "resuming from '", checkpoint.string(),
                "': the checkpoint holds the context-free IAF posterior of earlier versions of variate; "
                "--posterior iaf now conditions its flows on the encoder's context and cannot continue it; "
                "use another --output-dir to start afresh");
  check_run_record(saved, record, checkpoint);
}

// Creates `dir` and, for a run that starts afresh, writes the record the runs that resume it check.
void prepare_output_dir(const std::filesystem::path& dir, const RunRecord& record) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  VARIATE_CHECK(!error && std::filesystem::is_directory(dir), kJob, "cannot create the output directory '",
                dir.string(), "'", error ? ": " + error.message() : std::string());
  if (!std::filesystem::exists(dir / "checkpoint")) write_run_record(dir / "run.json", record);
}

std::unique_ptr<Trainer> make_trainer(const TrainJobOptions& o, const ImageData& images, random::Key key) {
  if (is_image_transformer(o.model)) return make_image_transformer_trainer(o, images.train, images.cols, key);
  return make_vae_trainer(o, parse_bound(o), images.train, key);
}

}  // namespace

bool is_image_transformer(const std::string& model) {
  return model == "image-transformer" || model == "image-transformer-digits";
}

int run_train_job(const TrainJobOptions& o, std::ostream& out_stream, std::ostream& log_stream) {
  check_options(o);
  const RunRecord record = run_record(o);
  const DType dtype = o.precision == "f32" ? DType::f32 : DType::f64;
  const ImageData images = load_image_data(o.model, o.data_dir, dtype, o.train_images);
  const Tensor eval_images = slice(images.test_binary, 0, 0, std::min(o.eval_images, images.test_binary.dim(0)));

  const random::Key key(o.seed);
  const std::unique_ptr<Trainer> trainer = make_trainer(o, images, key);
  // Under mpirun the ranks other than 0 only train: rank 0 prints, scores and writes.
  const bool writer = trainer->writer();
  std::ostream discard(nullptr);
  std::ostream& out = writer ? out_stream : discard;
  std::ostream& log = writer ? log_stream : discard;
  out << "data: " << images.description << "\n";
  out << "model: " << trainer->describe() << "\n";
  const std::filesystem::path dir = o.output_dir, checkpoint = dir / "checkpoint";
  check_resumable(dir, record);
  if (writer) prepare_output_dir(dir, record);

  const std::int64_t n = images.train.dim(0);
  const std::int64_t per_epoch = (n + o.batch - 1) / o.batch;
  nn::TrainOptions train;
  train.batch_size = o.batch;
  train.checkpoint = checkpoint;
  train.checkpoint_every = per_epoch;
  train.epochs = 0;  // restores the checkpoint, if any, and takes no step
  const std::int64_t resumed_epoch = trainer->train(train).resumed_from / per_epoch;
  if (resumed_epoch > 0) out << "resumed from " << checkpoint.string() << " after epoch " << resumed_epoch << "\n";

  std::optional<TrainingCurve> curve;
  if (writer) curve.emplace(dir / "curve.csv", resumed_epoch);
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
    if (!writer) continue;
    const MeanAndError test = trainer->test_bound(eval_images, epoch + 1);
    curve->append({epoch + 1, -result.epoch_loss, test.mean, curve->seconds() + seconds});
    log << "epoch " << epoch + 1 << "/" << o.epochs << ": train bound " << std::fixed << std::setprecision(2)
        << -result.epoch_loss << ", test bound " << test.mean << " nats/image, " << std::setprecision(0)
        << double(n) / seconds << " examples/s, " << std::setprecision(1) << seconds << " s" << std::defaultfloat
        << std::setprecision(6) << "\n";
  }
  if (const auto tape = trainer->step_tape_bytes(); tape && epoch > resumed_epoch)
    out << "tape: " << tape->total
        << " bytes saved for the last training step's backward pass (linear layers: " << tape->linear << ")\n";
  out << "trained " << epoch - resumed_epoch << " epochs in this run (" << std::fixed << std::setprecision(1) << trained
      << " s of training, " << seconds_since(run_start) << " s with evaluation), " << epoch << " in all"
      << std::defaultfloat << std::setprecision(6) << "\n";
  if (!writer) return 0;

  std::string written = (dir / "curve.csv").string();
  for (const auto& figure : trainer->write_figures(dir, eval_images, images.rows, images.cols))
    written += ", " + figure.string();
  out << "wrote " << written << "\n";

  trainer->report_test_nll(dir, eval_images, epoch, out, log);
  return 0;
}

}  // namespace variate::cli::vae
