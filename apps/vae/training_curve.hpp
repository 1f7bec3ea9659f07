#pragma once
// The training curve, one CSV row per epoch: epoch, the mean training bound over the epoch's
// minibatches, the mean test bound after it (nats per image), and the training seconds so far
// (evaluation excluded). A resumed run keeps the rows up to its checkpoint and continues them.
#include <cstdint>
#include <filesystem>
#include <string>

namespace variate::cli::vae {

struct CurveRow {
  std::int64_t epoch = 0;
  double train_bound = 0, test_bound = 0, seconds = 0;
};

class TrainingCurve {
 public:
  /// Rewrites `path` with the header and its rows of epochs 1..kept_epochs (none for a fresh run).
  TrainingCurve(std::filesystem::path path, std::int64_t kept_epochs);
  /// The training seconds of the last kept row (0 when none).
  double seconds() const { return seconds_; }
  /// Appends a row and flushes it to the file.
  void append(const CurveRow& row);

 private:
  std::filesystem::path path_;
  double seconds_ = 0;
};

}  // namespace variate::cli::vae
