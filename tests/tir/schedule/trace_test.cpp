// The trace's JSON form: what it reads, what it refuses and how it says so.
#include <gtest/gtest.h>

#include "support/error_of.h"

#include "schedule_harness.h"

namespace kiln {
namespace {

using testing::schedule_of;
using testing::workload_func;

std::string error_of(const std::string& text) { return kiln::testing::error_of([&] { Trace::parse(text); }); }

TEST(TraceJson, WrittenInOrderOfDefinition) {
  Schedule sch = schedule_of("matmul:M=8,N=8,K=4");
  auto loops = sch.get_loops(sch.get_block("C"));
  auto t = sch.sample_perfect_tile(loops[1], 2, 4, std::vector<int64_t>{2, 4});
  sch.split(loops[1], {t[0], t[1]});
  EXPECT_EQ(sch.trace().to_json().dump(),
            R"({"instructions":[{"attrs":["C"],"inputs":[],"kind":"get_block","outputs":["b0"]},)"
            R"({"attrs":[],"inputs":["b0"],"kind":"get_loops","outputs":["l1","l2","l3"]},)"
            R"({"attrs":[2,4],"decision":[2,4],"inputs":["l2"],"kind":"sample_perfect_tile","outputs":["v4","v5"]},)"
            R"({"attrs":[],"inputs":["l2","v4","v5"],"kind":"split","outputs":["l6","l7"]}],"kiln_trace":1})");
  EXPECT_EQ(sch.trace().str(),
            "b0 = get_block(\"C\")\n"
            "l1, l2, l3 = get_loops(b0)\n"
            "v4, v5 = sample_perfect_tile(l2, 2, 4, decision=[2,4])\n"
            "l6, l7 = split(l2, v4, v5)\n");
}

TEST(TraceFingerprint, SameForTheSameTraceHoweverMadeAndOtherwiseNot) {
  Schedule sch = schedule_of("matmul:M=8,N=8,K=4");
  auto loops = sch.get_loops(sch.get_block("C"));
  auto t = sch.sample_perfect_tile(loops[1], 2, 4, std::vector<int64_t>{2, 4});
  sch.split(loops[1], {t[0], t[1]});
  const Trace made = sch.trace();
  // Read back from its text (integers come back unsigned), and made again
  // with other handle ids: the same trace.
  EXPECT_EQ(Trace::parse(made.to_json().dump()).fingerprint(), made.fingerprint());
  Schedule again = schedule_of("matmul:M=8,N=8,K=4");
  again.get_block("C");  // a handle more: every later id differs
  made.apply(again);
  Trace replayed;
  for (size_t i = 1; i < again.trace().size(); ++i) replayed.append(again.trace().instructions()[i]);
  EXPECT_EQ(replayed.to_json(), made.to_json());
  EXPECT_EQ(replayed.fingerprint(), made.fingerprint());
  // Another decision, another input or one instruction fewer: another trace.
  EXPECT_NE(made.with_decision(2, TileDecision{{4, 2}}).fingerprint(), made.fingerprint());
  Trace other_loop;
  for (const Instruction& i : made.instructions()) {
    Instruction j = i;
    if (j.kind == &inst::sample_perfect_tile || j.kind == &inst::split) j.inputs[0] = made.instructions()[1].outputs[0];
    other_loop.append(j);
  }
  EXPECT_NE(other_loop.fingerprint(), made.fingerprint());
  EXPECT_NE(made.without_postproc().fingerprint(), Trace().fingerprint());
  Trace shorter;
  for (size_t i = 0; i + 1 < made.size(); ++i) shorter.append(made.instructions()[i]);
  EXPECT_NE(shorter.fingerprint(), made.fingerprint());
}

TEST(TraceJson, MalformedDocuments) {
  EXPECT_NE(error_of("{").find("trace is not valid JSON"), std::string::npos);
  EXPECT_EQ(error_of("[]"), "trace: expected a JSON object, got array");
  EXPECT_EQ(error_of(R"({"kiln_trace": 2, "instructions": []})"), "trace: expected \"kiln_trace\": 1");
  EXPECT_EQ(error_of(R"({"kiln_trace": 1})"), "trace: expected an \"instructions\" array");
  EXPECT_EQ(error_of(R"({"kiln_trace": 1, "instructions": [{"kind": "spilt", "inputs": [], "attrs": [], "outputs": []}]})"),
            "trace instruction 0: unknown instruction kind 'spilt'");
  EXPECT_EQ(error_of(R"({"kiln_trace": 1, "instructions": [{"kind": "split", "inputs": ["l3"], "attrs": [], "outputs": []}]})"),
            "trace instruction 0: (split) input 'l3' is not defined before");
  EXPECT_EQ(error_of(R"({"kiln_trace": 1, "instructions": [{"kind": "get_block", "inputs": [], "attrs": ["C"]}]})"),
            "trace instruction 0: missing \"outputs\"");
  EXPECT_EQ(error_of(R"({"kiln_trace": 1, "instructions": [{"kind": "get_block", "inputs": [], "attrs": ["C"], "outputs": ["x0"]}]})"),
            "trace instruction 0: (get_block) handle 'x0' does not start with b, l or v");
  EXPECT_EQ(error_of(R"({"kiln_trace": 1, "instructions": [{"kind": "get_block", "inputs": [], "attrs": ["C"], "outputs": ["b0"]},
                                                          {"kind": "get_block", "inputs": [], "attrs": ["C"], "outputs": ["b0"]}]})"),
            "trace instruction 1: (get_block) handle 'b0' is defined twice");
  EXPECT_EQ(error_of(R"({"kiln_trace": 1, "instructions": [{"kind": "sample_categorical", "inputs": [], "attrs": [[1], [1]], "outputs": ["v0"]}]})"),
            "trace instruction 0: (sample_categorical) missing \"decision\"");
  EXPECT_EQ(error_of(R"({"kiln_trace": 1, "instructions": [{"kind": "sample_categorical", "inputs": [], "attrs": [[1], [1]], "outputs": ["v0"], "decision": [0]}]})"),
            "trace instruction 0: (sample_categorical) a categorical decision must be an integer, got [0]");
  EXPECT_EQ(error_of(R"({"kiln_trace": 1, "instructions": [{"kind": "get_block", "inputs": [], "attrs": ["C"], "outputs": ["b0"]},
                                                          {"kind": "get_loops", "inputs": ["b0"], "attrs": [], "outputs": ["l1"]},
                                                          {"kind": "sample_perfect_tile", "inputs": ["l1"], "attrs": [2, 0], "outputs": ["v2", "v3"], "decision": [null, 4]}]})"),
            "trace instruction 2: (sample_perfect_tile) expected a tile decision (integers), got [null,4]");
}

