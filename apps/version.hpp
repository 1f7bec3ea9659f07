#pragma once
// The version every output file records.

namespace variate::cli {

constexpr const char* kVariateVersion = VARIATE_VERSION;  // project(VERSION) in CMakeLists.txt

}  // namespace variate::cli
