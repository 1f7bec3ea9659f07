// data::InferenceDataWriter, read back through the netCDF C API: ArviZ's groups, dimensions,
// coordinates, attributes and types; values as written, from threads too; a chain that is behind
// reads as NaN; a file read while it is still being written holds the draws synced so far.
#include "variate/data/inference_data.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "support/expect_error.hpp"
#include "support/scratch_dir.hpp"

#ifdef VARIATE_TEST_NETCDF
#include <netcdf.h>
#endif

namespace variate::data {
namespace {

using testing::ScratchDir;

#ifndef VARIATE_TEST_NETCDF

TEST(InferenceData, WithoutNetcdfTheWriterSaysSo) {
  EXPECT_FALSE(netcdf_available());
  const ScratchDir dir("inference_data_none");
  EXPECT_ERROR(InferenceDataWriter(dir / "run.nc", {}), "built without netCDF");
  GTEST_SKIP() << "netCDF not found: variate was built without netCDF output (install libnetcdf-dev)";
}

#else

// Reading helpers: each fails the test (and returns a default) on a netCDF error.
int group_of(int file, const char* name) {
  int id = -1;
  EXPECT_EQ(nc_inq_grp_ncid(file, name, &id), NC_NOERR) << "group " << name;
  return id;
}

std::size_t dimension(int group, const std::string& name) {
  int dim = -1;
  std::size_t length = 0;
  EXPECT_EQ(nc_inq_dimid(group, name.c_str(), &dim), NC_NOERR) << "dimension " << name;
  EXPECT_EQ(nc_inq_dimlen(group, dim, &length), NC_NOERR);
  return length;
}

int variable(int group, const std::string& name) {
  int var = -1;
  EXPECT_EQ(nc_inq_varid(group, name.c_str(), &var), NC_NOERR) << "variable " << name;
  return var;
}

std::vector<std::string> dimension_names(int group, int var) {
  int ndims = 0;
  int dims[NC_MAX_VAR_DIMS];
  EXPECT_EQ(nc_inq_var(group, var, nullptr, nullptr, &ndims, dims, nullptr), NC_NOERR);
  std::vector<std::string> names;
  for (int i = 0; i < ndims; ++i) {
    char name[NC_MAX_NAME + 1];
    EXPECT_EQ(nc_inq_dimname(group, dims[i], name), NC_NOERR);
    names.push_back(name);
  }
  return names;
}

nc_type type_of(int group, int var) {
  nc_type t = NC_NAT;
  EXPECT_EQ(nc_inq_vartype(group, var, &t), NC_NOERR);
  return t;
}

std::string text_attribute(int group, int var, const char* name) {
  std::size_t length = 0;
  if (nc_inq_attlen(group, var, name, &length) != NC_NOERR) return "(none)";
  std::string value(length, '\0');
  EXPECT_EQ(nc_get_att_text(group, var, name, value.data()), NC_NOERR);
  return value;
}

std::vector<double> values(int group, const std::string& name) {
  const int var = variable(group, name);
  std::size_t n = 1;
  for (const std::string& d : dimension_names(group, var)) n *= dimension(group, d);
  std::vector<double> out(n);
  EXPECT_EQ(nc_get_var_double(group, var, out.data()), NC_NOERR) << name;
  return out;
}

InferenceDataLayout eight_schools_like(int chains) {
  InferenceDataLayout layout;
  layout.chains = chains;
  layout.posterior = {{"mu", {}, DType::f64}, {"theta", {2, 3}, DType::f32}};
  layout.sample_stats = {{"lp", {}, DType::f64}, {"tree_depth", {}, DType::i64}, {"diverging", {}, DType::boolean}};
  layout.observed_data = {{"y", Tensor::from(std::vector<double>{28, 8, -3, 7})},
                          {"k", Tensor::from(std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}, Shape{2, 3})}};
  layout.inference_library_version = "0.1.0";
  return layout;
}

// Draw d of chain c: mu = 10c + d, theta = 100c + 10d + i, lp = -d, tree depth d, divergent when d is odd.
std::vector<double> posterior_draw(int c, int d) {
  std::vector<double> v{10.0 * c + d};
  for (int i = 0; i < 6; ++i) v.push_back(100.0 * c + 10.0 * d + i + 0.5);
  return v;
}
std::vector<double> stats_draw(int d) { return {-double(d), double(d), double(d % 2)}; }

class File {
 public:
  explicit File(const std::string& path) { EXPECT_EQ(nc_open(path.c_str(), NC_NOWRITE, &id), NC_NOERR) << path; }
  ~File() { nc_close(id); }
  int id = -1;
};

TEST(InferenceData, WritesArvizGroupsDimensionsCoordinatesAndValues) {
  const ScratchDir dir("inference_data_layout");
  const std::string path = dir / "run.nc";
  {
    InferenceDataWriter out(path, eight_schools_like(2));
    for (int d = 0; d < 3; ++d)
      for (int c = 0; c < 2; ++c)
        if (c == 0 || d < 2) out.write_draw(c, posterior_draw(c, d), stats_draw(d));  // chain 1 is a draw behind
    out.close();
  }
  const File file(path);
  const int posterior = group_of(file.id, "posterior"), stats = group_of(file.id, "sample_stats"),
            observed = group_of(file.id, "observed_data");
  for (int g : {posterior, stats, observed}) {
    EXPECT_EQ(text_attribute(g, NC_GLOBAL, "inference_library"), "variate");
    EXPECT_EQ(text_attribute(g, NC_GLOBAL, "inference_library_version"), "0.1.0");
    EXPECT_EQ(text_attribute(g, NC_GLOBAL, "created_at").size(), 20u);  // 2026-01-31T12:00:00Z
  }
  for (int g : {posterior, stats}) {
    EXPECT_EQ(dimension(g, "chain"), 2u);
    EXPECT_EQ(dimension(g, "draw"), 3u);
    EXPECT_EQ(values(g, "chain"), (std::vector<double>{0, 1}));
    EXPECT_EQ(values(g, "draw"), (std::vector<double>{0, 1, 2}));
  }
  EXPECT_EQ(dimension_names(posterior, variable(posterior, "theta")),
            (std::vector<std::string>{"chain", "draw", "theta_dim_0", "theta_dim_1"}));
  EXPECT_EQ(values(posterior, "theta_dim_1"), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(type_of(posterior, variable(posterior, "mu")), NC_DOUBLE);
  EXPECT_EQ(type_of(posterior, variable(posterior, "theta")), NC_FLOAT);
  EXPECT_EQ(type_of(stats, variable(stats, "tree_depth")), NC_INT64);
  EXPECT_EQ(type_of(stats, variable(stats, "diverging")), NC_BYTE);
  EXPECT_EQ(text_attribute(stats, variable(stats, "diverging"), "dtype"), "bool");

  const std::vector<double> mu = values(posterior, "mu"), theta = values(posterior, "theta");
  for (int c = 0; c < 2; ++c)
    for (int d = 0; d < 3; ++d) {
      const std::size_t at = std::size_t(c * 3 + d);
      if (c == 1 && d == 2) {  // not written: the fill value
        EXPECT_TRUE(std::isnan(mu[at]));
        EXPECT_TRUE(std::isnan(theta[at * 6]));
        continue;
      }
      const std::vector<double> want = posterior_draw(c, d);
      EXPECT_EQ(mu[at], want[0]);
      for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(theta[at * 6 + i], want[1 + i]) << c << " " << d << " " << i;
      EXPECT_EQ(values(stats, "lp")[at], -d);
      EXPECT_EQ(values(stats, "tree_depth")[at], d);
      EXPECT_EQ(values(stats, "diverging")[at], d % 2);
    }
  EXPECT_EQ(values(observed, "y"), (std::vector<double>{28, 8, -3, 7}));
  EXPECT_EQ(type_of(observed, variable(observed, "k")), NC_INT64);
  EXPECT_EQ(dimension_names(observed, variable(observed, "k")), (std::vector<std::string>{"k_dim_0", "k_dim_1"}));
  EXPECT_EQ(values(observed, "k"), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(InferenceData, ChainsOnThreadsWriteConcurrently) {
  const ScratchDir dir("inference_data_threads");
  const std::string path = dir / "run.nc";
  constexpr int kChains = 4, kDraws = 200;
  {
    InferenceDataLayout layout = eight_schools_like(kChains);
    layout.sync_seconds = 0.001;  // the syncs write every chain's kept draws, interleaved with the writes
    InferenceDataWriter out(path, layout);
    std::vector<std::thread> chains;
    for (int c = 0; c < kChains; ++c)
      chains.emplace_back([&, c] {
        for (int d = 0; d < kDraws; ++d) out.write_draw(c, posterior_draw(c, d), stats_draw(d));
      });
    for (auto& t : chains) t.join();
    out.close();
  }
  const File file(path);
  const int posterior = group_of(file.id, "posterior");
  const std::vector<double> theta = values(posterior, "theta");
  ASSERT_EQ(theta.size(), std::size_t(kChains * kDraws * 6));
  for (int c = 0; c < kChains; ++c)
    for (int d = 0; d < kDraws; ++d)
      ASSERT_EQ(theta[std::size_t((c * kDraws + d) * 6 + 5)], posterior_draw(c, d)[6]) << c << " " << d;
}

TEST(InferenceData, AFileBeingWrittenReadsWithTheDrawsSyncedSoFar) {
  const ScratchDir dir("inference_data_sync");
  const std::string path = dir / "run.nc";
  InferenceDataLayout layout = eight_schools_like(1);
  layout.sync_seconds = 0;
  InferenceDataWriter out(path, layout);
  for (int d = 0; d < 5; ++d) out.write_draw(0, posterior_draw(0, d), stats_draw(d));
  const File file(path);  // the writer still has it open
  EXPECT_EQ(values(group_of(file.id, "posterior"), "mu"), (std::vector<double>{0, 1, 2, 3, 4}));
}

TEST(InferenceData, RejectsBadNamesChainsAndDrawSizes) {
  const ScratchDir dir("inference_data_errors");
  InferenceDataLayout layout = eight_schools_like(2);
  layout.posterior.push_back({"mu", {}, DType::f64});
  EXPECT_ERROR(InferenceDataWriter(dir / "a.nc", layout), "group posterior: the variable name 'mu' is repeated");
  layout = eight_schools_like(2);
  layout.sample_stats.push_back({"a/b", {}, DType::f64});
  EXPECT_ERROR(InferenceDataWriter(dir / "b.nc", layout), "'a/b' is empty or holds '/'");
  layout = eight_schools_like(0);
  EXPECT_ERROR(InferenceDataWriter(dir / "c.nc", layout), "0 chains; expected at least one");
  EXPECT_ERROR(InferenceDataWriter(dir / "missing/d.nc", eight_schools_like(1)), "cannot create the file");

  InferenceDataWriter out(dir / "e.nc", eight_schools_like(2));
  EXPECT_ERROR(out.write_draw(2, posterior_draw(0, 0), stats_draw(0)), "chain 2 out of range [0, 2)");
  EXPECT_ERROR(out.write_draw(0, std::vector<double>{1, 2}, stats_draw(0)),
               "a draw of 2 posterior and 3 sample_stats values; expected 7 and 3");
}

#endif

}  // namespace
}  // namespace variate::data
