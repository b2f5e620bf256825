#include "driver/Session.h"
#include "driver/Imports.h"
#include "hw/Host.h"
#include "ir/Canonicalize.h"
#include "ir/Padding.h"
#include "ir/Verify.h"
#include "mapping/Verify.h"
#include "schedule/Verify.h"

#include "syntax/Parser.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace isam {

namespace {

std::string canonical(const std::string &path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::path(path), ec);
  return ec ? path : p.string();
}

std::string formatMs(double ms) {
  std::ostringstream o;
  o << ms;
  return o.str();
}

bool isRegularFile(const fs::path &p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// With ISAMAP_ENABLE_ASSERTIONS, a stage's result is verified (ir/, mapping/, schedule/
// Verify.h) before it is handed out; a broken invariant is reported as an internal error
// (E0901-E0903), never a crash. `verifier` runs only then.
template <class F> void verifyStage(DiagnosticSink &diags, F &&verifier) {
  if constexpr (ISAMAP_ENABLE_ASSERTIONS)
    for (const Diagnostic &d : verifier())
      diags.error(d.code, d.range, d.message);
}

} // namespace

std::string defaultHwdescDir() {
  if (const char *env = std::getenv("ISAMAP_HWDESC"); env && *env)
    return env;
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    fs::path installed = fs::path(exe).parent_path().parent_path() / "share/isamap/hwdesc";
    std::error_code ec;
    if (fs::is_directory(installed, ec))
      return installed.string();
  }
  return ISAMAP_SOURCE_DIR "/hwdesc";
}

Session::Session(SessionOptions options) : options_(std::move(options)) {
  // The hwdesc directory and its parent: both `import "x86_avx512.isam"` and
  // `import "hwdesc/x86_avx512.isam"` resolve.
  std::string hw = defaultHwdescDir();
  options_.searchPath.push_back(hw);
  options_.searchPath.push_back(fs::path(hw).parent_path().string());
  if (options_.importRoots) {
    std::error_code ec;
    for (const auto &root : *options_.importRoots)
      if (!root.empty())
        allowedRoots_.push_back(canonical(fs::absolute(root, ec).string()));
    allowedRoots_.push_back(canonical(fs::absolute(hw, ec).string()));
  }
}

std::vector<const ast::File *> Session::files() const {
  std::vector<const ast::File *> out;
  for (const auto &f : files_)
    out.push_back(f.get());
  return out;
}

std::optional<std::string> Session::readFile(const std::string &path) const {
  if (auto it = options_.overlays.find(canonical(path)); it != options_.overlays.end())
    return it->second;
  std::error_code ec;
  if (fs::is_directory(path, ec))
    return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad())
    return std::nullopt;
  return ss.str();
}

FileId Session::addAndParse(const std::string &path, std::string text) {
  FileId id = sources_.addFile(path, std::move(text));
  loaded_[canonical(path)] = id;
  auto file = std::make_unique<ast::File>(options_.parseCache
                                              ? options_.parseCache->parse(id, sources_, diags_)
                                              : parseFile(id, sources_, diags_));
  files_.push_back(std::move(file));
  return id;
}

bool Session::loadFile(const std::string &path) {
  auto text = readFile(path);
  if (!text) {
    diags_.error("E0603", {},
                 "cannot read '" + path +
                     "': " + (fs::exists(path) ? "it is not a readable file" : "no such file"));
    return false;
  }
  loadText(path, std::move(*text));
  return true;
}

void Session::loadText(const std::string &path, std::string text) {
  FileId id = addAndParse(path, std::move(text));
  std::vector<std::string> stack{canonical(path)};
  loadImports(id, stack);
}

bool Session::importAllowed(const std::string &path) const {
  if (!options_.importRoots)
    return true;
  std::error_code ec;
  std::string canon = canonical(fs::absolute(path, ec).string());
  return std::any_of(allowedRoots_.begin(), allowedRoots_.end(),
                     [&](const std::string &root) { return imports::isInside(canon, root); });
}

