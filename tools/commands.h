// The `kiln` subcommands. Each registers itself on the CLI app and runs with
// the library doing the work: commands parse arguments, call the library and
// print. A user error (kiln::Error) reaches main, which prints it and exits 2.
#pragma once

#include <CLI/CLI.hpp>

namespace kiln::cli {

void add_bench_op(CLI::App& app);
void add_print(CLI::App& app);
void add_runner(CLI::App& app);
void add_worker(CLI::App& app);
void add_db(CLI::App& app);
void add_tune_op(CLI::App& app);
void add_costmodel(CLI::App& app);
void add_graph(CLI::App& app);
void add_compile(CLI::App& app);
void add_run(CLI::App& app);
void add_tune(CLI::App& app);
void add_job(CLI::App& app);
void add_farm(CLI::App& app);

}  // namespace kiln::cli
