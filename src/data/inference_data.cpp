// netCDF-4 files in ArviZ's InferenceData layout, through the netCDF C library. Without it
// (VARIATE_HAVE_NETCDF is set by CMake when it finds libnetcdf) the writer throws "built without
// netCDF".
#include "variate/data/inference_data.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <set>

#include "variate/core/error.hpp"

#ifdef VARIATE_HAVE_NETCDF
#include <netcdf.h>
#endif

namespace variate::data {

#ifndef VARIATE_HAVE_NETCDF

bool netcdf_available() { return false; }

struct InferenceDataGroup {};

InferenceDataWriter::InferenceDataWriter(const std::string& path, const InferenceDataLayout&) : path_(path) {
  detail::fail("InferenceDataWriter: cannot write '", path,
               "': variate was built without netCDF (install libnetcdf-dev and build again)");
}
InferenceDataWriter::~InferenceDataWriter() = default;
void InferenceDataWriter::write_draw(int, std::span<const double>, std::span<const double>) {}
void InferenceDataWriter::close() {}
void InferenceDataWriter::write_pending(int) {}
void InferenceDataWriter::write_group_block(const InferenceDataGroup&, const std::vector<DrawVariable>&, int,
                                            std::int64_t, std::int64_t, const std::vector<double>&) {}
void InferenceDataWriter::sync() {}

#else

bool netcdf_available() { return true; }

namespace {

constexpr const char* kOp = "InferenceDataWriter";
// A chunk holds this many bytes of one chain's draws of a variable, or one draw when that is more:
// large enough that a chunk's metadata is small beside its data, small enough that the chains'
// partly written chunks stay in the chunk cache.
constexpr std::int64_t kChunkBytes = 64 * 1024;
constexpr std::int64_t kMaxChunkDraws = 1024;
// A chain's draws kept before they are written: about this many bytes (as doubles).
constexpr std::int64_t kBlockBytes = 256 * 1024;

void check(int status, const std::string& path, const char* what) {
  if (status != NC_NOERR) detail::fail(kOp, ": '", path, "': ", what, ": ", nc_strerror(status));
}

nc_type nc_type_of(DType t) {
  switch (t) {
    case DType::boolean: return NC_BYTE;
    case DType::i32: return NC_INT;
    case DType::i64: return NC_INT64;
    case DType::f32: return NC_FLOAT;
    case DType::f64: return NC_DOUBLE;
  }
  return NC_DOUBLE;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

void put_text(int id, int var, const char* name, const std::string& value, const std::string& path) {
  check(nc_put_att_text(id, var, name, value.size(), value.c_str()), path, name);
}

std::int64_t count_of(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

// A dimension of `group` with a coordinate variable of the same name holding 0 ... length - 1
// (none written yet for the unlimited draw dimension).
int define_dimension(int group, const std::string& name, std::int64_t length, bool unlimited, const std::string& path) {
  int dim = 0, var = 0;
  check(nc_def_dim(group, name.c_str(), unlimited ? NC_UNLIMITED : std::size_t(length), &dim), path,
        ("dimension " + name).c_str());
  check(nc_def_var(group, name.c_str(), NC_INT64, 1, &dim, &var), path, ("coordinate " + name).c_str());
  if (unlimited) return dim;
  std::vector<long long> values(static_cast<std::size_t>(length));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<long long>(i);
  check(nc_put_var_longlong(group, var, values.data()), path, ("coordinate " + name).c_str());
  return dim;
}

void check_names(const std::vector<std::string>& names, const char* group, const std::string& path) {
  std::set<std::string> seen{"chain", "draw"};
  for (const std::string& n : names) {
    VARIATE_CHECK(!n.empty() && n.find('/') == std::string::npos, kOp, "'", path, "': group ", group,
                  ": the variable name '", n, "' is empty or holds '/'");
    VARIATE_CHECK(seen.insert(n).second, kOp, "'", path, "': group ", group, ": the variable name '", n,
                  "' is repeated or names a dimension");
  }
}

// The variable's own dimensions <name>_dim_0, ... (ArviZ's default names), each with its coordinate.
std::vector<int> own_dimensions(int group, const std::string& name, const std::vector<std::int64_t>& shape,
                                const std::string& path) {
  std::vector<int> dims;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    VARIATE_CHECK(shape[k] >= 0, kOp, "'", path, "': variable '", name, "' has the negative extent ", shape[k]);
    dims.push_back(define_dimension(group, name + "_dim_" + std::to_string(k), shape[k], false, path));
  }
  return dims;
}

void mark_bool(int group, int var, const std::string& path) { put_text(group, var, "dtype", "bool", path); }

template <class T>
void convert(std::span<const double> in, void* out) {
  T* to = static_cast<T*>(out);
  for (std::size_t i = 0; i < in.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      to[i] = static_cast<T>(in[i]);
    } else if constexpr (std::is_same_v<T, signed char>) {
      to[i] = in[i] != 0 ? 1 : 0;
    } else {
      to[i] = static_cast<T>(std::llround(in[i]));
    }
  }
}

// `in` converted to the element type of `t`, into `out` (at least 8 bytes per value).
void convert_to(DType t, std::span<const double> in, void* out) {
  switch (t) {
    case DType::boolean: return convert<signed char>(in, out);
    case DType::i32: return convert<int>(in, out);
    case DType::i64: return convert<long long>(in, out);
    case DType::f32: return convert<float>(in, out);
    case DType::f64: return convert<double>(in, out);
  }
}

// The observed_data group: each tensor as it is, with its own dimensions.
void write_observed(int file, const std::vector<std::pair<std::string, Tensor> >& observed, const std::string& path) {
  int group = 0;
  check(nc_def_grp(file, "observed_data", &group), path, "group observed_data");
  std::vector<std::string> names;
  for (const auto& [name, value] : observed) names.push_back(name);
  check_names(names, "observed_data", path);
  for (const auto& [name, value] : observed) {
    const auto extents = value.shape().dims();
    const std::vector<int> dims =
        own_dimensions(group, name, std::vector<std::int64_t>(extents.begin(), extents.end()), path);
    int var = 0;
    check(nc_def_var(group, name.c_str(), nc_type_of(value.dtype()), int(dims.size()), dims.data(), &var), path,
          ("variable " + name).c_str());
    if (value.dtype() == DType::boolean) mark_bool(group, var, path);
    // Tensors hold bools as one byte each, 0 or 1: the bytes are written as they are.
    check(nc_put_var(group, var, value.raw()), path, ("variable " + name).c_str());
  }
  put_text(group, NC_GLOBAL, "created_at", utc_now(), path);
}

}  // namespace

struct InferenceDataGroup {
  int id = 0;
  int draw_coordinate = 0;
  std::vector<int> variables;
  std::vector<std::size_t> offsets;  // of each variable's values in a draw's span, and the total last
};

namespace {

using Group = InferenceDataGroup;

// A group with dimensions chain and draw (unlimited) before each variable's own.
Group define_draw_group(int file, const char* name, const InferenceDataLayout& layout,
                        const std::vector<DrawVariable>& variables, const std::string& path) {
  Group g;
  check(nc_def_grp(file, name, &g.id), path, name);
  std::vector<std::string> names;
  for (const DrawVariable& v : variables) names.push_back(v.name);
  check_names(names, name, path);
  const int chain = define_dimension(g.id, "chain", layout.chains, false, path);
  const int draw = define_dimension(g.id, "draw", 0, true, path);
  check(nc_inq_varid(g.id, "draw", &g.draw_coordinate), path, "coordinate draw");
  std::size_t offset = 0;
  for (const DrawVariable& v : variables) {
    std::vector<int> dims{chain, draw};
    const std::vector<int> own = own_dimensions(g.id, v.name, v.shape, path);
    dims.insert(dims.end(), own.begin(), own.end());
    int var = 0;
    check(nc_def_var(g.id, v.name.c_str(), nc_type_of(v.dtype), int(dims.size()), dims.data(), &var), path,
          ("variable " + v.name).c_str());
    const std::int64_t per_draw = count_of(v.shape);
    const std::int64_t bytes = std::max<std::int64_t>(1, per_draw * std::int64_t(itemsize(v.dtype)));
    std::vector<std::size_t> chunk{1, std::size_t(std::clamp<std::int64_t>(kChunkBytes / bytes, 1, kMaxChunkDraws))};
    for (std::int64_t d : v.shape) chunk.push_back(std::size_t(std::max<std::int64_t>(d, 1)));
    check(nc_def_var_chunking(g.id, var, NC_CHUNKED, chunk.data()), path, ("chunking of " + v.name).c_str());
    if (layout.deflate_level > 0)
      check(nc_def_var_deflate(g.id, var, 1, 1, layout.deflate_level), path, ("compression of " + v.name).c_str());
    if (v.dtype == DType::f64) {
      const double nan = std::numeric_limits<double>::quiet_NaN();
      check(nc_def_var_fill(g.id, var, 0, &nan), path, ("fill value of " + v.name).c_str());
    } else if (v.dtype == DType::f32) {
      const float nan = std::numeric_limits<float>::quiet_NaN();
      check(nc_def_var_fill(g.id, var, 0, &nan), path, ("fill value of " + v.name).c_str());
    } else if (v.dtype == DType::boolean) {
      mark_bool(g.id, var, path);
    }
    g.variables.push_back(var);
    g.offsets.push_back(offset);
    offset += std::size_t(per_draw);
  }
  g.offsets.push_back(offset);
  put_text(g.id, NC_GLOBAL, "created_at", utc_now(), path);
  return g;
}

}  // namespace

InferenceDataWriter::InferenceDataWriter(const std::string& path, const InferenceDataLayout& layout)
    : path_(path), layout_(layout), pending_(std::size_t(std::max(layout.chains, 0))) {
  VARIATE_CHECK(layout.chains >= 1, kOp, "'", path, "': ", layout.chains, " chains; expected at least one");
  VARIATE_CHECK(layout.deflate_level >= 0 && layout.deflate_level <= 9, kOp, "'", path, "': deflate level ",
                layout.deflate_level, "; expected 0 to 9");
  check(nc_create(path.c_str(), NC_NETCDF4 | NC_CLOBBER, &file_), path, "cannot create the file");
  try {
    posterior_ = std::make_unique<Group>(define_draw_group(file_, "posterior", layout, layout.posterior, path));
    stats_ = std::make_unique<Group>(define_draw_group(file_, "sample_stats", layout, layout.sample_stats, path));
    write_observed(file_, layout.observed_data, path);
    for (const char* group : {"posterior", "sample_stats", "observed_data"}) {
      int id = 0;
      check(nc_inq_grp_ncid(file_, group, &id), path, group);
      put_text(id, NC_GLOBAL, "inference_library", layout.inference_library, path);
      put_text(id, NC_GLOBAL, "inference_library_version", layout.inference_library_version, path);
    }
    check(nc_enddef(file_), path, "cannot end the definitions");
    check(nc_sync(file_), path, "cannot sync");
  } catch (...) {
    nc_close(file_);
    file_ = -1;
    throw;
  }
  layout_.observed_data.clear();  // written: not kept
  const std::size_t per_draw = posterior_->offsets.back() + stats_->offsets.back();
  block_draws_ =
      std::clamp<std::int64_t>(kBlockBytes / std::int64_t(8 * std::max<std::size_t>(per_draw, 1)), 1, kMaxChunkDraws);
  synced_ = std::chrono::steady_clock::now();
}

InferenceDataWriter::~InferenceDataWriter() {
  if (file_ >= 0) nc_close(file_);
}

void InferenceDataWriter::write_draw(int chain, std::span<const double> posterior, std::span<const double> stats) {
  VARIATE_CHECK(chain >= 0 && chain < layout_.chains, kOp, "'", path_, "': chain ", chain, " out of range [0, ",
                layout_.chains, ")");
  VARIATE_CHECK(posterior.size() == posterior_->offsets.back() && stats.size() == stats_->offsets.back(), kOp, "'",
                path_, "': a draw of ", posterior.size(), " posterior and ", stats.size(),
                " sample_stats values; expected ", posterior_->offsets.back(), " and ", stats_->offsets.back());
  const std::lock_guard<std::mutex> lock(mutex_);
  VARIATE_CHECK(file_ >= 0, kOp, "'", path_, "': the file is closed");
  Pending& p = pending_[std::size_t(chain)];
  p.posterior.insert(p.posterior.end(), posterior.begin(), posterior.end());
  p.stats.insert(p.stats.end(), stats.begin(), stats.end());
  if (++p.draws == block_draws_) write_pending(chain);
  if (std::chrono::duration<double>(std::chrono::steady_clock::now() - synced_).count() >= layout_.sync_seconds) sync();
}

void InferenceDataWriter::sync() {
  for (int c = 0; c < layout_.chains; ++c) write_pending(c);
  check(nc_sync(file_), path_, "cannot sync");
  synced_ = std::chrono::steady_clock::now();
}

void InferenceDataWriter::write_pending(int chain) {
  Pending& p = pending_[std::size_t(chain)];
  if (p.draws == 0) return;
  const std::int64_t end = p.first + p.draws;
  if (end > draw_length_) {  // the draw coordinate first, so that it never ends short of a variable
    const std::size_t start = std::size_t(draw_length_), count = std::size_t(end - draw_length_);
    std::vector<long long> values(count);
    for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<long long>(start + i);
    for (const Group* g : {posterior_.get(), stats_.get()})
      check(nc_put_vara_longlong(g->id, g->draw_coordinate, &start, &count, values.data()), path_, "coordinate draw");
    draw_length_ = end;
  }
  write_group_block(*posterior_, layout_.posterior, chain, p.first, p.draws, p.posterior);
  write_group_block(*stats_, layout_.sample_stats, chain, p.first, p.draws, p.stats);
  p.first = end;
  p.draws = 0;
  p.posterior.clear();
  p.stats.clear();
}

void InferenceDataWriter::write_group_block(const Group& group, const std::vector<DrawVariable>& variables, int chain,
                                            std::int64_t first, std::int64_t draws, const std::vector<double>& values) {
  const std::size_t per_draw = group.offsets.back();
  std::vector<double> own;
  for (std::size_t i = 0; i < variables.size(); ++i) {
    const DrawVariable& v = variables[i];
    const std::size_t begin = group.offsets[i], size = group.offsets[i + 1] - begin;
    own.clear();  // this variable's values of every pending draw, one draw after another
    for (std::int64_t d = 0; d < draws; ++d) {
      const auto from = values.begin() + std::ptrdiff_t(std::size_t(d) * per_draw + begin);
      own.insert(own.end(), from, from + std::ptrdiff_t(size));
    }
    scratch_.resize(own.size());  // 8 bytes per value: room for any stored type
    convert_to(v.dtype, own, scratch_.data());
    std::vector<std::size_t> start{std::size_t(chain), std::size_t(first)}, count{1, std::size_t(draws)};
    for (std::int64_t d : v.shape) {
      start.push_back(0);
      count.push_back(std::size_t(d));
    }
    check(nc_put_vara(group.id, group.variables[i], start.data(), count.data(), scratch_.data()), path_,
          ("cannot write variable " + v.name).c_str());
  }
}

void InferenceDataWriter::close() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (file_ < 0) return;
  try {
    for (int c = 0; c < layout_.chains; ++c) write_pending(c);
  } catch (...) {
    nc_close(file_);
    file_ = -1;
    throw;
  }
  const int status = nc_close(file_);
  file_ = -1;
  check(status, path_, "cannot close");
}

#endif

}  // namespace variate::data