TEST(TraceJson, AttributesReadAsTheirKindsTypes) {
  // Refused when read, naming the attribute, not when replayed.
  const std::string head = R"({"kiln_trace": 1, "instructions": [{"kind": "get_block", "inputs": [], "attrs": ["C"], "outputs": ["b0"]},
                                                                 {"kind": "get_loops", "inputs": ["b0"], "attrs": [], "outputs": ["l1"]},)";
  EXPECT_EQ(error_of(head + R"({"kind": "sample_tile", "inputs": ["l1"], "attrs": ["4", 0], "outputs": ["v2"], "decision": null}]})"),
            "trace instruction 2: (sample_tile) \"attrs\": the level count must be an integer, got \"4\"");
  EXPECT_EQ(error_of(head + R"({"kind": "annotate", "inputs": ["l1"], "attrs": ["k", 1.5], "outputs": []}]})"),
            "trace instruction 2: (annotate) \"attrs\": an annotation value must be an integer or a string, got 1.5");
  EXPECT_EQ(error_of(head + R"({"kind": "parallel", "inputs": ["l1"], "attrs": [1], "outputs": []}]})"),
            "trace instruction 2: (parallel) \"attrs\": expected 0 attributes, got [1]");
  EXPECT_EQ(error_of(R"({"kiln_trace": 1, "instructions": [{"kind": "get_block", "inputs": [], "attrs": [7], "outputs": ["b0"]}]})"),
            "trace instruction 0: (get_block) \"attrs\": the block name must be a string, got 7");
  EXPECT_EQ(error_of(head + R"({"kind": "sample_categorical", "inputs": [], "attrs": [[1, "2"], [1]], "outputs": ["v2"], "decision": 0}]})"),
            "trace instruction 2: (sample_categorical) \"attrs\": candidates must be a list of integers, got [1,\"2\"]");
  // Read back as types: a tile sample's level count by name.
  const Trace t = Trace::parse(head + R"({"kind": "sample_tile", "inputs": ["l1"], "attrs": [2, 16], "outputs": ["v2", "v3"], "decision": null}]})");
  EXPECT_EQ(t.instructions()[2].attrs, InstAttrs(TileSampleAttrs{.levels = 2, .max_innermost = 16}));
  EXPECT_EQ(t.instructions()[0].attrs, InstAttrs(BlockNameAttrs{"C"}));
}

