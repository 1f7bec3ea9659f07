#include "background_writes.hpp"

#include <pthread.h>
#include <sched.h>

#include <utility>

namespace variate::cli {

BackgroundWrites::BackgroundWrites(std::size_t slots) : waiting_(slots), thread_([this] { run(); }) {}

BackgroundWrites::~BackgroundWrites() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  queued_.notify_one();
  thread_.join();
}

void BackgroundWrites::submit(std::size_t slot, std::function<void()> write) {
  {
    std::lock_guard lock(mutex_);
    if (error_) std::rethrow_exception(error_);
    waiting_.at(slot) = std::move(write);
  }
  queued_.notify_one();
}

void BackgroundWrites::flush() {
  std::unique_lock lock(mutex_);
  const auto idle = [&] {
    if (writing_) return false;
    for (const auto& w : waiting_)
      if (w) return false;
    return true;
  };
  done_.wait(lock, [&] { return error_ || idle(); });
  if (error_) std::rethrow_exception(error_);
}

void BackgroundWrites::run() {
  // Below every sampling thread: woken by a submit, the writer must not take the processor from the
  // thread that woke it (most of its time is spent waiting for the disk anyway).
  const sched_param idle{};
  pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
  std::unique_lock lock(mutex_);
  for (;;) {
    std::function<void()> write;
    for (std::size_t k = 0; k < waiting_.size() && !write; ++k) {
      const std::size_t slot = (next_ + k) % waiting_.size();
      if (waiting_[slot]) {
        write = std::exchange(waiting_[slot], nullptr);
        next_ = slot + 1;
      }
    }
    if (!write) {
      if (stopping_) return;
      queued_.wait(lock);
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
    lock.lock();
    writing_ = false;
    if (error && !error_) error_ = error;
    if (error_)
      for (auto& w : waiting_) w = nullptr;
    done_.notify_all();
  }
}

}  // namespace variate::cli