std::optional<std::string> Session::resolveImport(const std::string &from, const std::string &path,
                                                  std::vector<std::string> &tried,
                                                  bool &refusedAsWritten) const {
  fs::path p(path);
  std::vector<fs::path> candidates;
  if (p.is_absolute())
    candidates.push_back(p);
  else {
    candidates.push_back(fs::path(from).parent_path() / p);
    for (const auto &dir : options_.searchPath)
      candidates.push_back(fs::path(dir) / p);
  }
  refusedAsWritten = false;
  for (const auto &c : candidates) {
    std::string normal = c.lexically_normal().string();
    if (!importAllowed(normal)) {
      refusedAsWritten |= &c == &candidates.front();
      continue;
    }
    tried.push_back(normal);
    if (options_.overlays.count(canonical(c.string())) || isRegularFile(c))
      return normal;
  }
  return std::nullopt;
}

// Depth-first: `stack` holds the canonical paths of the files being imported, so an import of
// one of them is a cycle.
void Session::loadImports(FileId file, std::vector<std::string> &stack) {
  // Copy: loading imports appends to files_, which may move the vector's elements.
  std::vector<ast::ImportDecl> imports;
  for (const auto &f : files_)
    if (f->id == file)
      imports = f->imports;
  for (const auto &imp : imports) {
    if (!imports::hasIsamExtension(imp.path)) {
      diags_.error("E0605", imp.range,
                   "'" + imp.path +
                       "' is not an isam file: an import names a file ending in .isam");
      continue;
    }
    std::vector<std::string> tried;
    bool refused = false;
    auto resolved = resolveImport(sources_.path(file), imp.path, tried, refused);
    if (!resolved && refused) {
      auto &d = diags_.error("E0604", imp.range,
                             "'" + imp.path + "' is outside the directories imports may read");
      if (!options_.importRootsReason.empty())
        d.note({}, options_.importRootsReason);
      for (const auto &root : allowedRoots_)
        d.note({}, "imports may read files under " + root);
      continue;
    }
    if (!resolved) {
      auto &d =
          diags_.error("E0601", imp.range, "cannot find the imported file '" + imp.path + "'");
      for (const auto &t : tried)
        d.note({}, "looked for " + t);
      continue;
    }
    importPaths_[{imp.range.file, imp.range.begin}] = *resolved;
    std::string key = canonical(*resolved);
    if (std::find(stack.begin(), stack.end(), key) != stack.end()) {
      auto &d = diags_.error("E0602", imp.range,
                             "import cycle: '" + imp.path + "' imports this file again");
      for (const auto &s : stack)
        d.note({}, "imported through " + s);
      continue;
    }
    if (loaded_.count(key))
      continue;
    auto text = readFile(*resolved);
    if (!text) {
      diags_.error("E0603", imp.range, "cannot read '" + *resolved + "'");
      continue;
    }
    if (auto why = imports::whyNotIsam(*text)) {
      // Not parsed: its syntax errors would quote it.
      diags_.error("E0605", imp.range, "'" + imp.path + "' is not an isam file: " + *why);
      continue;
    }
    FileId id = addAndParse(*resolved, std::move(*text));
    stack.push_back(key);
    loadImports(id, stack);
    stack.pop_back();
  }
}

const sema::Symbols &Session::symbols() {
  if (!symbols_)
    symbols_ = sema::collectSymbols(files(), diags_);
  return *symbols_;
}

void Session::checkAll() {
  symbols();
  for (const auto &f : files_)
    for (const auto &k : f->kernels)
      if (!kernelOk_.count(k.name.name))
        kernelOk_[k.name.name] = sema::checkKernel(k, diags_);
  for (const auto &f : files_)
    for (const auto &k : f->kernels)
      schedulePins(k);
  for (const auto &f : files_)
    for (const auto &i : f->instances) {
      auto it = kernelOk_.find(i.kernel.name);
      if (it == kernelOk_.end() || it->second)
        sema::instantiate(i, symbols(), diags_);
    }
  for (const auto &[name, decl] : symbols().targets)
    target(name);
  for (const auto &[name, decl] : symbols().systems)
    sema::buildSystem(*decl, symbols(), diags_);
}

void Session::rewriteInstance(ir::Kernel &kernel) const {
  if (options_.reciprocalMath)
    ir::canonicalize(kernel, {.reciprocalMath = true});
  if (options_.stagePaddedReads)
    ir::stagePaddedReads(kernel);
}

