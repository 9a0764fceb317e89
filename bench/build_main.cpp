// kiln_build_bench: where a candidate's build time goes.
//
//   kiln_build_bench --db resnet18.db [--model resnet18.onnx] [--slowest 10] [--sample 200] [--seed 1]
//
// Rebuilds records a tuning database holds, as the builder does
// (rpc/worker/build_worker.cpp), on this thread, and times each stage:
//  - apply: the trace replayed on the workload;
//  - lower: split_prepack and lowering (targets/lower.h), the packs included;
//  - codegen: PrimFunc -> LLVM IR, verified;
//  - opt: LLVM's middle end (O3);
//  - emit: instruction selection to an object file;
//  - link: the shared library (one process of the system's linker).
// With --model, a task's weights are its constants, packed apart as the
// tuner builds them. Records are the `slowest` by their stored build time
// and `sample` more drawn at random; a table per record, then percentiles
// per stage over the sample. The size columns: the program in loops
// before unrolling ("loops") and lowered ("size"), in IR nodes
// (tir/analysis/code_size.h, what the builder's limit reads), and the LLVM
// instructions before and after opt.
#include <CLI/CLI.hpp>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <unistd.h>

#include "bench/guarded_main.h"
#include "core/error.h"
#include "driver/tune.h"
#include "targets/codegen/llvm/codegen.h"
#include "targets/codegen/llvm/cpu_info.h"
#include "targets/codegen/llvm/linker.h"
#include "targets/codegen/llvm/optimize.h"
#include "targets/codegen/llvm/target_machine.h"
#include "targets/lower.h"
#include "tir/analysis/code_size.h"
#include "tir/schedule/schedule.h"
#include "tir/transform/split_prepack.h"
#include "tuning_logs/open_database.h"
#include "tuning_logs/workload_entry.h"

namespace kiln::bench {
namespace {

bool show_passes = false;

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

int64_t llvm_instructions(const llvm::Module& m) {
  int64_t n = 0;
  for (const llvm::Function& f : m)
    for (const llvm::BasicBlock& b : f) n += static_cast<int64_t>(b.size());
  return n;
}

struct Stages {
  double apply = 0, lower = 0, codegen = 0, opt = 0, emit = 0, link = 0;
  int64_t loops = 0, statements = 0, ir_before = 0, ir_after = 0;
  double total() const { return apply + lower + codegen + opt + emit + link; }
};

Stages rebuild(const PrimFunc& func, const std::string& trace_json, const std::vector<size_t>& constants,
               const Target& target, const std::string& dump_path, llvm_backend::Pipeline pipeline) {
  Stages s;
  auto t0 = Clock::now();
  PrimFunc scheduled = apply_trace(Trace::parse(trace_json), func).func();
  s.apply = ms_since(t0);
  t0 = Clock::now();
  SplitPrepack split = split_prepack(scheduled, constants);
  s.loops = code_size(lower_to_loops(split.main, lower_options_for(target)).body());
  std::string passes;
  auto last = Clock::now();
  std::vector<PrimFunc> lowered{lower(split.main, target, [&](const std::string& pass, const PrimFunc& f) {
    if (!show_passes) return;
    passes += " " + pass + "=" + std::to_string(code_size(f.body())) + "/" + std::to_string(int(ms_since(last))) + "ms";
    last = Clock::now();
  })};
  if (show_passes) std::printf("  passes (size/ms):%s\n", passes.c_str());
  for (Prepack& p : split.packs) lowered.push_back(lower(p.func, target));
  s.lower = ms_since(t0);
  for (const PrimFunc& f : lowered) s.statements += code_size(f.body());
  std::vector<std::string> objects;
  for (const PrimFunc& f : lowered) {
    llvm::LLVMContext ctx;
    auto tm = llvm_backend::create_target_machine(target);
    t0 = Clock::now();
    auto m = llvm_backend::generate_module(f, target, *tm, ctx, f->name);
    llvm_backend::verify_module(*m, f->name);
    s.codegen += ms_since(t0);
    s.ir_before += llvm_instructions(*m);
    if (!dump_path.empty() && objects.empty()) {
      std::error_code ec;
      llvm::raw_fd_ostream out(dump_path, ec);
      m->print(out, nullptr);
    }
    t0 = Clock::now();
    llvm_backend::optimize_module(*m, *tm, pipeline);
    s.opt += ms_since(t0);
    s.ir_after += llvm_instructions(*m);
    t0 = Clock::now();
    llvm::SmallVector<char, 0> buf;
    llvm::raw_svector_ostream os(buf);
    llvm::legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
      KILN_USER_ERROR() << "llvm cannot emit an object file for this target";
    pm.run(*m);
    std::string path = std::filesystem::temp_directory_path() /
                       ("kiln-build-bench." + std::to_string(getpid()) + "." + std::to_string(objects.size()) + ".o");
    std::ofstream(path, std::ios::binary).write(buf.data(), static_cast<std::streamsize>(buf.size()));
    objects.push_back(path);
    s.emit += ms_since(t0);
  }
  std::string so = std::filesystem::temp_directory_path() / ("kiln-build-bench." + std::to_string(getpid()) + ".so");
  t0 = Clock::now();
  llvm_backend::link_shared_library(objects, so, llvm_backend::process_triple());
  s.link = ms_since(t0);
  for (const std::string& o : objects) std::filesystem::remove(o);
  std::filesystem::remove(so);
  return s;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

int run(int argc, char** argv) {
  CLI::App app{"kiln_build_bench: where a candidate's build time goes"};
  std::string db_path, model, target_text;
  int slowest = 10, sample = 0;
  uint64_t seed = 1;
  app.add_option("--db", db_path, "tuning database")->required();
  app.add_option("--model", model, "the ONNX model the database tuned: its weights are the tasks' constants");
  app.add_option("--slowest", slowest, "rebuild the records with the longest stored build time");
  app.add_option("--sample", sample, "and this many more drawn at random");
  app.add_option("--seed", seed, "seed of the draw");
  app.add_option("--target", target_text, "build for this target (default: each record's)");
  std::vector<std::string> llvm_args;
  std::string dump_dir, pipeline_name = "kiln";
  std::vector<int64_t> only;
  app.add_option("--llvm-args", llvm_args, "options for LLVM, such as -time-passes");
  app.add_option("--record", only, "rebuild these records only");
  app.add_option("--pipeline", pipeline_name, "LLVM's middle end: kiln (what builds use) or o3 (LLVM's own)")
      ->check(CLI::IsMember({"kiln", "o3"}));
  app.add_flag("--passes", show_passes, "print the code size after each lowering pass");
  app.add_option("--dump-ir", dump_dir, "write each record's unoptimized LLVM IR here (<record>.ll)");
  CLI11_PARSE(app, argc, argv);

  if (!llvm_args.empty()) {
    std::vector<const char*> args{"kiln_build_bench"};
    for (const std::string& a : llvm_args) args.push_back(a.c_str());
    llvm::cl::ParseCommandLineOptions(static_cast<int>(args.size()), args.data());
  }
  std::unique_ptr<tuning::Database> db = tuning::open_database(db_path);
  std::map<std::string, std::vector<size_t>> constants;
  if (!model.empty()) {
    ModelProgram m = prepare_model(model, "", graph::PassOptions{});
    for (const search::SchedulerTask& t : model_tasks(m, false))
      constants[t.task.entry.key] = {t.task.model.constants.begin(), t.task.model.constants.end()};
  }
  std::vector<tuning::TuningRecord> all;
  db->for_each_record([&](const tuning::TuningRecord& r) {
    bool wanted = only.empty() || std::find(only.begin(), only.end(), r.id) != only.end();
    if (wanted && (r.error_kind == ErrorKind::kNone || r.error_kind == ErrorKind::kBuildTimeout)) all.push_back(r);
  });
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.build_ms > b.build_ms; });
  std::vector<tuning::TuningRecord> chosen(all.begin(), all.begin() + std::min<size_t>(all.size(), slowest));
  std::vector<tuning::TuningRecord> rest(all.begin() + static_cast<std::ptrdiff_t>(chosen.size()), all.end());
  std::mt19937_64 rng(seed);
  std::shuffle(rest.begin(), rest.end(), rng);
  const size_t first_sampled = chosen.size();
  chosen.insert(chosen.end(), rest.begin(), rest.begin() + std::min<size_t>(rest.size(), sample));

