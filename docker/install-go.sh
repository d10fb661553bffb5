#!/usr/bin/env bash
# Installs Go into /usr/local/go from the Go module proxy's toolchain module, unless that Go is there already
# (the golang:1.26.8-bookworm base has it).
#
#   docker/install-go.sh [SUM_FILE]      # default: go-toolchain.sum beside this script
#
# SUM_FILE holds go.sum lines for golang.org/toolchain, one per architecture, copied from the checksum database
# (https://proxy.golang.org/sumdb/sum.golang.org/lookup/golang.org/toolchain@VERSION). The zip is accepted only
# if its h1: hash (Go's dirhash: SHA-256 over the sorted "sha256  name" lines of the files in the zip) equals
# the pinned one, so the toolchain is the one every Go user's `go` command would verify.
set -euo pipefail

sums=${1:-$(dirname "${BASH_SOURCE[0]}")/go-toolchain.sum}
proxy=${GOPROXY_URL:-https://proxy.golang.org}
arch=$(dpkg --print-architecture)
line=$(grep -E "^golang.org/toolchain v[^ ]*\.linux-$arch h1:" "$sums") ||
	{ echo "install-go.sh: no toolchain for linux-$arch in $sums" >&2; exit 1; }
read -r module version hash <<<"$line"
want_go=${version##*-go}         # 1.26.8.linux-amd64
want_go=go${want_go%.linux-*}    # go1.26.8

if [[ -x /usr/local/go/bin/go ]] && [[ $(/usr/local/go/bin/go env GOVERSION) == "$want_go" ]]; then
	echo "install-go.sh: $want_go already in /usr/local/go"
	exit 0
fi
echo "install-go.sh: installing $want_go from $proxy ($module@$version, $hash)"
python3 - "$proxy/$module/@v/$version.zip" "$module@$version/" "$hash" /usr/local/go <<'EOF'
import base64, hashlib, io, os, sys, urllib.request, zipfile

url, prefix, want, dest = sys.argv[1:]
with urllib.request.urlopen(url, timeout=300) as r:
    z = zipfile.ZipFile(io.BytesIO(r.read()))
names = sorted(i.filename for i in z.infolist())
summary = "".join(f"{hashlib.sha256(z.read(n)).hexdigest()}  {n}\n" for n in names)
got = "h1:" + base64.b64encode(hashlib.sha256(summary.encode()).digest()).decode()
if got != want:
    sys.exit(f"install-go.sh: {url} has hash {got}, pinned {want}: refusing it")
for info in z.infolist():
    if not info.filename.startswith(prefix) or info.is_dir():
        sys.exit(f"install-go.sh: unexpected entry {info.filename!r}")
    path = os.path.join(dest, info.filename[len(prefix):])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(z.read(info))
    os.chmod(path, 0o755 if (info.external_attr >> 16) & 0o111 else 0o644)
EOF
/usr/local/go/bin/go version
