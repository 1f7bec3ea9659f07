#include "variate/inference/diagnostics.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <span>
#include <utility>

#include "variate/core/error.hpp"

namespace variate::inference {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---------------------------------------------------------------------------------------------
// FFT

// What a transform of size n needs, built once per size and thread: the bit-reversal permutation
// and, stage after stage, the twiddles exp(-2 pi i k / len) for k < len/2 (each computed directly,
// not by recurrence, so they are accurate to rounding), stored contiguously so the butterflies
// read them in order.
struct FftPlan {
  std::size_t n = 0;
  std::vector<std::uint32_t> reversed;
  std::vector<double> cos, sin;  // stage len starts at len/2 - 1
};

const FftPlan& fft_plan(std::size_t n) {
  thread_local FftPlan plan;
  if (plan.n == n) return plan;
  plan.n = n;
  plan.reversed.assign(n, 0);
  for (std::size_t i = 1, j = 0; i < n; ++i) {
    std::size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    plan.reversed[i] = static_cast<std::uint32_t>(j);
  }
  plan.cos.assign(n - 1, 0.0);
  plan.sin.assign(n - 1, 0.0);
  for (std::size_t len = 2; len <= n; len <<= 1)
    for (std::size_t k = 0; k < len / 2; ++k) {
      const double angle = -2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(len);
      plan.cos[len / 2 - 1 + k] = std::cos(angle);
      plan.sin[len / 2 - 1 + k] = std::sin(angle);
    }
  return plan;
}

// One FFT stage's butterflies on a block: (u, v) <- (u + w v, u - w v). Restrict-qualified
// parameters tell the compiler the four arrays do not overlap, so the loop vectorizes.
void butterflies(double* __restrict ur, double* __restrict ui, double* __restrict vr, double* __restrict vi,
                 const double* __restrict wr, const double* __restrict wi, std::size_t half) {
  for (std::size_t k = 0; k < half; ++k) {
    const double tr = vr[k] * wr[k] - vi[k] * wi[k], ti = vr[k] * wi[k] + vi[k] * wr[k];
    vr[k] = ur[k] - tr;
    vi[k] = ui[k] - ti;
    ur[k] += tr;
    ui[k] += ti;
  }
}

// In-place iterative radix-2 Cooley-Tukey FFT (Cooley & Tukey 1965), forward and unnormalized, on
// split real and imaginary arrays of a power-of-two length.
void fft(std::vector<double>& re, std::vector<double>& im) {
  const std::size_t n = re.size();
  const FftPlan& plan = fft_plan(n);
  for (std::size_t i = 1; i < n; ++i) {
    const std::size_t j = plan.reversed[i];
    if (i < j) {
      std::swap(re[i], re[j]);
      std::swap(im[i], im[j]);
    }
  }
  for (std::size_t start = 0; start < n; start += 2) {  // first stage: w = 1
    const double ur = re[start], ui = im[start];
    re[start] += re[start + 1];
    im[start] += im[start + 1];
    re[start + 1] = ur - re[start + 1];
    im[start + 1] = ui - im[start + 1];
  }
  for (std::size_t len = 4; len <= n; len <<= 1) {
    const std::size_t half = len / 2;
    for (std::size_t start = 0; start < n; start += len)
      butterflies(&re[start], &im[start], &re[start + half], &im[start + half], &plan.cos[half - 1],
                  &plan.sin[half - 1], half);
  }
}

// Biased autocovariances of two real series of length n at once (y may be null): one FFT of
// x + iy holds both spectra (X_k = (Z_k + conj Z_{m-k}) / 2, Y_k = (Z_k - conj Z_{m-k}) / 2i), and
// since |X|^2 and |Y|^2 are real and even, one inverse FFT of |X|^2 + i|Y|^2 returns both
// autocovariances; the spectrum being real and even, its inverse transform equals its forward one.
// Zero-padding to m >= 2n keeps the circular correlation from wrapping around.
void autocovariance_pair(const double* x, const double* y, std::size_t n, double* acov_x, double* acov_y) {
  std::size_t m = 2;
  while (m < 2 * n) m <<= 1;
  thread_local std::vector<double> re, im;
  re.assign(m, 0.0);
  im.assign(m, 0.0);
  double mean_x = 0, mean_y = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mean_x += x[i];
    if (y) mean_y += y[i];
  }
  mean_x /= static_cast<double>(n);
  mean_y /= static_cast<double>(n);
  for (std::size_t i = 0; i < n; ++i) {
    re[i] = x[i] - mean_x;
    if (y) im[i] = y[i] - mean_y;
  }
  fft(re, im);
  for (std::size_t k = 0; k <= m / 2; ++k) {
    const std::size_t j = (m - k) % m;
    const double sum_r = re[k] + re[j], sum_i = im[k] - im[j];    // Z_k + conj Z_j
    const double diff_r = re[k] - re[j], diff_i = im[k] + im[j];  // Z_k - conj Z_j
    const double power_x = (sum_r * sum_r + sum_i * sum_i) / 4, power_y = (diff_r * diff_r + diff_i * diff_i) / 4;
    re[k] = re[j] = power_x;
    im[k] = im[j] = power_y;
  }
  fft(re, im);
  const double scale = 1.0 / (static_cast<double>(m) * static_cast<double>(n));
  for (std::size_t t = 0; t < n; ++t) {
    acov_x[t] = re[t] * scale;
    if (acov_y) acov_y[t] = im[t] * scale;
  }
}

