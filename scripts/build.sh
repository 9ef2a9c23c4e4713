#!/usr/bin/env bash
# Builds bin/dpmne. With OpenBLAS available (Debian/Ubuntu: libopenblas-dev,
# installed here when missing and this user may install packages) it builds
# with -tags openblas, 6–15x faster on dense products (BENCHMARKS.md);
# otherwise it falls back to the pure-Go build, which needs nothing but Go.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/apt.sh

have_openblas() {
	[ -e /usr/lib/x86_64-linux-gnu/libopenblas.so ] || [ -e /usr/lib/aarch64-linux-gnu/libopenblas.so ] ||
		ldconfig -p 2>/dev/null | grep -q 'libopenblas\.so '
}

install_openblas() { apt_install libopenblas-dev; }

mkdir -p bin
# The version: the nearest tag and the commits since (git describe), else
# the commit; without git, the build info's
# revision (dpmne version prints it).
ver=$(git describe --tags --always --dirty 2>/dev/null || true)
ldflags="-X main.version=${ver}"
if [ "${DPMNE_PURE_GO:-}" != "1" ] && (have_openblas || install_openblas) && command -v gcc >/dev/null; then
	echo "build.sh: building with OpenBLAS" >&2
	if ! CGO_ENABLED=1 go build -tags openblas -ldflags "$ldflags" -o bin/dpmne ./cmd/dpmne; then
		echo "build.sh: the OpenBLAS build failed: building pure Go (slower dense products)" >&2
		go build -ldflags "$ldflags" -o bin/dpmne ./cmd/dpmne
	fi
else
	echo "build.sh: OpenBLAS unavailable: building pure Go (slower dense products)" >&2
	go build -ldflags "$ldflags" -o bin/dpmne ./cmd/dpmne
fi
