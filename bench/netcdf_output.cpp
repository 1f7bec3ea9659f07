// The size and the writing time of `variate sample --output-format netcdf` against the Stan CSV
// files, for draws of the MNIST softmax regression's size (issue 25: 7,850 parameters W [784 x 10]
// and b [10], 4 chains x 4,000 draws; the netCDF file at most half the CSV's size, written in at
// most 5% of the sampling time):
//
//   build/bench/netcdf_output /tmp/netcdf-bench                  # 7850 parameters, 4 x 4000 draws
//   build/bench/netcdf_output /tmp/netcdf-bench --draws=500
//
// The draws are AR(1) series (autocorrelation 0.6), one per parameter, as bench/synthetic_run's,
// so their low bits are as random as a sampler's. Each format is written draw by draw, chains
// taking turns as threaded chains do, through the writers the tool uses (data::StanCsvWriter,
// data::InferenceDataWriter); only the writers' calls are timed, in CPU seconds of the writing
// thread (robust on a loaded machine) and wall seconds. The files are deleted afterwards.
#include <time.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "variate/data/inference_data.hpp"
#include "variate/data/stan_csv.hpp"

namespace {

namespace fs = std::filesystem;
using variate::DType;

struct Size {
  std::int64_t rows = 784, classes = 10;
  int chains = 4;
  std::int64_t draws = 4000;
  std::int64_t parameters() const { return rows * classes + classes; }
};

double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

struct Timing {
  double cpu = 0, wall = 0;
};

// Generates the draws chain by chain, draw by draw, and hands each to `write` (timed). A draw is
// the sampler's 7 columns, then W row-major and b.
Timing write_draws(const Size& size, const std::function<void(int, const std::vector<double>&)>& write) {
  std::vector<std::mt19937_64> random;
  std::vector<std::vector<double>> state(std::size_t(size.chains), std::vector<double>(std::size_t(size.parameters())));
  for (int c = 0; c < size.chains; ++c) random.emplace_back(1000 + std::uint64_t(c));
  std::normal_distribution<double> normal;
  std::vector<double> row(std::size_t(7 + size.parameters()));
  Timing t;
  for (std::int64_t i = 0; i < size.draws; ++i)
    for (int c = 0; c < size.chains; ++c) {
      auto& s = state[std::size_t(c)];
      auto& r = random[std::size_t(c)];
      double sum_squares = 0;
      for (std::size_t j = 0; j < s.size(); ++j) {
        s[j] = 0.6 * s[j] + 0.8 * normal(r);
        row[7 + j] = 0.01 * double(j % 100) + 0.1 * s[j];
        sum_squares += s[j] * s[j];
      }
      const int depth = 3 + int(r() % 4);
      row[0] = -0.5 * sum_squares;
      row[1] = 0.6 + 0.4 * std::fabs(std::tanh(normal(r)));
      row[2] = 0.01 * (1 + 0.1 * c);
      row[3] = depth;
      row[4] = double((1 << depth) - 1);
      row[5] = r() % 500 == 0 ? 1 : 0;
      row[6] = -row[0] + 0.5 * double(s.size());
      const double cpu = thread_seconds();
      const auto wall = std::chrono::steady_clock::now();
      write(c, row);
      t.cpu += thread_seconds() - cpu;
      t.wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
    }
  return t;
}

std::vector<std::string> csv_columns(const Size& size) {
  std::vector<std::string> names = {"lp__",         "accept_stat__", "stepsize__", "treedepth__",
                                    "n_leapfrog__", "divergent__",   "energy__"};
  // The CSV's column order is Stan's (column-major): the writer permutes each row as the tool does.
  const std::int64_t w_shape[] = {size.rows, size.classes}, b_shape[] = {size.classes};
  for (auto& n : variate::data::stan_column_names("W", w_shape)) names.push_back(n);
  for (auto& n : variate::data::stan_column_names("b", b_shape)) names.push_back(n);
  return names;
}

std::uintmax_t folder_bytes(const fs::path& dir) {
  std::uintmax_t bytes = 0;
  for (const auto& entry : fs::directory_iterator(dir)) bytes += entry.file_size();
  return bytes;
}

void report(const char* name, const Timing& t, std::uintmax_t bytes, std::uintmax_t csv_bytes) {
  std::printf("%-28s %10.1f MB  %6.3f of the CSV  %7.2f s CPU  %7.2f s wall\n", name, double(bytes) / 1e6,
              csv_bytes ? double(bytes) / double(csv_bytes) : 1.0, t.cpu, t.wall);
  std::fflush(stdout);
}

std::uintmax_t run_csv(const Size& size, const fs::path& dir) {
  const fs::path folder = dir / "csv";
  fs::create_directories(folder);
  {
    std::vector<std::unique_ptr<variate::data::StanCsvWriter>> files;
    for (int c = 0; c < size.chains; ++c)
      files.push_back(std::make_unique<variate::data::StanCsvWriter>(
          (folder / ("mnist-softmax-" + std::to_string(c + 1) + ".csv")).string(),
          std::vector<std::pair<std::string, std::string>>{{"model", "mnist-softmax"}}, csv_columns(size)));
    const std::int64_t w_shape[] = {size.rows, size.classes};
    const std::vector<std::int64_t> order = variate::data::column_major_order(w_shape);
    std::vector<double> stan_row;
    const Timing t = write_draws(size, [&](int c, const std::vector<double>& row) {
      stan_row.assign(row.begin(), row.begin() + 7);
      for (std::int64_t k : order) stan_row.push_back(row[std::size_t(7 + k)]);
      stan_row.insert(stan_row.end(), row.end() - size.classes, row.end());
      files[std::size_t(c)]->write_row(stan_row);
    });
    report("Stan CSV (one file a chain)", t, folder_bytes(folder), 0);
  }
  const std::uintmax_t bytes = folder_bytes(folder);
  fs::remove_all(folder);
  return bytes;
}

void run_netcdf(const Size& size, const fs::path& dir, DType dtype, int deflate, std::uintmax_t csv_bytes) {
  const std::string path = (dir / "mnist-softmax.nc").string();
  variate::data::InferenceDataLayout layout;
  layout.chains = size.chains;
  layout.posterior = {{"W", {size.rows, size.classes}, dtype}, {"b", {size.classes}, dtype}};
  layout.sample_stats = {{"lp", {}, DType::f64},        {"acceptance_rate", {}, DType::f64},
                         {"step_size", {}, DType::f64}, {"tree_depth", {}, DType::i64},
                         {"n_steps", {}, DType::i64},   {"diverging", {}, DType::boolean},
                         {"energy", {}, DType::f64}};
  layout.deflate_level = deflate;
  Timing t;
  {
    variate::data::InferenceDataWriter out(path, layout);
    t = write_draws(size, [&](int c, const std::vector<double>& row) {
      out.write_draw(c, std::span<const double>(row).subspan(7), std::span<const double>(row).first(7));
    });
    const double cpu = thread_seconds();
    const auto wall = std::chrono::steady_clock::now();
    out.close();
    t.cpu += thread_seconds() - cpu;
    t.wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
  }
  const std::string name = std::string("netCDF ") + (dtype == DType::f32 ? "float" : "double") +
                           (deflate ? ", deflate " + std::to_string(deflate) : ", no deflate");
  report(name.c_str(), t, fs::file_size(path), csv_bytes);
  fs::remove(path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: netcdf_output DIR [--draws=N] [--chains=N] [--rows=N]\n");
    return 2;
  }
  Size size;
  for (int i = 2; i < argc; ++i) {
    if (std::strncmp(argv[i], "--draws=", 8) == 0) size.draws = std::atoll(argv[i] + 8);
    if (std::strncmp(argv[i], "--chains=", 9) == 0) size.chains = std::atoi(argv[i] + 9);
    if (std::strncmp(argv[i], "--rows=", 7) == 0) size.rows = std::atoll(argv[i] + 7);
  }
  if (!variate::data::netcdf_available()) {
    std::fprintf(stderr, "netcdf_output: variate was built without netCDF (install libnetcdf-dev)\n");
    return 1;
  }
  const fs::path dir(argv[1]);
  fs::create_directories(dir);
  std::printf("%lld parameters, %d chains x %lld draws\n", static_cast<long long>(size.parameters()), size.chains,
              static_cast<long long>(size.draws));
  const std::uintmax_t csv_bytes = run_csv(size, dir);
  run_netcdf(size, dir, DType::f32, 1, csv_bytes);
  run_netcdf(size, dir, DType::f32, 0, csv_bytes);
  run_netcdf(size, dir, DType::f64, 1, csv_bytes);
  run_netcdf(size, dir, DType::f64, 0, csv_bytes);
  return 0;
}