std::vector<ir::Kernel> Session::instances(const InstanceSelector &sel) {
  std::vector<ir::Kernel> out;
  auto keep = [&](std::optional<ir::Kernel> k) {
    if (!k)
      return;
    rewriteInstance(*k);
    verifyStage(diags_, [&] { return ir::verify(*k); });
    out.push_back(std::move(*k));
  };
  const auto &syms = symbols();
  auto kernelChecked = [&](const ast::KernelDecl &k) {
    auto it = kernelOk_.find(k.name.name);
    if (it == kernelOk_.end())
      it = kernelOk_.emplace(k.name.name, sema::checkKernel(k, diags_)).first;
    return it->second;
  };
  if (!sel.instance.empty()) {
    auto it = syms.instances.find(sel.instance);
    if (it == syms.instances.end()) {
      std::vector<std::string> names;
      for (const auto &[n, _] : syms.instances)
        names.push_back(n);
      std::string msg = "no instance named '" + sel.instance + "'";
      if (auto m = closestMatch(sel.instance, names); !m.empty())
        msg += "; did you mean '" + m + "'?";
      diags_.error("E0202", {}, msg);
      return out;
    }
    auto k = syms.kernels.find(it->second->kernel.name);
    if (k != syms.kernels.end() && !kernelChecked(*k->second))
      return out;
    keep(sema::instantiate(*it->second, syms, diags_));
    return out;
  }
  if (!sel.kernel.empty()) {
    auto it = syms.kernels.find(sel.kernel);
    if (it == syms.kernels.end()) {
      diags_.error("E0202", {}, "no kernel named '" + sel.kernel + "'");
      return out;
    }
    for (const auto &[name, _] : sel.sizes) {
      bool known = false;
      for (const auto &p : it->second->sizeParams)
        known = known || p.name == name;
      if (!known)
        diags_.error("E0409", {},
                     "kernel '" + sel.kernel + "' has no size parameter '" + name + "'");
    }
    if (diags_.hasErrors() || !kernelChecked(*it->second))
      return out;
    keep(sema::instantiate(*it->second, sel.kernel, sel.sizes, {}, diags_));
    return out;
  }
  if (const ast::File *main = mainFile())
    for (const auto &i : main->instances) {
      auto k = syms.kernels.find(i.kernel.name);
      if (k != syms.kernels.end() && !kernelChecked(*k->second))
        continue;
      keep(sema::instantiate(i, syms, diags_));
    }
  return out;
}

std::optional<hw::Target> Session::targetInFile(const std::string &path, SourceRange use) {
  std::string key = canonical(path);
  if (!loaded_.count(key)) {
    auto text = readFile(path);
    if (!text) {
      diags_.error("E0603", use, "cannot read the target description '" + path + "'");
      return std::nullopt;
    }
    if (auto why = imports::whyNotIsam(*text)) {
      diags_.error("E0605", use, "'" + path + "' is not an isam file: " + *why);
      return std::nullopt;
    }
    FileId id = addAndParse(path, std::move(*text));
    std::vector<std::string> stack{key};
    loadImports(id, stack);
    symbols_.reset();
  }
  std::vector<std::string> declared;
  for (const auto &file : files_)
    if (file->id == loaded_.at(key))
      for (const auto &t : file->targets)
        declared.push_back(t.name.name);
  if (declared.size() == 1)
    return target(declared[0], use);
  std::string list;
  for (const auto &n : declared)
    list += (list.empty() ? "'" : ", '") + n + "'";
  diags_.error("E0202", use,
               "'" + path + "' declares " +
                   (declared.empty() ? std::string("no target")
                                     : "several targets (" + list +
                                           "): name one, with -I and the file's directory"));
  return std::nullopt;
}

void Session::loadShipped(const std::string &name) {
  if (symbols().targets.count(name) || symbols().systems.count(name) || files_.empty())
    return;
  // Not declared or imported: look for the shipped description of that name.
  std::vector<std::string> tried;
  bool refused = false;
  auto path = resolveImport(sources_.path(0), name + ".isam", tried, refused);
  if (!path || loaded_.count(canonical(*path)))
    return;
  auto text = readFile(*path);
  if (!text || imports::whyNotIsam(*text))
    return;
  FileId id = addAndParse(*path, std::move(*text));
  std::vector<std::string> stack{canonical(*path)};
  loadImports(id, stack);
  symbols_.reset();
}

