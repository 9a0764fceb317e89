#include "tir/schedule/dataflow.h"

#include "core/hash.h"

namespace kiln {

TraceDefs::TraceDefs(const Trace& t) : t_(t) {
  for (size_t i = 0; i < t.size(); ++i) {
    const std::vector<RV>& outs = t.instructions()[i].outputs;
    for (size_t k = 0; k < outs.size(); ++k) {
      if (outs[k].id < 0) continue;
      const size_t id = static_cast<size_t>(outs[k].id);
      if (id >= by_id_.size()) by_id_.resize(id + 1);
      by_id_[id] = Def{i, k};
    }
  }
}

std::optional<TraceDefs::Def> TraceDefs::def(const RV& rv) const {
  if (rv.id < 0 || static_cast<size_t>(rv.id) >= by_id_.size()) return std::nullopt;
  const std::optional<Def>& d = by_id_[static_cast<size_t>(rv.id)];
  if (!d || t_.instructions()[d->instruction].outputs[d->output] != rv) return std::nullopt;
  return d;
}

std::optional<TraceDefs::Def> TraceDefs::def_of_input(size_t i, size_t k) const {
  const std::vector<InstInput>& in = t_.instructions()[i].inputs;
  const RV* rv = k < in.size() ? std::get_if<RV>(&in[k]) : nullptr;
  return rv ? def(*rv) : std::nullopt;
}

std::optional<std::string> TraceDefs::block_name(const RV& rv) const {
  const std::optional<Def> d = def(rv);
  if (!d) return std::nullopt;
  const Instruction& inst = t_.instructions()[d->instruction];
  if (inst.kind != &inst::get_block) return std::nullopt;
  return std::get<BlockNameAttrs>(inst.attrs).name;
}

std::vector<uint64_t> instruction_sites(const Trace& t, bool with_block_names) {
  const TraceDefs defs(t);
  std::vector<uint64_t> sites(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    const Instruction& inst = t.instructions()[i];
    uint64_t h = hash_string(inst.kind->name);
    if (with_block_names || inst.kind != &inst::get_block) h = hash_combine(h, hash_attrs(inst.attrs));
    for (size_t k = 0; k < inst.inputs.size(); ++k) {
      const InstInput& in = inst.inputs[k];
      if (const int64_t* v = std::get_if<int64_t>(&in)) {
        h = hash_combine(hash_combine(h, 1), static_cast<uint64_t>(*v));
      } else if (std::holds_alternative<std::monostate>(in)) {
        h = hash_combine(h, 2);
      } else if (const std::optional<TraceDefs::Def> d = defs.def_of_input(i, k)) {
        h = hash_combine(hash_combine(h, sites[d->instruction]), d->output + 3);
      } else {
        h = hash_combine(h, 0xDEAD);  // a handle nothing made: a broken trace, matching nothing
      }
    }
    sites[i] = h;
  }
  return sites;
}

}  // namespace kiln
