#pragma once
// A 32-bit number in hex, as IDX magic numbers are written in error messages ("0x00000803").
#include <cstdint>
#include <cstdio>
#include <string>

namespace variate::data {

inline std::string hex32(std::uint32_t x) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08X", x);
  return text;
}

}  // namespace variate::data
