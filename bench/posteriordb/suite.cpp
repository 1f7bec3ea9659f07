#include "suite.hpp"

#include <filesystem>

#include "variate/core/error.hpp"
#include "variate/data/data_file.hpp"

namespace posteriordb {

const std::vector<SuiteModel>& suite_models() {
  static const std::vector<SuiteModel> models = {
      {"eight_schools-eight_schools_noncentered", "eight_schools", &eight_schools_noncentered,
       "hierarchical, few groups", "eight_schools-eight_schools_noncentered"},
      // posteriordb has no reference for the centered program: its posterior is the non-centered one's.
      {"eight_schools-eight_schools_centered", "eight_schools", &eight_schools_centered, "funnel",
       "eight_schools-eight_schools_noncentered"},
      {"gp_pois_regr-gp_pois_regr", "gp_pois_regr", &gp_pois_regr, "latent GP", "gp_pois_regr-gp_pois_regr"},
      {"gp_pois_regr-gp_regr", "gp_pois_regr", &gp_regr, "GP", "gp_pois_regr-gp_regr"},
      {"low_dim_gauss_mix-low_dim_gauss_mix", "low_dim_gauss_mix", &low_dim_gauss_mix, "mixture",
       "low_dim_gauss_mix-low_dim_gauss_mix"},
      {"hmm_example-hmm_example", "hmm_example", &hmm_example, "HMM", "hmm_example-hmm_example"},
      {"arK-arK", "arK", &arK, "time series", "arK-arK"},
      {"arma-arma11", "arma", &arma11, "time series", "arma-arma11"},
      {"garch-garch11", "garch", &garch11, "time series, bound on a parameter", "garch-garch11"},
      {"diamonds-diamonds", "diamonds", &diamonds, "regression, strongly correlated", "diamonds-diamonds"},
      {"kidiq-kidscore_momhs", "kidiq", &kidscore_momhs, "regression", "kidiq-kidscore_momhs"},
      {"kidiq-kidscore_momiq", "kidiq", &kidscore_momiq, "regression", "kidiq-kidscore_momiq"},
      {"kidiq-kidscore_momhsiq", "kidiq", &kidscore_momhsiq, "regression", "kidiq-kidscore_momhsiq"},
      {"kidiq-kidscore_interaction", "kidiq", &kidscore_interaction, "regression, correlated",
       "kidiq-kidscore_interaction"},
      {"kidiq_with_mom_work-kidscore_interaction_c", "kidiq_with_mom_work", &kidscore_interaction_c, "regression",
       "kidiq_with_mom_work-kidscore_interaction_c"},
      {"kidiq_with_mom_work-kidscore_interaction_c2", "kidiq_with_mom_work", &kidscore_interaction_c2, "regression",
       "kidiq_with_mom_work-kidscore_interaction_c2"},
      {"kidiq_with_mom_work-kidscore_interaction_z", "kidiq_with_mom_work", &kidscore_interaction_z, "regression",
       "kidiq_with_mom_work-kidscore_interaction_z"},
      {"kidiq_with_mom_work-kidscore_mom_work", "kidiq_with_mom_work", &kidscore_mom_work, "regression",
       "kidiq_with_mom_work-kidscore_mom_work"},
      {"earnings-earn_height", "earnings", &earn_height, "regression, badly scaled", "earnings-earn_height"},
      {"earnings-log10earn_height", "earnings", &log10earn_height, "regression", "earnings-log10earn_height"},
      {"earnings-logearn_height", "earnings", &logearn_height, "regression", "earnings-logearn_height"},
      {"earnings-logearn_height_male", "earnings", &logearn_height_male, "regression", "earnings-logearn_height_male"},
      {"earnings-logearn_interaction", "earnings", &logearn_interaction, "regression, correlated",
       "earnings-logearn_interaction"},
      {"earnings-logearn_interaction_z", "earnings", &logearn_interaction_z, "regression",
       "earnings-logearn_interaction_z"},
      {"earnings-logearn_logheight_male", "earnings", &logearn_logheight_male, "regression, correlated",
       "earnings-logearn_logheight_male"},
      {"mesquite-mesquite", "mesquite", &mesquite, "regression, few data", "mesquite-mesquite"},
      {"mesquite-logmesquite", "mesquite", &logmesquite, "regression, few data", "mesquite-logmesquite"},
      {"mesquite-logmesquite_logvolume", "mesquite", &logmesquite_logvolume, "regression, few data",
       "mesquite-logmesquite_logvolume"},
      {"mesquite-logmesquite_logva", "mesquite", &logmesquite_logva, "regression, few data",
       "mesquite-logmesquite_logva"},
      {"mesquite-logmesquite_logvas", "mesquite", &logmesquite_logvas, "regression, few data",
       "mesquite-logmesquite_logvas"},
      {"mesquite-logmesquite_logvash", "mesquite", &logmesquite_logvash, "regression, few data",
       "mesquite-logmesquite_logvash"},
      {"nes1972-nes", "nes1972", &nes, "regression", "nes1972-nes"},
      {"nes1976-nes", "nes1976", &nes, "regression", "nes1976-nes"},
      {"nes1980-nes", "nes1980", &nes, "regression", "nes1980-nes"},
      {"nes1984-nes", "nes1984", &nes, "regression", "nes1984-nes"},
      {"nes1988-nes", "nes1988", &nes, "regression", "nes1988-nes"},
      {"nes1992-nes", "nes1992", &nes, "regression", "nes1992-nes"},
      {"nes1996-nes", "nes1996", &nes, "regression", "nes1996-nes"},
      {"nes2000-nes", "nes2000", &nes, "regression", "nes2000-nes"},
      {"kilpisjarvi_mod-kilpisjarvi", "kilpisjarvi_mod", &kilpisjarvi, "regression, uncentred predictor",
       "kilpisjarvi_mod-kilpisjarvi"},
      {"sblrc-blr", "sblrc", &blr, "regression", "sblrc-blr"},
      {"sblri-blr", "sblri", &blr, "regression", "sblri-blr"},
  };
  return models;
}

const SuiteModel& find_suite_model(const std::string& posterior) {
  for (const SuiteModel& m : suite_models())
    if (m.posterior == posterior) return m;
  std::string names;
  for (const SuiteModel& m : suite_models()) names += (names.empty() ? "" : ", ") + m.posterior;
  variate::detail::fail("posteriordb suite: no model '", posterior, "'; the suite's models are ", names);
}

std::string default_data_folder() { return POSTERIORDB_DATA_FOLDER; }

variate::models::ModelData read_suite_data(const SuiteModel& model, const std::string& folder) {
  const std::string file = folder + "/" + model.data + ".json.zip";
  VARIATE_CHECK(std::filesystem::exists(file), "posteriordb suite", model.posterior, ": data file ", file,
                " not found; expected posteriordb's data there (--data-folder)");
  return variate::models::ModelData(variate::data::read_data_file(file), file);
}

}  // namespace posteriordb
