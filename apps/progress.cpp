#include "progress.hpp"

#include <cstdio>
#include <iomanip>
#include <sstream>

namespace variate::cli {

namespace {
constexpr int kBarWidth = 30;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
}  // namespace

Progress::Progress(std::ostream& out, bool interactive, int chains, std::int64_t warmup, std::int64_t draws)
    : out_(out), interactive_(interactive), warmup_(warmup), total_(warmup + draws), chains_(std::size_t(chains)) {
  const auto now = Clock::now();
  for (auto& c : chains_) c.start = now;
  last_draw_ = now;
}

void Progress::update(int chain, std::int64_t iteration) {
  std::lock_guard lock(mutex_);
  ChainState& c = chains_[std::size_t(chain)];
  // Threaded runs may start a chain late (more chains than workers): time it from its first report.
  c.last = Clock::now();
  if (c.done == 0) c.start = c.last;
  c.done = iteration + 1;
  if (interactive_) {
    const auto now = Clock::now();
    if (!drawn_ || now - last_draw_ >= kRedrawInterval || c.done == total_) {
      last_draw_ = now;
      draw_bars();
    }
    return;
  }
  const int tenth = total_ > 0 ? int(c.done * 10 / total_) : 10;
  if (tenth > c.reported_tenth) {
    c.reported_tenth = tenth;
    plain_line(chain, c);
  }
}

void Progress::finish() {
  std::lock_guard lock(mutex_);
  if (interactive_) draw_bars();
  out_.flush();
}

void Progress::plain_line(int chain, const ChainState& c) {
  const double seconds = std::chrono::duration<double>(Clock::now() - c.start).count();
  std::ostringstream line;
  line << "chain " << chain + 1 << ": " << std::setw(3) << (total_ > 0 ? c.done * 100 / total_ : 100) << "% (" << c.done
       << "/" << total_ << ", " << (c.done <= warmup_ && warmup_ > 0 ? "warmup" : "sampling") << ", " << std::fixed
       << std::setprecision(1) << seconds << " s)\n";
  out_ << line.str() << std::flush;
}

void Progress::draw_bars() {
  std::ostringstream text;
  // Back to the first bar's line, then redraw every line (erasing what was there).
  if (drawn_) text << "\x1b[" << chains_.size() << "F";
  const auto now = Clock::now();
  for (std::size_t k = 0; k < chains_.size(); ++k) {
    const ChainState& c = chains_[k];
    const double fraction = total_ > 0 ? double(c.done) / double(total_) : 1.0;
    const int filled = int(fraction * kBarWidth);
    // The rate over the iterations since the first report, frozen once the chain is done.
    const double seconds = std::chrono::duration<double>((c.done >= total_ ? c.last : now) - c.start).count();
    const bool warming = c.done < warmup_;
    text << "\x1b[2Kchain " << k + 1 << " [" << std::string(std::size_t(filled), '#')
         << std::string(std::size_t(kBarWidth - filled), '.') << "] " << std::setw(3) << int(fraction * 100) << "% "
         << std::left << std::setw(8)
         << (c.done >= total_ ? "done"
             : warming        ? "warmup"
                              : "sampling")
         << std::right << std::setw(6) << c.done << "/" << total_;
    if (seconds > 0.2 && c.done > 1)
      text << "  " << std::setw(6) << std::fixed << std::setprecision(0) << double(c.done - 1) / seconds << " it/s";
    text << '\n';
  }
  out_ << text.str() << std::flush;
  drawn_ = true;
}

}  // namespace variate::cli
