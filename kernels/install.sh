#!/usr/bin/env bash
# Installs what the dprl notebooks need and registers the project's Jupyter kernels.
#
#   kernels/install.sh            # install what is missing, register the kernels
#   kernels/install.sh --check    # only report what is missing (exit 1 if anything is)
#   kernels/install.sh --browser  # also Debian's chromium (the browser test drives it; needs root)
#   kernels/install.sh --no-apt   # never call apt-get (the docker/ image installs its Debian packages itself)
#
# Installs, only when missing: the project's Python environment build/venv (JupyterLab, nbconvert, nbclient,
# Playwright) from kernels/requirements.lock with pip --require-hashes, goimports and gopls (pinned), GoNB
# (pinned). Then writes two kernel specs into ${JUPYTER_DATA_DIR:-build/venv/share/jupyter}/kernels, inside the
# environment, so a machine-wide Jupyter is left alone (see kernels/README.md):
#   gonb-dprl        interactive use (HTML errors)
#   gonb-dprl-batch  headless runs (--raw_error: plain-text errors in the saved notebook)
# Both are wired to this repository (--go_work and DPRL_ROOT). Idempotent; a second run takes about a second.
set -euo pipefail

GOIMPORTS_VERSION=v0.52.0 # golang.org/x/tools: without goimports every Go cell fails
GOPLS_VERSION=v0.23.0     # completion and hover; @latest needs a newer Go than 1.26
GONB_VERSION=v0.11.5      # must equal the version in go.mod
APT_PACKAGES=()

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="$root/build/venv"
lock="$root/kernels/requirements.lock"
check_only=false
use_apt=true
for arg in "$@"; do
	case $arg in
	--check) check_only=true ;;
	--browser) APT_PACKAGES+=(chromium) ;;
	--no-apt) use_apt=false ;;
	*) echo "install.sh: unknown option $arg (use --check, --browser or --no-apt)" >&2; exit 2 ;;
	esac
done
# Debian's python3 (pitfall: `python3` may be a pyenv build); it needs the venv module (python3-venv).
python=/usr/bin/python3
[[ -x $python ]] || python=$(command -v python3)
$python -c 'import venv, ensurepip' 2>/dev/null || APT_PACKAGES+=(python3-venv)

export PATH="/usr/local/go/bin:$PATH"
command -v go >/dev/null || { echo "install.sh: Go is not on PATH (expected /usr/local/go/bin/go, Go 1.26)" >&2; exit 1; }
gobin=$(go env GOBIN)
[[ -n $gobin ]] || gobin="$(go env GOPATH)/bin"
export PATH="$gobin:$PATH"

gomod_gonb=$(go -C "$root" list -m -f '{{.Version}}' github.com/janpfeifer/gonb)
if [[ $gomod_gonb != "$GONB_VERSION" ]]; then
	echo "install.sh: go.mod pins github.com/janpfeifer/gonb $gomod_gonb but this script installs $GONB_VERSION" >&2
	exit 1
fi

missing=()
# installed_version BINARY MODULE prints the module version a Go binary was built from, or nothing.
installed_version() {
	[[ -x "$gobin/$1" ]] || return 0
	go version -m "$gobin/$1" 2>/dev/null | awk -v m="$2" '$1 == "mod" && $2 == m { print $3 }'
}

