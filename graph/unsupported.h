// What a model may ask that kiln does not take (yet): an operator outside
// graph/op_table.h or of another domain, a newer opset, a dtype, weights in
// external files, an attribute no compute definition covers, a training
// mode. A kiln::Error like any refusal (exit code 2, the message names what
// is asked), told apart so that the conformance table (graph/conformance.h)
// says "unsupported" where a model is refused and "fail" only where kiln
// computes something wrong or breaks.
#pragma once

#include "core/error.h"

namespace kiln::graph {

class UnsupportedError : public Error {
 public:
  using Error::Error;
};

}  // namespace kiln::graph

// KILN_UNSUPPORTED() << "message": throws kiln::graph::UnsupportedError.
#define KILN_UNSUPPORTED() ::kiln::detail::Thrower<::kiln::graph::UnsupportedError>(nullptr, 0, nullptr)
