#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <dnnl.hpp>
#include <unordered_map>

#include "bench/baselines.h"

namespace kiln::bench {
namespace {

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

// Runs a primitive (warm-up + timed repeats) on a fresh stream.
std::vector<double> time_primitive(dnnl::engine& eng, dnnl::primitive& p,
                                   const std::unordered_map<int, dnnl::memory>& args, int repeat) {
  dnnl::stream s(eng);
  p.execute(s, args);
  s.wait();
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    p.execute(s, args);
    s.wait();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return times;
}

// A convolution in the layouts its primitive picked, the caller's tensors
// reordered in and its output reordered back, untimed.
std::vector<double> time_in_own_layouts(dnnl::engine& eng, const dnnl::convolution_forward::primitive_desc& pd,
                                        dnnl::memory& src_user, dnnl::memory& w_user, dnnl::memory& dst_user,
                                        int repeat) {
  dnnl::stream st(eng);
  dnnl::memory src(pd.src_desc(), eng), w(pd.weights_desc(), eng), dst(pd.dst_desc(), eng);
  dnnl::reorder(src_user, src).execute(st, src_user, src);
  dnnl::reorder(w_user, w).execute(st, w_user, w);
  st.wait();
  dnnl::convolution_forward prim(pd);
  std::vector<double> times =
      time_primitive(eng, prim, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, dst}}, repeat);
  dnnl::reorder(dst, dst_user).execute(st, dst, dst_user);
  st.wait();
  return times;
}

}  // namespace

std::vector<double> onednn_matmul(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K,
                                  int threads, int repeat) {
  omp_set_num_threads(threads);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::memory::desc a_md({M, K}, dt::f32, tag::ab), b_md({K, N}, dt::f32, tag::ab), c_md({M, N}, dt::f32, tag::ab);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), eng);
  dnnl::matmul prim(pd);
  dnnl::memory a(a_md, eng, const_cast<float*>(A)), b(b_md, eng, const_cast<float*>(B)), c(c_md, eng, C);
  return time_primitive(eng, prim, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}}, repeat);
}

std::vector<double> onednn_matmul_u8s8s32(const uint8_t* A, const int8_t* B, int32_t* C, int64_t M, int64_t N,
                                          int64_t K, bool prepacked, bool b_transposed, int threads, int repeat,
                                          std::string* impl) {
  omp_set_num_threads(threads);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::memory::desc a_md({M, K}, dt::u8, tag::ab), b_plain({K, N}, dt::s8, b_transposed ? tag::ba : tag::ab),
      c_md({M, N}, dt::s32, tag::ab);
  dnnl::memory::desc b_md = prepacked ? dnnl::memory::desc({K, N}, dt::s8, tag::any) : b_plain;
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), eng);
  if (impl) *impl = pd.impl_info_str();
  dnnl::matmul prim(pd);
  dnnl::memory a(a_md, eng, const_cast<uint8_t*>(A)), c(c_md, eng, C);
  dnnl::memory b_given(b_plain, eng, const_cast<int8_t*>(B));
  dnnl::memory b = b_given;
  if (pd.weights_desc() != b_plain) {  // reordered once, untimed
    b = dnnl::memory(pd.weights_desc(), eng);
    dnnl::stream s(eng);
    dnnl::reorder(b_given, b).execute(s, b_given, b);
    s.wait();
  }
  return time_primitive(eng, prim, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}}, repeat);
}

namespace {

// The tensors of a convolution, each in `plain` layout or, with tag::any,
// in the one oneDNN picks.
struct ConvDescs {
  dnnl::memory::desc src, weights, dst;
};

ConvDescs conv_descs(const ConvShape& s, bool plain) {
  return {{{s.N, s.C, s.H, s.W}, dt::f32, plain ? tag::nchw : tag::any},
          {{s.K, s.C, s.R, s.S}, dt::f32, plain ? tag::oihw : tag::any},
          {{s.N, s.K, s.P(), s.Q()}, dt::f32, plain ? tag::nchw : tag::any}};
}

dnnl::convolution_forward::primitive_desc conv_primitive(const ConvShape& s, const ConvDescs& d,
                                                         dnnl::engine& eng) {
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                       d.src, d.weights, d.dst, {s.stride, s.stride}, {s.pad, s.pad},
                                       {s.pad, s.pad});
  return {desc, eng};
}

}  // namespace

