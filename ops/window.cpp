#include "ops/window.h"

#include "core/error.h"

namespace kiln::ops {

int64_t window_output_extent(const std::string& op, const std::string& axis, int64_t in, const Window& w) {
  if (in < 1) KILN_USER_ERROR() << op << ": input " << axis << " " << in << " must be positive";
  if (w.kernel < 1) KILN_USER_ERROR() << op << ": kernel " << axis << " " << w.kernel << " must be positive";
  if (w.stride < 1) KILN_USER_ERROR() << op << ": stride " << w.stride << " must be positive";
  if (w.dilation < 1) KILN_USER_ERROR() << op << ": dilation " << w.dilation << " must be positive";
  if (w.pad < 0) KILN_USER_ERROR() << op << ": pad " << w.pad << " must be non-negative";
  int64_t span = w.dilation * (w.kernel - 1) + 1;
  if (w.pad >= span)
    KILN_USER_ERROR() << op << ": pad " << w.pad << " is too large for kernel " << axis << " " << span
                      << " (at most " << span - 1 << ")";
  int64_t room = in + 2 * w.pad - span;
  if (room < 0)
    KILN_USER_ERROR() << op << ": output " << axis << " would be 0 or less: kernel " << axis << " " << span
                      << " exceeds input " << axis << " " << in << " plus padding " << 2 * w.pad;
  return room / w.stride + 1;
}

Expr window_index(const Expr& out, const Expr& offset, const Window& w) {
  auto scaled = [](const Expr& x, int64_t k) { return k == 1 ? x : x * int_imm(x.dtype(), k); };
  return scaled(out, w.stride) + scaled(offset, w.dilation);
}

}  // namespace kiln::ops
