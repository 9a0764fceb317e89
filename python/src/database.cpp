// kiln.Database: a tuning database (tuning_logs/database.h), a SQLite file
// or a postgresql:// URL, with what `kiln db` does to one.
//
//   db = kiln.Database("tuning.db")
//   rec = db.best(f, "llvm -num-cores=2")      # the record builds use
//   db.export("tuning.jsonl"); other.import_jsonl("tuning.jsonl"); db.merge("theirs.db")
#include <pybind11/stl.h>

#include <fstream>

#include "core/error.h"
#include "ops/workload.h"
#include "python/src/background.h"
#include "python/src/bindings.h"
#include "targets/target.h"
#include "tir/analysis/workload_key.h"
#include "tuning_logs/best.h"
#include "tuning_logs/jsonl.h"
#include "tuning_logs/open_database.h"

namespace kiln::py {
namespace {

using tuning::TuningRecord;

class Db {
 public:
  Db(const std::string& where, bool create)
      : where_(where), db_(tuning::open_database(where, create ? tuning::OpenMode::kCreate : tuning::OpenMode::kExisting)) {}
  tuning::Database& operator*() { return *db_; }
  tuning::Database* operator->() { return db_.get(); }
  const std::string& where() const { return where_; }
  std::string name() const { return tuning::database_name(where_); }

