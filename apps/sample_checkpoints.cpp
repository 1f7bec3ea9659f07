#include "sample_checkpoints.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <set>
#include <sstream>

#include "gather_bytes.hpp"
#include "variate/core/error.hpp"
#include "variate/data/checksummed_file.hpp"
#include "variate/data/data_fingerprint.hpp"
#include "variate/data/output_folder.hpp"
#include "variate/distribute/collectives.hpp"
#include "variate/distribute/mesh.hpp"

namespace variate::cli {
namespace {

namespace fs = std::filesystem;

// A draw log record: the sampler's statistics, then the position.
constexpr std::size_t kStats = 7;

// A chain's checkpoints reach the disk at most once a second: one due sooner waits, replaced by
// newer ones, so that a model making thousands of iterations a second does not spend a share of
// its processors on fsync's journal commits; a crash loses at most a second more of sampling.
constexpr std::chrono::seconds kMinWriteInterval{1};

std::string hex(std::uint64_t v) {
  std::ostringstream out;
  out << std::hex << std::setw(16) << std::setfill('0') << v;
  return out.str();
}

std::string exact(double v) {
  std::ostringstream out;
  out << std::setprecision(17) << v;
  return out.str();
}

inference::TransitionStats stats_of(const double* record) {
  return {.log_density = record[0],
          .accept_stat = record[1],
          .step_size = record[2],
          .tree_depth = int(record[3]),
          .n_leapfrog = int(record[4]),
          .divergent = record[5] != 0,
          .energy = record[6]};
}

// The unconstrained layout: each latent site's name and unconstrained shape, in order.
std::string parameter_layout(const inference::Unconstrained& space) {
  std::ostringstream out;
  for (const inference::LatentSite& site : space.sites()) out << site.name << site.unconstrained_shape << ' ';
  out << "(" << space.dimension() << " coordinates)";
  return out.str();
}

// On a mesh with sharded parameters each device's layout differs: all of them, in device order.
std::string run_parameter_layout(const SampleContext& job) {
  const std::string mine = parameter_layout(job.space);
  if (job.space.shard_axis().empty()) return mine;
  const std::vector<std::string> all = all_gather_bytes(mine, job.space.shard_axis());
  std::string layouts;
  for (std::size_t d = 0; d < all.size(); ++d)
    layouts += (d ? "; device " : "device ") + std::to_string(d) + ": " + all[d];
  return layouts;
}

std::string as_bytes(const std::vector<double>& values) {
  if (values.empty()) return {};  // its data() may be null
  return {reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double)};
}

[[noreturn]] void fail_system(const fs::path& path, const std::string& what) {
  detail::fail("sample: checkpoint: ", what, " '", path.string(), "': ", std::strerror(errno));
}

void write_all(int fd, const void* data, std::size_t bytes, const fs::path& path) {
  for (std::size_t done = 0; done < bytes;) {
    const ssize_t n = ::write(fd, static_cast<const char*>(data) + done, bytes - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_system(path, "cannot append to the draw log");
    done += std::size_t(n);
  }
}

// The models whose chains left checkpoints in `folder` (files <model>-<chain>.ckpt), quoted and
// comma-separated; empty when there are none.
std::string checkpointed_models(const fs::path& folder) {
  std::set<std::string> models;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
    const std::string stem = entry.path().stem().string();
    const auto dash = stem.rfind('-');
    if (entry.path().extension() == ".ckpt" && dash != std::string::npos && dash > 0)
      models.insert(stem.substr(0, dash));
  }
  std::string names;
  for (const std::string& m : models) names += (names.empty() ? "'" : ", '") + m + "'";
  return names;
}

// The interval a checkpoint's "checkpoint every" note records: a positive whole number.
std::int64_t checkpoint_interval(const fs::path& checkpoint, const std::string& note) {
  std::int64_t every = 0;
  const auto [end, error] = std::from_chars(note.data(), note.data() + note.size(), every);
  VARIATE_CHECK(error == std::errc() && end == note.data() + note.size() && every > 0, "sample", "checkpoint '",
                checkpoint.string(), "' is corrupt: its note 'checkpoint every' should be the checkpoint interval, a ",
                "positive whole number, but is '", note, "'");
  return every;
}

}  // namespace

