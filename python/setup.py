"""Builds floe._native against libfloe.

Where libfloe is found, in order:
  1. FLOE_INCLUDE_DIR and FLOE_LIB_DIR (the directory of include/floe/ and of libfloe.so);
  2. pkg-config floe (after `make install`; PKG_CONFIG_PATH for a custom prefix);
  3. this repository: ../include and ../build (after `make build`).
The library directory is also the extension's run path, so no LD_LIBRARY_PATH is needed.
"""
import os
import shutil
import subprocess

from setuptools import Extension, setup

here = os.path.dirname(os.path.abspath(__file__))


def locate():
    inc, lib = os.environ.get("FLOE_INCLUDE_DIR"), os.environ.get("FLOE_LIB_DIR")
    if inc and lib:
        return inc, lib
    if shutil.which("pkg-config"):
        try:
            cflags = subprocess.run(["pkg-config", "--cflags-only-I", "floe"], check=True,
                                    capture_output=True, text=True).stdout.split()
            libdir = subprocess.run(["pkg-config", "--variable=libdir", "floe"], check=True,
                                    capture_output=True, text=True).stdout.strip()
            return cflags[0][2:] if cflags else "/usr/include", libdir
        except subprocess.CalledProcessError:
            pass
    repo = os.path.dirname(here)
    inc, lib = os.path.join(repo, "include"), os.path.join(repo, "build")
    if not os.path.exists(os.path.join(lib, "libfloe.so")):
        raise SystemExit("floe: libfloe not found: run `make build` in the repository, `make install`, "
                         "or set FLOE_INCLUDE_DIR and FLOE_LIB_DIR")
    return inc, lib


inc, lib = locate()
sources = [os.path.join("src", f) for f in ("module.c", "session.c", "result.c", "metrics.c")]
setup(
    ext_modules=[Extension(
        "floe._native", sources=sources, include_dirs=[inc, "src"], library_dirs=[lib],
        runtime_library_dirs=[os.path.abspath(lib)], libraries=["floe"],
        extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-Werror", "-Wno-missing-field-initializers"],
    )],
)
