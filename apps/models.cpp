#include "models.hpp"

#include <filesystem>

#include "variate/core/error.hpp"
#include "variate/core/quote_input.hpp"
#include "variate/models/builtin.hpp"
#include "variate/models/plugin.hpp"

namespace variate::cli {
namespace {

Model named(const std::string& name, models::Definition d, const std::string& data_source,
            const std::string& data_file) {
  Model m;
  m.data = d.data_summary.empty() ? data_source : data_source + ", " + d.data_summary;
  static_cast<models::Definition&>(m) = std::move(d);
  m.name = name;
  m.data_file = data_file.empty() ? "(embedded)" : data_file;
  return m;
}

Model plugin(const ModelOptions& o) {
  const models::Plugin p = models::load_plugin(o.model_file);
  const std::string name = std::filesystem::path(o.model_file).stem().string();
  models::ModelData data = o.data_path.empty()
                               ? models::ModelData({}, "the model file's data (none given: pass --data FILE)", o.dtype)
                               : models::ModelData(data::read_data_file(o.data_path), o.data_path, o.dtype);
  return named(name, models::define(p.function, std::move(data)), o.data_path.empty() ? "none" : o.data_path,
               o.data_path);
}

}  // namespace

Model make_model(const std::string& name, const ModelOptions& options) {
  VARIATE_CHECK(options.dtype == DType::f64 || options.dtype == DType::f32, "make_model",
                "precision must be f64 or f32, got ", variate::name(options.dtype));
  if (!options.model_file.empty()) return plugin(options);
  const models::BuiltinModel* b = models::find_builtin_model(name);
  if (b == nullptr) {
    std::string known;
    for (const models::BuiltinModel& m : models::builtin_models()) known += (known.empty() ? "" : ", ") + m.name;
    detail::fail("unknown model ", quote_input(name), "; the models are: ", known);
  }
  VARIATE_CHECK(b->read_data != nullptr || options.data_path.empty(), "make_model", "model '", name,
                "' generates its data; --data is not used");
  return named(name, models::builtin_definition(*b, options.data_path, options.dtype),
               options.data_path.empty() ? b->default_source : options.data_path,
               options.data_path.empty() ? b->default_folder : options.data_path);
}

}  // namespace variate::cli