inference::CheckpointEntries run_identity(const SampleContext& job) {
  const SampleJobOptions& o = job.options;
  inference::CheckpointEntries id;
  if (o.model_file.empty()) {
    id.emplace_back("model", job.model.name);
  } else {
    id.emplace_back("model", "plugin " + fs::absolute(o.model_file).lexically_normal().string());
    id.emplace_back("model plugin's fingerprint", hex(data::data_fingerprint(o.model_file)));
  }
  // Draws depend on the device count (sums over devices, the random streams of sharded coordinates).
  id.emplace_back("--devices", std::to_string(job.at.devices));
  id.emplace_back("parameter layout", run_parameter_layout(job));
  id.emplace_back("data fingerprint", o.data.empty() ? "(the model's own data)" : hex(data::data_fingerprint(o.data)));
  id.emplace_back("--seed", std::to_string(o.seed));
  id.emplace_back("--chains", std::to_string(o.chains));
  id.emplace_back("--warmup", std::to_string(o.warmup));
  id.emplace_back("--draws", std::to_string(o.draws));
  id.emplace_back("--thin", std::to_string(o.thin));
  id.emplace_back("--save-all", o.save_all ? "on" : "off");
  id.emplace_back("--sampler", o.sampler);
  id.emplace_back("--metric", o.metric);
  id.emplace_back("--max-depth", std::to_string(o.max_depth));
  id.emplace_back("--adapt-delta", exact(o.adapt_delta));
  id.emplace_back("--leapfrog-steps", std::to_string(o.leapfrog_steps));
  id.emplace_back("--trajectory-length", exact(o.trajectory_length));
  id.emplace_back("--trajectory-jitter", exact(o.trajectory_jitter));
  id.emplace_back("--precision", o.precision);
  id.emplace_back("--vectorize", o.vectorize ? "on" : "off");
  id.emplace_back("--predictive", o.predictive ? "on" : "off");
  id.emplace_back("--log-lik", o.log_lik ? "on" : "off");
  id.emplace_back("--init-from",
                  o.init_from.empty() ? "(none)" : fs::absolute(o.init_from).lexically_normal().string());
  return id;
}

SampleCheckpoints::SampleCheckpoints(const SampleContext& job)
    : job_(job),
      folder_(fs::path(job.options.output) / "checkpoint"),
      axis_(job.at.devices > 1 ? *distribute::running_axis() : std::string()),
      sharded_(!job.space.shard_axis().empty()),
      widths_(sharded_ ? std::size_t(job.at.devices) : 1, job.space.dimension()),
      identity_(run_identity(job)),
      every_(job.options.checkpoint_every),
      lockstep_(job.options.vectorize),
      chains_(std::size_t(job.options.chains)) {
  if (const char* hook = std::getenv("VARIATE_TEST_KILL_AT_CHECKPOINT")) {
    std::istringstream in(hook);
    char colon = 0;
    in >> kill_chain_ >> colon >> kill_iteration_;
    --kill_chain_;
  }
  if (sharded_) {
    std::vector<double> widths(widths_.size(), 0.0);  // doubles hold the counts exactly
    widths[std::size_t(job.at.device)] = double(job.space.dimension());
    distribute::psum_in_place(widths, axis_, "checkpoint: each device's coordinates");
    for (std::size_t d = 0; d < widths.size(); ++d) {
      widths_[d] = std::int64_t(widths[d]);
      if (int(d) < job.at.device) offset_ += std::size_t(widths_[d]);
    }
  }
  if (job.options.resume.empty()) return;
  std::error_code ec;
  VARIATE_CHECK(fs::is_directory(folder_, ec), "sample", "--resume ", job.options.resume, ": no folder '",
                folder_.string(), "'; resume needs the output folder of a run made with --checkpoint-every");
  if (lockstep_) {
    load_batch();
  } else {
    for (int c = 0; c < job.options.chains; ++c) load(c);
  }
  if (!axis_.empty()) check_devices_agree();
  if (std::any_of(chains_.begin(), chains_.end(), [](const ChainLog& l) { return l.resume.has_value(); })) return;
  // The other kind of checkpoint (a batch's or a chain's) says which option differs.
  const fs::path other = lockstep_ ? checkpoint_path(0) : batch_path();
  if (fs::exists(other, ec)) inference::check_identity(other, inference::read_checkpoint(other).identity, identity_);
  const std::string others = checkpointed_models(folder_);
  VARIATE_CHECK(others.empty(), "sample", "--resume ", job.options.resume, ": '", folder_.string(),
                "' holds checkpoints of ", others, ", not of model '", job.model.name,
                "': resume with the run's own command (its --model or --model-file), --resume in place of --output");
  detail::fail("sample", "--resume ", job.options.resume, ": '", folder_.string(), "' holds no checkpoint of model '",
               job.model.name, "' (the run stopped before its first checkpoint: start it again without --resume)");
}

