#include "targets/lower.h"

namespace kiln {

LowerOptions lower_options_for(const Target& target) {
  LowerOptions o;
  o.max_lanes = target.vector_lanes(DataType::Float32());
  return o;
}

PrimFunc lower(const PrimFunc& f, const Target& target,
               const std::function<void(const std::string& pass, const PrimFunc& f)>& after_pass) {
  LowerOptions o = lower_options_for(target);
  o.after_pass = after_pass;
  return lower(f, o);
}

}  // namespace kiln
