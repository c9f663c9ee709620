#!/bin/sh
# deps.sh - install the Debian packages oxi's build and tests need
# usage: deps.sh PACKAGE...   (make deps passes the list from config.mk)
# Installs only what is missing; as non-root, prints the command instead.
missing=
for p in "$@"; do
	s=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)
	case $s in
	ii*) ;;
	*) missing="$missing $p" ;;
	esac
done
if [ -z "$missing" ]; then
	echo "deps: all packages present"
	exit 0
fi
cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing:$missing" >&2
	echo "deps: run as root: apt-get update && $cmd" >&2
	exit 100
fi
echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q && $cmd
