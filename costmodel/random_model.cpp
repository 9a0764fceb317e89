#include "costmodel/random_model.h"

#include <bit>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "costmodel/model_file.h"

namespace kiln::costmodel {
namespace {

// SplitMix64's finaliser: every input bit moves about half the output bits.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class RandomModel final : public CostModel {
 public:
  RandomModel(uint64_t seed, int64_t num_trained) : seed_(seed), num_trained_(num_trained) {}

  void update(const std::vector<ProgramFeatures>& programs, const std::vector<double>& throughput) override {
    KILN_ICHECK(programs.size() == throughput.size())
        << programs.size() << " programs, " << throughput.size() << " throughputs";
    num_trained_ = static_cast<int64_t>(programs.size());
  }

  std::vector<double> predict(const std::vector<ProgramFeatures>& programs) const override {
    std::vector<double> scores;
    scores.reserve(programs.size());
    for (const ProgramFeatures& p : programs) {
      uint64_t h = mix(seed_);
      for (float f : p.rows) h = mix(h ^ std::bit_cast<uint32_t>(f));
      scores.push_back(static_cast<double>(h >> 11) * 0x1.0p-53);
    }
    return scores;
  }

  void save(const std::string& path) const override {
    write_model_file(path, {{"kiln_cost_model", kModelFileVersion},
                            {"kind", kind()},
                            {"seed", seed_},
                            {"num_trained", num_trained_}});
  }

  std::string kind() const override { return "random"; }
  int64_t num_trained() const override { return num_trained_; }

 private:
  uint64_t seed_;
  int64_t num_trained_;
};

}  // namespace

std::unique_ptr<CostModel> make_random_model(uint64_t seed) { return std::make_unique<RandomModel>(seed, 0); }

std::unique_ptr<CostModel> random_model_from_json(const nlohmann::json& doc) {
  try {
    return std::make_unique<RandomModel>(doc.at("seed").get<uint64_t>(), doc.at("num_trained").get<int64_t>());
  } catch (const nlohmann::json::exception& e) {
    KILN_USER_ERROR() << "corrupt random model: " << e.what();
  }
}

}  // namespace kiln::costmodel
