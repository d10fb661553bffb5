#!/usr/bin/env bash
# make test-image: checks the images `make image` built, running commands inside them with buildah (chroot
# isolation: the image's root filesystem, this machine's network), as root.
#
# JupyterLab image (LAB_IMAGE, default localhost/dprl-lab:latest):
#   - it runs as a non-root user, and every notebook in it is stored without outputs;
#   - notebook 00-tour, run headlessly in quick mode through the registered batch kernel (kernels/nbrun) with
#     the module proxy switched off (GOPROXY=off: the image must carry every module), has no error output and
#     at least one figure; the executed notebook and its HTML report are copied to build/test-image/;
#   - the image's own command (CMD), moved to a free loopback port with a fresh token, serves /api/status and
#     lists the Go (dprl) kernel in /api/kernelspecs.
# Command image (CMD_IMAGE, default localhost/dprl-cmd:latest), through its entrypoint:
#   - `sweep plan` of sweeps/specs/test-tiny.json prints what this checkout's dprl prints;
#   - its four shards run and merge, as the image's non-root user, into a table byte-identical to
#     `dprl sweep all` here, and the shards' manifests carry the commit the image was built from.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
lab_image=${LAB_IMAGE:-localhost/dprl-lab:latest}
cmd_image=${CMD_IMAGE:-localhost/dprl-cmd:latest}
spec=sweeps/specs/test-tiny.json
out=build/test-image
export PATH="/usr/local/go/bin:$PATH"

fail() { echo "test-image: FAIL: $*" >&2; exit 1; }
[[ $(id -u) == 0 ]] || fail "run as root (buildah's root storage)"
for i in "$lab_image" "$cmd_image"; do
	buildah inspect --type image "$i" >/dev/null 2>&1 || fail "no image $i: run make image first"
done

work=$(mktemp -d)
containers=()
cleanup() {
	for c in "${containers[@]}"; do buildah rm "$c" >/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
rm -rf "$out"
mkdir -p "$out"

# config IMAGE EXPR: a field of the image's OCI config, a list one item a line (python3 reads buildah's JSON).
config() {
	buildah inspect --type image "$1" | python3 -c '
import json, sys
v = eval(sys.argv[1], {}, {"c": json.load(sys.stdin)["OCIv1"]["config"]})
print("\n".join(v) if isinstance(v, list) else v)' "$2"
}
start() { # start VAR IMAGE: VAR names a new working container from IMAGE, removed on exit
	local c
	c=$(buildah from --pull-never "$2")
	containers+=("$c")
	printf -v "$1" %s "$c"
}
run_in() { buildah run --isolation chroot "$@"; }

echo "== $lab_image ($(buildah images --format '{{.Size}}' "$lab_image"))"
start lab "$lab_image"
user=$(config "$lab_image" 'c.get("User", "")')
uid=$(run_in "$lab" -- id -u)
[[ -n $user && $uid != 0 ]] || fail "the image runs as uid $uid (User \"$user\"), want a non-root user"
echo "ok  runs as $user (uid $uid)"

run_in "$lab" -- build/venv/bin/python -c '
import glob, json, sys
paths = sorted(glob.glob("notebooks/*.ipynb"))
dirty = [p for p in paths for c in json.load(open(p))["cells"] if c.get("outputs") or c.get("execution_count")]
if not paths or dirty:
    sys.exit(f"notebooks with outputs: {sorted(set(dirty))} (of {len(paths)})")
print(f"ok  {len(paths)} notebooks stored without outputs")'

nb=00-tour
chmod 0777 "$work"
SECONDS=0
run_in -v "$work:/out" "$lab" -- env GOPROXY=off go run ./kernels/nbrun -jupyter build/venv/bin/jupyter -quick \
	-out /out/notebooks "notebooks/$nb.ipynb" | sed 's/^/    /'
cp "$work/notebooks/$nb.ipynb" "$work/notebooks/$nb.html" "$out/"
python3 - "$out/$nb.ipynb" <<'EOF'
import json, sys
nb = json.load(open(sys.argv[1]))
code = [c for c in nb["cells"] if c["cell_type"] == "code"]
outs = [o for c in code for o in c.get("outputs", [])]
errors = [o for o in outs if o["output_type"] == "error" or o.get("name") == "stderr" and "panic:" in o.get("text", "")]
figures = sum("image/png" in o.get("data", {}) for o in outs)
unrun = [i for i, c in enumerate(code) if c.get("execution_count") is None]
if errors or unrun or figures == 0:
    sys.exit(f"{sys.argv[1]}: {len(errors)} errors, {figures} figures, code cells not run: {unrun}")
print(f"ok  {sys.argv[1]}: {len(code)} code cells run, {figures} figures, no errors")
EOF
echo "    (notebook run in the image: $SECONDS s)"

# JupyterLab: the image's command with its --ip and --port replaced by a free loopback port. buildah's chroot
# isolation shares this machine's network, so the check runs here; it ends by asking the server to shut down.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
token=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
mapfile -t lab_cmd < <(config "$lab_image" '[a for a in c["Cmd"] if not a.startswith(("--ip=", "--port="))]')
run_in "$lab" -- timeout 300 "${lab_cmd[@]}" --ip=127.0.0.1 --port="$port" --IdentityProvider.token="$token" \
	>"$work/lab.log" 2>&1 &
lab_pid=$!
python3 - "$port" "$token" "$work/lab.log" <<'EOF'
import json, sys, time, urllib.request
port, token, log = sys.argv[1:]
def call(path, method="GET"):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                 headers={"Authorization": f"token {token}"})
    body = urllib.request.urlopen(req, timeout=5).read()
    return json.loads(body) if body else None