std::vector<double> onednn_conv2d_nchw(const float* in, const float* weight, float* out, const ConvShape& s,
                                       int threads, int repeat) {
  omp_set_num_threads(threads);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  ConvDescs d = conv_descs(s, /*plain=*/true);
  dnnl::convolution_forward prim(conv_primitive(s, d, eng));
  dnnl::memory src(d.src, eng, const_cast<float*>(in)), w(d.weights, eng, const_cast<float*>(weight)),
      dst(d.dst, eng, out);
  return time_primitive(eng, prim, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, dst}}, repeat);
}

std::vector<double> onednn_conv2d_blocked(const float* in, const float* weight, float* out, const ConvShape& s,
                                          int threads, int repeat) {
  omp_set_num_threads(threads);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  // Plain tensors outside, the layouts oneDNN prefers inside (format any):
  // the reorders in and out are not timed, as a graph compiler would fold
  // the weights' and keep activations blocked between layers.
  ConvDescs plain = conv_descs(s, /*plain=*/true);
  dnnl::convolution_forward::primitive_desc pd = conv_primitive(s, conv_descs(s, /*plain=*/false), eng);
  dnnl::memory src_user(plain.src, eng, const_cast<float*>(in)), w_user(plain.weights, eng, const_cast<float*>(weight));
  dnnl::memory dst_user(plain.dst, eng, out);
  return time_in_own_layouts(eng, pd, src_user, w_user, dst_user, repeat);
}

std::vector<double> onednn_conv2d_nchwc(const float* in, const float* weight, float* out, const ConvShape& s,
                                        int64_t block, int threads, int repeat, std::string* impl) {
  omp_set_num_threads(threads);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  const bool b16 = block == 16;
  ConvDescs d{{{s.N, s.C, s.H, s.W}, dt::f32, b16 ? tag::nChw16c : tag::nChw8c},
              {{s.K, s.C, s.R, s.S}, dt::f32, b16 ? tag::OIhw16i16o : tag::OIhw8i8o},
              {{s.N, s.K, s.P(), s.Q()}, dt::f32, b16 ? tag::nChw16c : tag::nChw8c}};
  dnnl::convolution_forward::primitive_desc pd = conv_primitive(s, d, eng);
  if (impl) *impl = pd.impl_info_str();
  dnnl::convolution_forward prim(pd);
  dnnl::memory src(d.src, eng, const_cast<float*>(in)), w(d.weights, eng, const_cast<float*>(weight)),
      dst(d.dst, eng, out);
  return time_primitive(eng, prim, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, dst}}, repeat);
}

namespace {

// An int8 convolution given its tensors in the layouts `act` (data and
// output) and `weights`; oneDNN's int8 kernels take their own layouts
// (nhwc for brgconv): data, weights and output all in the layouts it picks,
// reordered untimed, as a graph compiler keeps activations in one layout
// between layers and folds the weights.
std::vector<double> onednn_conv2d_u8s8s32(const uint8_t* in, const int8_t* weight, int32_t* out, const ConvShape& s,
                                          dnnl::memory::format_tag act, dnnl::memory::format_tag weights, int threads,
                                          int repeat, std::string* impl);

}  // namespace

std::vector<double> onednn_conv2d_nchw_u8s8s32(const uint8_t* in, const int8_t* weight, int32_t* out,
                                               const ConvShape& s, int threads, int repeat, std::string* impl) {
  return onednn_conv2d_u8s8s32(in, weight, out, s, tag::nchw, tag::oihw, threads, repeat, impl);
}

std::vector<double> onednn_conv2d_nchwc_u8s8s32(const uint8_t* in, const int8_t* weight, int32_t* out,
                                                const ConvShape& s, int64_t block, int threads, int repeat,
                                                std::string* impl) {
  const bool b16 = block == 16;
  return onednn_conv2d_u8s8s32(in, weight, out, s, b16 ? tag::nChw16c : tag::nChw8c,
                               b16 ? tag::OIhw4i16o4i : tag::OIhw2i8o4i, threads, repeat, impl);
}

