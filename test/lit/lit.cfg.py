# lit configuration for tirc: each .tir file under this directory is a test
# whose RUN lines call %tirc and FileCheck.
import os
import lit.formats

config.name = "tirc"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".tir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["Inputs"]
# Temporary files go to the build tree, never the source tree.
config.test_exec_root = lit_config.params.get("exec_root", os.path.join(config.test_source_root, "Output"))

tirc = lit_config.params.get("tirc")
filecheck_dir = lit_config.params.get("filecheck_dir", "/usr/lib/llvm-19/bin")
source_dir = lit_config.params.get("source_dir", os.path.join(config.test_source_root, "..", ".."))
if not tirc:
    lit_config.fatal("pass --param tirc=PATH/TO/tirc")

config.substitutions.append(("%tirc", tirc))
config.substitutions.append(("%examples", os.path.join(source_dir, "examples")))
config.substitutions.append(("%testdata", os.path.join(source_dir, "test", "onnx")))
# The runtime library a program linking a compiled model needs.
config.substitutions.append(("%runtime_lib", lit_config.params.get("runtime_lib", "")))
# The C compiler and flags that link with the runtime: the build's own (clang's
# sanitized runtime needs clang to link it).
config.substitutions.append(("%c_flags", lit_config.params.get("c_flags", "")))
config.substitutions.append(("%cc", lit_config.params.get("cc", "cc")))
config.environment["PATH"] = filecheck_dir + os.pathsep + config.environment.get("PATH", os.environ.get("PATH", ""))
