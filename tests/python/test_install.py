"""`cmake --install` puts a working package under <prefix>/lib/python3/dist-packages, with its
configured version."""

import os
import subprocess
import sys

import allocstress

from conftest import iteration_entries


def test_installed_package_imports_and_reads(tmp_path, golden, golden_doc):
    build = os.environ["BUILD_DIR"]
    prefix = tmp_path / "prefix"
    r = subprocess.run(["cmake", "--install", build, "--prefix", str(prefix), "--component", "Unspecified"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    site = prefix / "lib" / "python3" / "dist-packages"
    code = ("import allocstress, sys; print(allocstress.__file__); "
            f"df = allocstress.load({golden!r}); print(len(df), df['allocator'].dtype, allocstress.__version__)")
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(site)}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    path, rows, dtype, version = r.stdout.split()
    assert path.startswith(str(site)) and int(rows) == len(iteration_entries(golden_doc)) and dtype == "category"
    assert (site / "allocstress" / "_version.py").exists() and version == allocstress.__version__
    assert (prefix / "bin" / "allocstress").exists()