namespace {

std::vector<double> onednn_conv2d_u8s8s32(const uint8_t* in, const int8_t* weight, int32_t* out, const ConvShape& s,
                                          dnnl::memory::format_tag act, dnnl::memory::format_tag weights, int threads,
                                          int repeat, std::string* impl) {
  omp_set_num_threads(threads);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  const dnnl::memory::desc src_user_md({s.N, s.C, s.H, s.W}, dt::u8, act);
  const dnnl::memory::desc dst_user_md({s.N, s.K, s.P(), s.Q()}, dt::s32, act);
  const dnnl::memory::desc w_user_md({s.K, s.C, s.R, s.S}, dt::s8, weights);
  const dnnl::memory::desc src_any({s.N, s.C, s.H, s.W}, dt::u8, tag::any);
  const dnnl::memory::desc dst_any({s.N, s.K, s.P(), s.Q()}, dt::s32, tag::any);
  const dnnl::memory::desc w_any({s.K, s.C, s.R, s.S}, dt::s8, tag::any);
  dnnl::convolution_forward::primitive_desc pd(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_any,
                                      w_any, dst_any, {s.stride, s.stride}, {s.pad, s.pad}, {s.pad, s.pad}),
      eng);
  if (impl) *impl = pd.impl_info_str();
  dnnl::memory src_user(src_user_md, eng, const_cast<uint8_t*>(in)), w_user(w_user_md, eng, const_cast<int8_t*>(weight));
  dnnl::memory dst_user(dst_user_md, eng, out);
  return time_in_own_layouts(eng, pd, src_user, w_user, dst_user, repeat);
}

}  // namespace

std::vector<double> onednn_grouped_conv2d_nchwc(const float* in, const float* weight, float* out, const ConvShape& s,
                                                int64_t groups, int64_t block, int threads, int repeat,
                                                std::string* impl) {
  omp_set_num_threads(threads);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream st(eng);
  // kiln's weights [K/b, gw/cb, R, S, cb, b] (ops/blocked.h: gw = C/groups,
  // cb = min(gw, b)) to goihw, whose [G, K/G, gw, R, S] is, flat, each
  // output channel's gw input channels of its own group.
  const int64_t gw = s.C / groups, cb = std::min(gw, block), m = gw / cb, taps = s.R * s.S;
  std::vector<float> goihw(static_cast<size_t>(s.K * gw * taps));
  for (int64_t k = 0; k < s.K; ++k)
    for (int64_t ci = 0; ci < gw; ++ci)
      for (int64_t t = 0; t < taps; ++t)
        goihw[(k * gw + ci) * taps + t] =
            weight[(((k / block) * m + ci / cb) * taps + t) * cb * block + (ci % cb) * block + k % block];
  const tag act = block == 16 ? tag::nChw16c : tag::nChw8c;
  const dnnl::memory::desc src_md({s.N, s.C, s.H, s.W}, dt::f32, act), dst_md({s.N, s.K, s.P(), s.Q()}, dt::f32, act);
  const dnnl::memory::dims wdims{groups, s.K / groups, gw, s.R, s.S};
  const dnnl::memory::desc w_user_md(wdims, dt::f32, tag::goihw), w_any(wdims, dt::f32, tag::any);
  dnnl::convolution_forward::primitive_desc pd(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md,
                                      w_any, dst_md, {s.stride, s.stride}, {s.pad, s.pad}, {s.pad, s.pad}),
      eng);
  if (impl) *impl = pd.impl_info_str();
  dnnl::memory w_user(w_user_md, eng, goihw.data()), w(pd.weights_desc(), eng);
  dnnl::reorder(w_user, w).execute(st, w_user, w);
  st.wait();
  dnnl::convolution_forward prim(pd);
  dnnl::memory src(src_md, eng, const_cast<float*>(in)), dst(dst_md, eng, out);
  return time_primitive(eng, prim, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, dst}}, repeat);
}

}  // namespace kiln::bench
