#include "ops/window.h"

#include "core/error.h"

namespace kiln::ops {

int64_t window_count(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_begin,
                     int64_t pad_end, bool ceil_mode) {
  const int64_t span = dilation * (kernel - 1) + 1;
  const int64_t room = in + pad_begin + pad_end - span;
  if (room < 0) return 0;
  return (ceil_mode ? (room + stride - 1) / stride : room / stride) + 1;
}

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
  const int64_t count = window_count(in, w.kernel, w.stride, w.dilation, w.pad, w.pad);
  if (count == 0)
    KILN_USER_ERROR() << op << ": output " << axis << " would be 0 or less: kernel " << axis << " " << span
                      << " exceeds input " << axis << " " << in << " plus padding " << 2 * w.pad;
  return count;
}

Expr window_index(const Expr& out, const Expr& offset, const Window& w) {
  auto scaled = [](const Expr& x, int64_t k) { return k == 1 ? x : x * int_imm(x.dtype(), k); };
  return scaled(out, w.stride) + scaled(offset, w.dilation);
}

}  // namespace kiln::ops
