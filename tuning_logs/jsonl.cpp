#include "tuning_logs/jsonl.h"

#include <istream>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>

#include "core/error.h"
#include "tuning_logs/validate.h"

namespace kiln::tuning {

using nlohmann::json;

json to_json(const WorkloadEntry& w) {
  return {{"key", w.key}, {"ir_json", w.ir_json}, {"op", w.op}, {"shape", w.shape}, {"flops", w.flops}};
}

json to_json(const TuningRecord& r) {
  json j = {{"workload_key", r.workload_key}, {"target", r.target},           {"device_key", r.device_key},
          {"cpu_model", r.cpu_model},       {"trace", r.trace_json},        {"run_secs", r.run_secs},
          {"build_ms", r.build_ms},         {"error_kind", error_kind_name(r.error_kind)},   {"error_message", r.error_message},
          {"feature_version", r.feature_version}, {"kiln_version", r.kiln_version}, {"created_at", r.created_at}};
  if (!r.final_secs.empty()) j["final_secs"] = r.final_secs;  // written only when there is one
  return j;
}

namespace {

WorkloadEntry workload_from(const json& j) {
  return {j.at("key").get<std::string>(), j.at("ir_json").get<std::string>(), j.at("op").get<std::string>(),
          j.at("shape").get<std::string>(), j.at("flops").get<double>()};
}

TuningRecord record_from(const json& j) {
  TuningRecord r;
  r.workload_key = j.at("workload_key").get<std::string>();
  r.target = j.at("target").get<std::string>();
  r.device_key = j.at("device_key").get<std::string>();
  r.cpu_model = j.at("cpu_model").get<std::string>();
  r.trace_json = j.at("trace").get<std::string>();
  r.run_secs = j.at("run_secs").get<std::vector<double>>();
  r.build_ms = j.at("build_ms").get<double>();
  r.error_kind = stored_error_kind(j.at("error_kind").get<std::string>(), 0);
  r.error_message = j.at("error_message").get<std::string>();
  r.feature_version = j.at("feature_version").get<int>();
  r.kiln_version = j.at("kiln_version").get<std::string>();
  r.created_at = j.at("created_at").get<int64_t>();
  if (j.contains("final_secs")) r.final_secs = j.at("final_secs").get<std::vector<double>>();
  return r;
}

std::string line(const char* kind, json body) {
  return json{{"kiln_tuning", kJsonlVersion}, {kind, std::move(body)}}.dump();
}

// Adds workloads (refusing collisions before anything is written), then the
// records in one transaction.
ImportCounts add_all(Database& db, const std::vector<WorkloadEntry>& workloads,
                     const std::vector<TuningRecord>& records, const std::string& name) {
  // Collisions first, so that a refused import writes nothing: for a key
  // already held, add_workload adds nothing and throws if the computations differ.
  for (const WorkloadEntry& w : workloads)
    if (db.workload(w.key)) db.add_workload(w);
  for (const WorkloadEntry& w : workloads) db.add_workload(w);
  ImportCounts c;
  c.workloads = static_cast<int64_t>(workloads.size());
  c.records = static_cast<int64_t>(records.size());
  try {
    c.added = db.add_records(records, /*skip_duplicates=*/true);
  } catch (const Error& e) {
    KILN_USER_ERROR() << name << ": " << e.what();
  }
  c.duplicates = c.records - c.added;
  return c;
}

}  // namespace

int64_t export_jsonl(Database& db, std::ostream& out) {
  int64_t n = 0;
  for (const WorkloadEntry& w : db.workloads()) {
    out << line("workload", to_json(w)) << '\n';
    ++n;
  }
  db.for_each_record([&](const TuningRecord& r) {
    out << line("record", to_json(r)) << '\n';
    ++n;
  });
  return n;
}

ImportCounts import_jsonl(Database& db, std::istream& in, const std::string& name) {
  std::vector<WorkloadEntry> workloads;
  std::vector<TuningRecord> records;
  std::map<std::string, bool> known;
  std::string text;
  for (int64_t n = 1; std::getline(in, text); ++n) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      json j = json::parse(text);
      if (!j.is_object() || !j.contains("kiln_tuning")) KILN_USER_ERROR() << "not a kiln tuning line";
      int version = j.at("kiln_tuning").get<int>();
      if (version != kJsonlVersion)
        KILN_USER_ERROR() << "format version " << version << ", this kiln reads " << kJsonlVersion;
      if (j.contains("workload")) {
        workloads.push_back(workload_from(j.at("workload")));
        check_workload(workloads.back());
        known[workloads.back().key] = true;
      } else if (j.contains("record")) {
        records.push_back(record_from(j.at("record")));
        check_record(records.back());
        const std::string& key = records.back().workload_key;
        if (!known.count(key)) known[key] = db.workload(key).has_value();
        if (!known[key]) KILN_USER_ERROR() << "record of workload " << key << ", which neither the file nor the database holds";
      } else {
        KILN_USER_ERROR() << "a line holds neither a workload nor a record";
      }
    } catch (const json::exception& e) {
      KILN_USER_ERROR() << name << ":" << n << ": malformed line: " << e.what();
    } catch (const Error& e) {
      KILN_USER_ERROR() << name << ":" << n << ": " << e.what();
    }
  }
  return add_all(db, workloads, records, name);
}

ImportCounts merge(Database& into, Database& from, const std::string& name) {
  std::vector<WorkloadEntry> workloads = from.workloads();
  for (const WorkloadEntry& w : workloads) {
    try {
      check_workload(w);
    } catch (const Error& e) {
      KILN_USER_ERROR() << name << ": " << e.what();
    }
  }
  std::vector<TuningRecord> records;
  from.for_each_record([&](const TuningRecord& r) {
    try {
      check_record(r);
    } catch (const Error& e) {
      KILN_USER_ERROR() << name << ": record " << r.id << ": " << e.what();
    }
    records.push_back(r);
  });
  return add_all(into, workloads, records, name);
}

}  // namespace kiln::tuning
