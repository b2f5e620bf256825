#include "lsp/Analysis.h"
#include "backends/llvm/Calibrate.h"
#include "lsp/Summaries.h"

#include <cstdio>

namespace isam::lsp {

SessionOptions sessionOptions(const Settings &settings,
                              std::map<std::string, std::string> overlays) {
  SessionOptions options;
  options.searchPath = settings.includeDirs;
  options.searchPath.insert(options.searchPath.end(), settings.workspaceFolders.begin(),
                            settings.workspaceFolders.end());
  options.overlays = std::move(overlays);
  if (settings.confineImports) {
    options.importRoots = options.searchPath;
    options.importRootsReason = "over a network connection, imports are read only from the "
                                "workspace folders, the include directories (isamap.includeDirs) "
                                "and the shipped hardware descriptions";
  }
  return options;
}

Analysis::Analysis(Document doc, std::map<std::string, std::string> overlays, Settings settings,
                   std::shared_ptr<ParseCache> parses, std::shared_ptr<SummaryCache> summaries)
    : doc_(std::move(doc)), settings_(std::move(settings)),
      tuning_(tuningRecords(settings_.tuningDb, settings_.workspaceFolders)),
      summaries_(summaries ? std::move(summaries) : std::make_shared<SummaryCache>()) {
  SessionOptions options = sessionOptions(settings_, overlays);
  options.parseCache = std::move(parses);
  options.hostMeter = backend::measureFmaGflops;
  session_ = std::make_unique<Session>(std::move(options));
  session_->loadText(doc_.path, doc_.text);
  main_ = session_->mainFile()->id;
  session_->checkAll();
  check_ = session_->diagnostics().all();
  // The configured target's description is loaded too, so that the names a `schedule` block
  // takes from it (memories, instructions) resolve, and editing it re-analyses this document.
  target();
  for (FileId f = 0; f < session_->sources().fileCount(); ++f)
    loaded_.insert(canonicalPath(session_->sources().path(f)));
  for (const auto &path : loaded_)
    if (auto it = overlays.find(path); it != overlays.end())
      overlaysRead_.insert(*it);
  index_ = index::SymbolIndex::build(session_->files());
}

bool Analysis::madeFrom(const Document &doc, const Settings &settings,
                        const std::map<std::string, std::string> &overlays) const {
  if (doc.version != doc_.version || doc.text != doc_.text || settings != settings_)
    return false;
  if (tuningRecords(settings.tuningDb, settings.workspaceFolders).stamp !=
      tuning_.stamp) // tuned since
    return false;
  for (const auto &path : loaded_) {
    auto now = overlays.find(path), then = overlaysRead_.find(path);
    if ((now == overlays.end()) != (then == overlaysRead_.end()) ||
        (now != overlays.end() && now->second != then->second))
      return false;
  }
  return true;
}

const LineMap &Analysis::lines(FileId file) {
  auto it = lines_.find(file);
  if (it == lines_.end())
    it = lines_.emplace(file, LineMap(session_->sources().text(file))).first;
  return it->second;
}

const hw::Target *Analysis::target(const std::string &name, std::string *problem) {
  std::string n = name.empty() ? settings_.target : name;
  auto it = targets_.find(n);
  if (it == targets_.end()) {
    // Problems with the target are the configuration's or the request's, not the document's:
    // they are kept apart from its diagnostics.
    size_t before = session_->diagnostics().all().size();
    std::optional<hw::Target> t = session_->target(n);
    std::string why;
    const auto &all = session_->diagnostics().all();
    for (size_t i = before; i < all.size(); ++i)
      if (all[i].severity == Severity::Error)
        why += (why.empty() ? "" : "; ") + all[i].message;
    if (!t && why.empty())
      why = "target '" + n + "' has errors";
    it = targets_.emplace(n, std::pair{std::move(t), why}).first;
  }
  if (!it->second.first && problem)
    *problem = it->second.second;
  return it->second.first ? &*it->second.first : nullptr;
}

const ast::KernelDecl *Analysis::kernelDecl(const std::string &name) {
  const auto &kernels = session_->symbols().kernels;
  auto it = kernels.find(name);
  return it == kernels.end() ? nullptr : it->second;
}

const ast::InstanceDecl *Analysis::instanceDecl(const Subject &s) {
  // The named instance, or the kernel's first: the document's own, then its imports'.
  for (const ast::File *f : session_->files())
    for (const auto &inst : f->instances)
      if (s.instance.empty() ? inst.kernel.name == s.kernel : inst.name.name == s.instance)
        return &inst;
  return nullptr;
}

const ir::Kernel *Analysis::instance(const Subject &s, std::string *problem) {
  std::string k = key({s.kernel, s.instance, ""});
  auto it = instances_.find(k);
  if (it == instances_.end()) {
    const ast::InstanceDecl *decl = instanceDecl(s);
    std::optional<ir::Kernel> ir;
    std::string why;
    if (!decl) {
      why = s.instance.empty()
                ? "declare an instance of '" + s.kernel + "' (instance NAME = " + s.kernel +
                      "<sizes>;) to see how it maps and runs"
                : "no instance named '" + s.instance + "'";
    } else {
      // Problems of the instance were reported by the full check already.
      DiagnosticSink scratch;
      if (const auto *kd = kernelDecl(decl->kernel.name); kd && sema::checkKernel(*kd, scratch))
        ir = sema::instantiate(*decl, session_->symbols(), scratch);
      if (ir)
        session_->rewriteInstance(*ir);
      if (!ir)
        why = "instance '" + decl->name.name + "' has errors";
    }
    it = instances_.emplace(k, std::pair{std::move(ir), why}).first;
  }
  if (!it->second.first && problem)
    *problem = it->second.second;
  return it->second.first ? &*it->second.first : nullptr;
}

const std::vector<mapping::StatementMappings> *
Analysis::mappings(const Subject &s, const StopFn &stop, std::string *problem) {
  if (auto it = mappings_.find(key(s)); it != mappings_.end())
    return &it->second;
  const ir::Kernel *k = instance(s, problem);
  const hw::Target *t = k ? target(s.target, problem) : nullptr;
  if (!k || !t || (stop && stop()))
    return nullptr;
  mapping::MapOptions options;
  options.budgetMs = settings_.mappingBudgetMs;
  return &(mappings_[key(s)] = mapping::mapKernel(*k, *t, options));
}

const schedule::KernelSchedule *Analysis::schedule(const Subject &s, const StopFn &stop,
                                                   std::string *problem) {
  auto it = schedules_.find(key(s));
  if (it == schedules_.end()) {
    const ir::Kernel *k = instance(s, problem);
    const hw::Target *t = k ? target(s.target, problem) : nullptr;
    if (!k || !t || (stop && stop()))
      return nullptr;
    // The mappings this analysis keeps (the lenses and hovers ask for both) are not made again.
    const auto *known = mappings(s, stop, problem);
    if (!known)
      return nullptr;
    schedule::ScheduleOptions options;
    options.budget.candidates = settings_.scheduleCandidates;
    options.budget.milliseconds = 2000;
    if (tuning_.db)
      if (const auto *record = tuning_.db->find(*k, *t))
        options.tuned = pipeline::tunedChoices(*record);
    DiagnosticSink &diags = session_->diagnostics();
    size_t before = diags.errorCount(), first = diags.all().size();
    auto ks = session_->schedule(*k, *t, options, {}, known);
    std::optional<schedule::KernelSchedule> result;
    // A block with an error (reported by the full check) pins less than it says.
    const ast::KernelDecl *decl = kernelDecl(s.kernel);
    if (diags.errorCount() == before && (!decl || session_->schedulePins(*decl).ok))
      result = std::move(ks);
    auto &errors = scheduleErrors_[key(s)];
    for (size_t i = first; i < diags.all().size(); ++i)
      if (diags.all()[i].severity == Severity::Error)
        errors.push_back(diags.all()[i]);
    it = schedules_.emplace(key(s), std::move(result)).first;
  }
  if (!it->second && problem)
    *problem = "the kernel's schedule pins cannot be met (see the problems in the schedule block)";
  return it->second ? &*it->second : nullptr;
}

void Analysis::prepareDiagnostics(const StopFn &stop,
                                  const std::function<void(size_t done, size_t total)> &step) {
  const ast::File *file = nullptr; // the document's syntax tree never changes
  {
    auto held = lock();
    file = &mainAst();
  }
  size_t done = 0, total = file->kernels.size();
  for (const auto &k : file->kernels) {
    if (stop && stop())
      return;
    if (step)
      step(done++, total);
    auto held = lock();
    Subject s{k.name.name, "", ""};
    if (settings_.mappingDiagnostics)
      mappings(s, stop);
    if (!session_->schedulePins(k).statements.empty())
      schedule(s, stop);
  }
  if (step)
    step(total, total);
}

std::vector<Diagnostic> Analysis::mappingDiagnostics(const StopFn &stop) {
  DiagnosticSink sink;
  if (!settings_.mappingDiagnostics)
    return {};
  for (const auto &k : mainAst().kernels) {
    if (stop && stop())
      return {};
    if (const auto *maps = mappings({k.name.name, "", ""}, stop))
      for (const auto &m : *maps)
        mapping::reportUnmapped(m, *target(), sink);
  }
  return sink.all();
}

std::vector<Diagnostic> Analysis::scheduleDiagnostics(const StopFn &stop) {
  std::vector<Diagnostic> out;
  for (const auto &k : mainAst().kernels) {
    // Only pins are checked against the target; the blocks' own problems are the full check's.
    if (session_->schedulePins(k).statements.empty())
      continue;
    if (stop && stop())
      return {};
    Subject s{k.name.name, "", ""};
    if (!schedule(s, stop) && scheduleErrors_.count(key(s)))
      for (const auto &d : scheduleErrors_[key(s)])
        out.push_back(d);
  }
  return out;
}

const std::string &Analysis::summaryContext() {
  if (!summaryContext_.empty())
    return summaryContext_;
  std::string all = settings_.target + '\n' + std::to_string(settings_.mappingBudgetMs) + '\n' +
                    std::to_string(settings_.scheduleCandidates) + '\n' + tuning_.stamp + '\n';
  const SourceManager &sm = session_->sources();
  for (FileId f = 0; f < sm.fileCount(); ++f)
    if (f != main_)
      all += sm.path(f) + '\n' + std::to_string(sm.text(f).size()) + ':' + sm.text(f);
  const ast::File &file = mainAst();
  auto add = [&](const SourceRange &r) {
    if (r.file == main_ && r.begin <= r.end && r.end <= sm.text(main_).size())
      all += '\n' + sm.text(main_).substr(r.begin, r.end - r.begin);
  };
  for (const auto &d : file.imports)
    add(d.range);
  for (const auto &d : file.targets)
    add(d.range);
  for (const auto &d : file.systems)
    add(d.range);
  // Two independent 64-bit hashes (FNV-1a and the library's) and the length.
  uint64_t fnv = 1469598103934665603ull;
  for (unsigned char c : all)
    fnv = (fnv ^ c) * 1099511628211ull;
  char digest[64];
  std::snprintf(digest, sizeof digest, "%016llx%016zx-%zu", (unsigned long long)fnv,
                std::hash<std::string>{}(all), all.size());
  summaryContext_ = digest;
  return summaryContext_;
}

std::optional<Analysis::StatementRef> Analysis::statementAt(uint32_t offset) const {
  for (const auto &k : session_->mainFile()->kernels) {
    if (offset < k.range.begin || offset > k.range.end)
      continue;
    for (size_t i = 0; i < k.statements.size(); ++i) {
      const SourceRange &r = k.statements[i].range;
      if (offset >= r.begin && offset <= r.end)
        return StatementRef{&k, i};
    }
    // Within a schedule block: the statement it pins.
    for (const auto &b : k.schedules)
      if (offset >= b.range.begin && offset <= b.range.end && b.afterStatement > 0)
        return StatementRef{&k, b.afterStatement - 1};
  }
  return std::nullopt;
}

std::optional<size_t> Analysis::irStatement(const ir::Kernel &k, const ast::Statement &s) {
  for (size_t i = 0; i < k.statements.size(); ++i)
    if (!k.statements[i].staged && k.statements[i].range.file == s.range.file &&
        k.statements[i].range.begin == s.range.begin)
      return i;
  return std::nullopt;
}

} // namespace isam::lsp
