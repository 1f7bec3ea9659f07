#include "background_writes.hpp"

#include <utility>

namespace variate::cli {

BackgroundWrites::BackgroundWrites(std::size_t slots, Clock::duration min_interval)
    : min_interval_(min_interval), waiting_(slots), last_start_(slots), thread_([this] { run(); }) {}

BackgroundWrites::~BackgroundWrites() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  queued_.notify_one();
  thread_.join();
}

void BackgroundWrites::submit(std::size_t slot, std::function<void()> write) {
  bool was_empty = false;
  {
    std::lock_guard lock(mutex_);
    if (error_) std::rethrow_exception(error_);
    std::function<void()>& waiting = waiting_.at(slot);
    was_empty = !waiting;
    std::swap(waiting, write);  // the replaced write's state is freed after the lock, below
  }
  // A replaced write was known to the writer already: it needs no wake-up (a system call).
  if (was_empty) queued_.notify_one();
}

void BackgroundWrites::flush() {
  std::unique_lock lock(mutex_);
  ++flushing_;
  queued_.notify_one();
  const auto idle = [&] {
    if (writing_) return false;
    for (const auto& w : waiting_)
      if (w) return false;
    return true;
  };
  done_.wait(lock, [&] { return error_ || idle(); });
  --flushing_;
  if (error_) std::rethrow_exception(error_);
}

std::function<void()> BackgroundWrites::take_due(Clock::time_point now, Clock::time_point& due) {
  due = Clock::time_point::max();
  const bool at_once = flushing_ > 0 || stopping_;
  for (std::size_t k = 0; k < waiting_.size(); ++k) {
    const std::size_t slot = (next_ + k) % waiting_.size();
    if (!waiting_[slot]) continue;
    const Clock::time_point allowed = last_start_[slot] + min_interval_;
    if (at_once || allowed <= now) {
      last_start_[slot] = now;
      next_ = slot + 1;
      return std::exchange(waiting_[slot], nullptr);
    }
    due = std::min(due, allowed);
  }
  return nullptr;
}

void BackgroundWrites::run() {
  // At normal priority: SCHED_IDLE kept the writer off the sampling threads' processors, but an
  // unprivileged thread cannot leave it again (RLIMIT_NICE), so a flush on a busy machine waited
  // seconds for the last checkpoints. Writing each chain at most once per min_interval_ keeps its
  // share of the processors small instead.
  std::unique_lock lock(mutex_);
  for (;;) {
    Clock::time_point due;
    std::function<void()> write = take_due(Clock::now(), due);
    if (!write) {
      if (stopping_ && due == Clock::time_point::max()) return;
      if (due == Clock::time_point::max()) {
        queued_.wait(lock);
      } else {
        queued_.wait_until(lock, due);
      }
      continue;
    }
    writing_ = true;
    lock.unlock();
    std::exception_ptr error;
    try {
      write();
    } catch (...) {
      error = std::current_exception();
    }
    write = nullptr;  // its state is freed outside the lock
    lock.lock();
    writing_ = false;
    if (error && !error_) error_ = error;
    if (error_)
      for (auto& w : waiting_) w = nullptr;
    done_.notify_all();
  }
}

}  // namespace variate::cli