std::vector<std::string> Session::shippedNames() const {
  std::vector<std::string> names;
  std::vector<std::string> dirs = options_.searchPath;
  dirs.push_back(defaultHwdescDir());
  for (const auto &dir : dirs) {
    std::error_code ec;
    for (const auto &entry : std::filesystem::directory_iterator(dir, ec))
      if (entry.path().extension() == ".isam")
        names.push_back(entry.path().stem().string());
  }
  return names;
}

std::optional<std::string> Session::importedPath(const ast::ImportDecl &import) const {
  auto it = importPaths_.find({import.range.file, import.range.begin});
  if (it == importPaths_.end())
    return std::nullopt;
  return it->second;
}

void Session::requireInstructions(const hw::Target &target,
                                  const schedule::ScheduleOptions &options) {
  constexpr size_t kMaxNotes = 6;
  for (const ir::Kernel &k : instances({})) {
    auto maps = mappings(k, target);
    auto ks = schedule(k, target, options, {}, &maps);
    for (size_t i = 0; i < ks.statements.size() && i < k.statements.size() && i < maps.size();
         ++i) {
      if (ks.statements[i].config.mapping >= 0 || k.statements[i].staged)
        continue;
      std::string message = "s";
      message += std::to_string(i) + " of " + k.name + " runs as scalar code on " + target.name +
                 ", which --require-instructions forbids";
      Diagnostic &d = diags_.error("E0706", k.statements[i].range, message);
      const auto &m = maps[i];
      size_t shown = 0;
      for (const auto &c : m.candidates)
        if (shown++ < kMaxNotes)
          d.note(m.range, target.instructions[size_t(c.instruction)].name +
                              (c.partial ? " runs part of it: " + c.partialNote
                                         : " maps it, but the schedule found scalar code faster"));
      for (const auto &r : m.rejected)
        if (shown++ < kMaxNotes)
          d.note(m.range, target.instructions[size_t(r.instruction)].name + ": " + r.reason);
      if (shown > kMaxNotes)
        d.note(m.range, "and " + std::to_string(shown - kMaxNotes) +
                            " more (isamap map lists every instruction's reason)");
    }
  }
}

bool Session::isSystem(const std::string &name) {
  loadShipped(name);
  return symbols().systems.count(name) > 0;
}

std::optional<hw::Target> Session::target(const std::string &name, SourceRange use) {
  if (auto it = targets_.find(name); it != targets_.end())
    return it->second;
  if (name.find('/') != std::string::npos || name.ends_with(".isam"))
    return targets_[name] = targetInFile(name, use);
  if (name == "host") {
    // The machine we run on (`host` is a keyword: no file can declare a target of that name).
    hw::HostCpu cpu = hw::detectHost();
    std::optional<hw::Target> description = target(hw::hostDescriptionName(cpu), use);
    return targets_[name] =
               description ? std::optional(hw::hostTarget(*description, cpu, options_.hostMeter))
                           : std::nullopt;
  }
  loadShipped(name);
  const auto *syms = &symbols();
  auto it = syms->targets.find(name);
  if (it == syms->targets.end()) {
    auto quotedList = [](const std::vector<ast::Ident> &names) {
      std::string out;
      for (size_t i = 0; i < names.size(); ++i)
        out += (i ? ", '" : "'") + names[i].name + "'";
      return out;
    };
    if (auto sys = syms->systems.find(name); sys != syms->systems.end()) {
      // A system names several targets; commands that run one target need one of them.
      std::vector<ast::Ident> units = sys->second->hosts;
      units.insert(units.end(), sys->second->devices.begin(), sys->second->devices.end());
      diags_.error("E0202", use,
                   "'" + name + "' is a system, not a target; this command needs one target, " +
                       (units.empty() ? std::string("and it names none")
                                      : "e.g. one of its units: " + quotedList(units)));
      return targets_[name] = std::nullopt;
    }
    std::string msg = "unknown target '" + name + "'";
    // A file NAME.isam found on the search path that declares other targets: say which, rather
    // than suggest NAME itself.
    std::vector<std::string> tried;
    bool refused = false;
    if (auto path = sources_.fileCount() == 0
                        ? std::nullopt
                        : resolveImport(sources_.path(0), name + ".isam", tried, refused))
      if (auto f = loaded_.find(canonical(*path)); f != loaded_.end())
        for (const auto &file : files_)
          if (file->id == f->second) {
            std::vector<ast::Ident> declared;
            for (const auto &t : file->targets)
              declared.push_back(t.name);
            msg += "; " + *path + " declares " +
                   (declared.empty()
                        ? std::string("no target")
                        : (declared.size() == 1 ? "target " : "targets ") + quotedList(declared));
            diags_.error("E0202", use, msg);
            return targets_[name] = std::nullopt;
          }
    std::vector<std::string> names;
    for (const auto &n : shippedNames())
      if (n != name)
        names.push_back(n);
    names.push_back("host");
    for (const auto &[n, _] : syms->targets)
      names.push_back(n);
    if (auto m = closestMatch(name, names); !m.empty())
      msg += "; did you mean '" + m + "'?";
    diags_.error("E0202", use, msg);
    return targets_[name] = std::nullopt;
  }
  auto built = sema::buildTarget(*it->second, diags_);
  if (built)
    for (const auto &in : built->instructions)
      verifyStage(diags_, [&] { return ir::verify(in.semantics); });
  return targets_[name] = std::move(built);
}

