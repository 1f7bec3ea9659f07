#include "variate/core/dtype.hpp"

namespace variate {

std::size_t itemsize(DType t) {
  switch (t) {
    case DType::boolean: return 1;
    case DType::i32: return 4;
    case DType::i64: return 8;
    case DType::f32: return 4;
    case DType::f64: return 8;
  }
  return 0;
}

const char* name(DType t) {
  switch (t) {
    case DType::boolean: return "bool";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::f32: return "f32";
    case DType::f64: return "f64";
  }
  return "?";
}

bool is_floating(DType t) { return t == DType::f32 || t == DType::f64; }

DType float_type(DType t) { return is_floating(t) ? t : DType::f64; }

DType promote(DType a, DType b) { return static_cast<int>(a) > static_cast<int>(b) ? a : b; }

std::ostream& operator<<(std::ostream& out, Device d) {
  return out << (d.kind == DeviceKind::cpu ? "cpu" : "cuda") << ':' << d.index;
}

}  // namespace variate
