// kiln costmodel train --db FILE -o MODEL [--target T] [--json]
//
// Pre-trains an XGBoost cost model from a tuning database's valid records
// (search/pretrain.h) and saves it; `kiln tune-op --cost-model MODEL` starts
// a job from it instead of from nothing.
#include <iostream>
#include <nlohmann/json.hpp>

#include "costmodel/features.h"
#include "costmodel/xgb_model.h"
#include "search/pretrain.h"
#include "tools/commands.h"
#include "tuning_logs/open_database.h"

namespace kiln::cli {
namespace {

struct Args {
  std::string db;
  std::string out;
  std::string target;
  uint64_t seed = 1;
  bool json = false;
};

void train(const Args& a) {
  auto db = tuning::open_database(a.db, tuning::OpenMode::kExisting);
  auto model = costmodel::make_xgb_model(
      {.feature_version = costmodel::kFeatureVersion, .feature_length = costmodel::kFeatureLength, .seed = a.seed});
  search::PretrainCounts c = search::pretrain(*db, a.target, *model);
  if (c.records == 0)
    KILN_USER_ERROR() << tuning::database_name(a.db) << ": no valid record" << (a.target.empty() ? "" : " for target '" + a.target + "'")
                      << " to learn from";
  model->save(a.out);
  std::cout << "trained on " << c.records << " records of " << c.workloads << " workloads"
            << (c.skipped ? " (" + std::to_string(c.skipped) + " whose trace no longer replays were skipped)" : "")
            << "; saved to " << a.out << "\n";
  if (a.json)
    std::cout << nlohmann::json{{"records", c.records}, {"workloads", c.workloads}, {"skipped", c.skipped},
                                {"model", a.out}}
                     .dump()
              << "\n";
}

}  // namespace

void add_costmodel(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("costmodel", "cost models for the search");
  cmd->require_subcommand(1);
  auto a = std::make_shared<Args>();
  CLI::App* t = cmd->add_subcommand("train", "pre-train an XGBoost cost model from a tuning database");
  t->add_option("--db", a->db, "the tuning database: a SQLite file or a postgresql:// URL")->required();
  t->add_option("-o,--output", a->out, "the model file to write")->required();
  t->add_option("--target", a->target, "learn only from records of this target (default: all)");
  t->add_option("--seed", a->seed, "seed of the training");
  t->add_flag("--json", a->json, "print one JSON object as the last line");
  t->callback([a] { train(*a); });
}

}  // namespace kiln::cli
