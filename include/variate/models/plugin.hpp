#pragma once
// Loading a model plugin: a shared library built from one model file by `variate build`
// (models/model.hpp).
#include <string>

#include "variate/models/model.hpp"

namespace variate::models {

struct Plugin {
  std::string path;
  std::string name;  // the model function's name
  ModelFunction function;
};

/// Loads the plugin at `path`. It stays loaded for the rest of the process, since the programs its
/// function returns run its code. Throws variate::Error naming the file when it cannot be loaded
/// (with the loader's reason: missing file, not a shared library, undefined symbols), exports no
/// model (not built with VARIATE_MODEL), or was built against another version of the plugin
/// interface.
Plugin load_plugin(const std::string& path);

}  // namespace variate::models
