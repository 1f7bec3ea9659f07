// The RAD scope and the sketches (autodiff/rad.hpp).
#include "variate/autodiff/rad.hpp"

#include <Random123/philox.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "variate/autodiff/no_recording.hpp"
#include "variate/tensor/prim.hpp"

namespace variate::autodiff {

namespace {

thread_local RadScope* active_rad = nullptr;

// The counter's last word sets RAD's choices apart from the random layer's streams (whose domain
// tags are 0 to 3), so a key shared with sampling never yields the same bits; the rounding draws of
// compressed activations have a tag of their own, so they are independent of the sketch's choice.
constexpr std::uint32_t rad_domain = 0x52414400u;       // "RAD\0"
constexpr std::uint32_t rounding_domain = 0x52414401u;  // "RAD\1"

// The 32-bit words of one row's choice: Philox blocks at counters (row, op, j, domain), j = 0, 1, ...
class ChoiceStream {
 public:
  ChoiceStream(const std::array<std::uint32_t, 2>& key, std::uint64_t op_index, std::int64_t row,
               std::uint32_t domain = rad_domain)
      : key_{{key[0], key[1]}}, row_(std::uint32_t(row)), op_(std::uint32_t(op_index)), domain_(domain) {}

  std::uint32_t next() {
    if (used_ == 4) {
      const Philox::ctr_type ctr = {{row_, op_, block_++, domain_}};
      words_ = Philox()(ctr, key_);
      used_ = 0;
    }
    return words_.v[used_++];
  }

  // Uniform on 0 .. n-1 without bias: Lemire's multiply-and-reject ("Fast random integer generation
  // in an interval", ACM TOMACS 2019). Exactness matters here: a biased choice is a biased gradient.
  std::uint32_t below(std::uint32_t n) {
    std::uint64_t m = std::uint64_t(next()) * n;
    if (std::uint32_t(m) < n) {
      const std::uint32_t threshold = (0u - n) % n;
      while (std::uint32_t(m) < threshold) m = std::uint64_t(next()) * n;
    }
    return std::uint32_t(m >> 32);
  }

