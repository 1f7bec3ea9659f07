#pragma once
// Progress of sampling chains, in one of three forms (or none, --quiet):
//
// bars (a terminal): one line per chain, redrawn in place with ANSI escapes,
//   chain 1 [###############...............]  50% sampling  1000/2000   412 it/s  3 divergent  0:02 left
// lines (a log file or a pipe): a plain line per chain each time it passes another 10%, or after a
//   minute without one,
//   chain 1: 50% (1000/2000, sampling, 412 it/s, 3 divergent, 2 s left)
// json (for scripts): one JSON object per line, per chain at its first iteration, when warm-up ends,
//   every second and at its last iteration,
//   {"chain":1,"iteration":1000,"iterations":2000,"phase":"sampling","iterations_per_second":412.0,
//    "divergent":3,"warmup_divergent":0,"elapsed_seconds":2.4,"seconds_left":2.4}
//
// "divergent" counts divergent transitions after warm-up (the ones Stan's diagnostics report);
// divergences in warm-up, while the step size is being found, are counted apart. Chains report
// from their own threads; the display serializes them.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "variate/inference/sampler.hpp"

namespace variate::cli {

enum class ProgressStyle { bars, lines, json, none };

/// The style --progress (auto, bars, lines, json) and --quiet ask for; auto is bars on a terminal
/// and lines otherwise.
ProgressStyle progress_style(const std::string& option, bool quiet, bool terminal);

class Progress {
 public:
  Progress(std::ostream& out, ProgressStyle style, int chains, std::int64_t warmup, std::int64_t draws);

  /// Chain `draw.chain` finished iteration `draw.iteration` (warm-up first). Thread-safe.
  void update(const inference::Draw& draw);
  /// Draws the final state (every bar as far as it got). Call once, after the chains stopped.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  struct ChainState {
    std::int64_t done = 0;              // iterations completed
    std::int64_t first = 0;             // done at the first report (a resumed chain starts late)
    std::int64_t divergent = 0;         // after warm-up
    std::int64_t warmup_divergent = 0;  // in warm-up
    Clock::time_point start, last;      // of the first and the latest report
    Clock::time_point last_line;        // lines and json: when the chain's latest line was written
    int reported_tenth = 0;             // lines: the last 10% step written
  };
  // What a chain has done so far, as every style shows it.
  struct Snapshot {
    std::int64_t done;
    const char* phase;
    std::optional<double> rate;          // iterations per second, once measurable
    std::optional<double> seconds_left;  // at that rate
    double elapsed;
  };
  Snapshot snapshot(const ChainState& c, Clock::time_point now) const;
  int tenth_of(const ChainState& c) const;
  bool line_due(const ChainState& c, Clock::time_point now) const;
  void draw_bars(Clock::time_point now);  // needs the mutex held
  void plain_line(int chain, ChainState& c, Clock::time_point now);
  void json_line(int chain, ChainState& c, Clock::time_point now);

  std::ostream& out_;
  ProgressStyle style_;
  std::int64_t warmup_, total_;
  std::mutex mutex_;
  std::vector<ChainState> chains_;
  bool drawn_ = false;
  Clock::time_point last_draw_;
};

}  // namespace variate::cli
