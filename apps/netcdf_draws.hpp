#pragma once
// `variate sample --output-format netcdf|both`: the kept draws in <output>/<model>.nc, ArviZ's
// InferenceData layout (data/inference_data.hpp), written as the chains make them. The posterior
// group holds the main files' sites with their own shapes (theta of shape (8) as theta with
// dimension theta_dim_0, where the CSV has theta.1 ... theta.8), sample_stats the sampler's
// columns under ArviZ's names, observed_data the model's conditioned data.
//
//   NetcdfDraws nc(job, layout, dir / "eight-schools.nc");
//   nc.write(chain, stats, values);   // every kept draw, from the chain's thread
//   nc.close();
#include <filesystem>
#include <string>
#include <vector>

#include "draw_layout.hpp"
#include "sample_context.hpp"
#include "variate/data/inference_data.hpp"

namespace variate::cli {

/// Throws variate::Error when `format` (csv | netcdf | both) asks for netCDF and this build lacks it.
void check_output_format(const std::string& format);
bool writes_csv(const std::string& format);
bool writes_netcdf(const std::string& format);
/// The netCDF file of a run of `model` in its output folder.
std::string netcdf_file_name(const std::string& model);

class NetcdfDraws {
 public:
  /// Creates the file (observed_data traced from the model; left empty when the data are split over
  /// --devices, as each device holds only its part).
  NetcdfDraws(const SampleContext& job, const DrawLayout& layout, const std::filesystem::path& file);
  /// Writes a kept draw of `chain`. Chains on threads call it concurrently, each for its own chain.
  void write(int chain, const inference::TransitionStats& stats, const tracing::Values& values);
  void close() { writer_.close(); }

 private:
  struct ChainRow {
    std::vector<double> sampler, posterior;  // scratch: the chain's thread only
  };
  const SampleContext& job_;
  const DrawLayout& layout_;
  data::InferenceDataWriter writer_;
  std::vector<ChainRow> rows_;
};

}  // namespace variate::cli
