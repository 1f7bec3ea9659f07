#include "tensor/cpu/cpu_backend.hpp"
namespace variate::cpu {
#define NI(...) { detail::fail("not implemented yet"); }
void CpuBackend::sort(const Tensor&, int, bool, Tensor*, Tensor*) NI()
void CpuBackend::slice(const Tensor&, int, std::int64_t, std::int64_t, Tensor&) NI()
void CpuBackend::slice_add(const Tensor&, int, std::int64_t, std::int64_t, Tensor&) NI()
void CpuBackend::concat(std::span<const Tensor>, int, Tensor&) NI()
void CpuBackend::gather(const Tensor&, int, const Tensor&, Tensor&) NI()
void CpuBackend::scatter_add(const Tensor&, int, const Tensor&, Tensor&) NI()
void CpuBackend::take(const Tensor&, int, const Tensor&, Tensor&) NI()
void CpuBackend::take_add(const Tensor&, int, const Tensor&, Tensor&) NI()
bool CpuBackend::cholesky(const Tensor&, Tensor&) NI()
void CpuBackend::triangular_solve(const Tensor&, const Tensor&, bool, bool, Tensor&) NI()
}