 private:
  std::string where_;
  std::unique_ptr<tuning::Database> db_;
};

// The key of a function, a workload string, or a key as it is.
std::string key_of(pyb::handle w) {
  if (pyb::isinstance<PrimFunc>(w)) return workload_key(w.cast<PrimFunc>());
  const auto s = w.cast<std::string>();
  if (is_workload_key(s)) return s;
  return workload_key(ops::build_workload(ops::parse_workload(s)));
}

std::string target_of(pyb::handle t) {
  if (t.is_none()) return Target::host().str();
  if (pyb::isinstance<Target>(t)) return t.cast<Target>().str();
  return Target::parse(t.cast<std::string>()).str();
}

pyb::dict counts(const tuning::ImportCounts& c) {
  pyb::dict d;
  d["workloads"] = c.workloads;
  d["records"] = c.records;
  d["added"] = c.added;
  d["duplicates"] = c.duplicates;
  return d;
}

}  // namespace

void bind_database(pyb::module_& m) {
  pyb::class_<TuningRecord>(m, "Record", "One measured candidate of a workload on a target, failed ones included.")
      .def_readonly("id", &TuningRecord::id)
      .def_readonly("workload_key", &TuningRecord::workload_key)
      .def_readonly("target", &TuningRecord::target)
      .def_readonly("device_key", &TuningRecord::device_key)
      .def_readonly("cpu_model", &TuningRecord::cpu_model)
      .def_readonly("trace", &TuningRecord::trace_json, "The schedule, as trace JSON (docs/schedule_trace.md).")
      .def_readonly("run_secs", &TuningRecord::run_secs)
      .def_readonly("final_secs", &TuningRecord::final_secs)
      .def_readonly("build_ms", &TuningRecord::build_ms)
      .def_property_readonly("error_kind", [](const TuningRecord& r) { return error_kind_name(r.error_kind); })
      .def_readonly("error_message", &TuningRecord::error_message)
      .def_readonly("kiln_version", &TuningRecord::kiln_version)
      .def_readonly("created_at", &TuningRecord::created_at)
      .def_property_readonly("ok", &TuningRecord::ok)
      .def_property_readonly("median_secs", &TuningRecord::median_secs)
      .def_property_readonly("secs", &TuningRecord::rank_secs,
                             "What it is ranked by: its final measurement's median, else its median.")
      .def("to_dict",
           [](const TuningRecord& r) {
             nlohmann::json j = tuning::to_json(r);
             j["id"] = r.id;
             return to_python(j);
           })
      .def("__repr__", [](const TuningRecord& r) {
        return "<kiln.Record " + std::to_string(r.id) + " " + r.workload_key + " " +
               (r.ok() ? std::to_string(r.rank_secs() * 1e3) + " ms" : std::string(error_kind_name(r.error_kind))) + ">";
      });

  pyb::class_<Db>(m, "Database",
                  "A tuning database: a SQLite file (created if missing, unless create=False) or a postgresql:// URL.")
      .def(pyb::init<const std::string&, bool>(), pyb::arg("path_or_url"), pyb::arg("create") = true)
      .def_property_readonly("name", &Db::name)
      .def_property_readonly("path", &Db::where)
      .def("__len__", [](Db& d) { return d->num_records(); })
      .def("workloads",
           [](Db& d) {
             pyb::list out;
             for (const tuning::WorkloadEntry& w : d->workloads()) {
               pyb::dict e;
               e["key"] = w.key, e["op"] = w.op, e["shape"] = w.shape, e["flops"] = w.flops;
               out.append(e);
             }
             return out;
           },
           "Every workload it knows: key, op, shape (what people read), flops.")
      .def(
          "records",
          [](Db& d, pyb::handle workload, pyb::handle target) {
            std::vector<TuningRecord> out;
            const std::string key = workload.is_none() ? "" : key_of(workload);
            if (!workload.is_none() && !target.is_none()) return d->records_of(key, target_of(target));
            const std::string t = target.is_none() ? "" : target_of(target);
            d->for_each_record([&](const TuningRecord& r) {
              if ((key.empty() || r.workload_key == key) && (t.empty() || r.target == t)) out.push_back(r);
            });
            return out;
          },
          pyb::arg("workload") = pyb::none(), pyb::arg("target") = pyb::none(),
          "Records in the order they were added, failed ones included; of a workload (a function, a workload\n"
          "string or a key) and a target when given.")
      .def(
          "top_k",
          [](Db& d, pyb::handle workload, pyb::handle target, int k) {
            return d->top_k(key_of(workload), target_of(target), k);
          },
          pyb::arg("workload"), pyb::arg("target") = pyb::none(), pyb::arg("k") = 5,
          "The k best valid records of a workload on a target (default: this host), best first.")
      .def(
          "best",
          [](Db& d, pyb::handle workload, pyb::handle target) -> std::optional<TuningRecord> {
            std::vector<TuningRecord> r = d->top_k(key_of(workload), target_of(target), 1);
            if (r.empty()) return std::nullopt;
            return r.front();
          },
          pyb::arg("workload"), pyb::arg("target") = pyb::none(),
          "The record kiln.build(f, target, db=...) and `kiln bench-op --db` compile, or None.")
      .def("targets", [](Db& d, pyb::handle workload) { return d->targets_of(key_of(workload)); },
           pyb::arg("workload"), "The targets it holds records of for a workload.")
      .def(
          "stats",
          [](Db& d) {
            pyb::dict s;
            s["workloads"] = d->workloads().size();
            s["records"] = d->num_records();
            s["by_error"] = d->counts_by_error();
            s["by_target"] = d->counts_by_target();
            return s;
          },
          "Counts: workloads, records, records by error kind ('none' for valid ones), records by target string.")
      .def(
          "export",
          [](Db& d, const std::string& path) {
            std::ofstream out(path);
            if (!out) KILN_USER_ERROR() << "cannot write '" << path << "'";
            return tuning::export_jsonl(*d, out);
          },
          pyb::arg("path"), "Writes every workload and record as JSON lines; returns the lines written.")
      .def(
          "import_jsonl",
          [](Db& d, const std::string& path) {
            std::ifstream in(path);
            if (!in) KILN_USER_ERROR() << "cannot read '" << path << "'";
            return counts(tuning::import_jsonl(*d, in, path));
          },
          pyb::arg("path"),
          "Adds a JSON-lines file's workloads and records, all or (on any error) none; skips duplicates.")
      .def(
          "merge",
          [](Db& d, pyb::handle other) {
            if (pyb::isinstance<Db>(other)) {
              Db& o = other.cast<Db&>();
              return counts(tuning::merge(*d, *o, o.name()));
            }
            Db o(other.cast<std::string>(), false);
            return counts(tuning::merge(*d, *o, o.name()));
          },
          pyb::arg("other"), "Copies another database's workloads and records in, skipping duplicates.")
      .def("prune", [](Db& d, int k) { return d->prune(k); }, pyb::arg("k"),
           "Keeps the k best valid records of every workload and target; returns how many went.")
      .def("__repr__", [](const Db& d) { return "<kiln.Database " + d.name() + ">"; });
}

}  // namespace kiln::py
