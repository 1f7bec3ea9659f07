#pragma once
// Element types and devices, carried by every tensor as run-time values.
#include <cstddef>
#include <cstdint>
#include <ostream>

namespace variate {

enum class DType : std::uint8_t { boolean, i32, i64, f32, f64 };

std::size_t itemsize(DType t);
const char* name(DType t);
bool is_floating(DType t);
/// The result dtype of unary math on x: floating types are kept, integers and bools become f64.
DType float_type(DType t);
/// The type both operands of a binary op are converted to (bool < i32 < i64 < f32 < f64).
DType promote(DType a, DType b);
inline std::ostream& operator<<(std::ostream& out, DType t) { return out << name(t); }

/// Maps a C++ element type to its DType.
template <class T>
struct dtype_of;
template <>
struct dtype_of<bool> {
  static constexpr DType value = DType::boolean;
};
template <>
struct dtype_of<std::int32_t> {
  static constexpr DType value = DType::i32;
};
template <>
struct dtype_of<std::int64_t> {
  static constexpr DType value = DType::i64;
};
template <>
struct dtype_of<float> {
  static constexpr DType value = DType::f32;
};
template <>
struct dtype_of<double> {
  static constexpr DType value = DType::f64;
};

enum class DeviceKind : std::uint8_t { cpu, cuda };

/// Where a tensor's storage lives. Only the CPU backend exists today; kernels are reached through
/// the backend table (tensor/backend.hpp) so a CUDA backend can be added without touching callers.
struct Device {
  DeviceKind kind = DeviceKind::cpu;
  int index = 0;
  friend bool operator==(Device a, Device b) { return a.kind == b.kind && a.index == b.index; }
};
std::ostream& operator<<(std::ostream& out, Device d);

}  // namespace variate
