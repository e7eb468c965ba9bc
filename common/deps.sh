#!/usr/bin/env bash
# Makes sure the Debian packages yieldlab builds with are present.
# Installs them when it can (root: apt-get; otherwise sudo without a
# password prompt); otherwise names the packages and the command, and fails.
set -u

need_pkgs=()
pc_missing() { ! pkg-config --exists "$1" 2>/dev/null; }

command -v pkg-config >/dev/null 2>&1 || need_pkgs+=(pkg-config)
command -v cc >/dev/null 2>&1 || need_pkgs+=(gcc)
if command -v pkg-config >/dev/null 2>&1; then
	pc_missing libevent && need_pkgs+=(libevent-dev)
	pc_missing libevent_pthreads && need_pkgs+=(libevent-dev)
	pc_missing libcrypto && need_pkgs+=(libssl-dev)
	pc_missing cmocka && need_pkgs+=(libcmocka-dev)
	# the grading runner's seccomp filter (common/grade/contain.c)
	pc_missing libseccomp && need_pkgs+=(libseccomp-dev)
else
	need_pkgs+=(libevent-dev libssl-dev libcmocka-dev libseccomp-dev)
fi
if [ "${1:-}" = "--plots" ]; then
	command -v gnuplot >/dev/null 2>&1 || need_pkgs+=(gnuplot-nox)
fi

[ ${#need_pkgs[@]} -eq 0 ] && exit 0
mapfile -t need_pkgs < <(printf '%s\n' "${need_pkgs[@]}" | sort -u)

if [ "$(id -u)" = 0 ]; then
	apt=(apt-get)
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	apt=(sudo apt-get)
else
	echo "yieldlab: missing Debian packages: ${need_pkgs[*]}" >&2
	echo "yieldlab: install them with: sudo apt-get install ${need_pkgs[*]}" >&2
	exit 1
fi

echo "yieldlab: installing ${need_pkgs[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! "${apt[@]}" install -y -qq "${need_pkgs[@]}" >&2; then
	"${apt[@]}" update -qq >&2 &&
		"${apt[@]}" install -y -qq "${need_pkgs[@]}" >&2 || {
		echo "yieldlab: could not install: ${need_pkgs[*]}" >&2
		echo "yieldlab: try: sudo apt-get update && sudo apt-get install ${need_pkgs[*]}" >&2
		exit 1
	}
fi