apt_missing=()
$use_apt || APT_PACKAGES=()
for p in "${APT_PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || apt_missing+=("$p")
done
((${#apt_missing[@]} == 0)) || missing+=("apt: ${apt_missing[*]}")
lock_sum=$(sha256sum "$lock" | cut -d' ' -f1)
venv_ok() { [[ -x $venv/bin/jupyter && $(cat "$venv/.requirements.lock.sha256" 2>/dev/null) == "$lock_sum" ]]; }
venv_ok || missing+=("Python environment $venv (kernels/requirements.lock)")
[[ $(installed_version goimports golang.org/x/tools) == "$GOIMPORTS_VERSION" ]] || missing+=("goimports $GOIMPORTS_VERSION")
[[ $(installed_version gopls golang.org/x/tools/gopls) == "$GOPLS_VERSION" ]] || missing+=("gopls $GOPLS_VERSION")
[[ $(installed_version gonb github.com/janpfeifer/gonb) == "$GONB_VERSION" ]] || missing+=("gonb $GONB_VERSION")

if $check_only; then
	if ((${#missing[@]})); then printf 'missing: %s\n' "${missing[@]}"; exit 1; fi
	echo "all present"
	exit 0
fi

if ((${#apt_missing[@]})); then
	if [[ $(id -u) != 0 ]]; then
		echo "install.sh: need root to install Debian packages: ${apt_missing[*]} (run: sudo apt-get install --no-install-recommends ${apt_missing[*]})" >&2
		exit 1
	fi
	echo "installing ${apt_missing[*]} (apt)"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${apt_missing[@]}" >/dev/null
fi
if ! venv_ok; then
	echo "creating the Python environment $venv from kernels/requirements.lock (JupyterLab, nbconvert, Playwright)"
	rm -rf "$venv"
	$python -m venv "$venv"
	"$venv/bin/pip" install -q --disable-pip-version-check --require-hashes --no-deps -r "$lock"
	echo "$lock_sum" >"$venv/.requirements.lock.sha256"
fi
if [[ $(installed_version goimports golang.org/x/tools) != "$GOIMPORTS_VERSION" ]]; then
	echo "installing goimports $GOIMPORTS_VERSION"
	go install "golang.org/x/tools/cmd/goimports@$GOIMPORTS_VERSION"
fi
if [[ $(installed_version gopls golang.org/x/tools/gopls) != "$GOPLS_VERSION" ]]; then
	echo "installing gopls $GOPLS_VERSION"
	go install "golang.org/x/tools/gopls@$GOPLS_VERSION"
fi
if [[ $(installed_version gonb github.com/janpfeifer/gonb) != "$GONB_VERSION" ]]; then
	# The module proxy refuses gonb's version list, so `go install gonb@vX` can fail: resolve it inside a module.
	echo "installing gonb $GONB_VERSION"
	tmp=$(mktemp -d)
	(cd "$tmp" && go mod init gonbinstall >/dev/null 2>&1 &&
		go get "github.com/janpfeifer/gonb@$GONB_VERSION" >/dev/null 2>&1 &&
		go install github.com/janpfeifer/gonb)
	rm -rf "$tmp"
fi

# Register the kernels. gonb --install always writes kernels/gonb; do that in a scratch data dir and move the
# result, so a user's own "gonb" kernel is left alone.
data_dir=${JUPYTER_DATA_DIR:-$venv/share/jupyter}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
register() { # register NAME DISPLAY_NAME [gonb flags...]
	local name=$1 display=$2
	shift 2
	JUPYTER_DATA_DIR="$scratch/$name" gonb --install --go_work="$root" "$@" >/dev/null 2>&1 ||
		{ echo "install.sh: gonb --install failed" >&2; exit 1; }
	mkdir -p "$data_dir/kernels/$name"
	cp "$scratch/$name/kernels/gonb/logo-svg.svg" "$data_dir/kernels/$name/" 2>/dev/null || true
	"$venv/bin/python" - "$scratch/$name/kernels/gonb/kernel.json" "$data_dir/kernels/$name/kernel.json" "$display" "$root" "$gobin" <<'EOF'
import json, sys
src, dst, display, root, gobin = sys.argv[1:]
spec = json.load(open(src))
spec["display_name"] = display
# DPRL_ROOT: the first cell of every notebook pins the notebook module to this repository.
# PATH: goimports, gopls and go must be found whatever started Jupyter.
# (jupyter_client substitutes ${PATH} from the environment Jupyter runs in.)
spec["env"] = {"DPRL_ROOT": root, "PATH": gobin + ":/usr/local/go/bin:${PATH}"}
with open(dst, "w") as f:
    json.dump(spec, f, indent=1)
    f.write("\n")
EOF
}
# GoNB v0.11.5 answers JupyterLab's history_request without the busy/idle status messages other kernels send,
# and JupyterLab 4.6 ignores the status that follows kernel_info_request (in the server's untracked message
# types), so the kernel would stay "Unknown" and no cell would run. Tracking kernel_info lets its idle status
# through; the list otherwise only affects idle-kernel culling. The file is in the environment's config path (build/venv/etc/jupyter), read by `make lab` and the tests.
mkdir -p "$venv/etc/jupyter"
"$venv/bin/python" - "$venv/etc/jupyter/jupyter_server_config.json" <<'EOF'
import json, sys
from jupyter_server.services.kernels.kernelmanager import MappingKernelManager
keep = [t for t in MappingKernelManager.class_traits()["untracked_message_types"].default()
        if t not in ("kernel_info_request", "kernel_info_reply")]
with open(sys.argv[1], "w") as f:
    json.dump({"MappingKernelManager": {"untracked_message_types": keep}}, f, indent=1)
    f.write("\n")
EOF
# JupyterLab drops a completion reply that takes longer than the completer's providerTimeout (1 s by default);
# GoNB runs goimports and asks gopls (giving it up to 8 s) for each Tab, which takes seconds on a busy machine,
# so Tab would show nothing. The environment's settings overrides (read by `make lab` and the browser test)
# give the kernel 20 s.
mkdir -p "$venv/share/jupyter/lab/settings"
cat >"$venv/share/jupyter/lab/settings/overrides.json" <<'EOF'
{
 "@jupyterlab/completer-extension:manager": {"providerTimeout": 20000}
}
EOF
register gonb-dprl "Go (dprl)"
register gonb-dprl-batch "Go (dprl, batch)" --raw_error
echo "kernels gonb-dprl and gonb-dprl-batch registered in $data_dir/kernels (repository $root)"
