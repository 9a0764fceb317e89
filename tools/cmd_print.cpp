// kiln print WORKLOAD|KEY [--trace FILE | --db FILE] [--postprocess-again] [--lowered | --llvm-ir | --asm] [--print-after-all] [--target T]
#include <iostream>
#include <optional>

#include "targets/codegen/llvm/build_llvm.h"
#include "tir/printer.h"
#include "tools/commands.h"
#include "tools/op_session.h"

namespace kiln::cli {

void add_print(CLI::App& app) {
  struct Args {
    std::string workload;
    std::string target = "llvm";
    bool lowered = false;
    bool after_all = false;
    bool llvm_ir = false;
    bool asm_ = false;
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
  cmd->add_flag("--print-after-all", args->after_all, "print the IR after every lowering step");
  cmd->add_option("--trace", args->trace, "apply the schedule in this trace file (JSON, docs/schedule_trace.md)");
  cmd->add_option("--db", args->db, "without --trace: apply the best schedule this tuning database holds");
  cmd->add_flag("--postprocess-again", args->postprocess_again,
                "postprocess the trace's design anew, as the search does after a mutation, so that decisions "
                "edited by hand take effect");
  cmd->callback([args] {
    Target target = Target::parse(args->target);
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
    if (args->asm_)
      std::cout << emit_assembly(p.lowered, target);
    else if (args->llvm_ir)
      std::cout << emit_llvm_ir(p.lowered, target);
    else
      std::cout << to_string(args->lowered ? p.lowered : p.scheduled);
  });
}

}  // namespace kiln::cli
