#pragma once
// Every device's bytes, in device order, on every device of a mesh axis: how the devices of a
// `variate sample` run send their chain states and draws to device 0, which writes the checkpoints.
#include <string>
#include <string_view>
#include <vector>

namespace variate::cli {

/// A collective: every device of `axis` calls it with its own `mine`, of any length.
std::vector<std::string> all_gather_bytes(std::string_view mine, std::string_view axis);

}  // namespace variate::cli