SampleCheckpoints::~SampleCheckpoints() {
  writes_.reset();  // its last writes use the logs
  for (ChainLog& chain : chains_)
    if (chain.fd >= 0) ::close(chain.fd);
}

fs::path SampleCheckpoints::checkpoint_path(int chain) const {
  return folder_ / (job_.model.name + "-" + std::to_string(chain + 1) + ".ckpt");
}

fs::path SampleCheckpoints::batch_path() const { return folder_ / (job_.model.name + "-chains.ckpt"); }

fs::path SampleCheckpoints::log_path(int chain) const {
  return folder_ / (job_.model.name + "-" + std::to_string(chain + 1) + ".draws");
}

// A draw log record: the statistics and the position, every device's part of it on a mesh with
// sharded parameters.
std::size_t SampleCheckpoints::record_size() const {
  std::size_t size = kStats;
  for (const std::int64_t width : widths_) size += std::size_t(width);
  return size;
}

// This device's record: its statistics and its coordinates.
std::size_t SampleCheckpoints::local_record_size() const { return kStats + std::size_t(job_.space.dimension()); }

void SampleCheckpoints::start_fresh() {
  data::make_output_folder(folder_.string(), "sample");
  for (int c = 0; c < job_.options.chains; ++c) {
    std::error_code ec;
    fs::remove(checkpoint_path(c), ec);  // an earlier run's: it would not match this run's logs
  }
  std::error_code ec;
  fs::remove(batch_path(), ec);
}

void SampleCheckpoints::open_logs() {
  for (int c = 0; c < job_.options.chains; ++c) {
    ChainLog& chain = chains_[std::size_t(c)];
    const fs::path log = log_path(c);
    chain.fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (chain.fd < 0) fail_system(log, "cannot open the draw log");
    // Records after the checkpoint (or all of them, for a chain that starts anew) are made again.
    if (::ftruncate(chain.fd, off_t(std::size_t(chain.kept) * record_size() * sizeof(double))) != 0)
      fail_system(log, "cannot cut back the draw log");
  }
}

void SampleCheckpoints::load(int c) {
  const fs::path checkpoint = checkpoint_path(c);
  std::error_code ec;
  if (!fs::exists(checkpoint, ec)) return;  // the chain had not reached its first checkpoint: it starts anew
  inference::Checkpoint saved = inference::read_checkpoint(checkpoint);
  inference::check_identity(checkpoint, saved.identity, identity_);
  const std::size_t parts = widths_.size();  // one state, or each device's
  const bool chains_own = std::all_of(saved.chains.begin(), saved.chains.end(),
                                      [c](const inference::ChainState& s) { return s.chain == c; });
  VARIATE_CHECK(saved.chains.size() == parts && chains_own, "sample", "checkpoint '", checkpoint.string(),
                "' is not chain ", c + 1, "'s alone", parts > 1 ? " in " + std::to_string(parts) + " device parts" : "",
                ": it holds ", saved.chains.size(), " chain states, the first chain ", saved.chains[0].chain + 1, "'s");
  const std::size_t mine = sharded_ ? std::size_t(job_.at.device) : 0;
  load_log(c, checkpoint, saved.notes, "draw log crc32", std::move(saved.chains[mine]));
}

