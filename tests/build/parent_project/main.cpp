#include "variate/tracing/program.hpp"

int main() {
  const variate::tracing::ProgramJoint joint([] {});
  return int(joint.sites().size());
}
