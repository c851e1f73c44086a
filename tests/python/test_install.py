"""`cmake --install` puts a working package under <prefix>/lib/python3/dist-packages."""

import os
import subprocess
import sys


def test_installed_package_imports_and_reads(tmp_path, golden):
    build = os.environ["BUILD_DIR"]
    prefix = tmp_path / "prefix"
    r = subprocess.run(["cmake", "--install", build, "--prefix", str(prefix), "--component", "Unspecified"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    site = prefix / "lib" / "python3" / "dist-packages"
    code = ("import allocstress, sys; print(allocstress.__file__); "
            f"print(len(allocstress.load_runs([{golden!r}]).cells))")
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(site)}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    path, rows = r.stdout.split()
    assert path.startswith(str(site)) and int(rows) > 0
    assert (prefix / "bin" / "allocstress").exists()
