// A compilation session: the one entry point the CLI and the language server drive.
//
// It owns the sources, the ASTs and the diagnostics, resolves imports (relative to the
// importing file, then the search path, which ends with the shipped hwdesc/; only isam files,
// and only inside importRoots when set), and hands out each
// stage's result as a plain value. Stages run lazily and at most once per session; a new text
// means a new session.
#pragma once

#include "diag/Diagnostic.h"
#include "hw/Hardware.h"
#include "hw/Host.h"
#include "ir/Compute.h"
#include "mapping/Mapping.h"
#include "schedule/Scheduler.h"
#include "sema/ScheduleBlocks.h"
#include "sema/Sema.h"
#include "syntax/Ast.h"
#include "syntax/ParseCache.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace isam {

struct SessionOptions {
  std::vector<std::string> searchPath; // searched after the importing file's directory
  // Texts of open editor documents, by canonical path; they win over the files on disk.
  std::map<std::string, std::string> overlays;
  // Editors: reuse the parse of unchanged top-level declarations (syntax/ParseCache.h).
  std::shared_ptr<ParseCache> parseCache;
  // Where imports may be read from. Unset: anywhere. Set: only files inside these directories
  // or the shipped hwdesc/ (driver/Imports.h); a place outside is not even looked at, and an
  // import found nowhere else is E0604. `importRootsReason` says why, as a note of E0604.
  // Whatever this says, an import reads only isam files (E0605, driver/Imports.h).
  std::optional<std::vector<std::string>> importRoots;
  std::string importRootsReason;
  // How `--target host` measures this machine's arithmetic rate (hw::calibrate). Front ends
  // that run native code pass backends/llvm/Calibrate.h's measureFmaGflops; unset, the host
  // target keeps its shipped description's rates.
  hw::FmaMeter hostMeter;
  // Reciprocal math (`--reciprocal-math`): a floating-point division of a kernel by any
  // constant becomes a multiplication by its reciprocal rounded to the type, exact or not
  // (ir/Canonicalize.h). Off, only the exact ones are (always). It changes the instances'
  // IR, so the reference interpreter computes what every executor computes.
  bool reciprocalMath = false;
  // Stage padded reads that are read many times (convolutions, pools) in padded copies, so that
  // their statements map onto instructions (ir/Padding.h). Off only to check the rewrite
  // against the kernel as written.
  bool stagePaddedReads = true;
};

// Where the shipped hardware descriptions live: ISAMAP_HWDESC if set, an installed
// share/isamap/hwdesc beside the executable, or the source tree's hwdesc/.
std::string defaultHwdescDir();

// What a command works on: one named instance, a kernel bound with -D sizes, or (neither) every
// instance the main file declares.
struct InstanceSelector {
  std::string instance;
  std::string kernel;
  std::map<std::string, int64_t> sizes;
};

class Session {
public:
  explicit Session(SessionOptions options = {});

  // Reads and parses the main file and, transitively, its imports. False if the main file
  // cannot be read (a diagnostic says why).
  bool loadFile(const std::string &path);
  // As loadFile, with the main file's text given (editor buffers, tests, stdin).
  void loadText(const std::string &path, std::string text);

  SourceManager &sources() { return sources_; }
  DiagnosticSink &diagnostics() { return diags_; }
  const ast::File *mainFile() const { return files_.empty() ? nullptr : files_.front().get(); }
  std::vector<const ast::File *> files() const;

  // Runs every semantic check: kernels (their schedule blocks included), instances, targets and
  // systems of all loaded files.
  void checkAll();

