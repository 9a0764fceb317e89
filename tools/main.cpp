// kiln: the command line. See docs/cli.md.
#include <iostream>

#include "core/error.h"
#include "tools/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"kiln: an auto-tuning tensor compiler"};
  app.require_subcommand(1);
  kiln::cli::add_bench_op(app);
  kiln::cli::add_print(app);
  kiln::cli::add_runner(app);
  kiln::cli::add_worker(app);
  kiln::cli::add_db(app);
  kiln::cli::add_tune_op(app);
  kiln::cli::add_costmodel(app);
  kiln::cli::add_graph(app);
  kiln::cli::add_compile(app);
  kiln::cli::add_run(app);
  kiln::cli::add_tune(app);
  kiln::cli::add_job(app);
  kiln::cli::add_farm(app);
  auto is_command = [&](const std::string& name) {
    for (const CLI::App* sub : app.get_subcommands({}))
      if (sub->get_name() == name) return true;
    return false;
  };
  if (argc > 1 && argv[1][0] != '-' && !is_command(argv[1])) {
    std::cerr << "kiln: error: unknown command '" << argv[1] << "' (commands: bench-op, print, tune-op, tune, compile, run, costmodel, graph, runner, db, job, farm)\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "kiln: error: " << e.what() << "\n";
    return 2;
  } catch (const kiln::Error& e) {
    std::cerr << "kiln: error: " << e.what() << "\n";
    return 2;
  } catch (const kiln::InternalError& e) {
    std::cerr << "kiln: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
