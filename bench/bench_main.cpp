// kiln_bench: kiln's kernels next to the libraries users would pick instead,
// measured in one process on the same data, with ratios. Run through
// bench/run, which sets up OpenBLAS for this CPU.
//
//   kiln_bench [--workload W[@TRACE...]]... [--db FILE] [--threads 1,2] [--repeat R] [--rounds N]
//              [--postprocess-again] [--out results.json]
//
// For every workload and thread count: kiln's default program, the programs
// the trace files named after each '@' schedule, and with --db the best record the
// tuning database holds for the workload and target (`kiln tune-op`); then each
// baseline that computes the same thing (matmul: OpenBLAS sgemm, oneDNN
// matmul; conv2d_nchw: oneDNN direct convolution on plain NCHW and blocked;
// conv2d_nchwc: oneDNN on the same blocked tensors; conv2d_winograd_nchwc:
// oneDNN's direct blocked convolution on the weights kiln's argument is the
// transform of). Each
// baseline's output is compared with kiln's, so a ratio is never between two
// different computations. kiln's programs and the baselines are timed in
// turn, `--rounds` times (`--repeat` runs each per round), and each reports
// its median over all rounds: a shared machine that slows down for a
// minute slows them alike, where timing one after the other would charge
// the slowdown to whichever ran then (OpenBLAS at 15.5 ms beside oneDNN at
// 26.1 ms in one process, 17.3 and 22.2 in the next). Beside a scheduled
// program the default one runs
// once: its output is the reference the others are checked against, and at
// 0.3 GFLOP/s (matmul 1024^3) timing it as often would take minutes.
// Each program runs untimed for a quarter of a second before it is timed
// (kWarmFor): without that, oneDNN's matmul read 24 ms for its first runs
// after OpenBLAS's and 9.8 ms later, and kiln's conv2d 56² 2.1 ms for whole
// rounds that followed oneDNN's and 1.1 ms for the others.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <nlohmann/json.hpp>

#include "bench/baselines.h"
#include "bench/guarded_main.h"
#include "core/error.h"
#include "driver/op_program.h"
#include "ops/winograd.h"

