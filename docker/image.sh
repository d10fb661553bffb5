#!/usr/bin/env bash
# make image: builds the two images with buildah, without a container daemon or a registry (as root).
#
#   localhost/dprl-base:bookworm-HASH   Debian 12 from debootstrap (minbase and docker/debian-packages.txt),
#                                       made once per package list, suite and mirror
#   localhost/dprl-lab:latest           docker/Dockerfile on that base: JupyterLab, the kernels, the notebooks
#   localhost/dprl-cmd:latest           docker/cmd.Dockerfile: the static dprl command alone
#
# Installs buildah and debootstrap with apt-get when missing. Every RUN step runs with --isolation chroot (no
# namespaces or runtime needed); layers are cached, so a rebuild after a code change redoes only the last steps.
# Environment: DEBIAN_MIRROR (default http://deb.debian.org/debian; a snapshot.debian.org/archive/debian/DATE
# URL pins the date), LAB_IMAGE, CMD_IMAGE (the names above).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
suite=bookworm
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
lab_image=${LAB_IMAGE:-localhost/dprl-lab:latest}
cmd_image=${CMD_IMAGE:-localhost/dprl-cmd:latest}

if [[ $(id -u) != 0 ]]; then
	echo "image.sh: run as root (debootstrap and buildah's root storage need it)" >&2
	exit 1
fi
missing=()
command -v buildah >/dev/null || missing+=(buildah)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if ((${#missing[@]})); then
	echo "installing ${missing[*]} (apt)"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

elapsed() { echo "$((SECONDS - $1)) s"; }

# The base: the package list, suite and mirror name it, so a change to any of them makes a new one.
packages=$(sed 's/#.*//' docker/debian-packages.txt | xargs | tr ' ' ,)
key=$(printf '%s\n' "$suite" "$mirror" "$packages" | sha256sum | cut -c1-12)
base=localhost/dprl-base:$suite-$key
if buildah inspect --type image "$base" >/dev/null 2>&1; then
	echo "base $base exists (debootstrap $suite, $packages)"
else
	start=$SECONDS
	work=$(mktemp -d)
	ctr=
	# debootstrap mounts /proc and /sys (in some containers /dev) inside the root filesystem and may leave them
	# mounted when it fails: unmount whatever is below the work folder before deleting anything in it.
	unmount_below() { findmnt -rn -o TARGET | awk -v w="$work/" 'index($0, w) == 1' | sort -r | xargs -r umount -l; }
	cleanup() {
		[[ -z $ctr ]] || buildah rm "$ctr" >/dev/null || true
		unmount_below
		rm -rf --one-file-system "$work"
	}
	trap cleanup EXIT
	echo "debootstrap --variant=minbase --include=$packages $suite from $mirror"
	debootstrap --variant=minbase --include="$packages" "$suite" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
		{ tail -20 "$work/debootstrap.log" >&2; exit 1; }
	# Which Debian this is: the release's version and date, and every package's version, kept in the image.
	release=$(cat "$work"/rootfs/var/lib/apt/lists/*_dists_${suite}_Release 2>/dev/null || true)
	debian="Debian $(sed -n 's/^Version: //p' <<<"$release") ($suite, archive of $(sed -n 's/^Date: //p' <<<"$release"), $mirror)"
	chroot "$work/rootfs" dpkg-query -W -f='${Package} ${Version}\n' >"$work/rootfs/etc/dprl-base-packages"
	unmount_below
	rm -rf --one-file-system "$work"/rootfs/var/cache/apt/archives/*.deb "$work"/rootfs/var/lib/apt/lists/* "$work"/rootfs/dev/*
	ctr=$(buildah from scratch)
	cp -a "$work/rootfs/." "$(buildah mount "$ctr")/"
	buildah umount "$ctr" >/dev/null
	buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd /bin/bash \
		--label org.dprl.debian="$debian" --label org.dprl.debian-packages="$packages" "$ctr"
	buildah commit -q "$ctr" "$base" >/dev/null
	echo "base $base: $debian, $(wc -l <"$work/rootfs/etc/dprl-base-packages") packages ($(elapsed "$start"))"
fi

commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
[[ $commit == unknown || -z $(git status --porcelain --untracked-files=no 2>/dev/null) ]] || commit+=+dirty
mkdir -p build/image
# The build's downloads (Go proxy, PyPI) trust what this machine trusts: its CA bundle is lent to every RUN step
# (a proxy that inspects TLS needs it) and stays out of the image.
ca=/etc/ssl/certs/ca-certificates.crt
build() { # build DOCKERFILE IMAGE BASE: the log in build/image/
	local start=$SECONDS log
	log=build/image/$(basename "$1").log
	echo "building $2 from $1 (base $3, commit $commit; log $log)"
	buildah bud --isolation chroot --layers --force-rm --volume "$ca:$ca:ro" \
		--build-arg BASE="$3" --build-arg DPRL_COMMIT="$commit" -f "$1" -t "$2" . >"$log" 2>&1 ||
		{ tail -40 "$log" >&2; echo "image.sh: building $2 failed (log $log)" >&2; exit 1; }
	echo "built $2 in $(elapsed "$start")"
}
build docker/Dockerfile "$lab_image" "$base"
# The command's build stage runs on the JupyterLab image: Go, the modules and the compiled dependencies are there.
build docker/cmd.Dockerfile "$cmd_image" "$lab_image"
for i in "$lab_image" "$cmd_image"; do buildah images --format '{{.Name}}:{{.Tag}}  {{.Size}}' "$i"; done
