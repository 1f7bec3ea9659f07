#include <memory>
#include <utility>

#include "variate/models/model.hpp"

namespace variate::models {

Definition define(ModelFunction function, ModelData data) {
  auto kept = std::make_shared<const ModelData>(std::move(data));
  Definition definition = function(*kept);
  definition.program = [kept, program = std::move(definition.program)] { program(); };
  return definition;
}

}  // namespace variate::models
