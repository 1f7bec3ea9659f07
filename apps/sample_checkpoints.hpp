#pragma once
// `variate sample --checkpoint-every N` and `--resume DIR`. Each chain keeps, in
// <output>/checkpoint/, its checkpoint <model>-<chain>.ckpt (inference/checkpoint_file.hpp) and its
// draw log <model>-<chain>.draws: every kept draw's sampler statistics and unconstrained position.
// Vectorized chains (NUTS's, HMC's, ChEES-HMC's) run in lockstep, ChEES's sharing their
// adaptation, so they restart together: one checkpoint <model>-chains.ckpt holds them all, written
// after every chain's draw log.
// On a mesh of devices (--devices N, or MPI ranks) device 0 writes every file, so that one file
// holds each checkpoint and a crash cannot leave the devices' checkpoints at different
// iterations: at each checkpoint the devices send it their states and the draws logged since the
// last one. With sharded parameters each device's state differs (its own coordinates): the
// checkpoint holds all of them in device order, and a draw log record all devices' coordinates.
// Otherwise they are replicated, which the checkpoint checks, and it holds one. On --resume every
// device reads the files and takes its part; the devices check they read the same checkpoints.
// The sampling threads only copy: each checkpoint's state and the draws logged before it go to a
// thread of their own (background_writes.hpp), which appends the draws to the log, flushes it to
// the disk, then writes the checkpoint with the log's checksum (computed there too), so the draws
// before a checkpoint survive a crash. A chain's checkpoints reach the disk at most once a second
// (a newer one replaces the one waiting), and its last one always. A resume checks each
// checkpoint against the run (model, parameters, data, options), cuts each log back to its
// checkpoint, and replays the logged draws through the draw writer: the CSV files are written
// again by the code that wrote them, so they end up as an uninterrupted run's would, rows made
// after the checkpoint included.
//
//   SampleCheckpoints checkpoints(job);                 // before the output folder is prepared
//   checkpoints.attach(sampler_options);                // resume states, checkpoint_every, on_checkpoint
//   checkpoints.replay([&](const inference::Draw& d) { draws.write(d); });
//   ... on_draw: checkpoints.log(d) ...
//   checkpoints.finish();                               // once sampling has stopped
//   checkpoints.prepend_replayed(result);
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "background_writes.hpp"
#include "sample_context.hpp"
#include "variate/inference/checkpoint_file.hpp"
#include "variate/inference/sampler.hpp"

namespace variate::cli {

/// The model, its parameters, the data's fingerprint and the options the draws depend on.
inference::CheckpointEntries run_identity(const SampleContext& job);

class SampleCheckpoints {
 public:
  /// With --resume: reads and checks every chain's checkpoint and draw log (throws naming the file
  /// on a corrupt, truncated or mismatched one), leaving the CSV files untouched.
  explicit SampleCheckpoints(const SampleContext& job);
  ~SampleCheckpoints();
  SampleCheckpoints(const SampleCheckpoints&) = delete;
  SampleCheckpoints& operator=(const SampleCheckpoints&) = delete;

  /// Sets the sampler's resume states, checkpoint interval and checkpoint callback. A new run (no
  /// --resume) starts empty draw logs here, removing an earlier run's checkpoints of the model: call
  /// it once the output folder is ready.
  void attach(inference::SamplerOptions& sampler);
  /// One line for the run's plan: the interval and folder, and where resumed chains continue.
  void describe(std::ostream& out) const;
  /// Passes the resumed chains' logged draws, in order, to `write`.
  void replay(const std::function<void(const inference::Draw&)>& write) const;
  /// Appends a kept draw to its chain's log (warm-up draws are ignored). Thread-safe across chains.
  void log(const inference::Draw& d);
  /// Waits until the last checkpoints are on the disk (they are written on a thread of their own,
  /// so that sampling does not wait for the disk); throws naming the file if one could not be written.
  void finish();
  /// Puts the replayed draws before this session's in each chain's result.
  void prepend_replayed(inference::SampleResult& result) const;

 private:
  struct ChainLog {
    int fd = -1;
    // The writing thread's: CRC-32 of the first crc_records records, and the records written to the
    // log after them (made after the checkpoint last written).
    std::uint32_t crc = 0;
    std::int64_t crc_records = 0;
    std::vector<double> uncounted;
    std::vector<double> replayed;  // resumed: the logged records up to the checkpoint
    std::optional<inference::ChainState> resume;
    std::mutex mutex;               // guards `unwritten`, which the writing thread empties
    std::vector<double> unwritten;  // records logged but not yet written: the next checkpoint writes them
    std::vector<double> spare;      // the writing thread's: the buffer `unwritten` swaps with next
    std::vector<double> local;      // on a mesh, the sampling thread's: its records until the next checkpoint
    std::int64_t kept = 0;          // resumed: the draws logged up to the checkpoint
  };
  std::filesystem::path checkpoint_path(int chain) const;
  std::filesystem::path batch_path() const;
  std::filesystem::path log_path(int chain) const;
  void start_fresh();
  void open_logs();
  void load(int chain);
  void load_batch();
  void load_log(int chain, const std::filesystem::path& checkpoint, const inference::CheckpointEntries& notes,
                const std::string& crc_note, inference::ChainState state);
  void check_devices_agree() const;
  void save(const inference::ChainState& state);
  std::vector<inference::ChainState> gather(const inference::ChainState& state);
  // On the writing thread: the draw logs and then the checkpoint, each to the disk.
  std::uint32_t append_log(int chain, std::int64_t iteration);
  void write_durably(const std::vector<inference::ChainState>& parts);
  void write_batch_durably(const std::vector<inference::ChainState>& states);
  std::size_t record_size() const;
  std::size_t local_record_size() const;

  const SampleContext& job_;
  std::filesystem::path folder_;
  // On a mesh: its axis, and the coordinates of each device whose state the checkpoints hold (each
  // device's when the parameters are sharded, else device 0's alone), in device order.
  std::string axis_;
  bool sharded_;
  std::vector<std::int64_t> widths_;
  std::size_t offset_ = 0;  // where this device's coordinates start in a draw log record's position
  inference::CheckpointEntries identity_;
  std::int64_t every_ = 0;
  bool lockstep_;  // vectorized chains: one checkpoint for the batch
  std::vector<ChainLog> chains_;
  std::vector<inference::ChainState> batch_;  // lockstep: the chains' parts saved so far for the next checkpoint
  // A test hook: VARIATE_TEST_KILL_AT_CHECKPOINT=<chain>:<iteration> (1-based chain) ends the
  // process with SIGKILL right after that checkpoint (a lockstep batch's: the one holding that
  // chain) and every other one waiting are on the disk, as a crash or `kill -9` would.
  int kill_chain_ = -1;
  std::int64_t kill_iteration_ = -1;
  std::unique_ptr<BackgroundWrites> writes_;  // set by attach, on the device that writes
};

}  // namespace variate::cli
