// The XGBoost model learns a ranking that the random model cannot, trains
// reproducibly, and answers before it has learned anything.
#include <gtest/gtest.h>

#include "costmodel/random_model.h"
#include "costmodel/xgb_model.h"
#include "synthetic.h"

namespace kiln::costmodel {
namespace {

XgbOptions options(int nthread = 1) {
  XgbOptions o;
  o.feature_version = 1;
  o.feature_length = kSyntheticLength;
  o.nthread = nthread;
  return o;
}

TEST(XgbModel, LearnsASyntheticRanking) {
  SyntheticSet train = synthetic_set(200, 1), held_out = synthetic_set(200, 2);
  auto m = make_xgb_model(options());
  m->update(train.programs, train.throughput);
  EXPECT_EQ(m->num_trained(), 200);
  EXPECT_GT(pairwise_accuracy(m->predict(held_out.programs), held_out.throughput), 0.8);
}

TEST(RandomModel, RanksLikeAGuess) {
  SyntheticSet train = synthetic_set(200, 1), held_out = synthetic_set(200, 2);
  auto m = make_random_model(7);
  m->update(train.programs, train.throughput);
  EXPECT_EQ(m->num_trained(), 200);
  double accuracy = pairwise_accuracy(m->predict(held_out.programs), held_out.throughput);
  EXPECT_GT(accuracy, 0.4);
  EXPECT_LT(accuracy, 0.6);
}

TEST(RandomModel, ScoresAreAFunctionOfSeedAndFeatures) {
  SyntheticSet s = synthetic_set(50, 3);
  std::vector<double> a = make_random_model(7)->predict(s.programs);
  EXPECT_EQ(a, make_random_model(7)->predict(s.programs));
  EXPECT_NE(a, make_random_model(8)->predict(s.programs));
  for (double x : a) {
    EXPECT_GE(x, 0);
    EXPECT_LT(x, 1);
  }
}

TEST(XgbModel, AnUpdateReplacesWhatWasLearned) {
  SyntheticSet train = synthetic_set(200, 1), held_out = synthetic_set(200, 2);
  auto m = make_xgb_model(options());
  std::vector<ProgramFeatures> first(train.programs.begin(), train.programs.begin() + 20);
  std::vector<double> first_y(train.throughput.begin(), train.throughput.begin() + 20);
  m->update(first, first_y);
  EXPECT_EQ(m->num_trained(), 20);
  // The whole set next time, as the search passes it: the first 20 are not counted twice.
  m->update(train.programs, train.throughput);
  EXPECT_EQ(m->num_trained(), 200);

  auto at_once = make_xgb_model(options());
  at_once->update(train.programs, train.throughput);
  EXPECT_EQ(m->predict(held_out.programs), at_once->predict(held_out.programs));
}

TEST(XgbModel, TrainingIsReproducible) {
  SyntheticSet train = synthetic_set(200, 1), held_out = synthetic_set(100, 2);
  auto a = make_xgb_model(options(2)), b = make_xgb_model(options(2));
  a->update(train.programs, train.throughput);
  b->update(train.programs, train.throughput);
  EXPECT_EQ(a->predict(held_out.programs), b->predict(held_out.programs));
}

TEST(XgbModel, ScoresZeroBeforeTraining) {
  SyntheticSet s = synthetic_set(10, 3);
  auto m = make_xgb_model(options());
  EXPECT_EQ(m->predict(s.programs), std::vector<double>(10, 0.0));
  EXPECT_EQ(m->num_trained(), 0);
  EXPECT_TRUE(m->predict({}).empty());
}

TEST(XgbModel, ProgramsWithoutStoresScoreZero) {
  SyntheticSet s = synthetic_set(50, 1);
  s.programs.push_back(ProgramFeatures{kSyntheticLength, {}});
  s.throughput.push_back(0.5);
  auto m = make_xgb_model(options());
  m->update(s.programs, s.throughput);
  EXPECT_EQ(m->num_trained(), 51);
  std::vector<double> scores = m->predict({ProgramFeatures{}, s.programs[0], ProgramFeatures{kSyntheticLength, {}}});
  ASSERT_EQ(scores.size(), 3u);
  EXPECT_EQ(scores[0], 0);
  EXPECT_NE(scores[1], 0);
  EXPECT_EQ(scores[2], 0);
}

}  // namespace
}  // namespace kiln::costmodel
