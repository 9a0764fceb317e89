#include "costmodel/model_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace kiln::costmodel {

void write_model_file(const std::string& path, const nlohmann::json& doc) {
  std::string tmp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) KILN_USER_ERROR() << path << ": cannot write the cost model: " << std::strerror(errno);
    out << doc.dump() << '\n';
    out.close();
    if (!out) {
      std::filesystem::remove(tmp);
      KILN_USER_ERROR() << path << ": cannot write the cost model";
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp);
    KILN_USER_ERROR() << path << ": cannot write the cost model: " << ec.message();
  }
}

nlohmann::json read_model_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) KILN_USER_ERROR() << path << ": cannot read the cost model: " << std::strerror(errno);
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) KILN_USER_ERROR() << path << " is not a kiln cost model: not JSON";
  if (!doc.is_object() || !doc.contains("kiln_cost_model") || !doc.contains("kind"))
    KILN_USER_ERROR() << path << " is not a kiln cost model";
  const nlohmann::json& version = doc.at("kiln_cost_model");
  if (!version.is_number_integer() || version.get<int>() != kModelFileVersion)
    KILN_USER_ERROR() << path << " has cost model format version " << version.dump() << ", this kiln reads "
                      << kModelFileVersion;
  return doc;
}

}  // namespace kiln::costmodel