// ---------------------------------------------------------------------------------------------
// Chains, split chains and their checks

// The number of draws per chain; throws unless there is a chain and all have the same length.
std::size_t draws_per_chain(const char* op, const ChainDraws& draws) {
  VARIATE_CHECK(!draws.empty(), op, "expected draws of at least one chain, got none");
  const std::size_t n = draws[0].size();
  for (std::size_t c = 1; c < draws.size(); ++c)
    VARIATE_CHECK(draws[c].size() == n, op, "every chain needs the same number of draws; chain 0 has ", n,
                  " and chain ", c, " has ", draws[c].size());
  return n;
}

// R-hat needs two draws per split chain, ESS three (posterior's .ess): 4 and 6 per chain.
constexpr std::size_t kMinDrawsRhat = 4, kMinDrawsEss = 6;

// posterior's should_return_NA: R-hat and ESS are undefined when a value is not finite or all
// values are equal within DBL_EPSILON.
struct Spread {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  bool finite = true;
  void add(std::span<const double> values) {
    for (double v : values) {
      finite = finite && std::isfinite(v);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  bool undefined() const { return !finite || !(hi - lo >= DBL_EPSILON); }
};

bool undefined(const ChainDraws& draws) {
  Spread spread;
  for (const auto& chain : draws) spread.add(chain);
  return spread.undefined();
}

double mean_of(std::span<const double> x) {
  double s = 0;
  for (double v : x) s += v;
  return s / static_cast<double>(x.size());
}

// Sample variance with the n - 1 denominator.
double variance_of(std::span<const double> x) {
  const double mean = mean_of(x);
  double s = 0;
  for (double v : x) s += (v - mean) * (v - mean);
  return s / static_cast<double>(x.size() - 1);
}

// Chains stored in one array, chain j at [j * n, (j + 1) * n): the split chains that R-hat and ESS
// work on, without a vector per chain.
struct Flat {
  std::size_t chains = 0, n = 0;
  std::vector<double> data;
  std::span<const double> chain(std::size_t j) const { return {data.data() + j * n, n}; }
};

// f of every draw, laid out as split chains: first halves, then second halves; the middle draw of
// an odd length is dropped (split_chains documents why).
Flat split_flat(const ChainDraws& draws, auto f) {
  const std::size_t chains = draws.size(), n = draws[0].size(), half = n / 2;
  Flat out{2 * chains, half, std::vector<double>(2 * chains * half)};
  for (std::size_t c = 0; c < chains; ++c)
    for (std::size_t i = 0; i < half; ++i) {
      out.data[c * half + i] = f(draws[c][i]);
      out.data[(chains + c) * half + i] = f(draws[c][n - half + i]);
    }
  return out;
}

// Where draw i of chain c lands in split_flat's layout; -1 for a dropped middle draw.
std::int64_t split_position(std::size_t chains, std::size_t n, std::size_t c, std::size_t i) {
  const std::size_t half = n / 2;
  if (i < half) return static_cast<std::int64_t>(c * half + i);
  if (i >= n - half) return static_cast<std::int64_t>((chains + c) * half + i - (n - half));
  return -1;
}

// ---------------------------------------------------------------------------------------------
// Sorting once, rank normalization

// R's quantile(type = 7): h = (n - 1) p, interpolating between the order statistics floor(h) and
// floor(h) + 1 (0-based). R adds a 4 DBL_EPSILON fuzz so that an h meant to be whole is one; so do
// we, to pick the same order statistics. Returns floor(h) and the interpolation weight.
std::pair<std::size_t, double> type7_index(std::size_t size, double p) {
  const double fuzz = 4 * DBL_EPSILON;
  const double h = static_cast<double>(size - 1) * p;
  const double lo = std::floor(h + fuzz);
  return {static_cast<std::size_t>(lo), std::abs(h - lo) < fuzz ? 0.0 : h - lo};
}

// Type-7 quantile of ascending, NaN-free values.
double quantile_of_sorted(std::span<const double> sorted, double p) {
  const auto [i, frac] = type7_index(sorted.size(), p);
  if (frac == 0 || i + 1 >= sorted.size()) return sorted[i];
  return sorted[i] + frac * (sorted[i + 1] - sorted[i]);
}

// Sorts `payload` by `keys` (both permuted): a stable LSD radix sort in bytes, skipping bytes that
// all keys share. A summary sorts the draws of every parameter; at a few thousand draws this takes
// about half the time of std::sort.
void radix_sort(std::vector<std::uint64_t>& keys, std::vector<std::int64_t>& payload) {
  const std::size_t n = keys.size();
  std::vector<std::uint64_t> keys_out(n);
  std::vector<std::int64_t> payload_out(n);
  for (int shift = 0; shift < 64; shift += 8) {
    std::array<std::size_t, 256> start{};
    for (std::uint64_t k : keys) ++start[(k >> shift) & 255];
    if (std::find(start.begin(), start.end(), n) != start.end()) continue;  // one bucket: nothing moves
    std::size_t offset = 0;
    for (std::size_t& s : start) offset += std::exchange(s, offset);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t to = start[(keys[i] >> shift) & 255]++;
      keys_out[to] = keys[i];
      payload_out[to] = payload[i];
    }
    keys.swap(keys_out);
    payload.swap(payload_out);
  }
}

// Values in ascending order with a position each (where its normal score goes, -1 for none).
struct Sorted {
  std::vector<double> values;
  std::vector<std::int64_t> positions;
};

// Sorts values by their order-preserving unsigned image: every bit of a negative flipped, only the
// sign bit of the rest (so -0.0 sorts just below +0.0, still adjacent for the tie test). No NaN.
Sorted sort_values(const std::vector<double>& values, std::vector<std::int64_t> positions) {
  constexpr std::uint64_t sign = std::uint64_t{1} << 63;
  std::vector<std::uint64_t> keys(values.size());
  for (std::size_t k = 0; k < values.size(); ++k) {
    const auto bits = std::bit_cast<std::uint64_t>(values[k]);
    keys[k] = bits & sign ? ~bits : bits | sign;
  }
  radix_sort(keys, positions);
  Sorted out{std::vector<double>(values.size()), std::move(positions)};
  for (std::size_t k = 0; k < keys.size(); ++k)
    out.values[k] = std::bit_cast<double>(keys[k] & sign ? keys[k] & ~sign : ~keys[k]);
  return out;
}

// All draws sorted, each with its split position (split_flat's layout): one sort per quantity
// serves the quantiles, both rank normalizations of R-hat and the bulk ESS.
Sorted sort_draws(const ChainDraws& draws) {
  const std::size_t chains = draws.size(), n = draws[0].size();
  std::vector<double> values;
  std::vector<std::int64_t> positions;
  values.reserve(chains * n);
  positions.reserve(chains * n);
  for (std::size_t c = 0; c < chains; ++c)
    for (std::size_t i = 0; i < n; ++i) {
      values.push_back(draws[c][i]);
      positions.push_back(split_position(chains, n, c, i));
    }
  return sort_values(values, std::move(positions));
}

// Normal score Phi^{-1}((r - 3/8) / (S + 1/4)) of every whole rank r = 1..S, kept per thread for
// the last S: without ties, rank normalization is a table lookup.
const std::vector<double>& blom_scores(std::size_t total) {
  thread_local std::vector<double> table;
  if (table.size() != total) {
    table.resize(total);
    for (std::size_t i = 0; i < total; ++i)
      table[i] = normal_quantile((static_cast<double>(i + 1) - 0.375) / (static_cast<double>(total) + 0.25));
  }
  return table;
}

// Writes the Blom normal score of each value (ascending; ties, necessarily adjacent, share their
// average rank) at its position in `out`.
void assign_scores(std::span<const double> values, std::span<const std::int64_t> positions, std::vector<double>& out) {
  const std::size_t total = values.size();
  const std::vector<double>& table = blom_scores(total);
  for (std::size_t i = 0; i < total;) {
    std::size_t j = i + 1;
    while (j < total && values[j] == values[i]) ++j;
    const double rank = static_cast<double>(i + 1 + j) / 2;  // average of the 1-based ranks i+1..j
    const double z = j == i + 1 ? table[i] : normal_quantile((rank - 0.375) / (static_cast<double>(total) + 0.25));
    for (; i < j; ++i) out[static_cast<std::size_t>(positions[i])] = z;
  }
}

// Rank-normalized split chains of the values visited in ascending order by next(k) = (value,
// position) for k = 0..count-1, skipping dropped draws (position -1).
Flat split_scores(std::size_t chains, std::size_t n, std::size_t count, auto next) {
  Flat out{2 * chains, n / 2, std::vector<double>(2 * chains * (n / 2))};
  std::vector<double> values;
  std::vector<std::int64_t> positions;
  values.reserve(count);
  positions.reserve(count);
  for (std::size_t k = 0; k < count; ++k) {
    const auto [value, position] = next(k);
    if (position < 0) continue;
    values.push_back(value);
    positions.push_back(position);
  }
  assign_scores(values, positions, out.data);
  return out;
}

// Bulk: rank-normalized split chains of the draws themselves.
Flat bulk_scores(const ChainDraws& draws, const Sorted& s) {
  return split_scores(draws.size(), draws[0].size(), s.values.size(),
                      [&](std::size_t k) { return std::pair(s.values[k], s.positions[k]); });
}

// Tail: rank-normalized split chains of |x - median|. Their ascending order is a merge of the draws
// below the median (walking down) with those at or above it (walking up), so no second sort.
Flat folded_scores(const ChainDraws& draws, const Sorted& s) {
  const std::size_t total = s.values.size();
  const double median = quantile_of_sorted(s.values, 0.5);
  std::size_t up =
      static_cast<std::size_t>(std::lower_bound(s.values.begin(), s.values.end(), median) - s.values.begin());
  std::size_t down = up;  // draws [0, down) are below the median
  return split_scores(draws.size(), draws[0].size(), total, [&](std::size_t) {
    const bool take_down = up == total || (down > 0 && median - s.values[down - 1] < s.values[up] - median);
    const std::size_t k = take_down ? --down : up++;
    return std::pair(std::abs(s.values[k] - median), s.positions[k]);
  });
}

// ---------------------------------------------------------------------------------------------
// R-hat and ESS of split chains

// R-hat of chains that are already split (BDA3 eq. 11.4): W the mean within-chain variance,
// var_plus = (n - 1)/n W + B/n with B/n the variance of the chain means; sqrt(var_plus / W).
double rhat_of_split(const Flat& split) {
  Spread spread;
  spread.add(split.data);
  if (spread.undefined()) return kNaN;
  std::vector<double> means, variances;
  for (std::size_t j = 0; j < split.chains; ++j) {
    means.push_back(mean_of(split.chain(j)));
    variances.push_back(variance_of(split.chain(j)));
  }
  const double n = static_cast<double>(split.n);
  const double within = mean_of(variances);
  const double var_plus = (n - 1) / n * within + variance_of(means);
  if (within == 0) return std::numeric_limits<double>::infinity();  // constant chains that disagree
  return std::sqrt(var_plus / within);
}

// ESS of chains that are already split, as posterior's .ess / Stan's compute_effective_sample_size:
// combined autocorrelations rho_t = 1 - (W - mean_c acov_c(t)) / var_plus (Vehtari et al. 2021
// eq. 10), truncated by Geyer's (1992) initial positive sequence, made monotone, and summed with
// the last positive even lag counted once (a bias term that steadies antithetic chains).
double ess_of_split(const Flat& split) {
  const std::size_t chains = split.chains, n = split.n;
  Spread spread;
  spread.add(split.data);
  if (n < 3 || spread.undefined()) return kNaN;
  std::vector<double> acov(n, 0.0), acov_x(n), acov_y(n), means(chains);  // acov: mean over chains
  for (std::size_t j = 0; j < chains; j += 2) {
    const bool pair = j + 1 < chains;
    autocovariance_pair(split.chain(j).data(), pair ? split.chain(j + 1).data() : nullptr, n, acov_x.data(),
                        acov_y.data());
    for (std::size_t t = 0; t < n; ++t) acov[t] += acov_x[t] + (pair ? acov_y[t] : 0.0);
  }
  for (double& a : acov) a /= static_cast<double>(chains);
  for (std::size_t j = 0; j < chains; ++j) means[j] = mean_of(split.chain(j));
  const double nd = static_cast<double>(n);
  const double mean_var = acov[0] * nd / (nd - 1);  // W
  double var_plus = mean_var * (nd - 1) / nd;
  if (chains > 1) var_plus += variance_of(means);
  auto rho_at = [&](std::size_t t) { return 1 - (mean_var - acov[t]) / var_plus; };

  std::vector<double> rho(n, 0.0);
  double rho_even = 1, rho_odd = rho_at(1);
  rho[0] = rho_even;
  rho[1] = rho_odd;
  std::size_t t = 0;
  while (t + 5 < n && rho_even + rho_odd > 0) {  // initial positive sequence of pair sums
    t += 2;
    rho_even = rho_at(t);
    rho_odd = rho_at(t + 1);
    if (rho_even + rho_odd >= 0) {
      rho[t] = rho_even;
      rho[t + 1] = rho_odd;
    }
  }
  const std::size_t max_t = t;
  if (rho_even > 0) rho[max_t] = rho_even;
  for (t = 2; t + 2 <= max_t; t += 2) {  // initial monotone sequence
    if (rho[t] + rho[t + 1] > rho[t - 2] + rho[t - 1]) rho[t] = rho[t + 1] = (rho[t - 2] + rho[t - 1]) / 2;
  }
  double sum = 0;
  for (std::size_t i = 0; i < max_t; ++i) sum += rho[i];
  // Split chains of 3..5 draws never enter the loop; posterior (through R's 1:0) and Stan both
  // end with tau = 2 there, and we keep their value.
  double tau = max_t == 0 ? 2.0 : -1 + 2 * sum + rho[max_t];
  const double total = static_cast<double>(chains) * nd;
  tau = std::max(tau, 1 / std::log10(total));  // ESS at most S log10 S, as posterior
  return total / tau;
}

double nan_or_max(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b); }
double nan_or_min(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::min(a, b); }

