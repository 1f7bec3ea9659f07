#pragma once
// Progress of sampling chains. On a terminal, one bar per chain redrawn in place with ANSI escapes:
//
//   chain 1 [##########..........]  50% warmup      1000/2000  412 it/s
//
// otherwise (a file or a pipe), one plain line per chain each time it passes another 10%. Chains
// report from their own threads; the display serializes them.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <vector>

namespace variate::cli {

class Progress {
 public:
  /// `interactive`: redraw bars in place (a terminal); otherwise print plain lines.
  Progress(std::ostream& out, bool interactive, int chains, std::int64_t warmup, std::int64_t draws);

  /// Chain `chain` (0-based) finished iteration `iteration` (0-based, warm-up first). Thread-safe.
  void update(int chain, std::int64_t iteration);
  /// Draws the final state (every bar as far as it got). Call once, after the chains stopped.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  struct ChainState {
    std::int64_t done = 0;          // iterations completed
    Clock::time_point start, last;  // of the first and the latest report
    int reported_tenth = 0;         // plain mode: the last 10% step printed
  };
  void draw_bars();  // needs the mutex held
  void plain_line(int chain, const ChainState& c);

  std::ostream& out_;
  bool interactive_;
  std::int64_t warmup_, total_;
  std::mutex mutex_;
  std::vector<ChainState> chains_;
  bool drawn_ = false;
  Clock::time_point last_draw_;
};

}  // namespace variate::cli
