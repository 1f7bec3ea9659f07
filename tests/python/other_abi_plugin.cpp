// A plugin built against another version of the plugin interface: loading it must be refused
// before its entry point is called.
#include "variate/models/model.hpp"

extern "C" __attribute__((visibility("default"))) const int variate_plugin_abi_version = 999;
extern "C" __attribute__((visibility("default"))) const variate::models::PluginEntry* variate_model_entry() {
  return nullptr;
}
