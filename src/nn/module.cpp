#include "variate/nn/module.hpp"

namespace variate::nn {

void visit_child(std::string_view prefix, Module& child, const ParameterVisitor& visit) {
  std::string name(prefix);
  name += '.';
  const std::size_t stem = name.size();
  child.visit_parameters([&](std::string_view local, Tensor& value) {
    name.resize(stem);
    name += local;
    visit(name, value);
  });
}

std::vector<NamedTensor> named_parameters(const Module& module) {
  std::vector<NamedTensor> out;
  // Visiting does not change the module: the visitor below only copies the handles.
  const_cast<Module&>(module).visit_parameters([&](std::string_view name, Tensor& value) {
    out.push_back({std::string(name), value});
  });
  return out;
}

std::int64_t count_parameters(const Module& module) {
  std::int64_t n = 0;
  const_cast<Module&>(module).visit_parameters([&](std::string_view, Tensor& value) { n += value.numel(); });
  return n;
}

Parameters::Parameters(Module& module) {
  module.visit_parameters([&](std::string_view name, Tensor& value) {
    names_.emplace_back(name);
    values_.push_back(&value);
  });
  saved_refs_.resize(values_.size());
}

std::int64_t Parameters::count() const {
  std::int64_t n = 0;
  for (const Tensor* v : values_) n += v->numel();
  return n;
}

TrackedParameters::TrackedParameters(Parameters& params, autodiff::detail::TapeScope& scope) : params_(params) {
  std::size_t i = 0;
  try {
    for (; i < params.size(); ++i) {
      Tensor& v = params.value(i);
      params.saved_refs_[i] = v.tape_ref();
      v.set_tape_ref(scope.track(v).tape_ref());
    }
  } catch (...) {  // an integer parameter, say: the ones already tracked become constants again
    for (std::size_t j = 0; j < i; ++j) params.value(j).set_tape_ref(params.saved_refs_[j]);
    throw;
  }
}

TrackedParameters::~TrackedParameters() {
  for (std::size_t i = 0; i < params_.size(); ++i) params_.value(i).set_tape_ref(params_.saved_refs_[i]);
}

}  // namespace variate::nn
