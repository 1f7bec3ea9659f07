#include "variate/models/plugin.hpp"

#include <dlfcn.h>

#include <filesystem>

#include "variate/core/error.hpp"

namespace variate::models {

Plugin load_plugin(const std::string& path) {
  VARIATE_CHECK(std::filesystem::is_regular_file(path), "load_plugin", "model file '", path,
                "' does not exist or is not a file; expected a shared library built by `variate build`");
  // An absolute path, so that dlopen never searches the library path for a bare file name.
  const std::string absolute = std::filesystem::absolute(path).string();
  void* handle = dlopen(absolute.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) detail::fail("load_plugin: cannot load model file '", path, "': ", dlerror());
  const auto* abi = static_cast<const int*>(dlsym(handle, "variate_plugin_abi_version"));
  using EntryFunction = const PluginEntry* (*)();
  const auto entry = reinterpret_cast<EntryFunction>(dlsym(handle, "variate_model_entry"));
  if (abi == nullptr || entry == nullptr) {
    dlclose(handle);
    detail::fail("load_plugin: '", path,
                 "' exports no variate model; expected a library built by `variate build` from a file that ends "
                 "with VARIATE_MODEL(function)");
  }
  if (const int version = *abi; version != kPluginAbiVersion) {
    dlclose(handle);  // `abi` points into the library: read before
    detail::fail("load_plugin: '", path, "' was built for plugin interface version ", version, ", this variate has ",
                 kPluginAbiVersion, "; rebuild it with this variate's `variate build`");
  }
  const PluginEntry* e = entry();
  return {.path = path, .name = e->name, .function = e->function};
}

}  // namespace variate::models
