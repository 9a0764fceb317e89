#include "ops/op_table.h"

#include <algorithm>
#include <sstream>

#include "ops/blocked.h"
#include "ops/common.h"
#include "ops/conv2d.h"
#include "ops/depthwise_conv2d.h"
#include "ops/elementwise.h"
#include "ops/layer_norm.h"
#include "ops/matmul.h"
#include "ops/pool.h"
#include "ops/reduce.h"
#include "ops/softmax.h"
#include "ops/winograd.h"
#include "ops/window.h"
#include "tir/te/create_prim_func.h"
#include "tir/tensor_intrin.h"

namespace kiln::ops {

namespace {

using te::Tensor;

// An input of type `dtype`, or of the workload's.
Tensor input(const std::string& name, std::initializer_list<int64_t> shape, DataType dtype) {
  std::vector<Expr> dims;
  for (int64_t d : shape) dims.push_back(i32(d));
  return te::placeholder(std::move(dims), dtype, name);
}
Tensor input(const Workload& w, const std::string& name, std::initializer_list<int64_t> shape) {
  return input(name, shape, w.dtype);
}

double product(std::initializer_list<int64_t> xs) {
  double p = 1;
  for (int64_t x : xs) p *= static_cast<double>(x);
  return p;
}

// --- parameters shared by several ops ---------------------------------------

ParamSpec req(std::string name, std::string doc, int64_t min = 1) {
  return ParamSpec{std::move(name), std::move(doc), std::nullopt, min, INT32_MAX, {}};
}
ParamSpec opt(std::string name, std::string doc, int64_t def, int64_t min = 1, int64_t max = INT32_MAX) {
  return ParamSpec{std::move(name), std::move(doc), def, min, max, {}};
}

std::vector<ParamSpec> matrix_params() { return {req("M", "rows"), req("N", "columns")}; }

std::vector<ParamSpec> window_params(bool with_k) {
  std::vector<ParamSpec> p{req("N", "batch"), req("C", "input channels"), req("H", "input height"),
                           req("W", "input width")};
  if (with_k) p.push_back(req("K", "output channels"));
  p.push_back(req("R", "kernel height"));
  p.push_back(req("S", "kernel width"));
  p.push_back(req("stride", "stride of height and width"));
  p.push_back(req("pad", "zero padding on every side of height and width", 0));
  return p;
}

// --- sliding-window shapes --------------------------------------------------

struct OutHW {
  int64_t P, Q;
};

OutHW window_out(const Workload& w, int64_t dilation) {
  int64_t stride = param(w, "stride"), pad = param(w, "pad");
  return {window_output_extent(w.op, "height", param(w, "H"), {param(w, "R"), stride, pad, dilation}),
          window_output_extent(w.op, "width", param(w, "W"), {param(w, "S"), stride, pad, dilation})};
}

void check_groups(const Workload& w) {
  int64_t g = param(w, "groups"), C = param(w, "C"), K = param(w, "K");
  if (C % g != 0 || K % g != 0)
    KILN_USER_ERROR() << w.op << ": groups=" << g << " must divide both C=" << C << " and K=" << K;
}

Conv2dConfig conv_config(const Workload& w) {
  return {param(w, "stride"), param(w, "pad"), param(w, "dilation"), param(w, "groups")};
}

// A blocked convolution's (one group; no groups key).
double blocked_conv_flops(const Workload& w) {
  OutHW o = window_out(w, param(w, "dilation"));
  return 2 * product({param(w, "N"), param(w, "K"), o.P, o.Q, param(w, "C"), param(w, "R"), param(w, "S")});
}

double conv_flops(const Workload& w) {
  OutHW o = window_out(w, param(w, "dilation"));
  return 2 * product({param(w, "N"), param(w, "K"), o.P, o.Q, param(w, "C") / param(w, "groups"), param(w, "R"),
                      param(w, "S")});
}

Pool2dConfig pool_config(const Workload& w) {
  return {param(w, "R"), param(w, "S"), param(w, "stride"), param(w, "pad")};
}

// An int8 product whose weights hold 7 bits (tir/tensor_intrin.h).
Tensor small_weights(const Tensor& t) { return te::annotate(t, kSmallWeightsAnn, Expr(1)); }

// --- the table ----------------------------------------------------------------

std::vector<OpSpec> make_table() {
  std::vector<OpSpec> t;

  t.push_back(OpSpec{
      "matmul", "matrix product", "A[M,K], B[K,N] -> C[M,N]", "2·M·N·K",
      {req("M", "rows of A and C"), req("N", "columns of B and C"), req("K", "reduced extent")},
      DTypeRule::kNumeric,
      [](const Workload& w) {
        Tensor A = input(w, "A", {param(w, "M"), param(w, "K")});
        Tensor B = input(w, "B", {param(w, "K"), param(w, "N")});
        return te::create_prim_func({A, B, matmul(A, B)}, w.op);
      },
      [](const Workload& w) { return 2 * product({param(w, "M"), param(w, "N"), param(w, "K")}); }, nullptr});

  // int8 products: uint8 A, int8 B; `small`: B's values in [-64, 64], the
  // product annotated so (tir/tensor_intrin.h, kSmallWeightsAnn).
  for (const bool small : {false, true}) {
    t.push_back(OpSpec{
        small ? "matmul_u8s7s32" : "matmul_u8s8s32",
        small ? "int8 matrix product, B of 7 bits: unsigned A, signed B in [-64, 64], int32 sums"
              : "int8 matrix product: unsigned A, signed B, int32 sums",
        "A[M,K] uint8, B[K,N] int8 -> C[M,N] int32", "2·M·N·K",
        {req("M", "rows of A and C"), req("N", "columns of B and C"), req("K", "reduced extent")},
        DTypeRule::kFixed,
        [small](const Workload& w) {
          Tensor A = input("A", {param(w, "M"), param(w, "K")}, DataType::UInt(8));
          Tensor B = input("B", {param(w, "K"), param(w, "N")}, DataType::Int(8));
          Tensor C = matmul_widened(A, B, DataType::Int(32));
          return te::create_prim_func({A, B, small ? small_weights(C) : C}, w.op);
        },
        [](const Workload& w) { return 2 * product({param(w, "M"), param(w, "N"), param(w, "K")}); }, nullptr});
  }

  t.push_back(OpSpec{
      "dense_u8s8s32", "int8 fully connected layer: uint8 X, int8 W (one row per output feature), int32 sums",
      "X[M,K] uint8, W[N,K] int8 -> Y[M,N] int32", "2·M·N·K",
      {req("M", "rows (batch)"), req("N", "output features"), req("K", "input features")}, DTypeRule::kFixed,
      [](const Workload& w) {
        Tensor X = input("X", {param(w, "M"), param(w, "K")}, DataType::UInt(8));
        Tensor W = input("W", {param(w, "N"), param(w, "K")}, DataType::Int(8));
        return te::create_prim_func({X, W, dense_widened(X, W, DataType::Int(32))}, w.op);
      },
      [](const Workload& w) { return 2 * product({param(w, "M"), param(w, "N"), param(w, "K")}); }, nullptr});

  t.push_back(OpSpec{
      "batch_matmul", "batched matrix product", "A[B,M,K], B[B,K,N] -> C[B,M,N]", "2·B·M·N·K",
      {req("B", "batch"), req("M", "rows of A and C"), req("N", "columns of B and C"), req("K", "reduced extent")},
      DTypeRule::kNumeric,
      [](const Workload& w) {
        Tensor A = input(w, "A", {param(w, "B"), param(w, "M"), param(w, "K")});
        Tensor B = input(w, "B", {param(w, "B"), param(w, "K"), param(w, "N")});
        return te::create_prim_func({A, B, batch_matmul(A, B)}, w.op);
      },
      [](const Workload& w) { return 2 * product({param(w, "B"), param(w, "M"), param(w, "N"), param(w, "K")}); },
      nullptr});

  t.push_back(OpSpec{
      "dense", "fully connected layer: Y = act(X·Wᵀ + b)", "X[M,K], W[N,K] (, b[N]) -> Y[M,N]",
      "2·M·N·K, + M·N with bias, + M·N with relu",
      {req("M", "rows (batch)"), req("N", "output features"), req("K", "input features"),
       opt("bias", "1: add a bias b[N]", 0, 0, 1),
       ParamSpec{"act", "activation applied last", 0, 0, 1, {"none", "relu"}}},
      DTypeRule::kNumeric,
      [](const Workload& w) {
        Tensor X = input(w, "X", {param(w, "M"), param(w, "K")});
        Tensor W = input(w, "W", {param(w, "N"), param(w, "K")});
        std::vector<Tensor> args{X, W};
        Tensor b;
        if (param(w, "bias")) args.push_back(b = input(w, "b", {param(w, "N")}));
        args.push_back(dense(X, W, b, param(w, "act") == 1 ? Activation::kRelu : Activation::kNone));
        return te::create_prim_func(args, w.op);
      },
      [](const Workload& w) {
        double mn = product({param(w, "M"), param(w, "N")});
        return 2 * mn * static_cast<double>(param(w, "K")) + mn * static_cast<double>(param(w, "bias")) +
               mn * static_cast<double>(param(w, "act"));
      },
      nullptr});

  auto conv_params = [] {
    std::vector<ParamSpec> p = window_params(true);
    p.push_back(opt("dilation", "spacing of kernel taps", 1));
    p.push_back(opt("groups", "channel groups; must divide C and K", 1));
    return p;
  };
  t.push_back(OpSpec{
      "conv2d_nchw", "2-D convolution, channels first",
      "data[N,C,H,W], kernel[K,C/groups,R,S] -> out[N,K,P,Q]", "2·N·K·P·Q·(C/groups)·R·S", conv_params(),
      DTypeRule::kNumeric,
      [](const Workload& w) {
        Tensor data = input(w, "data", {param(w, "N"), param(w, "C"), param(w, "H"), param(w, "W")});
        Tensor kernel = input(w, "kernel",
                              {param(w, "K"), param(w, "C") / param(w, "groups"), param(w, "R"), param(w, "S")});
        return te::create_prim_func({data, kernel, conv2d_nchw(data, kernel, conv_config(w))}, w.op);
      },
      conv_flops,
      [](const Workload& w) {
        check_groups(w);
        window_out(w, param(w, "dilation"));
      }});

  t.push_back(OpSpec{
      "conv2d_nchw_u8s8s32", "int8 2-D convolution, channels first: uint8 data, int8 weights, int32 sums",
      "data[N,C,H,W] uint8, kernel[K,C/groups,R,S] int8 -> out[N,K,P,Q] int32", "2·N·K·P·Q·(C/groups)·R·S",
      conv_params(), DTypeRule::kFixed,
      [](const Workload& w) {
        Tensor data = input("data", {param(w, "N"), param(w, "C"), param(w, "H"), param(w, "W")}, DataType::UInt(8));
        Tensor kernel = input("kernel", {param(w, "K"), param(w, "C") / param(w, "groups"), param(w, "R"), param(w, "S")},
                              DataType::Int(8));
        return te::create_prim_func({data, kernel, conv2d_nchw(data, kernel, conv_config(w), DataType::Int(32))}, w.op);
      },
      conv_flops,
      [](const Workload& w) {
        check_groups(w);
        window_out(w, param(w, "dilation"));
      }});

  t.push_back(OpSpec{
      "conv2d_nhwc", "2-D convolution, channels last",
      "data[N,H,W,C], kernel[R,S,C/groups,K] -> out[N,P,Q,K]", "2·N·K·P·Q·(C/groups)·R·S", conv_params(),
      DTypeRule::kNumeric,
      [](const Workload& w) {
        Tensor data = input(w, "data", {param(w, "N"), param(w, "H"), param(w, "W"), param(w, "C")});
        Tensor kernel = input(w, "kernel",
                              {param(w, "R"), param(w, "S"), param(w, "C") / param(w, "groups"), param(w, "K")});
        return te::create_prim_func({data, kernel, conv2d_nhwc(data, kernel, conv_config(w))}, w.op);
      },
      conv_flops,
      [](const Workload& w) {
        check_groups(w);
        window_out(w, param(w, "dilation"));
      }});

  auto blocked_params = [](bool with_k) {
    std::vector<ParamSpec> p = window_params(with_k);
    p.push_back(opt("dilation", "spacing of kernel taps", 1));
    if (with_k) {
      p.push_back(req("cb", "input channels per block; divides C"));
      p.push_back(req("kb", "output channels per block; divides K"));
    } else {
      p.push_back(req("b", "channels per block; divides C"));
    }
    return p;
  };
  auto check_blocks = [](const Workload& w, const std::string& block, const std::string& channels) {
    if (param(w, channels) % param(w, block) != 0)
      KILN_USER_ERROR() << w.op << ": " << block << "=" << param(w, block) << " must divide " << channels << "="
                        << param(w, channels);
  };
  auto check_nchwc = [check_blocks](const Workload& w) {
    check_blocks(w, "cb", "C");
    check_blocks(w, "kb", "K");
    window_out(w, param(w, "dilation"));
  };
  t.push_back(OpSpec{
      "conv2d_nchwc", "2-D convolution, channels in blocks (NCHW[x]c, ops/blocked.h)",
      "data[N,C/cb,H,W,cb], kernel[K/kb,C/cb,R,S,cb,kb] -> out[N,K/kb,P,Q,kb]", "2·N·K·P·Q·C·R·S",
      blocked_params(true), DTypeRule::kNumeric,
      [](const Workload& w) {
        const int64_t cb = param(w, "cb"), kb = param(w, "kb");
        Tensor data = input(w, "data", {param(w, "N"), param(w, "C") / cb, param(w, "H"), param(w, "W"), cb});
        Tensor kernel = input(w, "kernel", {param(w, "K") / kb, param(w, "C") / cb, param(w, "R"), param(w, "S"), cb, kb});
        Conv2dConfig cfg{param(w, "stride"), param(w, "pad"), param(w, "dilation"), 1};
        return te::create_prim_func({data, kernel, conv2d_nchwc(data, kernel, cfg)}, w.op);
      },
      blocked_conv_flops,
      check_nchwc});

  for (const bool small : {false, true}) {
    t.push_back(OpSpec{
        small ? "conv2d_nchwc_u8s7s32" : "conv2d_nchwc_u8s8s32",
        small ? "int8 2-D convolution, channels in blocks, weights of 7 bits: uint8 data, int8 weights in [-64, 64], "
                "int32 sums"
              : "int8 2-D convolution, channels in blocks: uint8 data, int8 weights, int32 sums",
        "data[N,C/cb,H,W,cb] uint8, kernel[K/kb,C/cb,R,S,cb/4,kb,4] int8 -> out[N,K/kb,P,Q,kb] int32",
        "2·N·K·P·Q·C·R·S", blocked_params(true), DTypeRule::kFixed,
        [small](const Workload& w) {
          const int64_t cb = param(w, "cb"), kb = param(w, "kb");
          Tensor data = input("data", {param(w, "N"), param(w, "C") / cb, param(w, "H"), param(w, "W"), cb},
                              DataType::UInt(8));
          Tensor kernel = input(
              "kernel", {param(w, "K") / kb, param(w, "C") / cb, param(w, "R"), param(w, "S"), cb / 4, kb, 4},
              DataType::Int(8));
          Conv2dConfig cfg{param(w, "stride"), param(w, "pad"), param(w, "dilation"), 1};
          Tensor out = conv2d_nchwc_dot4(data, kernel, cfg, DataType::Int(32));
          return te::create_prim_func({data, kernel, small ? small_weights(out) : out}, w.op);
        },
        blocked_conv_flops,
        [check_nchwc](const Workload& w) {
          check_nchwc(w);
          if (param(w, "cb") % 4 != 0)
            KILN_USER_ERROR() << w.op << ": cb=" << param(w, "cb") << " must be a multiple of 4 (the weights hold four "
                              << "input channels together)";
        }});
  }

  t.push_back(OpSpec{
      "conv2d_winograd_nchwc",
      "3×3 stride-1 convolution by Winograd's F(m×m, 3×3) on blocked channels, the weights transformed "
      "(ops/winograd.h); GFLOP/s count the direct convolution's work",
      "data[N,C/cb,H,W,cb], kernel[m+2,m+2,K/kb,C/cb,cb,kb] -> out[N,K/kb,P,Q,kb]", "2·N·K·P·Q·C·9",
      {req("N", "batch"), req("C", "input channels"), req("H", "input height"), req("W", "input width"),
       req("K", "output channels"), req("pad", "zero padding on every side of height and width", 0),
       req("cb", "input channels per block; divides C"), req("kb", "output channels per block; divides K"),
       opt("m", "output tile: F(m×m, 3×3), 2 or 4", 2, 2, 4)},
      DTypeRule::kFloat,
      [](const Workload& w) {
        const int64_t cb = param(w, "cb"), kb = param(w, "kb"), a = winograd_matrices(param(w, "m")).alpha;
        Tensor data = input(w, "data", {param(w, "N"), param(w, "C") / cb, param(w, "H"), param(w, "W"), cb});
        Tensor kernel = input(w, "kernel", {a, a, param(w, "K") / kb, param(w, "C") / cb, cb, kb});
        return te::create_prim_func(
            {data, kernel, conv2d_winograd_nchwc(data, kernel, param(w, "pad"), param(w, "m"))}, w.op);
      },
      [](const Workload& w) {
        const int64_t P = param(w, "H") + 2 * param(w, "pad") - 2, Q = param(w, "W") + 2 * param(w, "pad") - 2;
        return 2 * product({param(w, "N"), param(w, "K"), P, Q, param(w, "C"), 9});
      },
      [check_blocks](const Workload& w) {
        check_blocks(w, "cb", "C");
        check_blocks(w, "kb", "K");
        winograd_matrices(param(w, "m"));
        if (param(w, "H") + 2 * param(w, "pad") < 3 || param(w, "W") + 2 * param(w, "pad") < 3)
          KILN_USER_ERROR() << w.op << ": the padded input is smaller than the 3×3 kernel";
      }});

  t.push_back(OpSpec{
      "grouped_conv2d_nchwc",
      "grouped 2-D convolution, groups of gw channels in and out, channels in blocks of b that hold whole groups "
      "or a group whole blocks (ops/blocked.h)",
      "data[N,C/b,H,W,b], kernel[C/b,gw/cb,R,S,cb,b] (gw=C/groups, cb=min(gw,b)) -> out[N,C/b,P,Q,b]",
      "2·N·C·P·Q·(C/groups)·R·S",
      [&] {
        std::vector<ParamSpec> p = blocked_params(false);
        p.push_back(req("groups", "channel groups; C/groups divides b or is a multiple of it"));
        return p;
      }(),
      DTypeRule::kNumeric,
      [](const Workload& w) {
        const int64_t b = param(w, "b"), C = param(w, "C"), gw = C / param(w, "groups"), cb = std::min(gw, b);
        Tensor data = input(w, "data", {param(w, "N"), C / b, param(w, "H"), param(w, "W"), b});
        Tensor kernel = input(w, "kernel", {C / b, gw / cb, param(w, "R"), param(w, "S"), cb, b});
        Conv2dConfig cfg{param(w, "stride"), param(w, "pad"), param(w, "dilation"), param(w, "groups")};
        return te::create_prim_func({data, kernel, grouped_conv2d_nchwc(data, kernel, cfg)}, w.op);
      },
      [](const Workload& w) {
        OutHW o = window_out(w, param(w, "dilation"));
        return 2 * product({param(w, "N"), param(w, "C"), o.P, o.Q, param(w, "C") / param(w, "groups"),
                            param(w, "R"), param(w, "S")});
      },
      [check_blocks](const Workload& w) {
        check_blocks(w, "b", "C");
        const int64_t C = param(w, "C"), g = param(w, "groups"), b = param(w, "b");
        if (g < 1 || C % g != 0)
          KILN_USER_ERROR() << w.op << ": groups=" << g << " must divide C=" << C;
        const int64_t gw = C / g;
        if (!group_fits_block(gw, b))
          KILN_USER_ERROR() << w.op << ": a group of C/groups=" << gw << " channels must divide b=" << b
                            << " or be a multiple of it";
        window_out(w, param(w, "dilation"));
      }});

  t.push_back(OpSpec{
      "depthwise_conv2d_nchwc", "depthwise 2-D convolution, channels in blocks (NCHW[x]c, ops/blocked.h)",
      "data[N,C/b,H,W,b], kernel[C/b,R,S,b] -> out[N,C/b,P,Q,b]", "2·N·C·P·Q·R·S", blocked_params(false),
      DTypeRule::kNumeric,
      [](const Workload& w) {
        const int64_t b = param(w, "b");
        Tensor data = input(w, "data", {param(w, "N"), param(w, "C") / b, param(w, "H"), param(w, "W"), b});
        Tensor kernel = input(w, "kernel", {param(w, "C") / b, param(w, "R"), param(w, "S"), b});
        Conv2dConfig cfg{param(w, "stride"), param(w, "pad"), param(w, "dilation"), 1};
        return te::create_prim_func({data, kernel, depthwise_conv2d_nchwc(data, kernel, cfg)}, w.op);
      },
      [](const Workload& w) {
        OutHW o = window_out(w, param(w, "dilation"));
        return 2 * product({param(w, "N"), param(w, "C"), o.P, o.Q, param(w, "R"), param(w, "S")});
      },
      [check_blocks](const Workload& w) {
        check_blocks(w, "b", "C");
        window_out(w, param(w, "dilation"));
      }});

  t.push_back(OpSpec{
      "depthwise_conv2d_nchw", "depthwise 2-D convolution, one filter per channel",
      "data[N,C,H,W], kernel[C,1,R,S] -> out[N,C,P,Q]", "2·N·C·P·Q·R·S", window_params(false),
      DTypeRule::kNumeric,
      [](const Workload& w) {
        Tensor data = input(w, "data", {param(w, "N"), param(w, "C"), param(w, "H"), param(w, "W")});
        Tensor kernel = input(w, "kernel", {param(w, "C"), 1, param(w, "R"), param(w, "S")});
        return te::create_prim_func(
            {data, kernel, depthwise_conv2d_nchw(data, kernel, param(w, "stride"), param(w, "pad"))}, w.op);
      },
      [](const Workload& w) {
        OutHW o = window_out(w, 1);
        return 2 * product({param(w, "N"), param(w, "C"), o.P, o.Q, param(w, "R"), param(w, "S")});
      },
      [](const Workload& w) { window_out(w, 1); }});

  t.push_back(OpSpec{
      "max_pool2d", "2-D max pooling (NCHW); padding never wins", "data[N,C,H,W] -> out[N,C,P,Q]", "N·C·P·Q·R·S",
      window_params(false), DTypeRule::kNumeric,
      [](const Workload& w) {
        Tensor data = input(w, "data", {param(w, "N"), param(w, "C"), param(w, "H"), param(w, "W")});
        return te::create_prim_func({data, max_pool2d(data, pool_config(w))}, w.op);
      },
      [](const Workload& w) {
        OutHW o = window_out(w, 1);
        return product({param(w, "N"), param(w, "C"), o.P, o.Q, param(w, "R"), param(w, "S")});
      },
      [](const Workload& w) { window_out(w, 1); }});

  t.push_back(OpSpec{
      "avg_pool2d", "2-D average pooling (NCHW); padding is left out of each window's count",
      "data[N,C,H,W] -> out[N,C,P,Q]", "N·C·P·Q·(R·S + 1)", window_params(false), DTypeRule::kFloat,
      [](const Workload& w) {
        Tensor data = input(w, "data", {param(w, "N"), param(w, "C"), param(w, "H"), param(w, "W")});
        return te::create_prim_func({data, avg_pool2d(data, pool_config(w))}, w.op);
      },
      [](const Workload& w) {
        OutHW o = window_out(w, 1);
        return product({param(w, "N"), param(w, "C"), o.P, o.Q}) *
               static_cast<double>(param(w, "R") * param(w, "S") + 1);
      },
      [](const Workload& w) { window_out(w, 1); }});

  t.push_back(OpSpec{
      "softmax", "softmax over the last axis (max, exp-sum, divide)", "A[M,N] -> out[M,N]", "5·M·N",
      matrix_params(), DTypeRule::kFloat,
      [](const Workload& w) {
        Tensor A = input(w, "A", {param(w, "M"), param(w, "N")});
        return te::create_prim_func({A, softmax(A)}, w.op);
      },
      [](const Workload& w) { return 5 * product({param(w, "M"), param(w, "N")}); }, nullptr});

  t.push_back(OpSpec{
      "layer_norm", "layer normalisation over the last axis, eps = 1e-5",
      "X[M,N], gamma[N], beta[N] -> out[M,N]", "9·M·N + 4·M", matrix_params(), DTypeRule::kFloat,
      [](const Workload& w) {
        Tensor X = input(w, "X", {param(w, "M"), param(w, "N")});
        Tensor gamma = input(w, "gamma", {param(w, "N")});
        Tensor beta = input(w, "beta", {param(w, "N")});
        return te::create_prim_func({X, gamma, beta, layer_norm(X, gamma, beta)}, w.op);
      },
      [](const Workload& w) {
        double m = static_cast<double>(param(w, "M"));
        return 9 * m * static_cast<double>(param(w, "N")) + 4 * m;
      },
      nullptr});

  auto binary_entry = [](std::string name, std::string summary, Tensor (*fn)(const Tensor&, const Tensor&)) {
    return OpSpec{
        name, std::move(summary), "A[M,N], B[M,N] -> out[M,N]", "M·N", matrix_params(), DTypeRule::kNumeric,
        [fn](const Workload& w) {
          Tensor A = input(w, "A", {param(w, "M"), param(w, "N")});
          Tensor B = input(w, "B", {param(w, "M"), param(w, "N")});
          return te::create_prim_func({A, B, fn(A, B)}, w.op);
        },
        [](const Workload& w) { return product({param(w, "M"), param(w, "N")}); }, nullptr};
  };
  t.push_back(binary_entry("add", "elementwise sum", &ops::add));
  t.push_back(binary_entry("mul", "elementwise product", &ops::mul));

  t.push_back(OpSpec{
      "relu", "elementwise max(x, 0)", "A[M,N] -> out[M,N]", "M·N", matrix_params(), DTypeRule::kNumeric,
      [](const Workload& w) {
        Tensor A = input(w, "A", {param(w, "M"), param(w, "N")});
        return te::create_prim_func({A, relu(A)}, w.op);
      },
      [](const Workload& w) { return product({param(w, "M"), param(w, "N")}); }, nullptr});

  t.push_back(OpSpec{
      "reduce_sum", "sum over the last axis", "A[M,N] -> out[M]", "M·N", matrix_params(), DTypeRule::kNumeric,
      [](const Workload& w) {
        Tensor A = input(w, "A", {param(w, "M"), param(w, "N")});
        return te::create_prim_func({A, reduce_sum(A)}, w.op);
      },
      [](const Workload& w) { return product({param(w, "M"), param(w, "N")}); }, nullptr});

  return t;
}

}  // namespace

const std::vector<OpSpec>& op_table() {
  static const std::vector<OpSpec> table = make_table();
  return table;
}

const OpSpec& find_op(const std::string& name) {
  for (const OpSpec& s : op_table())
    if (s.name == name) return s;
  std::ostringstream known;
  for (const OpSpec& s : op_table()) known << (known.tellp() > 0 ? ", " : "") << s.name;
  KILN_USER_ERROR() << "unknown op '" << name << "' (known ops: " << known.str() << ")";
}

int64_t param(const Workload& w, const std::string& key) {
  auto it = w.params.find(key);
  KILN_ICHECK(it != w.params.end()) << w.op << " workload without key " << key << " after checking";
  return it->second;
}

}  // namespace kiln::ops
