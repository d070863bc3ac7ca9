# tests/lib.sh — what every command test shares, sourced first: the program
# under test, python, the build folder, where the real models and
# onnxruntime-node are, and the skip convention. Each test runs from the
# repository root.
#
# The real models live in $FUSIONDBG_MODELS (default ../shared/models). A test
# that needs them and finds none exits 77 ("skipped"); a test that also checks
# the samples runs those parts and ends with `finish`, which turns a pass into
# a skip when the model part could not run. tests/run-all counts 77 as skipped.
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
FUSIONDBG=${FUSIONDBG:-build/fusiondbg}
PYTHON=${PYTHON:-/usr/bin/python3}
BUILD=${BUILD:-build}
MODELS=${FUSIONDBG_MODELS:-../shared/models}
SKIPPED=77

NODE_DIR=${NODE_DIR:-$BUILD/node}

have_models() { compgen -G "$MODELS/*.onnx" >/dev/null; }
# For the tests against onnxruntime-node (tests/peer): skip at once without it;
# plain `make check` and `make check-peer` install it, `make check T=...` does not.
need_onnxruntime() {
	[ -f "$NODE_DIR/node_modules/onnxruntime-node/package.json" ] && command -v node >/dev/null && return 0
	echo "skipped: onnxruntime-node is not installed in $NODE_DIR (make check-peer installs it and runs the peer tests)"
	exit $SKIPPED
}
# For tests that are about the real models only: skip at once without them.
need_models() { have_models || { echo "skipped: no models in $MODELS (FUSIONDBG_MODELS)"; exit $SKIPPED; }; }
# finish FAIL: exit FAIL when something failed, else 0, or 77 when the model part was skipped.
finish() {
	[ "$1" -ne 0 ] && exit "$1"
	have_models || { echo "model part skipped: no models in $MODELS (FUSIONDBG_MODELS)"; exit $SKIPPED; }
	exit 0
}
# For tests that keep a failure flag: fail=0, a temporary directory $tmp
# removed at exit, and bad MESSAGE, which says FAIL and sets the flag.
fail=0
make_tmp() { tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; }
bad() { echo "FAIL: $*"; fail=1; }