// A lockstep batch's chains restart from one iteration: one file holds them all.
void SampleCheckpoints::load_batch() {
  const fs::path checkpoint = batch_path();
  std::error_code ec;
  if (!fs::exists(checkpoint, ec)) return;  // the run had not reached its first checkpoint: it starts anew
  inference::Checkpoint saved = inference::read_checkpoint(checkpoint);
  inference::check_identity(checkpoint, saved.identity, identity_);
  const std::size_t parts = widths_.size();  // each chain's state, or its devices' states
  VARIATE_CHECK(saved.chains.size() == chains_.size() * parts, "sample", "checkpoint '", checkpoint.string(),
                "' holds ", saved.chains.size(), " chain states, this run has ", chains_.size(), " chains",
                parts > 1 ? " of " + std::to_string(parts) + " device parts" : "");
  for (std::size_t i = 0; i < saved.chains.size(); ++i)
    VARIATE_CHECK(saved.chains[i].chain == int(i / parts), "sample", "checkpoint '", checkpoint.string(),
                  "' holds chain ", saved.chains[i].chain + 1, " where chain ", i / parts + 1, " belongs");
  const std::size_t mine = sharded_ ? std::size_t(job_.at.device) : 0;
  for (std::size_t c = 0; c < chains_.size(); ++c)
    load_log(int(c), checkpoint, saved.notes, "draw log crc32 " + std::to_string(c + 1),
             std::move(saved.chains[c * parts + mine]));
}