  std::map<std::string, PrimFunc> funcs;
  std::vector<Stages> sampled;
  std::printf("%6s %-28s %9s | %7s %7s %7s %8s %8s %6s %8s | %8s %8s %8s %8s\n", "record", "op", "stored", "apply",
              "lower", "codegen", "opt", "emit", "link", "total", "loops", "size", "ir", "ir-opt");
  for (size_t i = 0; i < chosen.size(); ++i) {
    const tuning::TuningRecord& r = chosen[i];
    auto [it, fresh] = funcs.try_emplace(r.workload_key);
    std::string op = r.workload_key;
    if (auto w = db->workload(r.workload_key)) {
      if (fresh) it->second = tuning::read_workload_ir(w->ir_json);
      op = w->op;
    }
    const Target target = Target::parse(target_text.empty() ? r.target : target_text);
    Stages s;
    try {
      s = rebuild(it->second, r.trace_json, constants[r.workload_key], target,
                  dump_dir.empty() ? "" : dump_dir + "/" + std::to_string(r.id) + ".ll",
                  pipeline_name == "o3" ? llvm_backend::Pipeline::kO3 : llvm_backend::Pipeline::kKiln);
    } catch (const Error& e) {
      std::printf("%6lld %-28s failed: %s\n", static_cast<long long>(r.id), op.substr(0, 28).c_str(), e.what());
      continue;
    }
    if (i >= first_sampled) sampled.push_back(s);
    std::printf("%6lld %-28s %9.0f | %7.1f %7.1f %7.1f %8.1f %8.1f %6.1f %8.1f | %8lld %8lld %8lld %8lld\n",
                static_cast<long long>(r.id), op.substr(0, 28).c_str(), r.build_ms, s.apply, s.lower, s.codegen,
                s.opt, s.emit, s.link, s.total(), static_cast<long long>(s.loops),
                static_cast<long long>(s.statements),
                static_cast<long long>(s.ir_before), static_cast<long long>(s.ir_after));
    std::fflush(stdout);
  }
  if (sampled.empty()) return 0;
  std::printf("\n%zu sampled records, ms per stage:\n%6s %7s %7s %7s %8s %8s %6s %8s\n", sampled.size(), "", "apply",
              "lower", "codegen", "opt", "emit", "link", "total");
  for (double p : {0.5, 0.9, 0.99}) {
    auto pick = [&](double Stages::*field) {
      std::vector<double> v;
      for (const Stages& s : sampled) v.push_back(s.*field);
      return percentile(v, p);
    };
    std::vector<double> totals;
    for (const Stages& s : sampled) totals.push_back(s.total());
    std::printf("p%-5.0f %7.1f %7.1f %7.1f %8.1f %8.1f %6.1f %8.1f\n", p * 100, pick(&Stages::apply),
                pick(&Stages::lower), pick(&Stages::codegen), pick(&Stages::opt), pick(&Stages::emit),
                pick(&Stages::link), percentile(totals, p));
  }
  return 0;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) { return kiln::bench::guarded_main("kiln_build_bench", kiln::bench::run, argc, argv); }