 private:
  using Philox = r123::Philox4x32_R<10>;
  Philox::key_type key_;
  std::uint32_t row_, op_, domain_, block_ = 0;
  int used_ = 4;
  Philox::ctr_type words_{};
};

// k distinct indices of 0 .. d-1, each subset equally likely: Floyd's algorithm (Bentley & Floyd,
// "A sample of brilliance", CACM 1987), which draws k numbers whatever d.
void distinct_indices(ChoiceStream& stream, std::int64_t d, std::int64_t k, std::vector<char>& taken,
                      std::int64_t* out) {
  taken.assign(std::size_t(d), 0);
  for (std::int64_t j = d - k, i = 0; j < d; ++j, ++i) {
    auto t = std::int64_t(stream.below(std::uint32_t(j + 1)));
    if (taken[std::size_t(t)]) t = j;
    taken[std::size_t(t)] = 1;
    out[i] = t;
  }
}

}  // namespace

RadScope::RadScope(const RadConfig& config) : config_(config), enclosing_(active_rad) {
  VARIATE_CHECK(config.keep_fraction > 0.0 && config.keep_fraction <= 1.0, "RadScope",
                "the keep fraction must be in (0, 1], got ", config.keep_fraction);
  const int bits = config.quantize_bits;
  VARIATE_CHECK(bits == 0 || bits == 1 || bits == 2 || bits == 4 || bits == 8, "RadScope",
                "quantize_bits must be 0 (no compression), 1, 2, 4 or 8, got ", bits);
  VARIATE_CHECK(config.quantize_group >= 1, "RadScope", "quantize_group must be at least 1, got ",
                config.quantize_group);
  active_rad = this;
}

RadScope::~RadScope() { active_rad = enclosing_; }

std::int64_t rad_kept(double keep_fraction, std::int64_t d) {
  const auto k = std::int64_t(std::ceil(keep_fraction * double(d)));
  return std::min(std::max<std::int64_t>(k, 1), d);
}

namespace detail {

const RadConfig* rad_for_next_op(std::uint64_t* op_index) {
  if (active_rad == nullptr || records_second_order()) return nullptr;
  const RadConfig& config = active_rad->config_;
  if (config.keep_fraction >= 1.0 && config.quantize_bits == 0) return nullptr;
  *op_index = active_rad->next_op_++;
  return &active_rad->config_;
}

Tensor rad_choice(const RadConfig& config, std::uint64_t op_index, std::int64_t rows, std::int64_t d, std::int64_t k,
                  DType dtype) {
  VARIATE_CHECK(k >= 1 && k <= d && d < (std::int64_t(1) << 32), "rad_choice", "needs 1 <= k <= d < 2^32, got k = ", k,
                ", d = ", d);
  const std::int64_t r = config.sharing == RadSharing::shared ? 1 : rows;
  if (config.mode == RadMode::projection) {
    Tensor signs = Tensor::empty(Shape{r, d, k}, DType::f64);
    double* s = signs.data<double>();
    for (std::int64_t row = 0; row < r; ++row) {
      ChoiceStream stream(config.key, op_index, row);
      for (std::int64_t i = 0; i < d * k; i += 32) {
        const std::uint32_t bits = stream.next();
        for (std::int64_t b = 0; b < 32 && i + b < d * k; ++b) *s++ = (bits >> b) & 1u ? 1.0 : -1.0;
      }
    }
    return prim::cast(signs, dtype);
  }
  Tensor index = Tensor::empty(Shape{r, k}, DType::i64);
  std::int64_t* out = index.data<std::int64_t>();
  thread_local std::vector<char> taken;  // reused, so a steady-state sweep allocates nothing here
  for (std::int64_t row = 0; row < r; ++row, out += k) {
    ChoiceStream stream(config.key, op_index, row);
    if (config.mode == RadMode::without_replacement) {
      distinct_indices(stream, d, k, taken, out);
    } else {
      for (std::int64_t i = 0; i < k; ++i) out[i] = std::int64_t(stream.below(std::uint32_t(d)));
    }
  }
  return index;
}

Tensor rad_rounding_uniforms(const std::array<std::uint32_t, 2>& key, std::uint64_t op_index, std::int64_t rows,
                             std::int64_t d) {
  Tensor uniforms = Tensor::empty(Shape{rows, d}, DType::f64);
  double* u = uniforms.data<double>();
  for (std::int64_t row = 0; row < rows; ++row) {
    ChoiceStream stream(key, op_index, row, rounding_domain);
    // (w + 1/2) 2^-32: never 0, so a value on a level (remainder 0) is never rounded up.
    for (std::int64_t i = 0; i < d; ++i) *u++ = (double(stream.next()) + 0.5) * 0x1p-32;
  }
  return uniforms;
}

namespace {
Tensor rows_of(const Tensor& index, std::int64_t rows) {
  return index.dim(0) == rows ? index : prim::broadcast_to(index, Shape{rows, index.dim(1)});
}
}  // namespace

Tensor rad_sketch(RadMode mode, const Tensor& x, const Tensor& choice) {
  if (mode == RadMode::projection) return prim::squeeze(prim::matmul(prim::expand_dims(x, 1), choice), 1);
  return prim::gather(x, 1, rows_of(choice, x.dim(0)));
}

Tensor rad_expand(RadMode mode, const Tensor& sketch, const Tensor& choice, std::int64_t d) {
  const std::int64_t rows = sketch.dim(0), k = sketch.dim(1);
  if (mode == RadMode::projection) {
    const Tensor x = prim::squeeze(prim::matmul(prim::expand_dims(sketch, 1), choice, false, true), 1);
    return prim::mul(x, Tensor::scalar(1.0 / double(k), x.dtype()));
  }
  const Tensor scaled = prim::mul(sketch, Tensor::scalar(double(d) / double(k), sketch.dtype()));
  return prim::scatter_add(Tensor::zeros(Shape{rows, d}, sketch.dtype(), sketch.device()), 1, rows_of(choice, rows),
                           scaled);
}

std::array<Tensor, 2> rad_save(const RadConfig& config, std::uint64_t op_index, const Tensor& rows) {
  Tensor kept = rows;
  if (config.keep_fraction < 1.0) {
    const std::int64_t d = rows.dim(1), k = rad_kept(config.keep_fraction, d);
    kept = rad_sketch(config.mode, rows, rad_choice(config, op_index, rows.dim(0), d, k, rows.dtype()));
  }
  if (config.quantize_bits == 0) return {kept, Tensor()};
  const Tensor uniforms = rad_rounding_uniforms(config.key, op_index, kept.dim(0), kept.dim(1));
  QuantizedRows q = quantize(kept, config.quantize_bits, config.quantize_group, uniforms);
  return {std::move(q.codes), std::move(q.ranges)};
}

Tensor rad_estimate(const RadConfig& config, std::uint64_t op_index, const Tensor& stored, const Tensor& ranges,
                    std::int64_t d) {
  const bool sketched = config.keep_fraction < 1.0;
  const std::int64_t k = sketched ? rad_kept(config.keep_fraction, d) : d;
  const Tensor kept =
      config.quantize_bits == 0 ? stored : dequantize({stored, ranges, k}, config.quantize_bits, config.quantize_group);
  if (!sketched) return kept;
  return rad_expand(config.mode, kept, rad_choice(config, op_index, kept.dim(0), d, k, kept.dtype()), d);
}

}  // namespace detail
}  // namespace variate::autodiff
