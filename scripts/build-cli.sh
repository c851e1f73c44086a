# Sourced by the run-*.sh scripts: install what is missing (scripts/setup-deps.sh), configure the
# release preset into $build_dir (BUILD_DIR, default build/release) and build the allocstress
# target, which depends on the Python extension (_core) the report needs and on the libraries the
# CLI preloads (the counts world; the tracer, outside sanitizer builds).  Leaves $build_dir set for
# the caller; run from the repository's root.
build_dir=${BUILD_DIR:-build/release}
bash scripts/setup-deps.sh
cmake --preset release -B "$build_dir" >/dev/null
cmake --build "$build_dir" --target allocstress -j 2
