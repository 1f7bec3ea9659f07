#pragma once
// What `variate train` needs of a model (train_job.cpp): the job runs the epochs, keeps the
// training curve and writes the files; a Trainer trains its model (on one device, data parallel or
// model parallel), scores it on the test images, draws its figures and reports its test NLL.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "evaluate.hpp"
#include "variate/nn/train.hpp"

namespace variate::cli::vae {

/// What the tape saved for one training step (autodiff/tape_bytes.hpp), measured.
struct TapeBytes {
  std::size_t total = 0, linear = 0;
};

class Trainer {
 public:
  virtual ~Trainer() = default;
  /// The model's line of the log: architecture, parameters, objective, optimizer, devices.
  virtual std::string describe() const = 0;
  /// Whether this process scores the model and writes the run's files: false on MPI ranks other
  /// than 0, which only train.
  virtual bool writer() const = 0;
  /// nn::train's contract: up to options.epochs epochs, resuming from options.checkpoint.
  virtual nn::TrainResult train(const nn::TrainOptions& options) = 0;
  /// The mean log-likelihood (or the bound on it) per test image (0/1, (n, pixels)) after `epoch`
  /// epochs: the training curve's test column.
  virtual MeanAndError test_bound(const Tensor& images, std::int64_t epoch) = 0;
  /// Writes the model's PNG figures into `dir`; returns their paths.
  virtual std::vector<std::filesystem::path> write_figures(const std::filesystem::path& dir, const Tensor& images,
                                                           std::int64_t image_rows, std::int64_t image_cols) = 0;
  /// Prints the test negative log-likelihood after `epochs` epochs and writes it to
  /// `dir`/test_nll.json.
  virtual void report_test_nll(const std::filesystem::path& dir, const Tensor& images, std::int64_t epochs,
                               std::ostream& out, std::ostream& log) = 0;
  /// The tape of the last training step (on device 0), for the trainers that measure it.
  virtual std::optional<TapeBytes> step_tape_bytes() const { return std::nullopt; }
};

}  // namespace variate::cli::vae
