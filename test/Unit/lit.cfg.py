# lit configuration for the GoogleTest unit tests in build/unittests.
import lit.formats

config.name = "PTXBENCH-Unit"
config.suffixes = []
config.test_source_root = config.unittests_dir
config.test_exec_root = config.unittests_dir
config.test_format = lit.formats.GoogleTest(".", "Tests")
