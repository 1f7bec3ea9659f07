#include "variate/nn/checkpoint.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>
#include <string>

#include "variate/data/checksummed_file.hpp"

namespace variate::nn {
namespace {

constexpr data::ChecksummedFormat kFormat{
    .magic = {"VARIATE\001NN", 10}, .version = 1, .noun = "checkpoint", .description = "variate checkpoint"};
// dtype codes of the format, fixed whatever the order of the DType enum.
constexpr DType kDtypes[] = {DType::boolean, DType::i32, DType::i64, DType::f32, DType::f64};

[[noreturn]] void fail_file(const std::filesystem::path& path, const std::string& what) {
  data::fail_checksummed_file(path, kFormat, what);
}

std::uint8_t dtype_code(DType t) {
  for (std::uint8_t i = 0; i < std::size(kDtypes); ++i)
    if (kDtypes[i] == t) return i;
  return 0xff;
}

template <class T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(T));
}

// Reads the records of a file's body, checking each bound.
class Reader {
 public:
  Reader(const std::filesystem::path& path, const std::string& bytes) : path_(path), bytes_(bytes) {}
  template <class T>
  T get(const char* what) {
    T value;
    std::memcpy(&value, take(sizeof(T), what), sizeof(T));
    return value;
  }
  const char* take(std::size_t n, const char* what) {
    if (n > remaining()) fail_file(path_, std::string("truncated: the file ends inside ") + what);
    const char* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }
  std::size_t remaining() const { return bytes_.size() - pos_; }

 private:
  const std::filesystem::path& path_;
  const std::string& bytes_;
  std::size_t pos_ = 0;
};

}  // namespace

void save_tensors(const std::filesystem::path& path, std::span<const NamedTensor> tensors) {
  std::string out;
  put(out, std::uint64_t(tensors.size()));
  for (const NamedTensor& t : tensors) {
    VARIATE_CHECK(t.value.defined(), "checkpoint '" + path.string() + "'", "the tensor '", t.name, "' is undefined");
    put(out, std::uint32_t(t.name.size()));
    out += t.name;
    put(out, dtype_code(t.value.dtype()));
    put(out, std::uint8_t(t.value.rank()));
    for (std::int64_t d : t.value.shape()) put(out, d);
    out.append(static_cast<const char*>(t.value.raw()), t.value.nbytes());
  }
  data::write_checksummed_file(path, kFormat, out);
}

std::vector<NamedTensor> load_tensors(const std::filesystem::path& path) {
  const std::string body = data::read_checksummed_file(path, kFormat);
  Reader in(path, body);
  const auto count = in.get<std::uint64_t>("the record count");
  std::vector<NamedTensor> out;
  for (std::uint64_t r = 0; r < count; ++r) {
    const auto name_size = in.get<std::uint32_t>("a name's length");
    std::string name(in.take(name_size, "a name"), name_size);
    const auto code = in.get<std::uint8_t>("a dtype");
    if (code >= std::size(kDtypes)) fail_file(path, "'" + name + "' has unknown dtype code " + std::to_string(code));
    const auto rank = in.get<std::uint8_t>("a rank");
    if (rank > kMaxRank)
      fail_file(path, "'" + name + "' has rank " + std::to_string(rank) + " > " + std::to_string(kMaxRank));
    std::vector<std::int64_t> dims(rank);
    // The elements must fit in what is left of the file, checked before allocating them, so that a
    // corrupt shape cannot ask for more memory than the file holds.
    for (auto& d : dims) {
      d = in.get<std::int64_t>("a shape");
      if (d < 0) fail_file(path, "'" + name + "' has a negative dim");
    }
    std::size_t bytes = std::find(dims.begin(), dims.end(), 0) == dims.end() ? itemsize(kDtypes[code]) : 0;
    for (std::int64_t d : dims) {
      if (bytes > in.remaining() / std::size_t(std::max<std::int64_t>(d, 1)))
        fail_file(path, "truncated: the file ends inside the elements of '" + name + "'");
      bytes *= std::size_t(d);
    }
    if (bytes > in.remaining()) fail_file(path, "truncated: the file ends inside the elements of '" + name + "'");
    Tensor t = Tensor::empty(Shape(std::span<const std::int64_t>(dims)), kDtypes[code]);
    std::memcpy(t.raw(), in.take(t.nbytes(), "the elements"), t.nbytes());
    out.push_back({std::move(name), std::move(t)});
  }
  if (in.remaining() != 0) fail_file(path, std::to_string(in.remaining()) + " unexpected bytes after the last record");
  return out;
}

void save(const Module& module, const std::filesystem::path& path) {
  const std::vector<NamedTensor> params = named_parameters(module);
  save_tensors(path, params);
}

void load(Module& module, const std::filesystem::path& path) {
  std::map<std::string, Tensor> stored;
  for (NamedTensor& t : load_tensors(path)) {
    if (!stored.emplace(t.name, t.value).second) fail_file(path, "the name '" + t.name + "' appears twice");
  }
  const std::vector<NamedTensor> params = named_parameters(module);
  std::string missing, extra;
  for (const NamedTensor& p : params)
    if (!stored.contains(p.name)) missing += (missing.empty() ? "" : ", ") + p.name;
  for (const auto& [name, value] : stored) {
    bool known = false;
    for (const NamedTensor& p : params) known = known || p.name == name;
    if (!known) extra += (extra.empty() ? "" : ", ") + name;
  }
  if (!missing.empty() || !extra.empty())
    fail_file(path, "does not match " + module.describe() + ": missing parameters [" + missing +
                        "], unexpected parameters [" + extra + "]");
  for (const NamedTensor& p : params) {
    const Tensor& s = stored.at(p.name);
    if (s.shape() != p.value.shape() || s.dtype() != p.value.dtype()) {
      std::ostringstream what;
      what << "parameter '" << p.name << "' is " << s.dtype() << " " << s.shape() << " in the file but "
           << p.value.dtype() << " " << p.value.shape() << " in " << module.describe();
      fail_file(path, what.str());
    }
  }
  module.visit_parameters([&](std::string_view name, Tensor& value) { value = stored.at(std::string(name)); });
}

}  // namespace variate::nn
