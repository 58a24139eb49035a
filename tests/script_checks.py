"""What the Python tests of scripts/ share: a script (no .py suffix) loaded as a module, and the count of
checks that ends in the summary line scripts/count-tests reads ("N passed, M failed")."""
import importlib.machinery, importlib.util, os, sys

SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts")


def script_path(name):
    return os.path.join(SCRIPTS, name)


def load_script(name):
    """scripts/NAME as a module named NAME with '-' as '_'."""
    module_name = name.replace("-", "_")
    loader = importlib.machinery.SourceFileLoader(module_name, script_path(name))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(module_name, loader))
    loader.exec_module(module)
    return module


class Checks:
    """check(ok, what) prints one line per check; finish() prints the count and exits 1 if any failed."""

    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, ok, what):
        self.passed, self.failed = self.passed + bool(ok), self.failed + (not ok)
        print(("ok   " if ok else "FAIL ") + what)

    def finish(self):
        print(f"{self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed else 0)