namespace kiln::bench {
namespace {

// Every program runs untimed for kWarmFor (targets/runtime/timing.h)
// before its timed runs; meanwhile the previous library's idle threads stop
// spinning too (libgomp's under oneDNN after milliseconds, OpenBLAS's after
// up to 0.1 s: THREAD_TIMEOUT, 2^28 cycles).

struct Measured {
  std::string name;
  std::vector<double> times_ms;
  double max_rel_err_vs_kiln = 0;
};

// A baseline: writes its output to `out`, returns the times of `repeat`
// runs, and may name the implementation that ran in `detail`.
struct Baseline {
  std::string name;
  std::function<std::vector<double>(void* out, int repeat, std::string* detail)> run;
};

// The direct 3×3 weights of a Winograd workload (conv2d_winograd_nchwc),
// blocked as conv2d_nchwc's [K/kb, C/cb, 3, 3, cb, kb], drawn at random;
// kiln's argument is their transform, the baselines take them as they are.
NDArray direct_weights(const ops::Workload& w) {
  const int64_t cb = w.params.at("cb"), kb = w.params.at("kb");
  NDArray g(DataType::Float32(), {w.params.at("K") / kb, w.params.at("C") / cb, 3, 3, cb, kb});
  g.fill_random(8);
  return g;
}

std::vector<Baseline> baselines_for(const ops::Workload& w, const std::vector<NDArray>& args,
                                    const NDArray& direct, int threads) {
  if (w.op == "matmul_u8s8s32" || w.op == "dense_u8s8s32") {
    const auto* a = static_cast<const uint8_t*>(args[0].data());
    const auto* b = static_cast<const int8_t*>(args[1].data());
    int64_t M = w.params.at("M"), N = w.params.at("N"), K = w.params.at("K");
    const bool dense = w.op == "dense_u8s8s32";  // B as [N, K]
    auto run = [=](bool packed) {
      return [=](void* out, int r, std::string* impl) {
        return onednn_matmul_u8s8s32(a, b, static_cast<int32_t*>(out), M, N, K, packed, dense, threads, r, impl);
      };
    };
    return {{"onednn_matmul_u8s8s32", run(false)}, {"onednn_matmul_u8s8s32_prepacked", run(true)}};
  }
  if (w.op == "conv2d_nchw_u8s8s32" && w.params.at("dilation") == 1 && w.params.at("groups") == 1) {
    const auto* x = static_cast<const uint8_t*>(args[0].data());
    const auto* k = static_cast<const int8_t*>(args[1].data());
    const ConvShape s{w.params.at("N"), w.params.at("C"), w.params.at("H"),      w.params.at("W"),  w.params.at("K"),
                      w.params.at("R"), w.params.at("S"), w.params.at("stride"), w.params.at("pad")};
    return {{"onednn_conv2d_u8s8s32", [=](void* out, int r, std::string* impl) {
               return onednn_conv2d_nchw_u8s8s32(x, k, static_cast<int32_t*>(out), s, threads, r, impl);
             }}};
  }
  if (w.op == "conv2d_nchwc_u8s8s32" && w.params.at("dilation") == 1 && w.params.at("cb") == w.params.at("kb") &&
      (w.params.at("cb") == 8 || w.params.at("cb") == 16)) {
    const auto* x = static_cast<const uint8_t*>(args[0].data());
    const auto* k = static_cast<const int8_t*>(args[1].data());
    const ConvShape s{w.params.at("N"), w.params.at("C"), w.params.at("H"),      w.params.at("W"),  w.params.at("K"),
                      w.params.at("R"), w.params.at("S"), w.params.at("stride"), w.params.at("pad")};
    const int64_t block = w.params.at("cb");
    return {{"onednn_conv2d_nchwc_u8s8s32", [=](void* out, int r, std::string* impl) {
               return onednn_conv2d_nchwc_u8s8s32(x, k, static_cast<int32_t*>(out), s, block, threads, r, impl);
             }}};
  }
  const float* in0 = args[0].data_as<float>();
  const float* in1 = direct.numel() ? direct.data_as<float>() : args[1].data_as<float>();
  if (w.op == "matmul" && w.dtype == DataType::Float32()) {
    int64_t M = w.params.at("M"), N = w.params.at("N"), K = w.params.at("K");
    return {{"openblas_sgemm", [=](void* out, int r, std::string*) { return openblas_sgemm(in0, in1, static_cast<float*>(out), M, N, K, threads, r); }},
            {"onednn_matmul", [=](void* out, int r, std::string*) { return onednn_matmul(in0, in1, static_cast<float*>(out), M, N, K, threads, r); }}};
  }
  auto conv_shape = [&] {
    return ConvShape{w.params.at("N"), w.params.at("C"), w.params.at("H"),      w.params.at("W"),  w.params.at("K"),
                     w.params.at("R"), w.params.at("S"), w.params.at("stride"), w.params.at("pad")};
  };
  if (w.op == "conv2d_nchw" && w.dtype == DataType::Float32() && w.params.at("groups") == 1 &&
      w.params.at("dilation") == 1) {
    const ConvShape s = conv_shape();
    return {{"onednn_conv2d_nchw_direct",
             [=](void* out, int r, std::string*) { return onednn_conv2d_nchw(in0, in1, static_cast<float*>(out), s, threads, r); }},
            {"onednn_conv2d_blocked_direct",
             [=](void* out, int r, std::string*) { return onednn_conv2d_blocked(in0, in1, static_cast<float*>(out), s, threads, r); }}};
  }
  // A blocked convolution, direct or Winograd's (a 3×3 stride-1 one, whose
  // baseline reads the direct weights): oneDNN's on the same blocked tensors.
  const bool winograd = w.op == "conv2d_winograd_nchwc";
  if (((w.op == "conv2d_nchwc" && w.params.at("dilation") == 1) || winograd) && w.dtype == DataType::Float32() &&
      w.params.at("cb") == w.params.at("kb") && (w.params.at("cb") == 8 || w.params.at("cb") == 16)) {
    const ConvShape s = winograd ? ConvShape{w.params.at("N"), w.params.at("C"), w.params.at("H"), w.params.at("W"),
                                             w.params.at("K"), 3, 3, 1, w.params.at("pad")}
                                 : conv_shape();
    const int64_t block = w.params.at("cb");
    return {{"onednn_conv2d_nchwc", [=](void* out, int r, std::string* impl) {
               return onednn_conv2d_nchwc(in0, in1, static_cast<float*>(out), s, block, threads, r, impl);
             }}};
  }
  // Depthwise and grouped ones, on the same blocked data and output.
  const bool depthwise = w.op == "depthwise_conv2d_nchwc";
  if ((depthwise || w.op == "grouped_conv2d_nchwc") && w.dtype == DataType::Float32() &&
      w.params.at("dilation") == 1 && (w.params.at("b") == 8 || w.params.at("b") == 16)) {
    ConvShape s{w.params.at("N"), w.params.at("C"), w.params.at("H"),      w.params.at("W"), w.params.at("C"),
                w.params.at("R"), w.params.at("S"), w.params.at("stride"), w.params.at("pad")};
    const int64_t groups = depthwise ? s.C : w.params.at("groups"), block = w.params.at("b");
    return {{"onednn_grouped_conv2d_nchwc", [=](void* out, int r, std::string* impl) {
               return onednn_grouped_conv2d_nchwc(in0, in1, static_cast<float*>(out), s, groups, block, threads, r, impl);
             }}};
  }
  return {};
}

std::vector<Measured> run_baselines(const std::vector<Baseline>& baselines, const NDArray& kiln_out, int repeat) {
  std::vector<Measured> out;
  // Each baseline writes into a zeroed array, so one that computes nothing
  // cannot pass the comparison with kiln's output.
  NDArray result = kiln_out.copy();
  for (const Baseline& b : baselines) {
    std::string detail;
    warm_up([&] { b.run(result.data(), 1, &detail); });
    std::fill_n(static_cast<char*>(result.data()), result.nbytes(), 0);
    std::vector<double> times = b.run(result.data(), repeat, &detail);
    out.push_back({detail.empty() ? b.name : b.name + " (" + detail + ")", std::move(times),
                   max_relative_error(result, kiln_out)});
  }
  return out;
}

std::vector<int> parse_threads(const std::string& s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    int n = 0;
    try {
      n = std::stoi(item);
    } catch (...) {
    }
    if (n <= 0) KILN_USER_ERROR() << "bad thread count '" << item << "' in --threads";
    out.push_back(n);
  }
  return out;
}

int run(int argc, char** argv) {
  std::vector<std::string> workloads;
  std::string threads_list = "1,2";
  std::string target_str = "llvm";
  std::string out_path, db;
  int repeat = 5;
  int rounds = 3;
  CLI::App app{"kiln_bench: kiln next to vendor libraries"};
  app.add_option("--workload", workloads, "workloads (default: matmul 1024^3 and a ResNet conv2d, each with its hand schedule)");
  app.add_option("--threads", threads_list, "comma-separated thread counts");
  app.add_option("--target", target_str, "kiln's target");
  app.add_option("--repeat", repeat, "timed runs per program and round")->check(CLI::PositiveNumber);
  app.add_option("--rounds", rounds, "rounds of timing every program in turn")->check(CLI::PositiveNumber);
  app.add_option("--out", out_path, "write the results as JSON here");
  app.add_option("--db", db, "also measure the best record of this tuning database (kiln tune-op)");
  bool postprocess_again = false;
  app.add_flag("--postprocess-again", postprocess_again,
               "postprocess each trace's design anew, so that decisions edited by hand take effect "
               "(driver/op_program.h)");
  CLI11_PARSE(app, argc, argv);
  Target target = Target::parse(target_str);
  if (workloads.empty()) {
    // The hand schedules' register tiles are sized for the vector registers
    // the target has: 32 of 512 bits, or 16 of 256 (examples/schedules/README.md).
    const std::string isa = target.vector_lanes(DataType::Float32()) >= 16 ? "avx512" : "avx2";
    workloads = {"matmul:M=1024,N=1024,K=1024@examples/schedules/matmul_1024_" + isa + ".json",
                 "conv2d_nchw:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1@examples/schedules/conv2d_nchw_" + isa +
                     ".json"};
  }

  nlohmann::json results = nlohmann::json::array();
  std::cout << "openblas core: " << openblas_core_name() << "\n";
  for (const std::string& spec : workloads) {
    // "WORKLOAD@TRACE@TRACE...": measure the traced programs beside the default one.
    std::vector<std::string> parts;
    for (size_t from = 0;;) {
      const size_t at = spec.find('@', from);
      parts.push_back(spec.substr(from, at - from));
      if (at == std::string::npos) break;
      from = at + 1;
    }
    const std::string wstr = parts[0];
    struct Variant {
      std::string label;
      std::unique_ptr<CompiledKernel> kernel;
    };
    std::vector<Variant> variants;
    OpProgram p = prepare_op(wstr, target);
    variants.push_back({"default", build(p.lowered, target)});
    for (size_t i = 1; i < parts.size(); ++i) {
      Trace trace = read_trace_file(parts[i]);
      PrepareOptions options;
      options.trace = &trace;
      options.postprocess_again = postprocess_again;
      variants.push_back({parts[i], build(prepare_op(wstr, target, options).lowered, target)});
    }
    if (!db.empty() && best_trace(db, p.func, target))
      variants.push_back({"tuned (" + db + ")", build(prepare_op(wstr, target, {.db = db}).lowered, target)});
    double flops = ops::workload_flops(p.workload);
    for (int threads : parse_threads(threads_list)) {
      ThreadPool pool(threads);
      std::cout << std::left << std::setw(64) << p.workload.str() << " threads=" << threads << "\n";
      nlohmann::json row = {{"workload", p.workload.str()}, {"threads", threads}, {"target", target.str()}};
      // Every kiln variant runs on the same inputs; the last one's output is
      // what the baselines are checked against, after it is checked against
      // the default program's.
      std::vector<NDArray> args = make_arguments(p.func, 7);
      NDArray direct;
      if (p.workload.op == "conv2d_winograd_nchwc") {
        direct = direct_weights(p.workload);
        const std::vector<float> u = ops::winograd_transform_weights(
            direct.data_as<float>(), p.workload.params.at("K"), p.workload.params.at("C"),
            p.workload.params.at("cb"), p.workload.params.at("kb"), p.workload.params.at("m"));
        std::copy(u.begin(), u.end(), args[1].data_as<float>());
      }
      NDArray reference;
      std::vector<std::vector<double>> kiln_ms(variants.size());
      // Each round's median per program: the ratio of a round is of two
      // programs timed minutes apart at most, where the pooled medians can
      // straddle a change of the host's speed (docs/tuner.md, "Paired by
      // round").
      std::vector<std::vector<double>> kiln_round_ms(variants.size());
      std::vector<std::vector<double>> base_round_ms;
      std::vector<double> kiln_err(variants.size(), 0.0);
      std::vector<Measured> baselines;
      for (int round = 0; round < rounds; ++round) {
        for (size_t i = 0; i < variants.size(); ++i) {
          Variant& v = variants[i];
          const bool reference_only = i == 0 && variants.size() > 1;
          if (reference_only && round > 0) continue;
          if (!reference_only) warm_up([&] { run_kernel(*v.kernel, args, pool); });
          std::fill_n(static_cast<char*>(args.back().data()), args.back().nbytes(), 0);
          std::vector<double> kt = reference_only ? time_kernel(*v.kernel, args, pool, 1, /*warmup=*/0)
                                                  : time_kernel(*v.kernel, args, pool, repeat);
          kiln_ms[i].insert(kiln_ms[i].end(), kt.begin(), kt.end());
          kiln_round_ms[i].push_back(median(kt));
          if (round > 0) continue;
          kiln_err[i] = reference.numel() ? max_relative_error(args.back(), reference) : 0.0;
          if (!reference.numel()) reference = args.back().copy();
          if (kiln_err[i] > check_tolerance(p.func))
            KILN_USER_ERROR() << "schedule " << v.label << " of " << p.workload.str()
                              << " differs from the default program: max relative error " << kiln_err[i];
        }
        // Checked against the output of the last kiln program, just run.
        std::vector<Measured> now = run_baselines(baselines_for(p.workload, args, direct, threads), args.back(), repeat);
        if (baselines.empty()) baselines.resize(now.size());
        base_round_ms.resize(now.size());
        for (size_t b = 0; b < now.size(); ++b) {
          base_round_ms[b].push_back(median(now[b].times_ms));
          baselines[b].name = now[b].name;
          baselines[b].times_ms.insert(baselines[b].times_ms.end(), now[b].times_ms.begin(), now[b].times_ms.end());
          baselines[b].max_rel_err_vs_kiln = std::max(baselines[b].max_rel_err_vs_kiln, now[b].max_rel_err_vs_kiln);
        }
      }
      double best = 0;
      size_t best_variant = 0;
      for (size_t i = 0; i < variants.size(); ++i) {
        const std::vector<double>& kt = kiln_ms[i];
        double g = flops / (median(kt) * 1e-3) / 1e9;
        if (g > best) best_variant = i;
        best = std::max(best, g);
        row["kiln"].push_back({{"schedule", variants[i].label}, {"median_ms", median(kt)}, {"gflops", g},
                               {"times_ms", kt}, {"max_rel_err_vs_default", kiln_err[i]}});
        std::cout << "  " << std::left << std::setw(44) << ("kiln " + variants[i].label) << std::right << std::fixed
                  << std::setprecision(3) << std::setw(10) << median(kt) << " ms " << std::setprecision(1)
                  << std::setw(8) << g << " GFLOP/s\n";
      }
      nlohmann::json base = nlohmann::json::array();
      for (size_t b = 0; b < baselines.size(); ++b) {
        const Measured& m = baselines[b];
        double g = flops / (median(m.times_ms) * 1e-3) / 1e9;
        // The best kiln program against this one, round by round.
        std::vector<double> round_ratios;
        const std::vector<double>& kr = kiln_round_ms[best_variant];
        for (size_t r = 0; r < base_round_ms[b].size() && r < kr.size(); ++r)
          round_ratios.push_back(base_round_ms[b][r] / kr[r]);
        const auto led = std::count_if(round_ratios.begin(), round_ratios.end(), [](double x) { return x >= 1; });
        base.push_back({{"name", m.name}, {"median_ms", median(m.times_ms)}, {"gflops", g},
                        {"times_ms", m.times_ms}, {"max_rel_err_vs_kiln", m.max_rel_err_vs_kiln},
                        {"best_kiln_ratio", best / g}, {"round_ratios", round_ratios},
                        {"median_round_ratio", median(round_ratios)}, {"rounds_kiln_led", led}});
        std::cout << "  " << std::left << std::setw(44) << m.name << std::right << std::setprecision(3)
                  << std::setw(10) << median(m.times_ms) << " ms " << std::setprecision(1) << std::setw(8) << g
                  << " GFLOP/s   best kiln/this = " << std::setprecision(3) << best / g << " (by round: median "
                  << median(round_ratios) << ", kiln ahead in " << led << " of " << round_ratios.size() << ")"
                  << "   max rel err vs kiln " << std::scientific << std::setprecision(1) << m.max_rel_err_vs_kiln
                  << std::fixed << "\n";
      }
      row["baselines"] = base;
      results.push_back(row);
    }
  }
  if (!out_path.empty()) {
    std::ofstream(out_path) << results.dump(2) << "\n";
    std::cout << "wrote " << out_path << "\n";
  }
  return 0;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) { return kiln::bench::guarded_main("kiln_bench", kiln::bench::run, argc, argv); }