start = time.time()
while True:
    try:
        status = call("/api/status")
        break
    except OSError as e:
        if time.time() - start > 120:
            sys.exit(f"JupyterLab did not answer on 127.0.0.1:{port} in 120 s: {e}\n" + open(log).read())
        time.sleep(0.5)
try:
    specs = call("/api/kernelspecs")["kernelspecs"]
    if "started" not in status or "gonb-dprl" not in specs:
        sys.exit(f"/api/status {status}, kernel specs {sorted(specs)}")
    print(f"ok  JupyterLab up in {time.time() - start:.1f} s on 127.0.0.1:{port}: /api/status {status}; kernels {sorted(specs)}")
finally:
    call("/api/shutdown", "POST")
EOF
wait "$lab_pid" || fail "JupyterLab exited with status $? after /api/shutdown (log: $(tail -5 "$work/lab.log"))"

echo "== $cmd_image ($(buildah images --format '{{.Size}}' "$cmd_image"))"
entry=$(config "$cmd_image" 'c["Entrypoint"]')
[[ $entry == dprl ]] || fail "entrypoint $entry, want dprl"
dprl_here=$work/dprl-here
go build -o "$dprl_here" ./dprl/cmd/dprl
start cmdc "$cmd_image"
mkdir -m 0777 "$work/results"
run_cmd() { run_in -v "$root/sweeps/specs:/specs:ro" -v "$work/results:/results" "$cmdc" -- "$entry" "$@"; }
run_cmd sweep plan "/specs/$(basename "$spec")" >"$work/plan-image.txt"
"$dprl_here" sweep plan "$spec" >"$work/plan-here.txt"
cmp -s "$work/plan-image.txt" "$work/plan-here.txt" || { diff "$work/plan-here.txt" "$work/plan-image.txt" >&2; fail "sweep plan differs in the image"; }
echo "ok  dprl sweep plan $spec in the image prints what this checkout's dprl prints:"
sed 's/^/    /' "$work/plan-image.txt"
name=$(basename "$spec" .json)
shards=$(sed -n 's/.* → \([0-9]*\) shards$/\1/p' "$work/plan-image.txt")
[[ -n $shards ]] || fail "no shard count in the plan"
log=$work/sweep.log
{
	for ((i = 0; i < shards; i++)); do
		run_cmd sweep run "/specs/$name.json" --shard "$i" --out "/results/$name"
	done
	run_cmd sweep merge "/results/$name"
	"$dprl_here" sweep all "$spec" -o "$work/all.csv"
} >"$log" 2>&1 || { cat "$log" >&2; fail "the sweep in the image failed"; }
cmp -s "$work/results/$name/merged.csv" "$work/all.csv" || fail "the image's merged $name differs from dprl sweep all here"
owner=$(stat -c %u "$work/results/$name/merged.csv")
[[ $owner != 0 ]] || fail "the command image wrote its results as root"
revision=$(config "$cmd_image" 'c["Labels"]["org.opencontainers.image.revision"]')
python3 - "$revision" "$work/results/$name"/shard-*.json <<'EOF'
import json, sys
want, paths = sys.argv[1], sys.argv[2:]
got = {json.load(open(p))["commit"] for p in paths}
if not paths or got != {want}:
    sys.exit(f"the shards' manifests name commits {sorted(got)}, the image was built from {want}")
print(f"ok  every shard's manifest names commit {want}, the image's")
EOF
echo "ok  $shards shards run and merged in the image as uid $owner: merged.csv ($(wc -l <"$work/all.csv") lines) equals dprl sweep all here"

for i in "$lab_image" "$cmd_image"; do buildah images --format '{{.Name}}:{{.Tag}}  {{.Size}}' "$i"; done
echo "test-image: all checks passed"