std::vector<hw::Target> Session::allTargets() {
  std::vector<hw::Target> out;
  for (const auto &[name, decl] : symbols().targets)
    if (auto t = target(name))
      out.push_back(std::move(*t));
  return out;
}

std::vector<mapping::StatementMappings> Session::mappings(const ir::Kernel &kernel,
                                                          const hw::Target &target,
                                                          const mapping::MapOptions &options) {
  auto result = mapping::mapKernel(kernel, target, options);
  for (const auto &m : result)
    verifyStage(diags_, [&] { return mapping::verify(m, kernel, target); });
  for (const auto &m : result)
    if (m.budgetExhausted)
      diags_.warning("W0301", m.range,
                     "the mapping search on " + target.name + " ran out of its " +
                         formatMs(options.budgetMs) +
                         " ms budget; the mappings listed may be incomplete (raise --budget-ms)");
  return result;
}

namespace {

// The scheduler's pins from sema's checked ones: names and sizes as they are, nothing checked.
schedule::StatementPins schedulePinsOf(const sema::KernelPins &checked) {
  schedule::StatementPins out;
  for (const auto &[statement, p] : checked.statements) {
    auto &[pins, range] = out[statement];
    range = p.range;
    if (p.instruction)
      pins.instruction = p.instruction->name;
    for (const auto &t : p.tiles)
      pins.tiles[t.memory.name][t.index.name] = t.size;
    for (const auto &o : p.orders)
      for (const auto &i : o.indices)
        pins.order[o.memory.name].push_back(i.name);
    if (p.parallel)
      pins.parallel = p.parallel->name;
  }
  return out;
}

} // namespace

const sema::KernelPins &Session::schedulePins(const ast::KernelDecl &kernel) {
  auto it = pins_.find(&kernel);
  if (it == pins_.end())
    it = pins_.emplace(&kernel, sema::checkScheduleBlocks(kernel, diags_)).first;
  return it->second;
}

schedule::KernelSchedule Session::schedule(const ir::Kernel &kernel, const hw::Target &target,
                                           const schedule::ScheduleOptions &options,
                                           const mapping::MapOptions &mapOptions,
                                           const std::vector<mapping::StatementMappings> *known) {
  schedule::StatementPins pins;
  if (auto it = symbols().kernels.find(kernel.kernelName); it != symbols().kernels.end()) {
    // Blocks pin statements as written; staged copies (ir/Padding.h) come in between.
    schedule::StatementPins written = schedulePinsOf(schedulePins(*it->second));
    for (size_t s = 0, source = 0; s < kernel.statements.size(); ++s) {
      if (kernel.statements[s].staged)
        continue;
      if (auto p = written.find(source++); p != written.end())
        pins[s] = p->second;
    }
  }
  std::vector<mapping::StatementMappings> computed;
  if (!known)
    computed = mappings(kernel, target, mapOptions);
  const auto &maps = known ? *known : computed;
  auto result = schedule::scheduleKernel(kernel, target, maps, pins, options, diags_);
  verifyStage(diags_, [&] { return schedule::verify(result, kernel, target, maps); });
  return result;
}

std::optional<hw::System> Session::system(const std::string &name) {
  loadShipped(name);
  auto it = symbols().systems.find(name);
  if (it == symbols().systems.end())
    return std::nullopt;
  return sema::buildSystem(*it->second, symbols(), diags_);
}

} // namespace isam
