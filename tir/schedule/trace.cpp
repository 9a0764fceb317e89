#include "tir/schedule/trace.h"

#include <map>
#include <sstream>

#include "core/hash.h"
#include "tir/schedule/schedule.h"

namespace kiln {
namespace {

char kind_letter(RVKind k) {
  switch (k) {
    case RVKind::kBlock: return 'b';
    case RVKind::kLoop: return 'l';
    case RVKind::kExpr: return 'v';
  }
  return '?';
}

// Names handles in order of definition, so equal traces print equal.
class HandleNames {
 public:
  std::string define(const RV& rv) {
    std::string name = kind_letter(rv.kind) + std::to_string(names_.size());
    names_[key(rv)] = name;
    return name;
  }
  std::string name(const RV& rv) const {
    auto it = names_.find(key(rv));
    KILN_ICHECK(it != names_.end()) << "trace uses a handle it never defined";
    return it->second;
  }

 private:
  static std::pair<int, int> key(const RV& rv) { return {static_cast<int>(rv.kind), rv.id}; }
  std::map<std::pair<int, int>, std::string> names_;
};

[[noreturn]] void bad(size_t i, const std::string& what) {
  KILN_USER_ERROR() << "trace instruction " << i << ": " << what;
}

}  // namespace

Trace Trace::with_decision(size_t i, Decision decision) const {
  if (i >= insts_.size()) KILN_USER_ERROR() << "trace has " << insts_.size() << " instructions, no instruction " << i;
  if (!insts_[i].kind->is_sampling)
    KILN_USER_ERROR() << "trace instruction " << i << " (" << insts_[i].kind->name << ") makes no decision";
  Trace t = *this;
  t.insts_[i].decision = std::move(decision);
  return t;
}

void Trace::apply(Schedule& sch) const {
  // Handles of this trace -> handles of sch.
  std::map<std::pair<int, int>, RV> map;
  auto key = [](const RV& rv) { return std::pair<int, int>(static_cast<int>(rv.kind), rv.id); };
  for (size_t i = 0; i < insts_.size(); ++i) {
    const Instruction& inst = insts_[i];
    std::vector<InstInput> inputs;
    for (const InstInput& in : inst.inputs) {
      if (const RV* rv = std::get_if<RV>(&in)) {
        auto it = map.find(key(*rv));
        KILN_ICHECK(it != map.end()) << "trace instruction " << i << " uses an undefined handle";
        inputs.emplace_back(it->second);
      } else {
        inputs.push_back(in);
      }
    }
    std::vector<RV> outputs;
    // Written only when an instruction fails: replay is the search's hot loop.
    auto where = [&] { return "trace instruction " + std::to_string(i) + ": (" + std::string(inst.kind->name) + ") "; };
    try {
      outputs = inst.kind->apply(sch, inputs, inst.attrs, inst.decision);
    } catch (const ScheduleError& e) {
      throw TraceError(i, e.kind(), where() + e.what());
    } catch (const Error& e) {
      throw TraceError(i, ScheduleErrorKind::kOther, where() + e.what());
    }
    if (outputs.size() != inst.outputs.size())
      bad(i, std::string("(") + std::string(inst.kind->name) + ") made " + std::to_string(outputs.size()) +
                 " handles where the trace expects " + std::to_string(inst.outputs.size()));
    for (size_t k = 0; k < outputs.size(); ++k) {
      if (outputs[k].kind != inst.outputs[k].kind)
        bad(i, std::string("(") + std::string(inst.kind->name) + ") output " + std::to_string(k) +
                   " is of another kind than the trace says");
      map[key(inst.outputs[k])] = outputs[k];
    }
  }
}

nlohmann::json Trace::to_json() const {
  HandleNames names;
  nlohmann::json insts = nlohmann::json::array();
  for (const Instruction& inst : insts_) {
    nlohmann::json inputs = nlohmann::json::array();
    for (const InstInput& in : inst.inputs) {
      if (const RV* rv = std::get_if<RV>(&in)) inputs.push_back(names.name(*rv));
      else if (const int64_t* v = std::get_if<int64_t>(&in)) inputs.push_back(*v);
      else inputs.push_back(nullptr);
    }
    nlohmann::json outputs = nlohmann::json::array();
    for (const RV& rv : inst.outputs) outputs.push_back(names.define(rv));
    nlohmann::json j = {{"kind", std::string(inst.kind->name)}, {"inputs", inputs}, {"attrs", attrs_json(inst.attrs)},
                        {"outputs", outputs}};
    if (inst.kind->is_sampling) j["decision"] = decision_json(inst.decision);
    insts.push_back(std::move(j));
  }
  return {{"kiln_trace", kTraceJsonVersion}, {"instructions", insts}};
}

namespace {

// hash_combine, then splitmix64's finalizer: every bit of the input
// reaches every bit of the output, which a fingerprint of many small
// integers needs.
uint64_t mix(uint64_t h, uint64_t x) {
  uint64_t z = hash_combine(h, x);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// A decision's hash: its type (the variant's index) and its numbers.
uint64_t hash_decision(const Decision& d) {
  uint64_t h = mix(8, d.index());
  if (const auto* t = std::get_if<TileDecision>(&d)) {
    for (int64_t x : t->factors) h = mix(h, static_cast<uint64_t>(x));
  } else if (const auto* c = std::get_if<CategoricalDecision>(&d)) {
    h = mix(h, static_cast<uint64_t>(c->index));
  } else if (const auto* l = std::get_if<LocationDecision>(&d)) {
    h = mix(h, static_cast<uint64_t>(l->location));
  }
  return h;
}

}  // namespace

uint64_t Trace::fingerprint() const {
  // Handles are numbered in order of definition, per kind, as to_json's
  // names are; a trace defines a few dozen, so a flat list beats a map.
  std::vector<RV> defined;
  auto index_of = [&](const RV& rv) -> uint64_t {
    for (size_t i = defined.size(); i-- > 0;)
      if (defined[i] == rv) return i;
    KILN_ICHECK(false) << "trace uses a handle it never defined";
    return 0;
  };
  uint64_t h = insts_.size();
  for (const Instruction& inst : insts_) {
    h = mix(h, hash_string(inst.kind->name));
    for (const InstInput& in : inst.inputs) {
      if (const RV* rv = std::get_if<RV>(&in)) h = mix(h, 1000003 * (static_cast<uint64_t>(rv->kind) + 1) + index_of(*rv));
      else if (const int64_t* v = std::get_if<int64_t>(&in)) h = mix(h ^ 0x5555, static_cast<uint64_t>(*v));
      else h = mix(h, 0xAAAA);
    }
    h = mix(h, hash_attrs(inst.attrs));
    for (const RV& rv : inst.outputs) {
      defined.push_back(rv);
      h = mix(h, static_cast<uint64_t>(rv.kind) + 7);
    }
    if (inst.kind->is_sampling) h = mix(h, hash_decision(inst.decision));
  }
  return h;
}

Trace Trace::without_postproc() const {
  Trace t;
  for (const Instruction& inst : insts_) {
    if (inst.kind == &inst::enter_postproc) break;
    t.append(inst);
  }
  return t;
}

Trace Trace::from_json(const nlohmann::json& doc) {
  if (!doc.is_object()) KILN_USER_ERROR() << "trace: expected a JSON object, got " << doc.type_name();
  if (!doc.contains("kiln_trace") || doc["kiln_trace"] != kTraceJsonVersion)
    KILN_USER_ERROR() << "trace: expected \"kiln_trace\": " << kTraceJsonVersion;
  if (!doc.contains("instructions") || !doc["instructions"].is_array())
    KILN_USER_ERROR() << "trace: expected an \"instructions\" array";
  Trace t;
  std::map<std::string, RV> defined;
  int32_t next_id = 0;
  const nlohmann::json& list = doc["instructions"];
  for (size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& j = list[i];
    if (!j.is_object()) bad(i, "expected an object");
    for (const char* field : {"kind", "inputs", "attrs", "outputs"})
      if (!j.contains(field)) bad(i, std::string("missing \"") + field + "\"");
    if (!j["kind"].is_string()) bad(i, "\"kind\" is not a string");
    Instruction inst;
    const std::string kind = j["kind"];
    inst.kind = find_instruction_kind(kind);
    if (!inst.kind) bad(i, "unknown instruction kind '" + kind + "'");
    if (!j["inputs"].is_array() || !j["attrs"].is_array() || !j["outputs"].is_array())
      bad(i, "(" + kind + ") \"inputs\", \"attrs\" and \"outputs\" must be arrays");
    for (const nlohmann::json& in : j["inputs"]) {
      if (in.is_null()) {
        inst.inputs.emplace_back(std::monostate());
      } else if (in.is_number_integer()) {
        inst.inputs.emplace_back(in.get<int64_t>());
      } else if (in.is_string()) {
        auto it = defined.find(in.get<std::string>());
        if (it == defined.end()) bad(i, "(" + kind + ") input '" + in.get<std::string>() + "' is not defined before");
        inst.inputs.emplace_back(it->second);
      } else {
        bad(i, "(" + kind + ") an input must be a handle name, an integer or null, got " + in.dump());
      }
    }
    try {
      inst.attrs = inst.kind->read_attrs(j["attrs"]);
    } catch (const Error& e) {
      bad(i, "(" + kind + ") \"attrs\": " + e.what());
    }
    for (const nlohmann::json& out : j["outputs"]) {
      if (!out.is_string() || out.get<std::string>().empty())
        bad(i, "(" + kind + ") an output must be a handle name, got " + out.dump());
      const std::string name = out;
      RVKind rk;
      switch (name[0]) {
        case 'b': rk = RVKind::kBlock; break;
        case 'l': rk = RVKind::kLoop; break;
        case 'v': rk = RVKind::kExpr; break;
        default: bad(i, "(" + kind + ") handle '" + name + "' does not start with b, l or v");
      }
      if (defined.count(name)) bad(i, "(" + kind + ") handle '" + name + "' is defined twice");
      RV rv{rk, next_id++};
      defined[name] = rv;
      inst.outputs.push_back(rv);
    }
    if (inst.kind->is_sampling) {
      if (!j.contains("decision")) bad(i, "(" + kind + ") missing \"decision\"");
      try {
        inst.decision = inst.kind->read_decision(j["decision"]);
      } catch (const Error& e) {
        bad(i, "(" + kind + ") " + e.what());
      }
    }
    t.append(std::move(inst));
  }
  return t;
}

Trace Trace::parse(const std::string& text) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number out of range
    KILN_USER_ERROR() << "trace is not valid JSON: " << e.what();
  }
  return from_json(doc);
}

std::string Trace::str() const {
  HandleNames names;
  std::ostringstream os;
  for (const Instruction& inst : insts_) {
    std::vector<std::string> outs;
    for (const RV& rv : inst.outputs) outs.push_back(names.define(rv));
    for (size_t k = 0; k < outs.size(); ++k) os << (k ? ", " : "") << outs[k];
    if (!outs.empty()) os << " = ";
    os << inst.kind->name << "(";
    bool first = true;
    auto sep = [&] {
      if (!first) os << ", ";
      first = false;
    };
    for (const InstInput& in : inst.inputs) {
      sep();
      if (const RV* rv = std::get_if<RV>(&in)) os << names.name(*rv);
      else if (const int64_t* v = std::get_if<int64_t>(&in)) os << *v;
      else os << "None";
    }
    for (const nlohmann::json& a : attrs_json(inst.attrs)) {
      sep();
      os << a.dump();
    }
    if (inst.kind->is_sampling) {
      sep();
      os << "decision=" << decision_json(inst.decision).dump();
    }
    os << ")\n";
  }
  return os.str();
}

}  // namespace kiln
