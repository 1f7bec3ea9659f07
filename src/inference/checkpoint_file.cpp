#include "variate/inference/checkpoint_file.hpp"

#include <cstring>

#include "variate/core/error.hpp"
#include "variate/data/checksummed_file.hpp"

namespace variate::inference {

namespace {

constexpr data::ChecksummedFormat kFormat{
    .magic = {"VARIATE\001CK", 10}, .version = 3, .noun = "checkpoint", .description = "variate chain checkpoint"};

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
    const char* bytes = take(n * sizeof(double), what);
    if (n > 0) std::memcpy(v.data(), bytes, n * sizeof(double));  // an empty vector's data() may be null
    return v;
  }
  CheckpointEntries get_entries(const char* what) {
    const auto n = get<std::uint32_t>(what);
    // Each entry takes at least its two string lengths: a corrupt count is caught before allocating.
    if (n > (size_ - pos_) / 8) fail_file(path_, std::string("corrupt: ") + what + " is cut short");
    CheckpointEntries entries(n);
    for (auto& [key, value] : entries) {
      key = get_string(what);
      value = get_string(what);
    }
    return entries;
  }
  void expect_end() const {
    if (pos_ != size_) fail_file(path_, "corrupt: " + std::to_string(size_ - pos_) + " bytes after the chains' states");
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
enum class MetricTag : std::uint8_t { diagonal = 0, dense = 1, low_rank = 2 };

void put_metric(Encoder& out, const Metric& m) {
  const MetricTag tag = m.kind() == MetricKind::dense      ? MetricTag::dense
                        : m.kind() == MetricKind::low_rank ? MetricTag::low_rank
                                                           : MetricTag::diagonal;
  out.put(std::uint8_t(tag));
  out.put(m.dimension());
  out.put(m.inverse());
  if (tag != MetricTag::low_rank) return;
  out.put(m.directions());
  out.put(m.eigenvalues());
}

Metric get_metric(Decoder& in, const std::filesystem::path& path) {
  const auto kind = in.get<std::uint8_t>("the metric's kind");
  const auto dimension = in.get<std::int64_t>("the metric's dimension");
  std::vector<double> inverse = in.get_vector("the metric");
  try {
    if (kind == std::uint8_t(MetricTag::diagonal)) return Metric::diagonal(std::move(inverse));
    if (kind == std::uint8_t(MetricTag::dense)) return Metric::dense(std::move(inverse), dimension);
    if (kind == std::uint8_t(MetricTag::low_rank)) {
      std::vector<double> directions = in.get_vector("the metric's directions");
      std::vector<double> eigenvalues = in.get_vector("the metric's eigenvalues");
      return Metric::low_rank(std::move(inverse), std::move(directions), std::move(eigenvalues));
    }
  } catch (const Error& e) {
    fail_file(path, std::string("corrupt: its metric is not valid: ") + e.what());
  }
  fail_file(path,
            "corrupt: unknown metric kind " + std::to_string(kind) + " (expected 0 diagonal, 1 dense or 2 low-rank)");
}

void put_welford(Encoder& out, const WelfordState& w) {
  out.put(w.count);
  out.put(w.mean);
  out.put(w.m2);
}

WelfordState get_welford(Decoder& in) {
  WelfordState w;
  w.count = in.get<std::int64_t>("the Welford sums");
  w.mean = in.get_vector("the Welford sums");
  w.m2 = in.get_vector("the Welford sums");
  return w;
}

void put_fisher_window(Encoder& out, const FisherWindowState& w) {
  out.put(w.count);
  for (const std::vector<double>* v : {&w.mean_x, &w.m2_x, &w.mean_g, &w.m2_g, &w.draws, &w.gradients}) out.put(*v);
}

FisherWindowState get_fisher_window(Decoder& in) {
  FisherWindowState w;
  w.count = in.get<std::int64_t>("a Fisher window");
  for (std::vector<double>* v : {&w.mean_x, &w.m2_x, &w.mean_g, &w.m2_g, &w.draws, &w.gradients})
    *v = in.get_vector("a Fisher window");
  return w;
}

// The metric adaptation's state: a tag, then Stan's Welford sums or Fisher's two windows.
enum class AdaptationTag : std::uint8_t { stan_windows = 0, fisher = 1 };

void put_adaptation(Encoder& out, const ChainState& s) {
  out.put(std::uint8_t(s.fisher ? AdaptationTag::fisher : AdaptationTag::stan_windows));
  if (!s.fisher) return put_welford(out, s.welford);
  put_fisher_window(out, s.fisher->foreground);
  put_fisher_window(out, s.fisher->background);
}

void get_adaptation(Decoder& in, const std::filesystem::path& path, ChainState& s) {
  const auto tag = in.get<std::uint8_t>("the metric adaptation's tag");
  if (tag == std::uint8_t(AdaptationTag::stan_windows)) {
    s.welford = get_welford(in);
    return;
  }
  if (tag != std::uint8_t(AdaptationTag::fisher))
    fail_file(path, "corrupt: unknown metric adaptation tag " + std::to_string(tag) +
                        " (expected 0 Stan's windows or 1 Fisher divergence)");
  FisherState f;
  f.foreground = get_fisher_window(in);
  f.background = get_fisher_window(in);
  s.fisher = std::move(f);
}

void put_dual(Encoder& out, const DualAveragingState& d) {
  out.put(d.mu);
  out.put(d.s_bar);
  out.put(d.x_bar);
  out.put(d.count);
}

DualAveragingState get_dual(Decoder& in) {
  DualAveragingState d;
  d.mu = in.get<double>("dual averaging");
  d.s_bar = in.get<double>("dual averaging");
  d.x_bar = in.get<double>("dual averaging");
  d.count = in.get<std::int64_t>("dual averaging");
  return d;
}

// The sampler's own state after a chain's: a tag, then its fields. A new sampler with state of its
// own adds a tag here and in get_sampler_state.
enum class SamplerTag : std::uint8_t { none = 0, chees = 1 };

void put_sampler_state(Encoder& out, const ChainState& s) {
  out.put(std::uint8_t(s.chees ? SamplerTag::chees : SamplerTag::none));
  if (!s.chees) return;
  const CheesAdaptationState& a = s.chees->adaptation;
  put_dual(out, a.dual);
  out.put(a.step_size);
  out.put(a.trajectory_length);
  out.put(a.mean_square);
  out.put(a.log_length_average);
  out.put(a.count);
  out.put(std::uint8_t(s.chees->pooled ? 1 : 0));
  if (s.chees->pooled) put_welford(out, *s.chees->pooled);
  out.put(s.chees->trajectory_length);
}

void get_sampler_state(Decoder& in, const std::filesystem::path& path, ChainState& s) {
  const auto tag = in.get<std::uint8_t>("the sampler's tag");
  if (tag == std::uint8_t(SamplerTag::none)) return;
  if (tag != std::uint8_t(SamplerTag::chees))
    fail_file(path, "corrupt: unknown sampler tag " + std::to_string(tag) + " (expected 0 none or 1 ChEES)");
  CheesState c;
  c.adaptation.dual = get_dual(in);
  c.adaptation.step_size = in.get<double>("ChEES's adaptation");
  c.adaptation.trajectory_length = in.get<double>("ChEES's adaptation");
  c.adaptation.mean_square = in.get<double>("ChEES's adaptation");
  c.adaptation.log_length_average = in.get<double>("ChEES's adaptation");
  c.adaptation.count = in.get<std::int64_t>("ChEES's adaptation");
  if (in.get<std::uint8_t>("ChEES's pooled sums") != 0) c.pooled = get_welford(in);
  c.trajectory_length = in.get<double>("ChEES's trajectory length");
  s.chees = std::move(c);
}

void put_chain(Encoder& out, const ChainState& s) {
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
  put_dual(out, s.dual_averaging);
  put_adaptation(out, s);
  put_sampler_state(out, s);
}

ChainState get_chain(Decoder& in, const std::filesystem::path& path) {
  ChainState s;
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
  s.dual_averaging = get_dual(in);
  get_adaptation(in, path, s);
  get_sampler_state(in, path, s);
  return s;
}

std::string encode(const Checkpoint& checkpoint) {
  Encoder out;
  out.put(checkpoint.identity);
  out.put(checkpoint.notes);
  out.put(std::uint32_t(checkpoint.chains.size()));
  for (const ChainState& s : checkpoint.chains) put_chain(out, s);
  return std::move(out.bytes);
}

Checkpoint decode(Decoder& in, const std::filesystem::path& path) {
  Checkpoint c;
  c.identity = in.get_entries("the identity");
  c.notes = in.get_entries("the notes");
  const auto chains = in.get<std::uint32_t>("the chain count");
  if (chains == 0) fail_file(path, "corrupt: it holds no chain");
  for (std::uint32_t i = 0; i < chains; ++i) c.chains.push_back(get_chain(in, path));
  in.expect_end();
  return c;
}

}  // namespace

std::string encode_checkpoint(const Checkpoint& checkpoint) { return encode(checkpoint); }

Checkpoint decode_checkpoint(std::string_view payload, const std::filesystem::path& source) {
  Decoder in(source, payload.data(), payload.size());
  return decode(in, source);
}

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
