# lit configuration of isamap's source-file tests (tests/lit): each .isam file holds the command
# that tests it (`// RUN:` lines) and the expectations, read together. lit.site.cfg.py (written
# by CMake into the build tree) says where the binaries are, then loads this file.
import os

import lit.formats

config.name = "isamap"
# RUN lines run in /bin/sh, so that a test can state an exact exit status (`; test $? = 2`).
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".isam", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.isamap_obj_root, "tests", "lit")

# The tools a RUN line may use, by name: isamap itself and LLVM's FileCheck, not and count.
config.substitutions.append(("%isamap", config.isamap_binary))
config.substitutions.append(("%hwdesc", os.path.join(config.isamap_src_root, "hwdesc")))
config.substitutions.append(("%samples", os.path.join(config.isamap_src_root, "samples")))
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", "")])
# Tests must not depend on the caller's locale, colours or hardware-description overrides.
config.environment["LC_ALL"] = "C"
config.environment.pop("ISAMAP_HWDESC", None)
