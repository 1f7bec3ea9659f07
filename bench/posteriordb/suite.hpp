#pragma once
// The posteriordb benchmark suite's models: posteriordb posteriors (https://github.com/stan-dev/posteriordb)
// written as variate models, each as a model plugin is written (variate/models/model.hpp), with the
// log density of posteriordb's Stan program up to a constant: the same priors (flat ones as
// ImproperUniform), constraints and transformed data. Parameters keep Stan's names, so the draw
// columns (`beta.2`) match the reference table (references.hpp).
//
//   const SuiteModel& m = find_suite_model("arK-arK");
//   models::Definition d = m.function(read_suite_data(m, data_folder));
#include <string>
#include <vector>

#include "variate/models/model.hpp"

namespace posteriordb {

struct SuiteModel {
  std::string posterior;  // posteriordb's name, <data>-<model>
  std::string data;       // the data file's name, <folder>/<data>.json.zip
  variate::models::ModelFunction function;
  std::string kind;  // what makes it hard or typical: "regression", "funnel", "GP", ...
  /// The posterior whose reference (references.hpp) it is checked against: its own, or, for a
  /// posteriordb program without one, the same posterior written in another parameterization.
  std::string reference;
};

/// Every model of the suite, in a fixed order.
const std::vector<SuiteModel>& suite_models();
/// Posteriors timed by bench/suite_gradient besides the suite's: posteriordb programs without a
/// reference posterior (their `reference` is empty), so the suite does not sample them.
const std::vector<SuiteModel>& gradient_only_models();
/// The model named `posterior`; throws naming it and listing the suite's models if there is none.
const SuiteModel& find_suite_model(const std::string& posterior);
/// The posteriordb data folder beside the repository (../shared/data/posteriordb/data).
std::string default_data_folder();
/// The model's data from `folder`; throws naming the file if it is missing.
variate::models::ModelData read_suite_data(const SuiteModel& model, const std::string& folder);

// The models, by the file that writes them.
variate::models::Definition kidscore_momhs(const variate::models::ModelData& data);
variate::models::Definition kidscore_momiq(const variate::models::ModelData& data);
variate::models::Definition kidscore_momhsiq(const variate::models::ModelData& data);
variate::models::Definition kidscore_interaction(const variate::models::ModelData& data);
variate::models::Definition kidscore_interaction_c(const variate::models::ModelData& data);
variate::models::Definition kidscore_interaction_c2(const variate::models::ModelData& data);
variate::models::Definition kidscore_interaction_z(const variate::models::ModelData& data);
variate::models::Definition kidscore_mom_work(const variate::models::ModelData& data);
variate::models::Definition earn_height(const variate::models::ModelData& data);
variate::models::Definition log10earn_height(const variate::models::ModelData& data);
variate::models::Definition logearn_height(const variate::models::ModelData& data);
variate::models::Definition logearn_height_male(const variate::models::ModelData& data);
variate::models::Definition logearn_interaction(const variate::models::ModelData& data);
variate::models::Definition logearn_interaction_z(const variate::models::ModelData& data);
variate::models::Definition logearn_logheight_male(const variate::models::ModelData& data);
variate::models::Definition mesquite(const variate::models::ModelData& data);
variate::models::Definition logmesquite(const variate::models::ModelData& data);
variate::models::Definition logmesquite_logvolume(const variate::models::ModelData& data);
variate::models::Definition logmesquite_logva(const variate::models::ModelData& data);
variate::models::Definition logmesquite_logvas(const variate::models::ModelData& data);
variate::models::Definition logmesquite_logvash(const variate::models::ModelData& data);
variate::models::Definition nes(const variate::models::ModelData& data);
variate::models::Definition kilpisjarvi(const variate::models::ModelData& data);
variate::models::Definition blr(const variate::models::ModelData& data);
variate::models::Definition diamonds(const variate::models::ModelData& data);
variate::models::Definition arK(const variate::models::ModelData& data);
variate::models::Definition arma11(const variate::models::ModelData& data);
variate::models::Definition garch11(const variate::models::ModelData& data);
variate::models::Definition hmm_example(const variate::models::ModelData& data);
variate::models::Definition eight_schools_noncentered(const variate::models::ModelData& data);
variate::models::Definition eight_schools_centered(const variate::models::ModelData& data);
variate::models::Definition low_dim_gauss_mix(const variate::models::ModelData& data);
variate::models::Definition gp_regr(const variate::models::ModelData& data);
variate::models::Definition gp_pois_regr(const variate::models::ModelData& data);
variate::models::Definition radon_variable_intercept_noncentered(const variate::models::ModelData& data);

}  // namespace posteriordb
