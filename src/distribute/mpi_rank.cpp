// The rank protocol of MPI meshes (see mpi_rank.hpp): local settling, one all-gather per round (and
// one exchange of the large tensors, sent apart), and the decision every rank takes alike from the
// same device-ordered states.
#include "distribute/mpi_rank.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <utility>

#include "distribute/communicator.hpp"
#include "variate/core/error.hpp"

namespace variate::distribute::detail {

struct MpiRank::Entry {
  State state = State::running;
  std::string op;
  Tensor x;                 // undefined unless every device of its rank waits (see encode)
  bool sent_apart = false;  // x's data comes after the round, by MpiTransport::all_gather_into
  std::string message;      // of a failed device
};

namespace {

// A tensor this large travels by itself, from its own memory into the receiver's tensor, rather
// than copied into the round's byte string and out again: the price is one more message latency.
constexpr std::size_t kSentApartBytes = std::size_t(1) << 15;

bool sent_apart(const Tensor& x) { return x.nbytes() >= kSentApartBytes; }

// Appends plain values and strings to a byte buffer.
class Writer {
 public:
  explicit Writer(std::vector<char>& out) : out_(out) {}
  template <class T>
  void value(const T& v) {
    bytes(&v, sizeof v);
  }
  void bytes(const void* p, std::size_t n) {
    // resize + memcpy rather than insert: GCC 12 reports a false -Wstringop-overflow for the latter.
    if (n == 0) return;
    const std::size_t at = out_.size();
    out_.resize(at + n);
    std::memcpy(out_.data() + at, p, n);
  }
  void string(const std::string& s) {
    value(std::uint32_t(s.size()));
    bytes(s.data(), s.size());
  }

 private:
  std::vector<char>& out_;
};

// Reads what Writer wrote, checking bounds: a malformed message is a bug, reported, not undefined.
class Reader {
 public:
  Reader(const char* begin, const char* end) : p_(begin), end_(end) {}
  bool done() const { return p_ == end_; }
  template <class T>
  T value() {
    T v;
    std::memcpy(&v, take(sizeof v), sizeof v);
    return v;
  }
  const char* take(std::size_t n) {
    if (std::size_t(end_ - p_) < n) ::variate::detail::fail("Mesh (MPI exchange): internal error: truncated message");
    const char* at = p_;
    p_ += n;
    return at;
  }
  std::string string() {
    const auto n = value<std::uint32_t>();
    return std::string(take(n), n);
  }

 private:
  const char* p_;
  const char* end_;
};

std::string what_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception not derived from std::exception";
  }
}

// variate::Error(prefix + what) with the original nested: the device's own exception on its rank,
// an Error carrying its message on the others (exceptions do not travel between processes).
std::exception_ptr device_error(const std::string& prefix, const std::string& what,
                                const std::exception_ptr& original) {
  try {
    try {
      if (original) std::rethrow_exception(original);
      throw Error(what);
    } catch (...) {
      std::throw_with_nested(Error(prefix + what));
    }
  } catch (...) {
    return std::current_exception();
  }
}

}  // namespace

MpiRank::MpiRank(std::string axis, int threads_per_rank)
    : axis_(std::move(axis)),
      local_count_(threads_per_rank),
      transport_("Mesh::mpi"),
      devices_(std::size_t(threads_per_rank)) {
  // Device numbering and message decoding assume every rank has the same devices and axis; a rank
  // that differs would otherwise garble every round. All ranks see all answers, so all throw alike.
  std::vector<char> mine;
  Writer w(mine);
  w.value(std::int32_t(local_count_));
  w.string(axis_);
  const GatheredBytes all = transport_.all_gather_bytes(mine);
  auto request_of = [&](std::size_t rank) {
    Reader in(all.bytes.data() + all.offsets[rank], all.bytes.data() + all.offsets[rank + 1]);
    const auto threads = in.value<std::int32_t>();
    return std::pair(threads, in.string());
  };
  const auto [threads0, axis0] = request_of(0);
  for (std::size_t r = 1; r + 1 < all.offsets.size(); ++r) {
    const auto [threads, axis_name] = request_of(r);
    VARIATE_CHECK(
        threads == threads0 && axis_name == axis0, "Mesh::mpi",
        "every rank must create the mesh with the same axis and threads_per_rank, but rank 0 asked for axis '", axis0,
        "' with ", threads0, " threads per rank and rank ", r, " for axis '", axis_name, "' with ", threads);
  }
}

