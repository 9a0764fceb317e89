#include "costmodel/cost_model.h"

#include "core/error.h"
#include "costmodel/model_file.h"
#include "costmodel/random_model.h"
#include "costmodel/xgb_model.h"

namespace kiln::costmodel {

std::unique_ptr<CostModel> load_cost_model(const std::string& path, int expected_feature_version) {
  nlohmann::json doc = read_model_file(path);
  const nlohmann::json& kind = doc.at("kind");
  try {
    if (kind == "xgb") return xgb_model_from_json(doc, expected_feature_version);
    if (kind == "random") return random_model_from_json(doc);
  } catch (const Error& e) {
    KILN_USER_ERROR() << path << ": " << e.what();
  }
  KILN_USER_ERROR() << path << " holds a cost model of unknown kind " << kind.dump();
}

}  // namespace kiln::costmodel
