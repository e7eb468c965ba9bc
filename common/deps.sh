#!/usr/bin/env bash
# Makes sure the Debian packages yieldlab builds with (common/packages.txt,
# use "build"; with --plots, use "plots") are present.
# Installs them when it can (root: apt-get; otherwise sudo without a
# password prompt); otherwise names the packages and the command, and fails.
set -u

need_pkgs=()
uses=(build)
[ "${1:-}" = "--plots" ] && uses=(plots)
here=$(dirname "$0")
if command -v dpkg-query >/dev/null 2>&1; then
	# Debian: the packages of common/packages.txt that are not installed
	# (one query for them all; one dpkg does not know is missing too).
	mapfile -t wanted < <(bash "$here/packages.sh" "${uses[@]}")
	installed=$'\n'$(dpkg-query -W -f='${Package} ${Status}\n' "${wanted[@]}" 2>/dev/null |
		awk '/ ok installed$/ { print $1 }')$'\n'
	for p in "${wanted[@]}"; do
		[[ $installed == *$'\n'"$p"$'\n'* ]] || need_pkgs+=("$p")
	done
else
	# Elsewhere: what pkg-config and the PATH can tell, by Debian name.
	pc_missing() { ! pkg-config --exists "$1" 2>/dev/null; }
	command -v cc >/dev/null 2>&1 || need_pkgs+=(build-essential)
	command -v pkg-config >/dev/null 2>&1 || need_pkgs+=(pkg-config)
	pc_missing libevent && need_pkgs+=(libevent-dev)
	pc_missing libcrypto && need_pkgs+=(libssl-dev)
	pc_missing cmocka && need_pkgs+=(libcmocka-dev)
	pc_missing libseccomp && need_pkgs+=(libseccomp-dev)
	[ "${uses[0]}" = plots ] && ! command -v gnuplot >/dev/null 2>&1 && need_pkgs+=(gnuplot-nox)
	if [ ${#need_pkgs[@]} -gt 0 ]; then
		echo "yieldlab: missing (Debian names, see common/packages.txt): ${need_pkgs[*]}" >&2
		exit 1
	fi
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