// R-hat of rank-normalized split chains, bulk and folded (Vehtari et al. 2021, section 4.2).
double rank_rhat(const ChainDraws& draws, const Sorted& s, const Flat& bulk) {
  return nan_or_max(rhat_of_split(bulk), rhat_of_split(folded_scores(draws, s)));
}

// min over p in {0.05, 0.95} of the ESS of split I(x <= q_p) (Vehtari et al. 2021, section 4.3).
double tail_ess(const ChainDraws& draws, const Sorted& s) {
  const double q05 = quantile_of_sorted(s.values, 0.05), q95 = quantile_of_sorted(s.values, 0.95);
  return nan_or_min(ess_of_split(split_flat(draws, [&](double v) { return v <= q05 ? 1.0 : 0.0; })),
                    ess_of_split(split_flat(draws, [&](double v) { return v <= q95 ? 1.0 : 0.0; })));
}

double identity(double v) { return v; }

}  // namespace

double normal_quantile(double p) {
  if (!(p >= 0 && p <= 1)) return kNaN;
  if (p == 0) return -std::numeric_limits<double>::infinity();
  if (p == 1) return std::numeric_limits<double>::infinity();
  // Wichura (1988), AS 241 PPND16: three rational approximations of degree 7 — one in
  // (p - 1/2)^2 near the centre, two in sqrt(-log(min(p, 1 - p))) for the tails.
  auto poly = [](const double(&c)[8], double r) {
    double s = c[7];
    for (int i = 6; i >= 0; --i) s = s * r + c[i];
    return s;
  };
  static constexpr double a[8] = {3.3871328727963666080e0,  1.3314166789178437745e+2, 1.9715909503065514427e+3,
                                  1.3731693765509461125e+4, 4.5921953931549871457e+4, 6.7265770927008700853e+4,
                                  3.3430575583588128105e+4, 2.5090809287301226727e+3};
  static constexpr double b[8] = {1.0,
                                  4.2313330701600911252e+1,
                                  6.8718700749205790830e+2,
                                  5.3941960214247511077e+3,
                                  2.1213794301586595867e+4,
                                  3.9307895800092710610e+4,
                                  2.8729085735721942674e+4,
                                  5.2264952788528545610e+3};
  static constexpr double c[8] = {1.42343711074968357734e0,  4.63033784615654529590e0, 5.76949722146069140550e0,
                                  3.64784832476320460504e0,  1.27045825245236838258e0, 2.41780725177450611770e-1,
                                  2.27238449892691845833e-2, 7.74545014278341407640e-4};
  static constexpr double d[8] = {1.0,
                                  2.05319162663775882187e0,
                                  1.67638483018380384940e0,
                                  6.89767334985100004550e-1,
                                  1.48103976427480074590e-1,
                                  1.51986665636164571966e-2,
                                  5.47593808499534494600e-4,
                                  1.05075007164441684324e-9};
  static constexpr double e[8] = {6.65790464350110377720e0,  5.46378491116411436990e0,  1.78482653991729133580e0,
                                  2.96560571828504891230e-1, 2.65321895265761230930e-2, 1.24266094738807843860e-3,
                                  2.71155556874348757815e-5, 2.01033439929228813265e-7};
  static constexpr double f[8] = {1.0,
                                  5.99832206555887937690e-1,
                                  1.36929880922735805310e-1,
                                  1.48753612908506148525e-2,
                                  7.86869131145613259100e-4,
                                  1.84631831751005468180e-5,
                                  1.42151175831644588870e-7,
                                  2.04426310338993978564e-15};
  const double q = p - 0.5;
  if (std::abs(q) <= 0.425) {
    const double r = 0.180625 - q * q;
    return q * poly(a, r) / poly(b, r);
  }
  double r = std::sqrt(-std::log(q < 0 ? p : 1 - p));
  const double z = r <= 5 ? poly(c, r - 1.6) / poly(d, r - 1.6) : poly(e, r - 5) / poly(f, r - 5);
  return q < 0 ? -z : z;
}