  const sema::Symbols &symbols();
  // The kernels selected (see InstanceSelector); diagnostics for failures.
  std::vector<ir::Kernel> instances(const InstanceSelector &selector);
  // The rewrites every instance goes through before a stage sees it: reciprocal math when the
  // options ask for it, and staged padded reads. instances() applies them; a front end that
  // lowers an instance itself (the language server) calls this to see what the commands see.
  void rewriteInstance(ir::Kernel &kernel) const;
  // A target by name: declared in a loaded file, or else hwdesc/NAME.isam from the search path;
  // or by the path of a description (a name with a '/' or ending in .isam) declaring one.
  std::optional<hw::Target> target(const std::string &name, SourceRange use = {});
  std::vector<hw::Target> allTargets();
  std::optional<hw::System> system(const std::string &name);
  // Every mapping of every statement of `kernel` onto `target`; a statement whose search ran
  // out of budget gets a warning (W0301) at its range.
  std::vector<mapping::StatementMappings> mappings(const ir::Kernel &kernel,
                                                   const hw::Target &target,
                                                   const mapping::MapOptions &options = {});
  // What the kernel's `schedule` blocks pin, checked by sema (sema/ScheduleBlocks.h) once per
  // session: checkAll and the first schedule of the kernel report their problems.
  const sema::KernelPins &schedulePins(const ast::KernelDecl &kernel);
  // The schedule of every statement of `kernel` on `target`, honouring the kernel's `schedule`
  // blocks (a block pins decisions for the statement written just before it); what the pins
  // ask of the target is checked here (E0701-E0703).
  // `known`, when given, are the kernel's mappings onto `target` computed before (editors keep
  // them), so that they are not computed again.
  schedule::KernelSchedule schedule(const ir::Kernel &kernel, const hw::Target &target,
                                    const schedule::ScheduleOptions &options = {},
                                    const mapping::MapOptions &mapOptions = {},
                                    const std::vector<mapping::StatementMappings> *known = nullptr);
  // The gate of `check --require-instructions`: schedules every instance on `target` and
  // reports E0706 at each statement its schedule runs as scalar code, with what each
  // instruction lacks. isamap's own staged copies (ir/Padding.h) are data movement, exempt.
  void requireInstructions(const hw::Target &target, const schedule::ScheduleOptions &options);
  // Whether NAME names a system (declared, imported, or shipped as hwdesc/NAME.isam).
  bool isSystem(const std::string &name);
  // The file an import of a loaded file resolved to (whether or not it could then be read);
  // nullopt when it resolved to none.
  std::optional<std::string> importedPath(const ast::ImportDecl &import) const;

private:
  // Loads hwdesc/NAME.isam from the search path when nothing loaded declares NAME.
  void loadShipped(const std::string &name);
  // The one target the description at `path` declares (loaded if it is not yet).
  std::optional<hw::Target> targetInFile(const std::string &path, SourceRange use);
  // The descriptions on the search path and in the shipped hwdesc/, by file stem.
  std::vector<std::string> shippedNames() const;
  FileId addAndParse(const std::string &path, std::string text);
  void loadImports(FileId file, std::vector<std::string> &stack);
  // The first place `path` is found; `tried` gets the places looked at. Places importRoots
  // forbids are never looked at; `refusedAsWritten` says whether the first one (the path as
  // written, relative to the importing file) was one of them.
  std::optional<std::string> resolveImport(const std::string &from, const std::string &path,
                                           std::vector<std::string> &tried,
                                           bool &refusedAsWritten) const;
  bool importAllowed(const std::string &path) const;
  std::optional<std::string> readFile(const std::string &path) const;

  SessionOptions options_;
  SourceManager sources_;
  DiagnosticSink diags_;
  std::vector<std::unique_ptr<ast::File>> files_;
  std::map<std::pair<FileId, uint32_t>, std::string> importPaths_; // by the import's range
  std::map<std::string, FileId> loaded_;                           // canonical path to file
  std::optional<sema::Symbols> symbols_;
  std::map<std::string, bool> kernelOk_;
  std::map<const ast::KernelDecl *, sema::KernelPins> pins_;
  std::map<std::string, std::optional<hw::Target>> targets_;
  std::vector<std::string> allowedRoots_; // canonical: importRoots and the shipped hwdesc/
};

} // namespace isam