// Reads chain c's draw log up to `state` and checks it against the checksum its checkpoint noted.
void SampleCheckpoints::load_log(int c, const fs::path& checkpoint, const inference::CheckpointEntries& notes,
                                 const std::string& crc_note, inference::ChainState state) {
  ChainLog& chain = chains_[std::size_t(c)];
  const fs::path log = log_path(c);
  const std::string* crc = inference::find_entry(notes, crc_note);
  const std::string* every = inference::find_entry(notes, "checkpoint every");
  VARIATE_CHECK(crc && every, "sample", "checkpoint '", checkpoint.string(),
                "' does not record its draw log's checksum and interval: it was not written by `variate sample`");
  if (every_ == 0) every_ = checkpoint_interval(checkpoint, *every);
  const std::int64_t kept = std::max<std::int64_t>(0, state.iteration - job_.options.warmup);
  const std::size_t bytes = std::size_t(kept) * record_size() * sizeof(double);
  std::vector<double> records(std::size_t(kept) * record_size());
  const int fd = ::open(log.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_system(log, "cannot open the draw log");
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::read(fd, reinterpret_cast<char*>(records.data()) + done, bytes - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += std::size_t(n);
  }
  ::close(fd);
  VARIATE_CHECK(done == bytes, "sample", "draw log '", log.string(), "' holds ", done / sizeof(double) / record_size(),
                " draws but its checkpoint was made after ", kept, ": the checkpoint folder is damaged");
  chain.crc = data::extend_crc32(0, records.data(), bytes);
  chain.crc_records = kept;
  chain.kept = kept;
  VARIATE_CHECK(hex(chain.crc) == *crc, "sample", "draw log '", log.string(),
                "' does not match its checkpoint (checksum mismatch): the file is corrupt");
  // This device's part of each record: the statistics and its own coordinates.
  const std::size_t width = record_size(), dimension = local_record_size() - kStats;
  chain.replayed.clear();
  for (std::size_t i = 0; i < std::size_t(kept); ++i) {
    const double* r = records.data() + i * width;
    chain.replayed.insert(chain.replayed.end(), r, r + kStats);
    chain.replayed.insert(chain.replayed.end(), r + kStats + offset_, r + kStats + offset_ + dimension);
  }
  // The file holds the metric's numbers; the sampler and the draw writer need it sharded as the
  // parameters are.
  if (sharded_) state.metric = state.metric.sharded_over(job_.space.shard_axis(), job_.space.replicated_dimension());
  chain.resume = std::move(state);
}

void SampleCheckpoints::attach(inference::SamplerOptions& sampler) {
  sampler.checkpoint_every = every_;
  sampler.on_checkpoint = [this](const inference::ChainState& s) { save(s); };
  if (job_.at.writer()) {
    writes_ = std::make_unique<BackgroundWrites>(lockstep_ ? 1 : chains_.size(), kMinWriteInterval);
    if (job_.options.resume.empty()) start_fresh();
    open_logs();
  }
  if (job_.options.resume.empty()) return;
  sampler.resume.clear();
  for (const ChainLog& chain : chains_) sampler.resume.push_back(chain.resume);
}

void SampleCheckpoints::describe(std::ostream& out) const {
  out << "checkpoints: every " << every_ << " iterations in " << folder_.string();
  if (!job_.options.resume.empty()) {
    out << "; resuming";
    for (std::size_t c = 0; c < chains_.size(); ++c)
      out << (c ? ", " : " ") << "chain " << c + 1
          << (chains_[c].resume ? " at iteration " + std::to_string(chains_[c].resume->iteration) : " from the start");
  }
  out << '\n';
}

void SampleCheckpoints::replay(const std::function<void(const inference::Draw&)>& write) const {
  const std::size_t width = local_record_size();
  const auto dimension = std::size_t(job_.space.dimension());
  for (std::size_t c = 0; c < chains_.size(); ++c) {
    const ChainLog& chain = chains_[c];
    for (std::size_t i = 0; i * width < chain.replayed.size(); ++i) {
      const double* r = chain.replayed.data() + i * width;
      const inference::TransitionStats stats = stats_of(r);
      write(inference::Draw{int(c),
                            job_.options.warmup + std::int64_t(i),
                            false,
                            &stats,
                            {r + kStats, dimension},
                            &chain.resume->metric});
    }
  }
}

void SampleCheckpoints::log(const inference::Draw& d) {
  if (d.warmup) return;
  ChainLog& chain = chains_[std::size_t(d.chain)];
  const inference::TransitionStats& s = *d.stats;
  const double stats[kStats] = {s.log_density,        s.accept_stat,           s.step_size, double(s.tree_depth),
                                double(s.n_leapfrog), s.divergent ? 1.0 : 0.0, s.energy};
  if (!axis_.empty()) {  // kept on the sampling thread until the next checkpoint gathers it
    chain.local.insert(chain.local.end(), std::begin(stats), std::end(stats));
    chain.local.insert(chain.local.end(), d.position.begin(), d.position.end());
    return;
  }
  const std::lock_guard lock(chain.mutex);
  chain.unwritten.insert(chain.unwritten.end(), std::begin(stats), std::end(stats));
  chain.unwritten.insert(chain.unwritten.end(), d.position.begin(), d.position.end());
}

// On the chain's sampling thread, which has just logged the draws up to `state`. A lockstep
// batch's chains come one after another for one iteration; the last one sends them all.
void SampleCheckpoints::save(const inference::ChainState& state) {
  std::vector<inference::ChainState> parts = axis_.empty() ? std::vector{state} : gather(state);
  if (!writes_) return;  // a mesh device other than device 0, which writes
  if (lockstep_) {
    batch_.insert(batch_.end(), parts.begin(), parts.end());
    if (batch_.size() < chains_.size() * widths_.size()) return;
    writes_->submit(0, [this, states = std::move(batch_)] { write_batch_durably(states); });
    batch_.clear();
  } else {
    writes_->submit(std::size_t(state.chain), [this, parts = std::move(parts)] { write_durably(parts); });
  }
  // The test hook's checkpoint must reach the disk, not be replaced by the chain's next one, and so
  // must the other chains' waiting ones: a finished chain's last checkpoint may still wait out the
  // write interval, and the crash comes after it. (A batch has just been sent with its last chain:
  // any of its chains names it.)
  if (state.iteration == kill_iteration_ && (lockstep_ || state.chain == kill_chain_)) {
    writes_->flush();
    ::raise(SIGKILL);
  }
}

// On a mesh, on every device's sampling thread (the devices reach each checkpoint together): sends
// device 0 this device's state and the draws it logged since the last checkpoint. On device 0,
// returns the states the checkpoint holds (each device's with sharded parameters, else device 0's,
// after checking that every device's is the same) and queues the draws for its log.
std::vector<inference::ChainState> SampleCheckpoints::gather(const inference::ChainState& state) {
  ChainLog& chain = chains_[std::size_t(state.chain)];
  // The time spent is each device's own measure: the checkpoint keeps device 0's.
  inference::ChainState timeless = state;
  timeless.warmup_seconds = timeless.sampling_seconds = 0;
  const std::vector<std::string> states = all_gather_bytes(inference::encode_checkpoint({{}, {}, {timeless}}), axis_);
  const std::vector<std::string> records = all_gather_bytes(as_bytes(chain.local), axis_);
  chain.local.clear();
  for (std::size_t d = 1; d < states.size() && !sharded_; ++d)
    VARIATE_CHECK(states[d] == states[0] && records[d] == records[0], "sample", "checkpoint: device ", d,
                  "'s state or draws of chain ", state.chain + 1, " at iteration ", state.iteration,
                  " differ from device 0's, although the model's parameters are replicated; this is a bug in variate");
  if (!job_.at.writer()) return {};
  std::vector<inference::ChainState> parts;
  for (std::size_t p = 0; p < widths_.size(); ++p) {
    parts.push_back(std::move(inference::decode_checkpoint(states[p], folder_).chains.at(0)));
    parts.back().warmup_seconds = state.warmup_seconds;
    parts.back().sampling_seconds = state.sampling_seconds;
  }
  // Each record: device 0's statistics (the devices agree on them), then every part's coordinates.
  const std::size_t draws = records[0].size() / sizeof(double) / (kStats + std::size_t(widths_[0]));
  std::vector<double> combined(draws * record_size());
  double* out = combined.data();
  for (std::size_t i = 0; i < draws; ++i) {
    for (std::size_t p = 0; p < widths_.size(); ++p) {
      const std::size_t width = kStats + std::size_t(widths_[p]);
      VARIATE_CHECK(records[p].size() == draws * width * sizeof(double), "sample", "checkpoint: device ", p, " logged ",
                    records[p].size() / sizeof(double) / width, " draws of chain ", state.chain + 1,
                    " since the last checkpoint, device 0 ", draws, "; this is a bug in variate");
      const auto* r = reinterpret_cast<const double*>(records[p].data()) + i * width;
      out = std::copy(r + (p == 0 ? 0 : kStats), r + width, out);
    }
  }
  const std::lock_guard lock(chain.mutex);
  chain.unwritten.insert(chain.unwritten.end(), combined.begin(), combined.end());
  return parts;
}

// The chain's logged records, appended to its log and flushed to the disk; returns the CRC-32 of
// its records up to `state`, computed here rather than on the sampling thread. The log may hold
// records made after the checkpoint being written by now; a resume reads it only as far as the
// checkpoint, and the next checkpoint's checksum goes on from the records kept in `uncounted`.
std::uint32_t SampleCheckpoints::append_log(int c, std::int64_t iteration) {
  ChainLog& chain = chains_[std::size_t(c)];
  // The sampling thread goes on logging into the last write's buffer, whose capacity it keeps:
  // growing a new one each time cost it reallocations and page faults.
  std::vector<double> records = std::move(chain.spare);
  {
    const std::lock_guard lock(chain.mutex);
    records.swap(chain.unwritten);
  }
  write_all(chain.fd, records.data(), records.size() * sizeof(double), log_path(c));
  if (::fdatasync(chain.fd) != 0) fail_system(log_path(c), "cannot flush the draw log");
  chain.uncounted.insert(chain.uncounted.end(), records.begin(), records.end());
  const std::int64_t kept = std::max<std::int64_t>(0, iteration - job_.options.warmup);
  const auto values = std::size_t(kept - chain.crc_records) * record_size();
  VARIATE_CHECK(kept >= chain.crc_records && values <= chain.uncounted.size(), "sample", "the draw log of chain ",
                c + 1, " holds ", chain.uncounted.size(), " values not yet checksummed, but its checkpoint counts ",
                values, " (a draw logged after its checkpoint); this is a bug in variate");
  chain.crc = data::extend_crc32(chain.crc, chain.uncounted.data(), values * sizeof(double));
  chain.uncounted.erase(chain.uncounted.begin(), chain.uncounted.begin() + std::ptrdiff_t(values));
  chain.crc_records = kept;
  records.clear();
  chain.spare = std::move(records);
  return chain.crc;
}

// `parts`: one chain's state, or each device's part of it.
void SampleCheckpoints::write_durably(const std::vector<inference::ChainState>& parts) {
  const inference::ChainState& state = parts.front();
  const std::uint32_t log_crc = append_log(state.chain, state.iteration);
  inference::write_checkpoint(
      checkpoint_path(state.chain),
      {identity_, {{"draw log crc32", hex(log_crc)}, {"checkpoint every", std::to_string(every_)}}, parts});
}

void SampleCheckpoints::write_batch_durably(const std::vector<inference::ChainState>& states) {
  inference::CheckpointEntries notes{{"checkpoint every", std::to_string(every_)}};
  for (std::size_t i = 0; i < states.size(); i += widths_.size())
    notes.emplace_back("draw log crc32 " + std::to_string(states[i].chain + 1),
                       hex(append_log(states[i].chain, states[i].iteration)));
  inference::write_checkpoint(batch_path(), {identity_, notes, states});
}

// On --resume on a mesh: every device must continue from the same checkpoints (MPI ranks on
// machines that do not share the output folder could read different ones).
void SampleCheckpoints::check_devices_agree() const {
  std::uint64_t print = 14695981039346656037ull;
  const auto mix = [&print](std::uint64_t v) { print = (print ^ v) * 1099511628211ull; };
  for (std::size_t c = 0; c < chains_.size(); ++c) {
    const ChainLog& chain = chains_[c];
    mix(chain.resume ? std::uint64_t(chain.resume->iteration) + 1 : 0);
    mix(chain.crc);
    std::error_code ec;
    const fs::path checkpoint = lockstep_ ? batch_path() : checkpoint_path(int(c));
    if (chain.resume && fs::exists(checkpoint, ec)) mix(data::data_fingerprint(checkpoint.string()));
  }
  distribute::check_replicated(
      print, axis_,
      "sample --resume: the checkpoints each device read (every MPI rank must read the same output folder)");
}

void SampleCheckpoints::finish() {
  if (writes_) writes_->flush();
}

void SampleCheckpoints::prepend_replayed(inference::SampleResult& result) const {
  const std::size_t width = local_record_size();
  for (std::size_t c = 0; c < chains_.size(); ++c) {
    const ChainLog& chain = chains_[c];
    inference::ChainResult& r = result.chains[c];
    std::vector<double> draws;
    std::vector<inference::TransitionStats> stats;
    for (std::size_t i = 0; i * width < chain.replayed.size(); ++i) {
      const double* p = chain.replayed.data() + i * width;
      stats.push_back(stats_of(p));
      draws.insert(draws.end(), p + kStats, p + width);
    }
    r.draws.insert(r.draws.begin(), draws.begin(), draws.end());
    r.stats.insert(r.stats.begin(), stats.begin(), stats.end());
  }
}

}  // namespace variate::cli