std::vector<double> autocovariance(const std::vector<double>& x) {
  std::vector<double> out(x.size()), unused(x.size());
  if (!x.empty()) autocovariance_pair(x.data(), nullptr, x.size(), out.data(), unused.data());
  return out;
}

double quantile(std::vector<double> x, double p) {
  VARIATE_CHECK(!x.empty(), "quantile", "expected at least one value, got none");
  VARIATE_CHECK(p >= 0 && p <= 1, "quantile", "expected a probability in [0, 1], got ", p);
  if (std::any_of(x.begin(), x.end(), [](double v) { return std::isnan(v); })) return kNaN;
  // The two order statistics type 7 interpolates between, found in O(n) rather than by sorting.
  const auto [i, frac] = type7_index(x.size(), p);
  const auto at = x.begin() + static_cast<std::ptrdiff_t>(i);
  std::nth_element(x.begin(), at, x.end());
  if (frac == 0 || i + 1 >= x.size()) return *at;
  return *at + frac * (*std::min_element(at + 1, x.end()) - *at);
}

ChainDraws split_chains(const ChainDraws& draws) {
  const std::size_t n = draws_per_chain("split_chains", draws);
  if (n < 2) return draws;
  const Flat flat = split_flat(draws, identity);
  ChainDraws out;
  for (std::size_t j = 0; j < flat.chains; ++j) out.emplace_back(flat.chain(j).begin(), flat.chain(j).end());
  return out;
}

