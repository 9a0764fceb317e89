// The operators kiln refuses on purpose, each with its reason: what a
// static-shape inference compiler cannot hold. Anything else missing from
// the table is refused as not supported yet.
#include <map>

#include "graph/op_table.h"
#include "graph/unsupported.h"

namespace kiln::graph {
namespace {

const char* refusal_reason(const std::string& op) {
  static const char* kDataShape = "its output's shape depends on its input's values; kiln compiles graphs of static shapes";
  static const char* kRandom = "it draws random numbers; kiln compiles deterministic inference graphs";
  static const char* kControl = "it runs subgraphs (control flow); kiln compiles graphs without them";
  static const char* kSequence = "it works on sequences or optionals; kiln computes tensors only";
  static const char* kString = "it works on strings; kiln computes numbers only";
  static const std::map<std::string, const char*> reasons = {
      {"NonZero", kDataShape},         {"Unique", kDataShape},
      {"Compress", kDataShape},        {"NonMaxSuppression", kDataShape},
      {"RandomUniform", kRandom},      {"RandomUniformLike", kRandom},
      {"RandomNormal", kRandom},       {"RandomNormalLike", kRandom},
      {"Bernoulli", kRandom},          {"Multinomial", kRandom},
      {"If", kControl},                {"Loop", kControl},
      {"Scan", kControl},              {"SequenceAt", kSequence},
      {"SequenceConstruct", kSequence}, {"SequenceEmpty", kSequence},
      {"SequenceErase", kSequence},    {"SequenceInsert", kSequence},
      {"SequenceLength", kSequence},   {"SequenceMap", kSequence},
      {"SplitToSequence", kSequence},  {"ConcatFromSequence", kSequence},
      {"Optional", kSequence},         {"OptionalGetElement", kSequence},
      {"OptionalHasElement", kSequence}, {"StringNormalizer", kString},
      {"TfIdfVectorizer", kString},    {"RegexFullMatch", kString},
      {"StringConcat", kString},       {"StringSplit", kString},
  };
  auto it = reasons.find(op);
  return it == reasons.end() ? nullptr : it->second;
}

}  // namespace

void refuse_operator(const Node& n, int64_t opset) {
  if (const char* why = refusal_reason(n.op)) KILN_UNSUPPORTED() << n.describe() << ": " << why;
  KILN_UNSUPPORTED() << n.describe() << ": operator '" << n.op << "' (opset " << opset
                    << ") is not supported yet; `kiln graph --ops` lists those that are";
}

}  // namespace kiln::graph
