#include "lsp/TuningRecords.h"

#include <filesystem>
#include <map>
#include <mutex>

namespace isam::lsp {

TuningRecords tuningRecords(const std::string &setting,
                            const std::vector<std::string> &workspaceFolders) {
  std::string path = pipeline::tuningDbPath(setting);
  if (path.empty())
    return {};
  if (std::filesystem::path(path).is_relative() && !workspaceFolders.empty())
    path = (std::filesystem::path(workspaceFolders.front()) / path).string();
  std::error_code ec;
  auto mtime = std::filesystem::last_write_time(path, ec);
  if (ec) // not written yet
    return {nullptr, path + "\n-"};
  std::string stamp = path + "\n" + std::to_string(mtime.time_since_epoch().count());
  static std::mutex mutex;
  static std::map<std::string, TuningRecords> cache; // by path
  std::lock_guard<std::mutex> lock(mutex);
  TuningRecords &cached = cache[path];
  if (cached.stamp != stamp) {
    auto db = pipeline::TuningDb::load(path);
    cached.db = db ? std::make_shared<const pipeline::TuningDb>(std::move(*db)) : nullptr;
    if (!db)
      llvm::consumeError(db.takeError()); // an unreadable database schedules as none
    cached.stamp = stamp;
  }
  return cached;
}

} // namespace isam::lsp
