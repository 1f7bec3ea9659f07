#pragma once
// The version every output file records.

namespace variate::cli {

constexpr const char* kVariateVersion = "0.1.0";  // the project version in CMakeLists.txt

}  // namespace variate::cli
