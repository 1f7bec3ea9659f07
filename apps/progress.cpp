#include "progress.hpp"

#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "variate/core/error.hpp"

namespace variate::cli {

namespace {
constexpr int kBarWidth = 30;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
constexpr auto kJsonInterval = std::chrono::seconds(1);
// A log still hears from a slow chain between its 10% steps.
constexpr auto kLineInterval = std::chrono::seconds(60);

// h:mm:ss, or m:ss under an hour.
std::string clock_text(double seconds) {
  const auto total = std::int64_t(std::llround(seconds));
  std::ostringstream text;
  if (total >= 3600)
    text << total / 3600 << ':' << std::setw(2) << std::setfill('0') << total % 3600 / 60;
  else
    text << total / 60;
  text << ':' << std::setw(2) << std::setfill('0') << total % 60;
  return text.str();
}
}  // namespace

ProgressStyle progress_style(const std::string& option, bool quiet, bool terminal) {
  if (quiet) return ProgressStyle::none;
  if (option == "auto") return terminal ? ProgressStyle::bars : ProgressStyle::lines;
  if (option == "bars") return ProgressStyle::bars;
  if (option == "lines") return ProgressStyle::lines;
  if (option == "json") return ProgressStyle::json;
  detail::fail("sample: --progress is '", option, "'; expected auto, bars, lines or json");
}

Progress::Progress(std::ostream& out, ProgressStyle style, int chains, std::int64_t warmup, std::int64_t draws)
    : out_(out), style_(style), warmup_(warmup), total_(warmup + draws), chains_(std::size_t(chains)) {
  const auto now = Clock::now();
  for (auto& c : chains_) c.start = c.last = c.last_line = now;
  last_draw_ = now;
}

Progress::Snapshot Progress::snapshot(const ChainState& c, Clock::time_point now) const {
  Snapshot s{.done = c.done, .phase = "", .rate = {}, .seconds_left = {}, .elapsed = 0};
  s.phase = c.done == 0 ? "waiting" : c.done >= total_ ? "done" : c.done <= warmup_ ? "warmup" : "sampling";
  if (c.done == 0) return s;
  s.elapsed = std::chrono::duration<double>((c.done >= total_ ? c.last : now) - c.start).count();
  // Timed from the end of the first iteration reported, which includes finding the starting point
  // (or, for a resumed chain, the earlier run's iterations).
  const double measured = std::chrono::duration<double>(c.last - c.start).count();
  if (c.done > c.first && measured > 0) {
    s.rate = double(c.done - c.first) / measured;
    s.seconds_left = double(total_ - c.done) / *s.rate;
  }
  return s;
}

void Progress::update(const inference::Draw& draw) {
  if (style_ == ProgressStyle::none) return;
  std::lock_guard lock(mutex_);
  ChainState& c = chains_[std::size_t(draw.chain)];
  const auto now = Clock::now();
  // Threaded runs may start a chain late (more chains than workers): time it from its first report.
  c.last = now;
  if (c.done == 0) {
    c.start = c.last_line = now;
    c.first = draw.iteration + 1;
  }
  const bool phase_changed = c.done == 0 || c.done == warmup_ || draw.iteration + 1 == total_;
  c.done = draw.iteration + 1;
  if (draw.stats && draw.stats->divergent) ++(draw.warmup ? c.warmup_divergent : c.divergent);
  switch (style_) {
    case ProgressStyle::bars:
      if (!drawn_ || now - last_draw_ >= kRedrawInterval || c.done == total_) draw_bars(now);
      return;
    case ProgressStyle::lines:
      if (line_due(c, now)) plain_line(draw.chain, c, now);
      return;
    case ProgressStyle::json:
      if (phase_changed || now - c.last_line >= kJsonInterval) json_line(draw.chain, c, now);
      return;
    case ProgressStyle::none: return;
  }
}

bool Progress::line_due(const ChainState& c, Clock::time_point now) const {
  return tenth_of(c) > c.reported_tenth || now - c.last_line >= kLineInterval;
}

int Progress::tenth_of(const ChainState& c) const { return total_ > 0 ? int(c.done * 10 / total_) : 10; }

void Progress::finish() {
  std::lock_guard lock(mutex_);
  if (style_ == ProgressStyle::bars) draw_bars(Clock::now());
  out_.flush();
}

void Progress::plain_line(int chain, ChainState& c, Clock::time_point now) {
  c.reported_tenth = tenth_of(c);
  c.last_line = now;
  const Snapshot s = snapshot(c, now);
  std::ostringstream line;
  line << "chain " << chain + 1 << ": " << std::setw(3) << (total_ > 0 ? c.done * 100 / total_ : 100) << "% (" << c.done
       << "/" << total_ << ", " << s.phase << std::fixed << std::setprecision(0);
  if (s.rate) line << ", " << *s.rate << " it/s";
  line << ", " << c.divergent << " divergent";
  if (c.done >= total_)
    line << ", " << std::setprecision(1) << s.elapsed << " s)\n";
  else if (s.seconds_left)
    line << ", " << *s.seconds_left << " s left)\n";
  else
    line << ")\n";
  out_ << line.str() << std::flush;
}

void Progress::json_line(int chain, ChainState& c, Clock::time_point now) {
  c.last_line = now;
  const Snapshot s = snapshot(c, now);
  nlohmann::ordered_json line = {{"chain", chain + 1},
                                 {"iteration", c.done},
                                 {"iterations", total_},
                                 {"phase", s.phase},
                                 {"iterations_per_second", nullptr},
                                 {"divergent", c.divergent},
                                 {"warmup_divergent", c.warmup_divergent},
                                 {"elapsed_seconds", s.elapsed},
                                 {"seconds_left", nullptr}};
  if (s.rate) line["iterations_per_second"] = *s.rate;
  if (s.seconds_left) line["seconds_left"] = *s.seconds_left;
  out_ << line.dump() + "\n" << std::flush;
}

void Progress::draw_bars(Clock::time_point now) {
  last_draw_ = now;
  std::ostringstream text;
  // Back to the first bar's line, then redraw every line (erasing what was there).
  if (drawn_) text << "\x1b[" << chains_.size() << "F";
  for (std::size_t k = 0; k < chains_.size(); ++k) {
    const ChainState& c = chains_[k];
    const Snapshot s = snapshot(c, now);
    const double fraction = total_ > 0 ? double(c.done) / double(total_) : 1.0;
    const int filled = int(fraction * kBarWidth);
    text << "\x1b[2Kchain " << k + 1 << " [" << std::string(std::size_t(filled), '#')
         << std::string(std::size_t(kBarWidth - filled), '.') << "] " << std::setw(3) << int(fraction * 100) << "% "
         << std::left << std::setw(8) << s.phase << std::right << std::setw(7) << c.done << "/" << total_;
    if (s.rate) text << "  " << std::setw(6) << std::fixed << std::setprecision(0) << *s.rate << " it/s";
    if (c.done > 0) text << "  " << c.divergent << " divergent";
    if (c.done > 0 && c.done < total_ && s.seconds_left) text << "  " << clock_text(*s.seconds_left) << " left";
    text << '\n';
  }
  out_ << text.str() << std::flush;
  drawn_ = true;
}

}  // namespace variate::cli
