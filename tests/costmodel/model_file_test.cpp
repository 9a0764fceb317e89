// Saving and loading: a loaded model predicts exactly as the saved one, and
// every file that is not a usable model is refused with its name.
#include <gtest/gtest.h>


#include <fstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "costmodel/random_model.h"
#include "costmodel/xgb_model.h"
#include "support/scratch.h"
#include "synthetic.h"

namespace kiln::costmodel {
namespace {

std::string fresh_path(const std::string& name) { return testing::scratch_path(name + ".json"); }

std::string write(const std::string& name, const std::string& text) {
  std::string p = fresh_path(name);
  std::ofstream(p) << text;
  return p;
}

XgbOptions options() {
  XgbOptions o;
  o.feature_version = 3;
  o.feature_length = kSyntheticLength;
  return o;
}

std::string trained_xgb_file(const std::string& name) {
  SyntheticSet s = synthetic_set(100, 1);
  auto m = make_xgb_model(options());
  m->update(s.programs, s.throughput);
  std::string p = fresh_path(name);
  m->save(p);
  return p;
}

// Loading `path` throws kiln::Error naming the file and saying `what`.
void expect_refused(const std::string& path, int expected_feature_version, const std::string& what) {
  try {
    load_cost_model(path, expected_feature_version);
    ADD_FAILURE() << path << " was loaded";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
  }
}

TEST(ModelFile, XgbRoundTripPredictsTheSame) {
  SyntheticSet train = synthetic_set(200, 1), held_out = synthetic_set(200, 2);
  auto m = make_xgb_model(options());
  m->update(train.programs, train.throughput);
  std::string p = fresh_path("xgb");
  m->save(p);
  auto loaded = load_cost_model(p, 3);
  EXPECT_EQ(loaded->kind(), "xgb");
  EXPECT_EQ(loaded->num_trained(), 200);
  EXPECT_EQ(loaded->predict(held_out.programs), m->predict(held_out.programs));
}

TEST(ModelFile, FileHoldsTheBoosterAndItsSchema) {
  std::ifstream in(trained_xgb_file("fields"));
  nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc.at("kiln_cost_model"), 1);
  EXPECT_EQ(doc.at("kind"), "xgb");
  EXPECT_EQ(doc.at("feature_version"), 3);
  EXPECT_EQ(doc.at("feature_length"), kSyntheticLength);
  EXPECT_EQ(doc.at("num_trained"), 100);
  EXPECT_TRUE(nlohmann::json::parse(doc.at("booster").get<std::string>()).contains("learner"));
}

TEST(ModelFile, LoadedXgbRetrainsOnWhatItIsGiven) {
  SyntheticSet more = synthetic_set(30, 4);
  auto loaded = load_cost_model(trained_xgb_file("retrain"), 3);
  loaded->update(more.programs, more.throughput);
  EXPECT_EQ(loaded->num_trained(), 30);
}

TEST(ModelFile, UntrainedXgbRoundTrip) {
  std::string p = fresh_path("untrained");
  make_xgb_model(options())->save(p);
  auto loaded = load_cost_model(p, 3);
  EXPECT_EQ(loaded->num_trained(), 0);
  EXPECT_EQ(loaded->predict(synthetic_set(5, 1).programs), std::vector<double>(5, 0.0));
}

TEST(ModelFile, RandomRoundTripPredictsTheSame) {
  SyntheticSet s = synthetic_set(50, 1);
  auto m = make_random_model(11);
  m->update(s.programs, s.throughput);
  std::string p = fresh_path("random");
  m->save(p);
  auto loaded = load_cost_model(p, 3);
  EXPECT_EQ(loaded->kind(), "random");
  EXPECT_EQ(loaded->num_trained(), 50);
  EXPECT_EQ(loaded->predict(s.programs), m->predict(s.programs));
}

TEST(ModelFile, AnyFeatureVersionWhenNoneIsExpected) {
  EXPECT_EQ(load_cost_model(trained_xgb_file("any"), -1)->kind(), "xgb");
}

TEST(ModelFile, RefusesAMissingFile) { expect_refused(fresh_path("missing"), 3, "cannot read"); }

TEST(ModelFile, RefusesANonJsonFile) { expect_refused(write("text", "not json {"), 3, "not JSON"); }

TEST(ModelFile, RefusesJsonThatIsNotAModel) {
  expect_refused(write("other", R"({"kiln_tuning": 1, "record": {}})"), 3, "is not a kiln cost model");
  expect_refused(write("array", "[1, 2]"), 3, "is not a kiln cost model");
}

TEST(ModelFile, RefusesAnUnknownKind) {
  expect_refused(write("kind", R"({"kiln_cost_model": 1, "kind": "mlp"})"), 3, "unknown kind \"mlp\"");
}

TEST(ModelFile, RefusesAnotherFormatVersion) {
  expect_refused(write("format", R"({"kiln_cost_model": 2, "kind": "xgb"})"), 3, "format version 2");
}

TEST(ModelFile, RefusesAnotherFeatureVersion) {
  expect_refused(trained_xgb_file("version"), 4, "feature version 3, this kiln extracts version 4");
}

TEST(ModelFile, RefusesACorruptModel) {
  std::string p = trained_xgb_file("corrupt");
  std::ifstream in(p);
  nlohmann::json doc = nlohmann::json::parse(in);
  in.close();

  nlohmann::json bad = doc;
  bad["booster"] = "{\"learner\": 1";
  expect_refused(write("corrupt-booster", bad.dump()), 3, "corrupt XGBoost model");
  bad = doc;
  bad.erase("params");
  expect_refused(write("corrupt-params", bad.dump()), 3, "corrupt XGBoost cost model");
  bad = doc;
  bad["feature_length"] = kSyntheticLength + 1;
  expect_refused(write("corrupt-length", bad.dump()), 3, "takes 8 features, not 9");
  expect_refused(write("corrupt-random", R"({"kiln_cost_model": 1, "kind": "random", "seed": "x"})"), 3,
                 "corrupt random model");
}

TEST(ModelFile, SaveNamesAnUnwritableFile) {
  std::string p = "/nonexistent-dir/model.json";
  try {
    make_random_model(1)->save(p);
    ADD_FAILURE() << "saved to " << p;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::costmodel
