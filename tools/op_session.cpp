#include "tools/op_session.h"

#include <fstream>
#include <sstream>

#include "tir/schedule/schedule.h"

namespace kiln {

OpProgram prepare_op(const std::string& workload, const Target& target, const PrepareOptions& options) {
  ops::Workload w = ops::parse_workload(workload);
  PrimFunc f = ops::build_workload(w);
  PrimFunc scheduled = options.trace ? apply_trace(*options.trace, f).func() : f;
  PrimFunc lowered = lower(scheduled, target, options.after_pass);
  return OpProgram{w, target, f, scheduled, lowered};
}

Trace read_trace_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) KILN_USER_ERROR() << "cannot read trace file '" << path << "'";
  std::stringstream text;
  text << in.rdbuf();
  try {
    return Trace::parse(text.str());
  } catch (const Error& e) {
    KILN_USER_ERROR() << path << ": " << e.what();
  }
}

}  // namespace kiln
