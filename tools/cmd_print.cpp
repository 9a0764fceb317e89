// kiln print WORKLOAD|KEY [--trace FILE | --db FILE] [--postprocess-again] [--lowered | --llvm-ir | --asm | --source] [--print-after-all] [--target T]
#include <iostream>
#include <optional>

#include "core/error.h"
#include "targets/codegen/gpu/build_gpu.h"
#include "targets/codegen/llvm/build_llvm.h"
#include "tir/printer.h"
#include "tools/commands.h"
#include "driver/op_program.h"

namespace kiln::cli {

void add_print(CLI::App& app) {
  struct Args {
    std::string workload;
    std::string target = "llvm";
    bool lowered = false;
    bool after_all = false;
    bool llvm_ir = false;
    bool asm_ = false;
    bool source = false;
    std::string trace;
    std::string db;
    bool postprocess_again = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("print", "print a workload's IR (block form, or lowered)");
  cmd->add_option("workload", args->workload,
                  "OP:key=value,... (see docs/workloads.md), or with --db a workload key (v1-...) the database "
                  "holds, such as a model's task")
      ->required();
  cmd->add_option("--target", args->target, "target string (lowering depends on its vector width)");
  cmd->add_flag("--lowered", args->lowered, "print the lowered IR that the code generator takes");
  cmd->add_flag("--llvm-ir", args->llvm_ir, "print the optimised LLVM IR of the kernel");
  cmd->add_flag("--asm", args->asm_, "print the kernel's machine code as assembly");
  cmd->add_flag("--source", args->source, "print the kernels' CUDA C or OpenCL C (a cuda or opencl target)");
  cmd->add_flag("--print-after-all", args->after_all, "print the IR after every lowering step");
  cmd->add_option("--trace", args->trace, "apply the schedule in this trace file (JSON, docs/schedule_trace.md)");
  cmd->add_option("--db", args->db, "without --trace: apply the best schedule this tuning database holds");
  cmd->add_flag("--postprocess-again", args->postprocess_again,
                "postprocess the trace's design anew, as the search does after a mutation, so that decisions "
                "edited by hand take effect");
  cmd->callback([args] {
    Target target = Target::parse(args->target);
    if (args->source && !target.is_gpu())
      KILN_USER_ERROR() << "--source prints a GPU target's kernel source; target '" << target.str()
                        << "' is compiled by LLVM (use --llvm-ir or --asm)";
    if ((args->asm_ || args->llvm_ir) && !target.is_cpu())
      KILN_USER_ERROR() << "--llvm-ir and --asm are for llvm targets; for '" << target.kind() << "' use --source";
    PrepareOptions options;
    options.db = args->db;
    options.postprocess_again = args->postprocess_again;
    std::optional<Trace> trace;
    if (!args->trace.empty()) options.trace = &trace.emplace(read_trace_file(args->trace));
    if (args->after_all) {
      options.after_pass = [](const std::string& pass, const PrimFunc& f) {
        std::cout << "# after " << pass << "\n" << to_string(f) << "\n";
      };
    }
    NamedProgram p = prepare_workload_or_key(args->workload, target, options);
    if (args->after_all) return;
    if (args->source)
      std::cout << build_gpu_module(p.lowered, target).source;
    else if (args->asm_)
      std::cout << emit_assembly(p.lowered, target);
    else if (args->llvm_ir)
      std::cout << emit_llvm_ir(p.lowered, target);
    else
      std::cout << to_string(args->lowered ? p.lowered : p.scheduled);
  });
}

}  // namespace kiln::cli