void MpiRank::begin_run() {
  std::lock_guard lock(mutex_);
  for (Device& d : devices_) d = Device{};
  running_ = local_count_;
  collective_ = 0;
  concluded_ = in_round_ = false;
  outcome_ = nullptr;
}

std::span<const Tensor> MpiRank::exchange(int local, const char* op, const Tensor& x) {
  std::unique_lock lock(mutex_);
  const std::uint64_t k = collective_;
  if (!concluded_) {
    Device& d = devices_[std::size_t(local)];
    d.state = State::waiting;
    d.op = op;
    d.x = x;
    if (--running_ == 0) play_round(lock);
    released_cv_.wait(lock, [&] { return collective_ != k || concluded_; });
  }
  if (collective_ == k) {
    std::ostringstream out;
    out << op << " over axis '" << axis_ << "' (collective #" << k << " on device " << first_device() + local
        << "): aborted because the run failed elsewhere";
    throw Aborted(out.str());
  }
  // Every device runs the same check on the same ops, so all throw the same message.
  for (std::size_t i = 1; i < ops_.size(); ++i)
    if (ops_[i] != ops_[0])
      ::variate::detail::fail("collective #", k, " over axis '", axis_, "': device 0 calls ", ops_[0], " but device ",
                              i, " calls ", ops_[i], "; every device must call the same collectives in the same order");
  return tensors_;
}

void MpiRank::returned(int local) {
  std::lock_guard lock(mutex_);
  if (concluded_) return;  // the outcome is agreed already
  devices_[std::size_t(local)].state = State::returned;
  if (--running_ == 0) settled_cv_.notify_one();
}

void MpiRank::failed(int local, std::exception_ptr error) {
  std::lock_guard lock(mutex_);
  if (concluded_) return;
  Device& d = devices_[std::size_t(local)];
  d.state = State::failed;
  d.error = std::move(error);
  if (--running_ == 0) settled_cv_.notify_one();
}

// Per device: its state; a waiting device's op and, when the whole rank waits (otherwise the run
// ends this round and the tensors are not needed), its tensor's dtype, shape and data (or, for a
// large tensor, a flag: the data follows the round); a failed device's message.
std::vector<char> MpiRank::encode() const {
  const bool all_wait =
      std::all_of(devices_.begin(), devices_.end(), [](const Device& d) { return d.state == State::waiting; });
  std::vector<char> out;
  Writer w(out);
  for (const Device& d : devices_) {
    w.value(d.state);
    if (d.state == State::waiting) {
      w.string(d.op);
      w.value(std::uint8_t(all_wait));
      if (!all_wait) continue;
      w.value(d.x.dtype());
      w.value(std::int32_t(d.x.rank()));
      for (int i = 0; i < d.x.rank(); ++i) w.value(std::int64_t(d.x.dim(i)));
      w.value(std::uint8_t(sent_apart(d.x)));
      if (!sent_apart(d.x)) w.bytes(d.x.raw(), d.x.nbytes());
    } else if (d.state == State::failed) {
      w.string(what_of(d.error));
    }
  }
  return out;
}

std::vector<MpiRank::Entry> MpiRank::decode(const GatheredBytes& all) const {
  std::vector<Entry> entries;
  entries.reserve(std::size_t(size()));
  for (std::size_t r = 0; r + 1 < all.offsets.size(); ++r) {
    Reader in(all.bytes.data() + all.offsets[r], all.bytes.data() + all.offsets[r + 1]);
    for (int i = 0; i < local_count_; ++i) {
      Entry e;
      e.state = in.value<State>();
      if (e.state == State::waiting) {
        e.op = in.string();
        if (in.value<std::uint8_t>() != 0) {
          const auto dtype = in.value<DType>();
          std::vector<std::int64_t> dims(std::size_t(in.value<std::int32_t>()));
          for (auto& d : dims) d = in.value<std::int64_t>();
          e.sent_apart = in.value<std::uint8_t>() != 0;
          if (e.sent_apart && int(r) == transport_.rank())
            e.x = devices_[std::size_t(i)].x;  // this rank's own: nothing to receive
          else
            e.x = Tensor::empty(Shape(std::span<const std::int64_t>(dims)), dtype);
          if (!e.sent_apart) std::memcpy(e.x.raw(), in.take(e.x.nbytes()), e.x.nbytes());
        }
      } else if (e.state == State::failed) {
        e.message = in.string();
      }
      entries.push_back(std::move(e));
    }
    if (!in.done()) ::variate::detail::fail("Mesh (MPI exchange): internal error: rank ", r, " sent extra bytes");
  }
  return entries;
}