ChainDraws rank_normalize(const ChainDraws& draws) {
  const std::size_t n = draws_per_chain("rank_normalize", draws);
  ChainDraws out = draws;
  if (std::any_of(draws.begin(), draws.end(), [](const auto& chain) {
        return std::any_of(chain.begin(), chain.end(), [](double v) { return std::isnan(v); });
      })) {
    for (auto& chain : out) std::fill(chain.begin(), chain.end(), kNaN);
    return out;
  }
  std::vector<double> values, scores(draws.size() * n);
  std::vector<std::int64_t> positions;
  for (std::size_t c = 0; c < draws.size(); ++c)
    for (std::size_t i = 0; i < n; ++i) {
      values.push_back(draws[c][i]);
      positions.push_back(static_cast<std::int64_t>(c * n + i));
    }
  const Sorted s = sort_values(values, std::move(positions));
  assign_scores(s.values, s.positions, scores);
  for (std::size_t c = 0; c < draws.size(); ++c)
    std::copy_n(scores.begin() + static_cast<std::ptrdiff_t>(c * n), n, out[c].begin());
  return out;
}

double split_rhat_basic(const ChainDraws& draws) {
  if (draws_per_chain("split_rhat_basic", draws) < kMinDrawsRhat) return kNaN;
  return rhat_of_split(split_flat(draws, identity));
}

