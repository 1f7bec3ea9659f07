#include "variate/inference/checkpoint_file.hpp"

#include <cstring>

#include "variate/core/error.hpp"
#include "variate/data/checksummed_file.hpp"

namespace variate::inference {

namespace {

constexpr data::ChecksummedFormat kFormat{
    .magic = {"VARIATE\001CK", 10}, .version = 1, .noun = "checkpoint", .description = "variate chain checkpoint"};

[[noreturn]] void fail_file(const std::filesystem::path& path, const std::string& what) {
  data::fail_checksummed_file(path, kFormat, what);
}

class Encoder {
 public:
  template <class T>
  void put(T value) {
    bytes.append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  void put(const std::string& s) {
    put(std::uint32_t(s.size()));
    bytes += s;
  }
  void put(const std::vector<double>& v) {
    put(std::uint64_t(v.size()));
    bytes.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
  }
  void put(const CheckpointEntries& entries) {
    put(std::uint32_t(entries.size()));
    for (const auto& [key, value] : entries) {
      put(key);
      put(value);
    }
  }
  std::string bytes;
};

// Reads the payload, checking each bound: a checksum that matches a wrong length is still caught.
class Decoder {
 public:
  Decoder(const std::filesystem::path& path, const char* data, std::size_t size)
      : path_(path), data_(data), size_(size) {}
  template <class T>
  T get(const char* what) {
    T value;
    std::memcpy(&value, take(sizeof(T), what), sizeof(T));
    return value;
  }
  std::string get_string(const char* what) {
    const auto n = get<std::uint32_t>(what);
    return std::string(take(n, what), n);
  }
  std::vector<double> get_vector(const char* what) {
    const auto n = get<std::uint64_t>(what);
    if (n > (size_ - pos_) / sizeof(double)) fail_file(path_, std::string("corrupt: ") + what + " is cut short");
    std::vector<double> v(n);
    std::memcpy(v.data(), take(n * sizeof(double), what), n * sizeof(double));
    return v;
  }
  CheckpointEntries get_entries(const char* what) {
    CheckpointEntries entries(get<std::uint32_t>(what));
    for (auto& [key, value] : entries) {
      key = get_string(what);
      value = get_string(what);
    }
    return entries;
  }
  void expect_end() const {
    if (pos_ != size_) fail_file(path_, "corrupt: " + std::to_string(size_ - pos_) + " bytes after the chain's state");
  }

 private:
  const char* take(std::size_t n, const char* what) {
    if (n > size_ - pos_) fail_file(path_, std::string("corrupt: the payload ends inside ") + what);
    const char* p = data_ + pos_;
    pos_ += n;
    return p;
  }
  const std::filesystem::path& path_;
  const char* data_;
  std::size_t size_, pos_ = 0;
};

// The metric, in one place: a new metric kind adds its case here and in get_metric.
void put_metric(Encoder& out, const Metric& m) {
  out.put(std::uint8_t(m.kind() == MetricKind::dense ? 1 : 0));
  out.put(m.dimension());
  out.put(m.inverse());
}

Metric get_metric(Decoder& in, const std::filesystem::path& path) {
  const auto kind = in.get<std::uint8_t>("the metric's kind");
  const auto dimension = in.get<std::int64_t>("the metric's dimension");
  std::vector<double> inverse = in.get_vector("the metric");
  try {
    if (kind == 0) return Metric::diagonal(std::move(inverse));
    if (kind == 1) return Metric::dense(std::move(inverse), dimension);
  } catch (const Error& e) {
    fail_file(path, std::string("corrupt: its metric is not valid: ") + e.what());
  }
  fail_file(path, "corrupt: unknown metric kind " + std::to_string(kind) + " (expected 0 diagonal or 1 dense)");
}

std::string encode(const Checkpoint& checkpoint) {
  const ChainState& s = checkpoint.state;
  Encoder out;
  out.put(checkpoint.identity);
  out.put(checkpoint.notes);
  out.put(std::int32_t(s.chain));
  out.put(s.iteration);
  out.put(s.log_density);
  out.put(s.step_size);
  out.put(s.step_size_searches);
  out.put(s.warmup_seconds);
  out.put(s.sampling_seconds);
  out.put(s.position);
  out.put(s.gradient);
  put_metric(out, s.metric);
  out.put(s.dual_averaging.mu);
  out.put(s.dual_averaging.s_bar);
  out.put(s.dual_averaging.x_bar);
  out.put(s.dual_averaging.count);
  out.put(s.welford.count);
  out.put(s.welford.mean);
  out.put(s.welford.m2);
  return std::move(out.bytes);
}

Checkpoint decode(Decoder& in, const std::filesystem::path& path) {
  Checkpoint c;
  ChainState& s = c.state;
  c.identity = in.get_entries("the identity");
  c.notes = in.get_entries("the notes");
  s.chain = in.get<std::int32_t>("the chain");
  s.iteration = in.get<std::int64_t>("the iteration");
  s.log_density = in.get<double>("the log density");
  s.step_size = in.get<double>("the step size");
  s.step_size_searches = in.get<std::uint64_t>("the step-size search count");
  s.warmup_seconds = in.get<double>("the warm-up time");
  s.sampling_seconds = in.get<double>("the sampling time");
  s.position = in.get_vector("the position");
  s.gradient = in.get_vector("the gradient");
  s.metric = get_metric(in, path);
  s.dual_averaging.mu = in.get<double>("dual averaging");
  s.dual_averaging.s_bar = in.get<double>("dual averaging");
  s.dual_averaging.x_bar = in.get<double>("dual averaging");
  s.dual_averaging.count = in.get<std::int64_t>("dual averaging");
  s.welford.count = in.get<std::int64_t>("the Welford sums");
  s.welford.mean = in.get_vector("the Welford sums");
  s.welford.m2 = in.get_vector("the Welford sums");
  in.expect_end();
  return c;
}

}  // namespace

void write_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint) {
  const std::string payload = encode(checkpoint);
  Encoder body;
  body.put(std::uint64_t(payload.size()));
  body.bytes += payload;
  data::write_checksummed_file(path, kFormat, body.bytes);
}

Checkpoint read_checkpoint(const std::filesystem::path& path) {
  const std::string body = data::read_checksummed_file(path, kFormat);
  std::uint64_t payload = 0;
  if (body.size() >= sizeof(payload)) std::memcpy(&payload, body.data(), sizeof(payload));
  if (body.size() < sizeof(payload) || payload != body.size() - sizeof(payload))
    fail_file(path, "truncated or corrupt: the header announces " + std::to_string(payload) +
                        " bytes of chain state, the file holds " + std::to_string(body.size()));
  Decoder in(path, body.data() + sizeof(payload), payload);
  return decode(in, path);
}

const std::string* find_entry(const CheckpointEntries& entries, const std::string& key) {
  for (const auto& [k, v] : entries)
    if (k == key) return &v;
  return nullptr;
}

void check_identity(const std::filesystem::path& path, const CheckpointEntries& recorded,
                    const CheckpointEntries& expected) {
  for (const auto& [key, value] : expected) {
    const std::string* got = find_entry(recorded, key);
    if (!got) fail_file(path, "it does not record the run's " + key + "; it was made by another version of variate");
    if (*got != value)
      fail_file(path, "it was made for another run: its " + key + " is '" + *got + "', this run's is '" + value + "'");
  }
}

}  // namespace variate::inference