// When every device waits in the collective: every rank's large tensors, exchanged directly into
// the entries decode made for them. Every rank knows from the round which tensors travel.
void MpiRank::receive_sent_apart(std::vector<Entry>& entries) {
  std::vector<std::span<const char>> mine;
  std::vector<std::vector<std::span<char>>> theirs(static_cast<std::size_t>(ranks()));
  for (std::size_t i = 0; i < entries.size(); ++i) {
    Entry& e = entries[i];
    if (!e.sent_apart) continue;
    const std::size_t rank = i / std::size_t(local_count_);
    if (int(rank) == transport_.rank())
      mine.emplace_back(static_cast<const char*>(e.x.raw()), e.x.nbytes());
    else
      theirs[rank].emplace_back(static_cast<char*>(e.x.raw()), e.x.nbytes());
  }
  if (!mine.empty() || std::any_of(theirs.begin(), theirs.end(), [](const auto& t) { return !t.empty(); }))
    transport_.all_gather_into(mine, theirs);
}

// The run's outcome from every device's state; every rank computes it from the same entries.
std::exception_ptr MpiRank::outcome_of(const std::vector<Entry>& entries) const {
  const int n = int(entries.size());
  auto prefix = [&](int device) {
    std::ostringstream out;
    out << "Mesh::run: device " << device << " of " << n << " (axis '" << axis_ << "') failed: ";
    return out.str();
  };
  auto first = [&](State s) {
    for (int i = 0; i < n; ++i)
      if (entries[std::size_t(i)].state == s) return i;
    return -1;
  };
  if (const int f = first(State::failed); f >= 0) {
    const int local = f - first_device();
    const bool mine = local >= 0 && local < local_count_;
    return device_error(prefix(f), entries[std::size_t(f)].message,
                        mine ? devices_[std::size_t(local)].error : std::exception_ptr());
  }
  const int waiting = first(State::waiting);
  if (waiting < 0) return nullptr;  // every device returned
  std::ostringstream what;
  what << entries[std::size_t(waiting)].op << " over axis '" << axis_ << "': device " << first(State::returned)
       << " returned from the run's function while device " << waiting << " waits in its collective #" << collective_
       << "; every device must call the same collectives in the same order";
  return device_error(prefix(waiting), what.str(), nullptr);
}

void MpiRank::conclude(std::exception_ptr outcome) {
  concluded_ = true;
  outcome_ = std::move(outcome);
  released_cv_.notify_all();
  settled_cv_.notify_one();  // the driver returns
}

// With every device settled and `lock` held: one round, then either the next collective's start
// (devices released with the tensors) or the run's conclusion.
void MpiRank::play_round(std::unique_lock<std::mutex>& lock) {
  in_round_ = true;
  const std::vector<char> mine = encode();
  // The devices are all settled, so nothing changes the state while the lock is released for the
  // (blocking) exchange with the other ranks.
  lock.unlock();
  std::vector<Entry> entries;
  std::exception_ptr broken;
  try {
    entries = decode(transport_.all_gather_bytes(mine));
    if (std::all_of(entries.begin(), entries.end(), [](const Entry& e) { return e.state == State::waiting; }))
      receive_sent_apart(entries);
  } catch (...) {
    broken = std::current_exception();  // thrown alike on every rank (see all_gather_bytes)
  }
  lock.lock();
  in_round_ = false;
  if (broken) return conclude(broken);
  if (!std::all_of(entries.begin(), entries.end(), [](const Entry& e) { return e.state == State::waiting; }))
    return conclude(outcome_of(entries));
  tensors_.clear();
  ops_.clear();
  for (Entry& e : entries) {
    tensors_.push_back(std::move(e.x));
    ops_.push_back(std::move(e.op));
  }
  for (Device& d : devices_) d = Device{};
  running_ = local_count_;
  ++collective_;
  released_cv_.notify_all();
}

void MpiRank::drive() {
  std::unique_lock lock(mutex_);
  for (;;) {
    settled_cv_.wait(lock, [&] { return concluded_ || (running_ == 0 && !in_round_); });
    if (concluded_) return;
    play_round(lock);
  }
}

void MpiRank::end_run() {
  std::exception_ptr outcome;
  {
    std::lock_guard lock(mutex_);
    outcome = std::move(outcome_);
    outcome_ = nullptr;
    // Release the tensors now rather than at the next run.
    tensors_.clear();
    ops_.clear();
    for (Device& d : devices_) d = Device{};
  }
  if (outcome) std::rethrow_exception(outcome);
}

}  // namespace variate::distribute::detail
