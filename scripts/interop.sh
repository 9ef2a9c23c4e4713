#!/usr/bin/env bash
# Checks that numpy and gensim read what dpmne writes, on the synthetic demo
# network: the embedding .npy (float32, n×d, C order) against the word2vec
# text of the same fit as gensim's KeyedVectors loads it, the packbits
# codes of `dpmne binarize --npy` against the signs of the centred
# embedding, and gensim's most_similar against `dpmne search`. It needs
# bin/dpmne (scripts/build.sh) and a python3 with numpy and gensim; on
# Debian/Ubuntu it installs python3-numpy and python3-gensim when they are
# missing and this user may install packages. Not part of the tests: they
# never download anything.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/apt.sh

PY=${PYTHON:-/usr/bin/python3}
have_modules() { "$PY" -c 'import numpy, gensim' 2>/dev/null; }

install_modules() { apt_install python3-numpy python3-gensim; }

if ! have_modules; then
	install_modules || true
	PY=/usr/bin/python3
	have_modules || { echo "interop.sh: need a python3 with numpy and gensim (set PYTHON)" >&2; exit 1; }
fi
[ -x bin/dpmne ] || { echo "interop.sh: build bin/dpmne first (scripts/build.sh)" >&2; exit 1; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
bin/dpmne train --data synthetic --out "$dir/e.npy" --quiet
bin/dpmne train --data synthetic --out "$dir/e.txt" --format w2v --quiet
bin/dpmne binarize --emb "$dir/e.npy" --method sign --out "$dir/c.bin" --npy "$dir/c.npy" >/dev/null
first=$(head -n 1 "$dir/e.ids.txt")
bin/dpmne search --emb "$dir/e.npy" --id "$first" --k 5 | awk 'NR > 1 { print $2 }' >"$dir/search.txt"

"$PY" - "$dir" <<'EOF'
import sys
import numpy as np
from gensim.models import KeyedVectors

d = sys.argv[1]
e = np.load(f"{d}/e.npy")
ids = [l for l in open(f"{d}/e.ids.txt").read().split("\n") if l]
assert e.dtype == np.float32 and e.ndim == 2 and e.flags["C_CONTIGUOUS"], (e.dtype, e.shape)
assert e.shape[0] == len(ids), (e.shape, len(ids))
kv = KeyedVectors.load_word2vec_format(f"{d}/e.txt")
assert kv.vector_size == e.shape[1] and len(kv.index_to_key) == len(ids)
diff = np.abs(np.stack([kv[i] for i in ids]) - e).max()
assert diff == 0, f"npy and word2vec differ by {diff}"
c = np.load(f"{d}/c.npy")
bits = np.unpackbits(c, axis=1)[:, : e.shape[1]].astype(bool)
e64 = e.astype(np.float64)  # dpmne centres in float64
assert (bits == (e64 - e64.mean(axis=0) > 0)).all(), "packbits codes are not the centred signs"
ours = open(f"{d}/search.txt").read().split()
theirs = [k for k, _ in kv.most_similar(ids[0], topn=5)]
assert ours == theirs, f"dpmne search {ours}, gensim most_similar {theirs}"
print(f"interop.sh: numpy {np.__version__} and gensim read {e.shape[0]}×{e.shape[1]} float32, "
      f"word2vec text equal, packbits codes equal, the 5 nearest of {ids[0]} equal")
EOF