TEST(TraceJson, DecisionsReadAsTheirKindsAndWriteBackTheSame) {
  // A sample_tile's null outermost (inferred) and a draw left to be made
  // again (null) survive the round trip.
  const std::string text =
      R"({"instructions":[{"attrs":["C"],"inputs":[],"kind":"get_block","outputs":["b0"]},)"
      R"({"attrs":[],"inputs":["b0"],"kind":"get_loops","outputs":["l1","l2","l3"]},)"
      R"({"attrs":[2,0],"decision":[null,6],"inputs":["l1"],"kind":"sample_tile","outputs":["v4","v5"]},)"
      R"({"attrs":[[0,16],[0.5,0.5]],"decision":1,"inputs":[],"kind":"sample_categorical","outputs":["v6"]},)"
      R"({"attrs":[],"decision":null,"inputs":["b0"],"kind":"sample_compute_location","outputs":["l7"]}],"kiln_trace":1})";
  const Trace t = Trace::parse(text);
  EXPECT_EQ(t.instructions()[2].decision, Decision(TileDecision{{TileDecision::kInferred, 6}}));
  EXPECT_EQ(t.instructions()[3].decision, Decision(CategoricalDecision{1}));
  EXPECT_EQ(t.instructions()[4].decision, Decision());
  EXPECT_EQ(t.to_json().dump(), text);
}

TEST(TraceApply, NamesTheInstructionThatDoesNotFit) {
  // Written for a 64-long loop, replayed on a 48-long one.
  Schedule sch = schedule_of("matmul:M=64,N=8,K=4");
  auto loops = sch.get_loops(sch.get_block("C"));
  auto t = sch.sample_perfect_tile(loops[0], 2, 16, std::vector<int64_t>{4, 16});
  sch.split(loops[0], {t[0], t[1]});
  try {
    apply_trace(sch.trace(), workload_func("matmul:M=48,N=8,K=4"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "trace instruction 2: (sample_perfect_tile) sample_perfect_tile: decision [4,16] is not 2 factors "
                 "of loop 'i0''s extent 48");
  }
  // A trace for another block name.
  try {
    apply_trace(sch.trace(), workload_func("add:M=64,N=8"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "trace instruction 0: (get_block) get_block: no block named 'C' (blocks: add, root)");
  }
}

TEST(TraceApply, ADecisionOfAnotherKindOfDrawIsADecisionError) {
  Schedule sch = schedule_of("matmul:M=64,N=8,K=4");
  auto loops = sch.get_loops(sch.get_block("C"));
  sch.sample_perfect_tile(loops[0], 2, 16, std::vector<int64_t>{4, 16});
  try {
    apply_trace(sch.trace().with_decision(2, CategoricalDecision{1}), workload_func("matmul:M=64,N=8,K=4"));
    FAIL() << "expected an error";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.kind(), ScheduleErrorKind::kDecision);
    EXPECT_STREQ(e.what(),
                 "trace instruction 2: (sample_perfect_tile) sample_perfect_tile: decision 1 is of another kind of draw");
  }
}

TEST(TraceApply, WrongHandleKindInput) {
  const std::string text =
      R"({"kiln_trace": 1, "instructions": [{"kind": "get_block", "inputs": [], "attrs": ["C"], "outputs": ["b0"]},
          {"kind": "parallel", "inputs": ["b0"], "attrs": [], "outputs": []}]})";
  try {
    apply_trace(Trace::parse(text), workload_func("matmul:M=8,N=8,K=4"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "trace instruction 1: (parallel) replay: input 0 must be a loop handle");
  }
}

}  // namespace
}  // namespace kiln