double rhat(const ChainDraws& draws) {
  if (draws_per_chain("rhat", draws) < kMinDrawsRhat || undefined(draws)) return kNaN;
  const Sorted s = sort_draws(draws);
  return rank_rhat(draws, s, bulk_scores(draws, s));
}

double ess_basic(const ChainDraws& draws) {
  if (draws_per_chain("ess_basic", draws) < kMinDrawsEss) return kNaN;
  return ess_of_split(split_flat(draws, identity));
}

double ess_bulk(const ChainDraws& draws) {
  if (draws_per_chain("ess_bulk", draws) < kMinDrawsEss || undefined(draws)) return kNaN;
  return ess_of_split(bulk_scores(draws, sort_draws(draws)));
}

double ess_tail(const ChainDraws& draws) {
  if (draws_per_chain("ess_tail", draws) < kMinDrawsEss || undefined(draws)) return kNaN;
  return tail_ess(draws, sort_draws(draws));
}

double mcse_mean(const ChainDraws& draws) {
  if (draws_per_chain("mcse_mean", draws) < kMinDrawsEss) return kNaN;
  std::vector<double> all;
  for (const auto& chain : draws) all.insert(all.end(), chain.begin(), chain.end());
  return std::sqrt(variance_of(all) / ess_basic(draws));
}

Convergence convergence(const ChainDraws& draws) {
  const std::size_t n = draws_per_chain("convergence", draws);
  if (n < kMinDrawsRhat || undefined(draws)) return {kNaN, kNaN, kNaN, kNaN};
  const Sorted s = sort_draws(draws);
  const Flat bulk = bulk_scores(draws, s);
  const double rhat = rank_rhat(draws, s, bulk);
  if (n < kMinDrawsEss) return {rhat, kNaN, kNaN, kNaN};
  return {rhat, ess_of_split(bulk), tail_ess(draws, s), ess_of_split(split_flat(draws, identity))};
}

double ebfmi(const std::vector<double>& energy) {
  if (energy.size() < 2) return kNaN;
  const double mean = mean_of(energy);
  double jumps = 0, spread = 0;
  for (std::size_t i = 0; i < energy.size(); ++i) {
    spread += (energy[i] - mean) * (energy[i] - mean);
    if (i > 0) jumps += (energy[i] - energy[i - 1]) * (energy[i] - energy[i - 1]);
  }
  if (!(spread > 0)) return kNaN;
  return jumps / spread;
}

}  // namespace variate::inference
